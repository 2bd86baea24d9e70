#!/bin/sh
# api-front.t: the public calls the front ends use where they took the
# library's insides before (tests/api/api-front.c, against the installed
# library): type names by mode, the entry counts of the lookup tables
# against what unsquashfs -s says of the same image, the cache settings
# as text (taken, and each cache then has the entries asked for; refused
# with the words a usage line gives), and the failed build step as a value
# that matches its name.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
need_cmd unsquashfs
need_cmd setfattr
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-front.c"

# The words and keys the header promises, for each type and for none.
api_run api-front types >"$TMP/out" 2>"$TMP/err"
ok $? "the type names"
is "$(tr '\n' ' ' <"$TMP/out")" "directory|directory file|file symlink|symlink \
block device|block_device char device|char_device fifo|fifo socket|socket unknown|unknown " \
	"each type in words and as a key; a mode of no type is unknown"

# Lookup tables, against the peer's count of the same image.
mkdir -p "$TMP/src/d"
for i in 1 2 3 4 5; do printf 'tail %s\n' "$i" >"$TMP/src/f$i"; done
setfattr -n user.one -v 1 "$TMP/src/f1" 2>/dev/null &&
	setfattr -n user.two -v 2 "$TMP/src/f2" 2>/dev/null ||
	echo "# this file system takes no user xattrs: the count is 0 on both sides"
mksquashfs "$TMP/src" "$TMP/img" -noappend -quiet -no-progress -xattrs >/dev/null 2>&1
ok $? "mksquashfs packs a tree with xattrs"
api_run api-front tables "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "the tables of the image"
unsquashfs -s "$TMP/img" >"$TMP/peer" 2>&1
peer() { sed -n "s/^Number of $1 \([0-9]*\)$/\1/p" "$TMP/peer"; }
is "$(sed -n 's/^fragments //p' "$TMP/out")" "$(peer fragments)" "fragments: as unsquashfs -s counts them"
is "$(sed -n 's/^ids //p' "$TMP/out")" "$(peer ids)" "ids: as unsquashfs -s counts them"
is "$(sed -n 's/^xattr_ids //p' "$TMP/out")" "$(peer 'xattr ids')" "xattr ids: as unsquashfs -s counts them"
is "$(sed -n 's/^export //p' "$TMP/out")" "$(peer inodes)" "the export table: one entry an inode"
is "$(sed -n 's/^inode table: //p' "$TMP/out")" refused "the inode table has no entry count"

mksquashfs "$TMP/src" "$TMP/bare" -noappend -quiet -no-progress -no-xattrs -no-exports \
	>/dev/null 2>&1
api_run api-front tables "$TMP/bare" >"$TMP/out" 2>"$TMP/err"
is "$(sed -n 's/^xattr_ids //p; s/^export //p' "$TMP/out" | tr '\n' ' ')" "none none " \
	"an image without xattrs or an export table: no such table"

# The caches as asked, by text.
api_run api-front cache "$TMP/img" meta=5,frag=2,data=3,comp=7 herd >"$TMP/out" 2>"$TMP/err"
ok $? "an image opened with cache sizes given as text"
is "$(tr '\n' ' ' <"$TMP/out")" "metadata 5 fragment 2 data 3 compressed 7 " \
	"each cache has the entries asked for"
api_run api-front cache "$TMP/img" frag=4 keyed >"$TMP/out" 2>"$TMP/err"
is "$(sed -n 's/^fragment //p; s/^compressed //p' "$TMP/out" | tr '\n' ' ')" "4 none " \
	"a subset changes only what it names; no compressed-block cache unless asked"
for bad in "meta=0" "meta=x" "frag" "data=65537" "blocks=3" "meta=1,,frag=2x"; do
	api_run api-front cache "$TMP/img" "$bad" keyed >"$TMP/out" 2>"$TMP/err"
	is "$(cat "$TMP/out")" "refused SQK_ERR_ARG: invalid cache sizes '$bad'" \
		"cache sizes '$bad' are refused in a usage line's words"
done
api_run api-front cache "$TMP/img" meta=2 polite >"$TMP/out" 2>"$TMP/err"
is "$(cat "$TMP/out")" "refused SQK_ERR_ARG: unknown cache policy 'polite'" \
	"an unknown policy is refused in a usage line's words"

# A failed build's step, as a name and as the value of the same step.
api_run api-front step "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "builds that fail, and one that does not"
grep -q "^exists: err -[0-9]* step 'output' id 5$" "$TMP/out"
ok $? "an existing output without force: step output, SQK_STEP_OUTPUT"
grep -q "^append: err -[0-9]* step 'append-open' id 10$" "$TMP/out"
ok $? "an append to nothing: step append-open, SQK_STEP_APPEND_OPEN"
grep -q "^created: err 0 step '' id 0$" "$TMP/out"
ok $? "a build created: no step, SQK_STEP_NONE"
sed 's/^/#   /' "$TMP/out"

done_testing
