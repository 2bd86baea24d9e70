#!/bin/sh
# mkimage's output file (CLI.md): IMAGE appears only when complete, written
# beside it under a temporary name; an existing IMAGE needs --force; a
# failure or a signal leaves no temporary file and the old IMAGE as it was.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SQK=$SQUASHKIT
S=$TMP/src
O=$TMP/out
mkdir -p "$S/dir" "$O"
printf 'hello\n' >"$S/a.txt"
head -c 100000 /dev/urandom >"$S/dir/rnd"

# The error message for IMAGE, as CLI.md's "squashkit CMD: PATH: what" form.
msg() { echo "squashkit mkimage: $1: $2"; }

expect_success "a new IMAGE" "$SQK" mkimage -q "$S" "$O/img"
is "$(ls -A "$O")" "img" "only IMAGE is left in its directory"
cp "$O/img" "$TMP/first"

printf 'x\n' >"$S/b.txt"
expect_status 1 "an existing IMAGE without --force" "$SQK" mkimage -q "$S" "$O/img"
is "$(cat "$TMP/.err")" "$(msg "$O/img" "file exists (use --force to overwrite it)")" \
	"the refusal says to use --force"
same_file "$O/img" "$TMP/first" "a refused build leaves IMAGE untouched"
is "$(ls -A "$O")" "img" "a refused build creates no temporary file"

expect_success "--force replaces IMAGE" "$SQK" mkimage -q --force "$S" "$O/img"
cmp -s "$O/img" "$TMP/first"
[ $? -ne 0 ]
ok $? "the replaced IMAGE is the new build"
is "$(ls -A "$O")" "img" "no temporary file after --force"

mkdir "$O/d"
expect_status 1 "a directory as IMAGE, even with --force" "$SQK" mkimage -q -f "$S" "$O/d"
is "$(cat "$TMP/.err")" "$(msg "$O/d" "is a directory")" "a directory: the message"
test -d "$O/d"
ok $? "the directory stays"
rmdir "$O/d"

expect_status 1 "IMAGE in a missing directory" "$SQK" mkimage -q "$S" "$O/none/img"
is "$(cat "$TMP/.err")" \
	"$(msg "$O/none/img" "cannot create a temporary file beside it: No such file or directory")" \
	"a missing directory: the message names the temporary file's trouble"

long=$(printf '%05000d' 0)
expect_status 1 "a path longer than PATH_MAX" "$SQK" mkimage -q "$S" "$O/$long"
is "$(cat "$TMP/.err")" "$(msg "$O/$long" "path too long")" "a long path: the message"

# The mode is 0666 less the umask, as for any new file.
rm -f "$O/img"
(umask 027 && "$SQK" mkimage -q "$S" "$O/img")
is "$(stat -c %a "$O/img")" "640" "IMAGE's mode follows the umask"

# IMAGE inside a source directory is not read into itself, nor is its temporary file.
expect_success "IMAGE inside its own source" "$SQK" mkimage -q "$S" "$S/self.img"
"$SQK" ls "$S/self.img" >"$TMP/list"
is "$(cat "$TMP/list")" "$(printf 'a.txt\nb.txt\ndir')" "the image holds the sources, not itself"
expect_success "again with --force, over itself" "$SQK" mkimage -q -f "$S" "$S/self.img"
"$SQK" ls "$S/self.img" >"$TMP/list"
is "$(cat "$TMP/list")" "$(printf 'a.txt\nb.txt\ndir')" "nor the image it replaces, nor its temporary file"
rm -f "$S/self.img"

# A signal mid-build: IMAGE stays as it was and the temporary file goes.
head -c 60000000 /dev/urandom >"$S/noise"
cp "$O/img" "$TMP/before"
for sig in TERM INT HUP; do
	$SIGNALABLE "$SQK" mkimage -q -f -c xz -j 1 "$S" "$O/img" &
	pid=$!
	n=0
	while [ "$(ls -A "$O" | wc -l)" -lt 2 ] && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	ls -A "$O" | grep -q '^\.img\.'
	ok $? "SIG$sig: the build writes a temporary file beside IMAGE"
	kill -$sig $pid
	wait $pid 2>/dev/null
	st=$?
	[ $st -ne 0 ]
	ok $? "SIG$sig stops the build with a failure status ($st)"
	is "$(ls -A "$O")" "img" "SIG$sig leaves no temporary file"
	same_file "$O/img" "$TMP/before" "SIG$sig leaves the old IMAGE as it was"
done

done_testing
