#!/bin/sh
# fsck-damage.t: a damaged fragment or data block names every file that
# uses it, and the report and then the summary reach stdout (fsck IMG > log
# keeps them both, as with fsck(8) tools), nothing on stderr.
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
sed -n 's|^\(/[^:]*\): fragment: .*|\1|p' "$TMP/.out" | sort -u >"$TMP/frag.named"
same_file "$TMP/frag.named" "$TMP/frag.users" \
	"every file with its tail in it is named ($(wc -l <"$TMP/frag.users"))"

# A data block of three duplicates: each is named.
cp "$img" "$TMP/data.img"
smash_block "$TMP/data.img" data /b 2
expect_status 4 "fsck: a damaged data block is an error" "$SQUASHKIT" fsck -q "$TMP/data.img"
is "$(sed -n 's|^\(/[^:]*\): data: block 2 .*|\1|p' "$TMP/.out" | sort | tr '\n' ' ')" \
	"/a /b /c " "every file sharing it is named"

# The problems, then the summary, on stdout; nothing on stderr.
"$SQUASHKIT" fsck "$TMP/frag.img" >"$TMP/out" 2>"$TMP/err"
is "$?" 4 "fsck: exit 4"
is "$(tail -1 "$TMP/out" | sed 's/: errors found: .* bytes checked$//')" "$TMP/frag.img" \
	"the summary is the last line of stdout"
"$SQUASHKIT" fsck -q "$TMP/frag.img" >"$TMP/problems" 2>/dev/null
sed '$d' "$TMP/out" >"$TMP/before"
same_file "$TMP/before" "$TMP/problems" "the lines before it are the problems, whole"
is "$(wc -c <"$TMP/err")" 0 "nothing on stderr"

done_testing
