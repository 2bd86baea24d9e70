#!/bin/sh
# api-survey.t: sqk_image_superblock, sqk_superblock_flag and the survey
# (tests/api/api-survey.c, against the installed library) on images
# mksquashfs builds from a tree made here: the inodes by type, hard links,
# file bytes, sparse and dedup blocks are the tree's; an image without an
# export table or xattrs says so; a damaged table makes the survey fail,
# saying which table.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs setfattr
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-survey.c"

# Two directories, four regular files (one twice, by a hard link), a file
# whose second block is zeros, a symlink, two devices and a fifo.
S=$TMP/src
mkdir -p "$S/d"
head -c 10000 /dev/urandom >"$S/f"
cp "$S/f" "$S/d/copy"
ln "$S/f" "$S/hard"
{
	head -c 4096 /dev/urandom
	head -c 4096 /dev/zero
	head -c 100 /dev/urandom
} >"$S/sparse"
printf 'small\n' >"$S/d/small"
setfattr -n user.note -v here "$S/d/small"
ln -s f "$S/l"
mknod "$S/c" c 1 3
mknod "$S/b" b 7 0
mkfifo "$S/p"
bytes=$(find "$S" -type f -printf '%i %s\n' | sort -u | awk '{ n += $2 } END { print n }')

mksquashfs "$S" "$TMP/img" -b 4096 -tailends -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the tree"
api_run api-survey "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "api-survey surveys it and its checks hold"
sed 's/^/#   /' "$TMP/err"
is "$(grep '^types ' "$TMP/out")" \
	"types directories 2 files 4 symlinks 1 block_devices 1 char_devices 1 fifos 1 sockets 0" \
	"inodes by type: the tree's, the hard link counted once"
is "$(grep '^inodes ' "$TMP/out")" "inodes 10 hard_links 1 file_bytes $bytes" \
	"every inode once, one hard link, the files' bytes"
is "$(grep '^sparse ' "$TMP/out")" "sparse 1 blocks 4096 bytes" "the block of zeros is a hole"
is "$(grep '^dedup ' "$TMP/out")" "dedup 2 blocks 8192 bytes 1 tails" \
	"the copy's two blocks and its tail are the first file's"
is "$(grep '^xattrs ' "$TMP/out")" "xattrs 1 ids 1" "one xattr set"
grep -q '^table export blocks 1$' "$TMP/out" && grep -q ' exportable' "$TMP/out"
ok $? "the export table is there, and the exportable flag"

mksquashfs "$S" "$TMP/plain" -noappend -quiet -no-progress -no-exports -no-xattrs >/dev/null 2>&1
api_run api-survey "$TMP/plain" >"$TMP/out" 2>"$TMP/err"
ok $? "an image without exports and xattrs surveys"
sed 's/^/#   /' "$TMP/err"
grep -q '^table export absent$' "$TMP/out" && grep -q '^table xattr absent$' "$TMP/out" &&
	grep -q '^xattrs 0 ids 0$' "$TMP/out" && ! grep -q ' exportable' "$TMP/out" &&
	grep -q ' no_xattrs' "$TMP/out"
ok $? "no export table, no xattr table, and the flags say so"

# The export table's metadata block (nothing reads it at open) claims more
# bytes than the image holds.
list=$(od -An -tu8 -j 88 -N 8 "$TMP/img" | tr -d ' ')
first=$(od -An -tu8 -j "$list" -N 8 "$TMP/img" | tr -d ' ')
printf '\377\177' | dd of="$TMP/img" bs=1 seek="$first" conv=notrunc 2>/dev/null
api_run api-survey --fail "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "a damaged export table: the image opens, the survey fails"
sed 's/^/#   /' "$TMP/err"
case $(cat "$TMP/out") in
"failed at export table: export table: "*) true ;;
*) false ;;
esac
ok $? "it says which table: $(cat "$TMP/out")"

done_testing
