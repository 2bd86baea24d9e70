#!/bin/sh
# A writer killed outright (SIGKILL) leaves its temporary file
# ".NAME.squashkit-XXXXXX" beside NAME; the next mkimage (or unimage -o)
# writing the same NAME removes it and says so, one line naming it. A
# temporary file whose writer is alive (here stopped, holding its lock) is
# never touched, nor a file of another name. The killing and stopping are
# the fault library's, at a chosen write.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

FAULT=$SQK_TOOLS/libfault.so
[ -f "$FAULT" ] || skip_all "$FAULT is not built"
asan=$(ldd "$SQUASHKIT" | awk '/libasan/ { print $3 }')
SQK=$SQUASHKIT
S=$TMP/src
O=$TMP/out
mkdir -p "$S/dir" "$O"
printf 'hello\n' >"$S/a.txt"
head -c 300000 /dev/urandom >"$S/dir/rnd"
"$SQK" mkimage -q "$S" "$TMP/ref.img" || {
	echo "Bail out! the reference image cannot be built"
	exit 1
}

# faulty SPEC CMD...: CMD under the fault library, SPEC its fault.
faulty() {
	_spec=$1
	shift
	env --default-signal=INT SQK_FAULT="$_spec" LD_PRELOAD="${asan:+$asan }$FAULT" "$@"
}

# temps NAME: the temporary files of NAME in $O, one a line.
temps() {
	(cd "$O" && for f in ."$1".squashkit-??????; do [ -e "$f" ] && echo "$O/$f"; done)
}

# stopped PID: wait (bounded) until PID is stopped; true when it is.
stopped() {
	_n=0
	while [ $_n -lt 200 ]; do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

line() { echo "squashkit $1: $2: $3"; }

# --- a live writer: stopped at its third write, holding its temporary file's lock
env --default-signal=INT SQK_FAULT=write:3:SIGSTOP LD_PRELOAD="${asan:+$asan }$FAULT" \
	"$SQK" mkimage -q -b 4K "$S" "$O/img" >/dev/null 2>&1 &
live_pid=$!
at_exit "kill -KILL $live_pid 2>/dev/null"
stopped $live_pid
ok $? "a writer is stopped while writing"
live=$(temps img)
is "$(echo "$live" | grep -c .)" 1 "it has its temporary file"

# --- mkimage killed outright
faulty write:3:SIGKILL "$SQK" mkimage -q -b 4K "$S" "$O/img" 2>/dev/null
is "$?" 137 "mkimage killed by SIGKILL at its third write"
dead=$(temps img | grep -v -x -F "$live")
is "$(echo "$dead" | grep -c .)" 1 "it leaves one temporary file behind"
test -e "$live"
ok $? "and left the live writer's alone"
printf 'keep\n' >"$O/.img.notours"

expect_success "the next mkimage of the same IMAGE" "$SQK" mkimage -q "$S" "$O/img"
is "$(cat "$TMP/.err")" \
	"$(line mkimage "$dead" "warning: removed a stale temporary file (its writer is gone)")" \
	"one line names the stale temporary file it removed"
test ! -e "$dead"
ok $? "the stale temporary file is gone"
test -e "$live"
ok $? "the live writer's temporary file stays"
test -e "$O/.img.notours"
ok $? "a file of another name stays"
same_file "$O/img" "$TMP/ref.img" "the image is built as ever"

# The live writer dies outright too: its file is stale now.
kill -KILL $live_pid
wait $live_pid 2>/dev/null
test -e "$live"
ok $? "a writer killed outright leaves its temporary file"
expect_success "mkimage --force of the same IMAGE" "$SQK" mkimage -q --force "$S" "$O/img"
is "$(cat "$TMP/.err")" \
	"$(line mkimage "$live" "warning: removed a stale temporary file (its writer is gone)")" \
	"one line names it"
is "$(ls -A "$O")" "$(printf '.img.notours\nimg')" "only the image and the other file are left"
rm -f "$O/.img.notours"

# A stale file is said once: the next build finds nothing to say.
expect_success "another build" "$SQK" mkimage -q --force "$S" "$O/img"
is "$(cat "$TMP/.err")" "" "nothing to say when nothing is stale"

# --- unimage -o killed outright
faulty write:2:SIGKILL "$SQK" unimage -q -o "$O/a.tar" "$TMP/ref.img" 2>/dev/null
is "$?" 137 "unimage -o killed by SIGKILL at its second write"
dead=$(temps a.tar)
is "$(echo "$dead" | grep -c .)" 1 "it leaves one temporary file behind"
expect_success "the next unimage -o of the same FILE" "$SQK" unimage -q -o "$O/a.tar" "$TMP/ref.img"
is "$(cat "$TMP/.err")" \
	"$(line unimage "$dead" "removed a stale temporary file (its writer is gone)")" \
	"one line names it"
test ! -e "$dead"
ok $? "it is gone"

done_testing
