#!/bin/sh
# api-build-fd.t: an image built through a descriptor
# (sqk_build_create_fd), as mkimage writes IMAGE '-' to a file; the
# progress callback (sqk_build_opts_progress: every byte of file data
# placed, never going back) and the warning callback (sqk_build_opts_warn:
# a pseudo definition left out under "pseudo-warn", as mkimage says it; a
# time before 1970 clamped).
# The image is mkimage's to the byte, and the kernel and unsquashfs read
# the source's tree in it.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd unsquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest

api_cc "$SQK_SRCDIR/tests/api/api-build-fd.c"

S=$TMP/src
mkdir -p "$S/a"
seq 1 50000 >"$S/a/big"
head -c 300000 /dev/urandom >"$S/a/random"
printf 'hello\n' >"$S/plain"
ln -s a/big "$S/link"
find "$S" -exec touch -h -d @1600000000 {} +
bytes=$(find "$S" -type f -exec cat {} + | wc -c)
files=$(find "$S" -type f | wc -l)

api_run api-build-fd "$TMP/api.img" "$S" >"$TMP/out" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "the API builds through a descriptor"
grep -q "^calls [1-9][0-9]* done $bytes total $bytes\$" "$TMP/out"
ok $? "progress: the last call has every byte of file data placed ($bytes)"
sed 's/^/#   /' "$TMP/out"
grep -qx "monotonic 1" "$TMP/out"
ok $? "progress: done never goes back nor past the total"
is "$(grep '^built' "$TMP/out")" "built $files files" "the build counts every file"
inodes=$(find "$S" | wc -l)
grep -q "^read back: $inodes inodes, [1-9]" "$TMP/out"
ok $? "the reader opens the image by the same descriptor: $inodes inodes"

"$SQUASHKIT" mkimage -q --pseudo-warn --pseudo 'plain f 644 0 0 echo new' "$S" - \
	>"$TMP/mk.img" 2>"$TMP/mk.err"
ok $? "mkimage writes the same build to standard output"
cmp "$TMP/api.img" "$TMP/mk.img" >"$TMP/cmp" 2>&1
ok $? "the same bytes"
sed 's/^/#   /' "$TMP/cmp" | head -3
is "$(sed -n 's/^warn //p' "$TMP/out")" \
	"$(sed -n "s/^squashkit mkimage: \(.*\): warning: /\1: /p" "$TMP/mk.err")" \
	"the warning callback hears what mkimage warns of, in its words"
grep -q "^warn --pseudo 'plain f 644 0 0 echo new': /plain is already in a source" "$TMP/out"
ok $? "the warning names the definition and why"

# A time before 1970, which the format cannot hold: clamped, and the
# callback hears it once, with the path.
mkdir -p "$TMP/s2"
printf 'hello\n' >"$TMP/s2/plain"
: >"$TMP/s2/old"
if touch -d '1960-01-01 00:00:00 UTC' "$TMP/s2/old" 2>/dev/null &&
	[ "$(stat -c %Y "$TMP/s2/old")" -lt 0 ]; then
	api_run api-build-fd "$TMP/api2.img" "$TMP/s2" >"$TMP/out2" 2>"$TMP/err"
	grep -c '^warn /old: its time (before 1970) is outside what the format holds' \
		"$TMP/out2" | grep -qx 1
	ok $? "a time before 1970: the warning callback hears it once, naming the entry"
else
	skip "this file system keeps no time before 1970"
fi

rm -rf "$TMP/unsq"
unsquashfs -no-progress -d "$TMP/unsq" "$TMP/api.img" >/dev/null 2>&1
mount -t squashfs -o loop,ro "$TMP/api.img" "$MNT" 2>/dev/null &&
	"$M" --no-holes "$MNT" >"$TMP/kernel.man" 2>&1
umount "$MNT" 2>/dev/null
"$M" --no-holes "$S" >"$TMP/src.man"
same_file "$TMP/src.man" "$TMP/kernel.man" "the kernel reads the source's tree"
"$M" --no-holes "$TMP/unsq" >"$TMP/unsq.man"
sed -i 's/ symlink mode=[0-7]*/ symlink/' "$TMP/src.man" "$TMP/unsq.man"
same_file "$TMP/src.man" "$TMP/unsq.man" "so does unsquashfs"

done_testing
