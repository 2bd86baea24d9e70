#!/bin/sh
# api-build-later.t: a build reads a file's read callback when it writes
# the image, as build.h says, not when the file is added; the bytes of
# sqk_build_add_file_data are copied at the add; a failing callback fails
# sqk_build_finish(), which names the entry; the directories a build makes
# for a path's parents take the build's time (the newest entry's), as a
# root no source describes does (tests/api/api-build-later.c, against the
# installed library; the image read by the kernel, or unsquashfs).
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-build-later.c"
api_run api-build-later "$TMP/img" "$TMP/failed.img" >"$TMP/out" 2>"$TMP/err"
ok $? "api-build-later builds"
sed 's/^/#   /' "$TMP/err"

is "$(sed -n 's/^calls during add //p' "$TMP/out")" 0 "the read callback is not called by the add"
calls=$(sed -n 's/^total calls //p' "$TMP/out")
test "${calls:-0}" -gt 0
ok $? "it is called by sqk_build_finish ($calls calls)"
case $(sed -n 's/^finish-failed //p' "$TMP/out") in
"-2 "*dir/broken*) ok 0 "a failing callback fails the finish, naming the entry" ;;
*)
	ok 1 "a failing callback fails the finish, naming the entry"
	grep '^finish-failed' "$TMP/out" | sed 's/^/#   /'
	;;
esac
test ! -e "$TMP/failed.img"
ok $? "and leaves no image"

# The image as a reader other than this library has it.
if [ "$(id -u)" = 0 ] && [ -z "${SQK_NO_MOUNT:-}" ]; then
	scratch_mount
	mount -t squashfs -o loop,ro "$TMP/img" "$MNT" || echo "Bail out! the kernel does not mount it"
	root=$MNT
else
	need_cmd unsquashfs
	unsquashfs -d "$TMP/x" "$TMP/img" >/dev/null
	root=$TMP/x
fi
is "$(head -c 3 "$root/a/b/fn")$(wc -c <"$root/a/b/fn")" "BBB100000" \
	"the callback's file holds what the callback gave at the finish"
is "$(head -c 3 "$root/a/b/data")" "DDD" "the data added holds what the buffer held at the add"
is "$(stat -c %Y "$root/a" "$root/a/b" | sort -u)" 1700000000 \
	"the parents the build made have the build's time, the newest entry's"
is "$(stat -c %Y "$root")" 1700000000 "as has the root no source described"
is "$(stat -c '%a %u %g' "$root/a" "$root/a/b" | sort -u)" "755 0 0" "0755, root's"
[ "$root" = "$MNT" ] && umount "$MNT"

done_testing
