#!/bin/sh
# threads.t: 16 threads read random ranges of an image's files through the
# installed library's public API, through one open inode per file and the
# shared caches, while another thread walks the tree; every range holds the
# source tree's bytes. make check-tsan runs it under ThreadSanitizer too.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

ref_tree "$TMP/tree"
mksquashfs "$TMP/tree" "$TMP/img" -noappend -quiet -no-progress -b 4K >/dev/null 2>&1
ok $? "mksquashfs packs the reference tree with 4K blocks"

api_cc "$SQK_SRCDIR/tests/api/api-threads.c"
api_run api-threads "$TMP/img" "$TMP/tree" >"$TMP/out" 2>"$TMP/err"
ok $? "16 readers and a walker agree with the source tree"
sed 's/^/#   /' "$TMP/out" "$TMP/err" | head -20

# The check can fail: the middle byte of every file of more than a block,
# changed in the source tree, is one the image does not hold.
cp -a "$TMP/tree" "$TMP/changed"
find "$TMP/changed" -type f -size +4k -links 1 | while IFS= read -r f; do
	size=$(stat -c %s "$f")
	printf '\377' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
done
api_run api-threads "$TMP/img" "$TMP/changed" >/dev/null 2>"$TMP/err"
is $? 1 "a source byte the image does not hold is found"

done_testing
