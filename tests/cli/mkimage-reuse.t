#!/bin/sh
# mkimage --reuse OLD: a tree built, changed (files edited, added, removed,
# renamed, grown past a block boundary, shrunk, tails changed, hard links
# and xattrs changed), and rebuilt with --reuse of the first image gives,
# for every compressor, the image a plain build of the changed tree gives,
# byte for byte; and it did copy blocks (the counts of --json say how many,
# and an unchanged tree rebuilt compresses none). Also: the layout options
# (no fragments, tail ends, no dedup, parts uncompressed, a sort file), any
# -j, two earlier images, an archive source, --reuse-offset, and the usage
# errors. The
# damaged and foreign earlier images, and the kernel's view, are in
# tests/interop/reuse.t.
SCRATCH=shm-user-xattrs
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "jsonq is not built"
SQK=$SQUASHKIT

# lines N WORD: N lines of text that compress, different for each WORD.
lines() { awk -v n="$1" -v w="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s line %d of the file\n", w, i }'; }

A=$TMP/a
mkdir -p "$A/multi" "$A/small" "$A/rename" "$A/links" "$A/xattr" "$A/gone"
lines 1600 big >"$A/multi/big"          # 10 blocks of 4K, edited in the middle
lines 200 grow >"$A/multi/grow"         # a block and a tail, grown past the next boundary
lines 700 shrink >"$A/multi/shrink"     # shrunk
lines 500 moved >"$A/rename/from"       # renamed
head -c 20000 /dev/urandom >"$A/multi/random" # blocks stored raw
truncate -s 8192 "$A/multi/holes"
lines 30 after-holes >>"$A/multi/holes"
i=0
while [ $i -lt 40 ]; do
	lines $((i % 7 + 1)) "small-$i" >"$A/small/f$i"
	i=$((i + 1))
done
lines 3 edit-me >"$A/small/edit"
lines 300 linked >"$A/links/a"
ln "$A/links/a" "$A/links/b"
lines 250 gone >"$A/gone/file"
lines 40 attr >"$A/xattr/file"
: >"$A/empty"
xattrs=1
setfattr -n user.one -v 1 "$A/xattr/file" 2>/dev/null || xattrs=0

# The changed tree.
B=$TMP/b
cp -a "$A" "$B"
printf 'EDIT' | dd of="$B/multi/big" bs=1 seek=20000 conv=notrunc 2>/dev/null
lines 100 grown >>"$B/multi/grow"
head -c 10000 "$A/multi/shrink" >"$B/multi/shrink"
mv "$B/rename/from" "$B/rename/to"
sed 's/edit-me/EDITED!/' "$A/small/edit" >"$B/small/edit"
lines 9 "small-new" >"$B/small/f17-new"
rm -rf "$B/gone"
mkdir -p "$B/new"
lines 400 added >"$B/new/file"
ln "$B/links/a" "$B/links/c"
if [ $xattrs -eq 1 ]; then
	setfattr -n user.one -v 2 "$B/xattr/file"
	setfattr -n user.two -v x "$B/links/a"
fi

# jq FILE POINTER...: values of the --json summary.
jq() { "$JSONQ" "$@" 2>&1; }

for c in gzip lzma lzo xz lz4 zstd; do
	"$SQK" mkimage -q -c "$c" -b 4K "$A" "$TMP/a.$c.img" &&
		"$SQK" mkimage -q -c "$c" -b 4K "$B" "$TMP/plain.$c.img"
	ok $? "$c: the tree and the changed tree build"
	expect_success "$c: the changed tree builds with --reuse" \
		"$SQK" mkimage -q -c "$c" -b 4K --json --reuse "$TMP/a.$c.img" "$B" "$TMP/reuse.$c.img"
	cp "$TMP/.out" "$TMP/reuse.$c.json"
	same_file "$TMP/reuse.$c.img" "$TMP/plain.$c.img" "$c: it is the plain build, byte for byte"
	copied=$(jq "$TMP/reuse.$c.json" /reuse/blocks)
	fresh=$(jq "$TMP/reuse.$c.json" /reuse/compressed)
	all=$(($(jq "$TMP/reuse.$c.json" /counts/blocks) + $(jq "$TMP/reuse.$c.json" /counts/fragments)))
	# The unchanged blocks are copied; what changed (at least the edited
	# block, the grown file's new block, the new file) is compressed.
	[ "$copied" -gt $((all / 2)) ] && [ "$fresh" -ge 3 ] && [ $((copied + fresh)) -ge "$all" ]
	ok $? "$c: $copied of $all blocks copied, $fresh compressed"
	is "$(jq "$TMP/reuse.$c.json" /reuse/images/0/blocks /reuse/images/0/unreadable \
		/reuse/images/0/same_compression)" "$(printf '%s\n0\ntrue' "$copied")" \
		"$c: every block from the one image, none unreadable, stored as this build stores"
	# An unchanged tree: nothing is compressed at all.
	expect_success "$c: the same tree with --reuse of its own image" \
		"$SQK" mkimage -q -c "$c" -b 4K --json --reuse "$TMP/plain.$c.img" "$B" "$TMP/again.$c.img"
	same_file "$TMP/again.$c.img" "$TMP/plain.$c.img" "$c: again the plain build"
	is "$(jq "$TMP/.out" /reuse/compressed)" 0 "$c: an unchanged tree compresses no block"
done

# Layout options: the earlier image built with them too, the plain build with them.
printf 'multi/big 10\nsmall 5\n' >"$TMP/sort"
for opt in --no-fragments --tail-ends --no-dedup "--uncompressed data" "--uncompressed fragments" \
	"--sort $TMP/sort"; do
	# shellcheck disable=SC2086
	"$SQK" mkimage -q -c zstd -b 4K $opt "$A" "$TMP/lo-a.img" &&
		"$SQK" mkimage -q -c zstd -b 4K $opt "$B" "$TMP/lo-plain.img" &&
		"$SQK" mkimage -q -c zstd -b 4K $opt --json --reuse "$TMP/lo-a.img" "$B" \
			"$TMP/lo-reuse.img" >"$TMP/lo.json"
	ok $? "$opt: the three builds"
	same_file "$TMP/lo-reuse.img" "$TMP/lo-plain.img" "$opt: --reuse gives the plain build"
	# The same tree again: every block that would be compressed is copied.
	# shellcheck disable=SC2086
	"$SQK" mkimage -q -c zstd -b 4K $opt --json --reuse "$TMP/lo-plain.img" "$B" \
		"$TMP/lo-again.img" >"$TMP/lo.json"
	same_file "$TMP/lo-again.img" "$TMP/lo-plain.img" "$opt: the unchanged tree, the plain build"
	[ "$(jq "$TMP/lo.json" /reuse/compressed)" -eq 0 ] && [ "$(jq "$TMP/lo.json" /reuse/blocks)" -ge 1 ]
	ok $? "$opt: the unchanged tree: $(jq "$TMP/lo.json" /reuse/blocks) blocks copied, none compressed"
	rm -f "$TMP"/lo-*.img
done

# The threads change nothing.
for j in 1 2 8; do
	"$SQK" mkimage -q -c xz -b 4K -j $j --reuse "$TMP/a.xz.img" "$B" "$TMP/j$j.img"
	same_file "$TMP/j$j.img" "$TMP/plain.xz.img" "-j $j: the plain build"
done

# Two earlier images: the second holds what the first lacks.
C=$TMP/c
mkdir -p "$C/new" "$C/rename"
cp "$B/new/file" "$C/new/file"
cp "$B/rename/to" "$C/rename/to"
"$SQK" mkimage -q -c xz -b 4K "$C" "$TMP/c.img"
expect_success "two --reuse images" \
	"$SQK" mkimage -q -c xz -b 4K --json --reuse "$TMP/a.xz.img" --reuse "$TMP/c.img" "$B" \
	"$TMP/two.img"
same_file "$TMP/two.img" "$TMP/plain.xz.img" "two --reuse images: the plain build"
from_c=$(jq "$TMP/.out" /reuse/images/1/blocks)
fresh=$(jq "$TMP/.out" /reuse/compressed)
[ "$from_c" -ge 1 ] && [ "$fresh" -lt "$(jq "$TMP/reuse.xz.json" /reuse/compressed)" ]
ok $? "two --reuse images: the second gives $from_c blocks, $fresh compressed"
is "$(jq "$TMP/.out" /reuse/images/1/path)" "$TMP/c.img" "--json names each image"

# An archive source: its files are found by their paths too.
(cd "$B" && tar -cf "$TMP/b.tar" .)
"$SQK" mkimage -q -c zstd -b 4K --archive "$TMP/b.tar" "$TMP/tar-plain.img"
expect_success "--archive with --reuse" \
	"$SQK" mkimage -q -c zstd -b 4K --json --archive --reuse "$TMP/a.zstd.img" "$TMP/b.tar" \
	"$TMP/tar-reuse.img"
same_file "$TMP/tar-reuse.img" "$TMP/tar-plain.img" "--archive with --reuse: the plain build"
[ "$(jq "$TMP/.out" /reuse/blocks)" -ge "$copied" ]
ok $? "--archive with --reuse: as many blocks copied as from the directory"

# --reuse-offset: an earlier image after 1000 bytes of something else.
head -c 1000 /dev/zero >"$TMP/off.img"
"$SQK" mkimage -q -f -c xz -b 4K --offset 1000 "$A" "$TMP/off.img"
expect_status 1 "an earlier image not at 0, without --reuse-offset: an error" \
	"$SQK" mkimage -q -c xz -b 4K --reuse "$TMP/off.img" "$B" "$TMP/off-r.img"
is "$(wc -l <"$TMP/.err")" 1 "the error is one line"
is "$(cat "$TMP/.err")" "squashkit mkimage: $TMP/off.img: not a squashfs image (bad magic); a SquashFS image starts at byte 1000 (use --reuse-offset auto)" \
	"it says where the image starts and that --reuse-offset auto finds it"
cat "$TMP/off.img" "$TMP/off.img" >"$TMP/off2.img"
expect_status 1 "two earlier images in one file, without --reuse-offset: an error" \
	"$SQK" mkimage -q -c xz -b 4K --reuse "$TMP/off2.img" "$B" "$TMP/off-r.img"
grep -q "; SquashFS images start at bytes 1000, [0-9]* (choose one with --reuse-offset)\$" \
	"$TMP/.err"
ok $? "it says where both start, and to choose one with --reuse-offset"
expect_status 1 "two earlier images in one file, --reuse-offset auto: an error" \
	"$SQK" mkimage -q -c xz -b 4K --reuse-offset auto --reuse "$TMP/off2.img" "$B" \
	"$TMP/off-r.img"
grep -q "2 SquashFS superblocks found (at 1000, [0-9]*): choose one with --reuse-offset\$" \
	"$TMP/.err"
ok $? "auto finds two: choose one with --reuse-offset"
[ ! -e "$TMP/off-r.img" ]
ok $? "nothing is written"
expect_success "--reuse-offset 1000" \
	"$SQK" mkimage -q -c xz -b 4K --reuse-offset 1000 --reuse "$TMP/off.img" "$B" "$TMP/off-r.img"
same_file "$TMP/off-r.img" "$TMP/plain.xz.img" "--reuse-offset 1000: the plain build"
rm -f "$TMP/off-r.img"
expect_success "--reuse-offset auto" \
	"$SQK" mkimage -c xz -b 4K --reuse-offset auto --reuse "$TMP/off.img" "$B" "$TMP/off-r.img"
grep -q "off.img: image found at offset 1000" "$TMP/.err"
ok $? "--reuse-offset auto says where it found the image"
same_file "$TMP/off-r.img" "$TMP/plain.xz.img" "--reuse-offset auto: the plain build"

# Another compressor or block size: a note, nothing copied, the plain build.
expect_success "an earlier image of another compressor" \
	"$SQK" mkimage -q -c zstd -b 4K --json --reuse "$TMP/a.xz.img" "$B" "$TMP/other.img"
grep -q "a.xz.img: compressed with xz, not zstd: nothing reused" "$TMP/.err"
ok $? "another compressor: the note says why"
same_file "$TMP/other.img" "$TMP/plain.zstd.img" "another compressor: the plain build"
is "$(jq "$TMP/.out" /reuse/blocks /reuse/images/0/used)" "$(printf '0\nfalse')" \
	"another compressor: nothing copied, the image not used"
"$SQK" mkimage -q -c xz -b 8K "$B" "$TMP/plain8.img"
rm -f "$TMP/other.img"
expect_success "an earlier image of another block size" \
	"$SQK" mkimage -q -c xz -b 8K --reuse "$TMP/a.xz.img" "$B" "$TMP/other.img"
grep -q "a.xz.img: block size 4096, not 8192: nothing reused" "$TMP/.err"
ok $? "another block size: the note says why"
same_file "$TMP/other.img" "$TMP/plain8.img" "another block size: the plain build"
rm -f "$TMP/other.img"
"$SQK" mkimage -q -c xz -b 4K -X bcj=x86 "$B" "$TMP/plain-dict.img"
expect_success "an earlier image of other compressor options" \
	"$SQK" mkimage -q -c xz -b 4K -X bcj=x86 --reuse "$TMP/a.xz.img" "$B" "$TMP/other.img"
grep -q "a.xz.img: other xz options than this build's: nothing reused" "$TMP/.err"
ok $? "other options: the note says why"
same_file "$TMP/other.img" "$TMP/plain-dict.img" "other options: the plain build"

expect_status 2 "--reuse with --append is a usage error" \
	"$SQK" mkimage -q --append --reuse "$TMP/a.xz.img" "$B" "$TMP/a.xz.img"
grep -q "Try 'squashkit mkimage --help'" "$TMP/.err"
ok $? "--reuse with --append: says how to get help"
# --help says what the image is the same as.
"$SQK" mkimage --help | awk '/^      --reuse OLD/ { on = 1 } on && /^      --reuse-offset/ { exit }
	on { printf "%s ", $0 }' | tr -s ' ' >"$TMP/help-reuse"
grep -q "the image is byte for byte the one built without --reuse $" "$TMP/help-reuse"
ok $? "--help's --reuse line says what the image is the same as"
expect_status 2 "a bad --reuse-offset is a usage error" \
	"$SQK" mkimage -q --reuse-offset 12Q --reuse "$TMP/a.xz.img" "$B" "$TMP/x.img"
expect_status 1 "a missing earlier image is an error" \
	"$SQK" mkimage -q --reuse "$TMP/nothing.img" "$B" "$TMP/x.img"
grep -q "nothing.img: " "$TMP/.err"
ok $? "a missing earlier image: the error names it"

done_testing
