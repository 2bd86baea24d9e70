#!/bin/sh
# layers.t: every #include of the library keeps docs/DESIGN.md's table of
# layers. A part (a folder of core/, or compressors/) includes a header of
# its own folder by bare name and one of another part as "part/name.h",
# and only of a part its row names.
. "$SQK_SRCDIR/tests/lib.sh"

cd "$SQK_SRCDIR" || {
	echo "Bail out! no source tree at $SQK_SRCDIR"
	exit 1
}

# The table: "| `part` | a, b, c |" rows under "## Layers", up to the next heading.
awk '/^## Layers/ { on = 1; next } /^## / { on = 0 } on && /^\| `/' docs/DESIGN.md |
	sed 's/^| `\([a-z]*\)` | \(.*\) |$/\1 \2/; s/,//g; s/(nothing of ours)//' >"$TMP/table"
test -s "$TMP/table"
ok $? "docs/DESIGN.md has the table of layers"

# Every part of the library has a row.
for d in core/*/ compressors/; do
	p=$(basename "$d")
	grep -q "^$p " "$TMP/table" || echo "$p"
done >"$TMP/unlisted"
test ! -s "$TMP/unlisted"
ok $? "every part of the library has a row in the table"
sed 's/^/#   no row: /' "$TMP/unlisted"

# Each quoted include of each file of the library, as "FILE PART HEADER".
for f in core/*/*.[ch] compressors/*.[ch]; do
	dir=${f%/*}
	part=${dir##*/}
	sed -n 's/^#include "\(.*\)"/\1/p' "$f" | while read -r h; do
		echo "$f $part $h"
	done
done >"$TMP/includes"
test -s "$TMP/includes"
ok $? "the library's includes are listed"

# A bare name is a header of the same folder; a path names a part the row allows.
while read -r f part h; do
	dir=${f%/*}
	case $h in
	*/*)
		to=${h%%/*}
		row=$(grep "^$part " "$TMP/table")
		case " ${row#* } " in
		*" $to "*) ;;
		*) echo "$f: $h ($part may not use $to)" ;;
		esac
		[ -f "core/$h" ] || [ -f "$h" ] || echo "$f: $h is no header of the tree"
		;;
	*) [ -f "$dir/$h" ] || echo "$f: \"$h\" is not in $dir/ (name its folder)" ;;
	esac
done <"$TMP/includes" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "every include keeps the layers"
sed 's/^/#   /' "$TMP/bad" | head -40

# The test can see a breach: an include of mkfs from write is one.
part=write
row=$(grep "^$part " "$TMP/table")
case " ${row#* } " in
*" mkfs "*) probe=allowed ;;
*) probe=refused ;;
esac
is "$probe" refused "the table refuses the writer's use of the build driver above it"

done_testing
