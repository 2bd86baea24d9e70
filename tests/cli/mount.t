#!/bin/sh
# squashkit mount and umount on the command line: every bad value and missing
# operand is a usage error (exit 2, a line and the hint), and what cannot be
# mounted or unmounted fails with exit 1 and one line naming the path. None of
# this mounts anything; tests/interop/mount.t does (as root).
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

sqk() {
	timeout 30 "$SQUASHKIT" "$@"
}

# usage DESC ARGS...: exit 2, the hint on the last line, nothing mounted.
usage() {
	desc=$1
	shift
	expect_status 2 "$desc" sqk "$@"
	is "$(tail -1 "$TMP/.err")" "Try 'squashkit $1 --help'." "$desc: the hint"
}

"$SQUASHKIT" mkimage -q "$SQK_SRCDIR/man" "$TMP/man.img" >/dev/null 2>&1
mkdir "$TMP/mnt"

usage "mount without operands" mount
usage "mount without a mount point" mount "$TMP/man.img"
usage "mount with an extra operand" mount "$TMP/man.img" "$TMP/mnt" extra
usage "an unknown option" mount --bogus "$TMP/man.img" "$TMP/mnt"
usage "-j 0" mount -j 0 "$TMP/man.img" "$TMP/mnt"
usage "-j x" mount -j x "$TMP/man.img" "$TMP/mnt"
usage "--offset -1" mount --offset -1 "$TMP/man.img" "$TMP/mnt"
usage "--offset 12Q" mount --offset 12Q "$TMP/man.img" "$TMP/mnt"
usage "--cache-policy lazy" mount --cache-policy lazy "$TMP/man.img" "$TMP/mnt"
usage "--cache meta=0" mount --cache meta=0 "$TMP/man.img" "$TMP/mnt"
usage "--cache size=4" mount --cache size=4 "$TMP/man.img" "$TMP/mnt"
usage "--decomp many" mount --decomp many "$TMP/man.img" "$TMP/mnt"
usage "umount without operands" umount
usage "umount with two operands" umount "$TMP/mnt" "$TMP/mnt"
usage "umount with an unknown option" umount --force "$TMP/mnt"

expect_status 0 "mount --help" sqk mount --help
grep -q '^Usage: squashkit mount ' "$TMP/.out"
ok $? "mount --help prints the usage"
expect_status 0 "umount --help" sqk umount --help
grep -q '^Usage: squashkit umount ' "$TMP/.out"
ok $? "umount --help prints the usage"

# fails DESC PATTERN ARGS...: exit 1, one line "squashkit CMD: ..." matching PATTERN.
fails() {
	desc=$1
	pattern=$2
	shift 2
	expect_status 1 "$desc" sqk "$@"
	if [ "$(wc -l <"$TMP/.err" | tr -d ' ')" = 1 ] &&
		grep -Eq "^squashkit $1: .*($pattern)" "$TMP/.err"; then
		ok 0 "$desc: one line that says why"
	else
		ok 1 "$desc: one line that says why"
		sed 's/^/#   /' "$TMP/.err"
	fi
}

fails "a missing image" "No such file" mount "$TMP/none.img" "$TMP/mnt"
fails "not an image" "not a squashfs image" mount "$SQK_SRCDIR/README.md" "$TMP/mnt"
fails "a missing mount point" "No such file" mount "$TMP/man.img" "$TMP/none"
fails "a mount point that is a file" "not a directory" mount "$TMP/man.img" "$TMP/man.img"
fails "--offset past the end" "past the end" mount --offset 1M "$TMP/man.img" "$TMP/mnt"
fails "--offset auto without an image" "no SquashFS image" mount --offset auto \
	"$SQK_SRCDIR/README.md" "$TMP/mnt"
fails "umount of a plain directory" "not a squashkit mount point" umount "$TMP/mnt"
expect_status 1 "umount of a missing directory" sqk umount "$TMP/none/deeper"
is "$(cat "$TMP/.err")" "squashkit umount: $TMP/none/deeper: No such file or directory" \
	"umount of a missing directory: the errno's words"
(cd "$TMP" && sqk umount nomnt) 2>"$TMP/.err"
is "$(cat "$TMP/.err")" "squashkit umount: nomnt: No such file or directory" \
	"umount of a missing relative path: the errno's words, the path as given"
: >"$TMP/plain"
expect_status 1 "umount of a path through a file" sqk umount "$TMP/plain/x"
is "$(cat "$TMP/.err")" "squashkit umount: $TMP/plain/x: Not a directory" \
	"umount of a path through a file: ENOTDIR"
fails "umount of a plain file" "not a squashkit mount point" umount "$TMP/plain"

done_testing
