#!/bin/sh
# errors.t: a full disk and a closed pipe are told as they are, naming the
# operand at fault, and leave nothing behind.
#
# A 1 MB tmpfs takes a part of a 3 MB image: unimage -d and -o, and the
# unsquashfs front end (with and without -f), say "PATH: No space left on
# device" with the path of the destination (not the image's), exit 1, and
# leave nothing but what the front end keeps (whole files, as unsquashfs).
# unimage -o - into a pipe whose reader goes away says "stdout: Broken
# pipe", exit 1. --keep-going with --describe is a usage error.
. "$SQK_SRCDIR/tests/lib.sh"

need_root
mkdir "$TMP/src"
i=0
while [ $i -lt 30 ]; do
	head -c 100000 /dev/urandom >"$TMP/src/f$i"
	i=$((i + 1))
done
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}

full=$TMP/full
mkdir "$full"
if ! mount -t tmpfs -o size=1M tmpfs "$full" 2>/dev/null; then
	skip_all "cannot mount a tmpfs"
fi
at_exit "umount '$full'"

# one_line FILE PATTERN DESC: FILE holds one line, and it matches PATTERN (grep -E).
one_line() {
	if [ "$(wc -l <"$1")" -eq 1 ] && grep -qE "$2" "$1"; then ok 0 "$3"; else
		ok 1 "$3"
		sed 's/^/#   /' "$1" | head -5
	fi
}

expect_status 1 "unimage -d onto a full disk fails" "$SQUASHKIT" unimage -q -d "$full/x" "$TMP/img"
one_line "$TMP/.err" "^squashkit unimage: $full/x/f[0-9]+: No space left on device\$" \
	"it names the file of the destination, and ENOSPC"
is "$(ls -A "$full")" "" "and leaves nothing"

expect_status 1 "unimage -o onto a full disk fails" "$SQUASHKIT" unimage -q -o "$full/t.tar" "$TMP/img"
one_line "$TMP/.err" "^squashkit unimage: $full/t.tar: No space left on device\$" \
	"it names the archive, and ENOSPC"
is "$(ls -A "$full")" "" "and leaves no archive and no temporary file"

expect_status 1 "unsquashfs (squashkit) onto a full disk fails" \
	"$SQUASHKIT" unsquashfs -n -d "$full/u" "$TMP/img"
one_line "$TMP/.err" "^squashkit unsquashfs: $full/u/f[0-9]+: No space left on device\$" \
	"it names the file of the destination, and ENOSPC"
bad=0
for f in "$full"/u/*; do
	[ -e "$f" ] || continue
	cmp -s "$f" "$TMP/src/${f##*/}" || bad=$((bad + 1))
done
is $bad 0 "what it leaves, as unsquashfs does, is whole"
rm -rf "$full/u"

expect_status 1 "unsquashfs -f (squashkit) onto a full disk fails" \
	"$SQUASHKIT" unsquashfs -n -f -d "$full/u" "$TMP/img"
one_line "$TMP/.err" "^squashkit unsquashfs: $full/u/f[0-9]+: No space left on device\$" \
	"it says so, not 'No such file or directory'"
rm -rf "$full/u"

# A reader that goes away: the status of unimage through a pipe.
{
	"$SQUASHKIT" unimage -q -o - "$TMP/img" 2>"$TMP/pipe.err"
	echo $? >"$TMP/pipe.st"
} | head -c 10 >/dev/null
is "$(cat "$TMP/pipe.st")" 1 "unimage -o - into a closed pipe exits 1"
one_line "$TMP/pipe.err" "^squashkit unimage: stdout: Broken pipe\$" "and says the pipe broke"

expect_status 2 "--keep-going with --describe is a usage error" \
	"$SQUASHKIT" unimage -k --describe "$TMP/img"
grep -q "^Try 'squashkit unimage --help'.\$" "$TMP/.err"
ok $? "with the hint"

done_testing
