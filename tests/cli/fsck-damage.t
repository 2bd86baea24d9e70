#!/bin/sh
# fsck-damage.t: a damaged fragment or data block names every file that
# uses it; the problems go to stderr, the summary alone to stdout (fsck IMG
# > log keeps the verdict, as with fsck(8) tools).
#
# A fragment block holds the tails of many files; a data block is shared by
# duplicate files (stored once). tests/tools/locate finds the block and the
# files using it in the undamaged image; the block's middle is overwritten.
. "$SQK_SRCDIR/tests/lib.sh"

LOCATE=$SQK_TOOLS/locate
[ -x "$LOCATE" ] || skip_all "$LOCATE is not built"

src=$TMP/src
mkdir -p "$src/small"
i=0
while [ $i -lt 60 ]; do
	printf 'tail %d\n%s\n' $i "$(seq 1 $((i % 30)))" >"$src/small/file-$i"
	i=$((i + 1))
done
seq 1 30000 >"$src/a"
cp "$src/a" "$src/b"
cp "$src/a" "$src/c"
img=$TMP/img
"$SQUASHKIT" mkimage -q -c gzip -b 4K "$src" "$img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}


# The fragment: every file keeping its tail there is named.
cp "$img" "$TMP/frag.img"
smash_block "$TMP/frag.img" frag /small/file-7
"$LOCATE" "$img" users frag /small/file-7 | sed 's|^|/|' | sort >"$TMP/frag.users"
expect_status 4 "fsck: a damaged fragment block is an error" "$SQUASHKIT" fsck -q "$TMP/frag.img"
sed -n 's|^\(/[^:]*\): fragment: .*|\1|p' "$TMP/.err" | sort -u >"$TMP/frag.named"
same_file "$TMP/frag.named" "$TMP/frag.users" \
	"every file with its tail in it is named ($(wc -l <"$TMP/frag.users"))"

# A data block of three duplicates: each is named.
cp "$img" "$TMP/data.img"
smash_block "$TMP/data.img" data /b 2
expect_status 4 "fsck: a damaged data block is an error" "$SQUASHKIT" fsck -q "$TMP/data.img"
is "$(sed -n 's|^\(/[^:]*\): data: block 2 .*|\1|p' "$TMP/.err" | sort | tr '\n' ' ')" \
	"/a /b /c " "every file sharing it is named"

# The problems on stderr; the summary, one line, on stdout.
"$SQUASHKIT" fsck "$TMP/frag.img" >"$TMP/out" 2>"$TMP/err"
is "$?" 4 "fsck: exit 4"
is "$(wc -l <"$TMP/out")" 1 "one line on stdout"
is "$(sed 's/: errors found: .* bytes checked$//' "$TMP/out")" "$TMP/frag.img" \
	"and it is the summary"
"$SQUASHKIT" fsck -q "$TMP/frag.img" >"$TMP/qout" 2>"$TMP/problems"
is "$(wc -c <"$TMP/qout")" 0 "with -q, nothing on stdout"
same_file "$TMP/err" "$TMP/problems" "stderr holds the problems, whole, with or without -q"
is "$(grep -c "^/[^:]*: fragment: " "$TMP/err")" "$(wc -l <"$TMP/frag.users")" "a line for each file using the block"

done_testing
