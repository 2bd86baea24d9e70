#!/bin/sh
# A closed pipe on stdout: every native command that writes there says so in
# exactly one line, `squashkit CMD: stdout: Broken pipe`, and fails (1; diff
# 2, fsck 8), never dying of SIGPIPE, however many writes and flushes find
# the pipe gone (cat of two files, a JSON document, a listing, --help). The
# compatibility front end dies of SIGPIPE silently, as unsquashfs does;
# with SIGPIPE ignored it says one line too.
#
# The pipe is a FIFO whose reader is closed before the command starts, so
# that the first write fails, whatever the timing.
. "$SQK_SRCDIR/tests/lib.sh"

env --default-signal=PIPE true 2>/dev/null && env --ignore-signal=PIPE true 2>/dev/null ||
	skip_all "env cannot set SIGPIPE's disposition (coreutils 9 needed)"

mkdir -p "$TMP/src/d" "$TMP/empty"
seq 1 100000 >"$TMP/src/f"
echo g >"$TMP/src/d/g"
ln -s f "$TMP/src/l"
img=$TMP/img.sq
"$SQUASHKIT" mkimage -q "$TMP/src" "$img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}
bad=$TMP/bad.sq
cp "$img" "$bad"
smash_block "$bad" data /f || {
	echo "Bail out! cannot damage the image"
	exit 1
}

# closed DISPOSITION CMD...: CMD (SIGPIPE at DISPOSITION: default or
# ignore) with stdout on a pipe nobody reads; its status in $rc, its
# stderr in $TMP/err.
closed() {
	_disp=$1
	shift
	rm -f "$TMP/fifo"
	mkfifo "$TMP/fifo"
	# Read-write first, so that opening the write end does not wait; then
	# the only reader goes.
	exec 4<>"$TMP/fifo" 5>"$TMP/fifo"
	exec 4<&-
	if [ "$_disp" = default ]; then
		env --default-signal=PIPE "$@" >&5 2>"$TMP/err"
	else
		env --ignore-signal=PIPE "$@" >&5 2>"$TMP/err"
	fi
	rc=$?
	exec 5>&-
}

# told DESC TEST WANT: the last closed run's status passes TEST ("-eq 1",
# "-ne 0") and its stderr is exactly WANT ("" for nothing).
told() {
	if [ "$rc" $2 ] && [ "$(cat "$TMP/err")" = "$3" ]; then ok 0 "$1"; else
		ok 1 "$1"
		echo "#   exit $rc"
		sed 's/^/#   stderr: /' "$TMP/err" | head -5
	fi
}

# one_line CMD WANT_STATUS ARGS...: one line naming stdout, and the status.
one_line() {
	_cmd=$1
	_want=$2
	shift 2
	closed default "$SQUASHKIT" "$@"
	told "$(echo "$*" | sed "s|$TMP/||g") into a closed pipe: one line, exit $_want" \
		"-eq $_want" "squashkit $_cmd: stdout: Broken pipe"
}

one_line cat 1 cat "$img" f
one_line cat 1 cat "$img" f d/g
one_line cat 1 cat "$img" l
one_line ls 1 ls "$img"
one_line ls 1 ls -lR "$img"
one_line ls 1 ls -lR --json "$img"
one_line stat 1 stat "$img" f
one_line stat 1 stat --json "$img" f
one_line inspect 1 inspect "$img"
one_line inspect 1 inspect --json "$img"
one_line diff 2 diff "$img" "$TMP/empty"
one_line diff 2 diff --json "$img" "$TMP/empty"
one_line diff 2 diff --stat "$img" "$TMP/empty"
one_line unimage 1 unimage -q -o - "$img"
one_line unimage 1 unimage -q --describe "$img"
one_line unimage 1 unimage -q --stats -d "$TMP/out" "$img"
rm -rf "$TMP/out"
one_line mkimage 1 mkimage -q "$TMP/src" -
one_line mkimage 1 mkimage -q --stats "$TMP/src" "$TMP/stats.sq"
one_line fsck 8 fsck -q --json "$img"
one_line fsck 8 fsck "$img"
one_line fsck 12 fsck -q --json "$bad"
one_line bench 1 bench -q -w stat -t 1 -p keyed -d 20ms -r 1 "$img"
one_line cat 1 cat --help
one_line mkimage 1 mkimage --help

# A pseudo file's command runs with SIGPIPE as a shell has it, though
# mkimage ignores it: `yes | head` ends quietly.
"$SQUASHKIT" mkimage -q --pseudo 'y f 644 0 0 yes | head -c 4' "$TMP/src" "$TMP/y.sq" \
	2>"$TMP/err"
ok $? "mkimage with a pseudo command 'yes | head -c 4'"
is "$(cat "$TMP/err")" "" "the command's yes dies of SIGPIPE quietly, as in a shell"
is "$("$SQUASHKIT" cat "$TMP/y.sq" y)" "$(printf 'y\ny\n')" "and its output is the file"

# The top level's own output: "squashkit: stdout: ...".
for opt in --help --version; do
	closed default "$SQUASHKIT" $opt
	told "squashkit $opt into a closed pipe: one line, exit 1" "-eq 1" \
		"squashkit: stdout: Broken pipe"
done

# The unsquashfs front end: killed by SIGPIPE without a word, as the peer.
if command -v unsquashfs >/dev/null 2>&1; then
	closed default unsquashfs -l "$img"
	is "$rc" 141 "the peer: unsquashfs -l into a closed pipe dies of SIGPIPE"
else
	skip "unsquashfs (squashfs-tools) is not installed"
fi
for a in "-l" "-lls" "-s" "-cat"; do
	set -- "$a" "$img"
	[ "$a" = -cat ] && set -- "$@" f
	closed default "$SQUASHKIT" unsquashfs "$@"
	told "unsquashfs $a (squashkit): dies of SIGPIPE, silent, as the peer" "-eq 141" ""
	closed ignore "$SQUASHKIT" unsquashfs "$@"
	told "unsquashfs $a (squashkit), SIGPIPE ignored: one line, an error status" "-ne 0" \
		"squashkit unsquashfs: stdout: Broken pipe"
done

done_testing
