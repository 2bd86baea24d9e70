#!/bin/sh
# format-facts.t: the facts of the on-disk format listed below are written
# once, in core/format/, and nowhere else in the library or the front
# ends: the block size word's bits, the directory size's 3 extra bytes,
# inode type numbers and the names of the types, the id limit. Each fact
# is an extended regular expression over core/ cmd/ compressors/ outside
# core/format/; a line that matches is the fact written a second time.
. "$SQK_SRCDIR/tests/lib.sh"

cd "$SQK_SRCDIR" || {
	echo "Bail out! no source tree at $SQK_SRCDIR"
	exit 1
}

# NAME<TAB>PATTERN, one fact a line.
tab=$(printf '\t')
cat >"$TMP/facts" <<'FACTS'
block word bits	SQK_BLOCK_(SIZE_MASK|UNCOMPRESSED)|SQK_META_(SIZE_MASK|UNCOMPRESSED)|\b0x0?1000000u?\b|\b0x0?ffffffu?\b
directory size + 3	(size|listing)[a-z_]*\)? *[-+] *3\b
inode type numbers	\btype\)? *(>=|<=|>|<|==|!=) *([1-9]|1[0-4])\b|\b(type|names|bits)[a-z_]*\[(7|8|15)\]
type names	"(block|char)[ _]devices?"|S_IFDIR, *S_IFREG
limits	SQK_MAX_IDS|\b6553[56]u?\b.*\b(ids?|id_count)\b
FACTS

# The lines of C sources and headers under $2 (not the codec's) that match
# $1 in their code: comments (a /* ... */ on the line, a line of a block
# comment) are left out first.
scan() {
	grep -rnE --include='*.[ch]' "$1" $2 2>/dev/null | grep -v "^core/format/" |
		sed -E 's#/\*.*\*/##g; s#/\*.*##; s#//.*##; s#^([^:]*:[0-9]+:)[[:space:]]*\*.*#\1#' |
		grep -E "^[^:]*:[0-9]+:.*($1)"
}

while IFS="$tab" read -r name pattern; do
	scan "$pattern" "core cmd compressors" >"$TMP/hits"
	test ! -s "$TMP/hits"
	ok $? "$name: only in core/format"
	sed 's/^/#   /' "$TMP/hits" | head -20
done <"$TMP/facts"

# The patterns can see a breach: each catches a line that writes its fact again.
mkdir -p "$TMP/tree/core/read" "$TMP/tree/core/format"
cat >"$TMP/tree/core/read/bad.c" <<'BAD'
	uint32_t size = word & SQK_BLOCK_SIZE_MASK; /* a comment does not hide it */
	st->st_size = (off_t)(ino->size + 3);
	return ino->type >= 8;
	static const char *names[8] = {"unknown", "directory", "file", "symlink", "block device"};
#define SQK_MAX_IDS 65535u
BAD
cp "$TMP/tree/core/read/bad.c" "$TMP/tree/core/format/good.c"
printf '/* the listing size + 3, SQK_MAX_IDS, "block device" */\n * type >= 8\n' >"$TMP/tree/core/read/words.c"
while IFS="$tab" read -r name pattern; do
	(cd "$TMP/tree" && scan "$pattern" core) >"$TMP/hits"
	grep -q "^core/read/bad.c:" "$TMP/hits" && ! grep -q "^core/format/" "$TMP/hits" &&
		! grep -q "^core/read/words.c:" "$TMP/hits"
	ok $? "$name: a second copy outside core/format is seen; the codec's own and comments are not"
done <"$TMP/facts"

done_testing
