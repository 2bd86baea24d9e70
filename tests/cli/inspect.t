#!/bin/sh
# squashkit inspect: superblock fields equal the bytes of the superblock (read
# with od, little-endian host assumed), counts equal what find says about the
# source tree (and the pseudo definitions), data, dedup, sparse and fragment
# figures equal what the tree was built to hold, and the tables tile the
# image from the inode table to bytes_used. unsquashfs is compared in
# tests/interop/inspect.t.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs od find stat md5sum truncate sort awk
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
export LC_ALL=C

BS=4096
src=$TMP/src
mkdir -p "$src/a/b/c" "$src/d"
for i in 1 2 3 4 5 6 7; do
	seq "$i" 1000 >"$src/a/text$i"
done
printf 'hello\n' >"$src/small"
: >"$src/empty"
# A random file of 3 blocks and 100 bytes, and a copy of it: deduplicated.
head -c $((3 * BS + 100)) /dev/urandom >"$src/random"
cp "$src/random" "$src/d/random-copy"
# Sparse: data, two zero blocks, data; and five zero blocks.
head -c $BS /dev/urandom >"$src/sparse"
truncate -s $((3 * BS)) "$src/sparse"
head -c $BS /dev/urandom >>"$src/sparse"
head -c $((5 * BS)) /dev/zero >"$src/zeros"
ln "$src/small" "$src/a/hard"
ln -s small "$src/link"
ln -s ../../small "$src/a/b/link"
mkfifo "$src/fifo"
pseudo='cdev c 640 0 0 4 5'
sparse_blocks=7 # 2 + 5, as built above

# sb_u32/sb_u64 IMG OFFSET: a superblock field.
sb_u32() { od -An -tu4 -j"$2" -N4 "$1" | tr -d ' '; }
sb_u64() { od -An -tu8 -j"$2" -N8 "$1" | tr -d ' '; }

# Facts from the source tree.
n_files=$(find "$src" -type f -printf '%i\n' | sort -u | wc -l)
n_paths=$(find "$src" -type f | wc -l)
n_dirs=$(find "$src" -type d | wc -l)
n_links=$(find "$src" -type l | wc -l)
n_fifos=$(find "$src" -type p | wc -l)
file_bytes=$(find "$src" -type f -printf '%i %s\n' | sort -u | awk '{ s += $2 } END { print s }')
# hash size per distinct content (hard links and copies once).
find "$src" -type f | while IFS= read -r f; do
	printf '%s %s\n' "$(md5sum <"$f" | cut -c1-32)" "$(stat -c %s "$f")"
done | sort -u -k1,1 >"$TMP/contents"
# Tails in fragments: small files; with -always-use-fragments every file's tail.
tails_small=$(awk -v bs=$BS '$2 > 0 && $2 < bs { s += $2 } END { print s + 0 }' "$TMP/contents")
tails_all=$(awk -v bs=$BS '$2 % bs { s += $2 % bs } END { print s + 0 }' "$TMP/contents")
random_size=$(stat -c %s "$src/random")

# check_image NAME IMG: what holds for every image.
check_image() {
	name=$1
	img=$2
	json=$TMP/$name.json
	if ! "$SQUASHKIT" inspect --json "$img" >"$json" 2>"$TMP/err"; then
		ok 1 "$name: inspect --json exits 0"
		sed 's/^/#   /' "$TMP/err"
		return
	fi
	expect_success "$name: valid JSON" "$JSONQ" "$json"
	q() { "$JSONQ" "$json" "$@" | tr '\n' ' ' | sed 's/ $//'; }

	is "$(q /version /block_size /bytes_used /mkfs_time /inodes /fragments /ids /root_inode/block)" \
		"4.0 $(sb_u32 "$img" 12) $(sb_u64 "$img" 40) $(sb_u32 "$img" 8) $(sb_u32 "$img" 4) $(sb_u32 "$img" 16) $(od -An -tu2 -j26 -N2 "$img" | tr -d ' ') $(($(sb_u64 "$img" 32) >> 16))" \
		"$name: superblock fields"
	is "$(q /flags_value)" "$(od -An -tu2 -j24 -N2 "$img" | tr -d ' ')" "$name: flags"
	is "$(q /superblock/magic /superblock/root_inode /superblock/inode_table /superblock/dir_table /superblock/id_table)" \
		"$(sb_u32 "$img" 0) $(sb_u64 "$img" 32) $(sb_u64 "$img" 64) $(sb_u64 "$img" 72) $(sb_u64 "$img" 48)" \
		"$name: the superblock's raw fields"
	is "$(q /tables/inode/start /tables/directory/start /tables/id/lookup)" \
		"$(sb_u64 "$img" 64) $(sb_u64 "$img" 72) $(sb_u64 "$img" 48)" \
		"$name: inode, directory and id tables where the superblock says"

	# Counts: each inode once.
	is "$(q /counts/files /counts/directories /counts/symlinks /counts/fifos /counts/char_devices /counts/hard_links)" \
		"$n_files $n_dirs $n_links $n_fifos $n_cdev $((n_paths - n_files))" "$name: counts by type"
	is "$(q /counts/inodes)" "$(sb_u32 "$img" 4)" "$name: the walk reaches every inode"
	is "$(q /data/uncompressed)" "$file_bytes" "$name: file bytes"

	# The data area holds data blocks and fragment blocks, nothing else.
	is "$(q /data/stored)" "$(q /tables/data/size)" "$name: data stored fills the data area"

	# The tables tile the image: each starts where the one before ends.
	for t in data inode directory fragment export id xattr; do
		"$JSONQ" "$json" "/tables/$t/start" "/tables/$t/size" | tr '\n' ' '
		echo
	done | awk '$1 != "null" && $1 != "<missing>" && $2 > 0' | sort -n >"$TMP/extents"
	gaps=$(awk -v end="$(sb_u64 "$img" 40)" '
		NR > 1 && $1 != pos { printf "gap at %d ", pos }
		{ pos = $1 + $2 }
		END { if (pos != end) printf "ends at %d, not %d", pos, end }' "$TMP/extents")
	is "$gaps" "" "$name: the tables tile the image up to bytes_used"

	# Fragment fill is tail bytes over fragments x block size.
	fill=$(awk -v t="$(q /data/tail_bytes)" -v f="$(q /fragments)" -v bs=$BS \
		'BEGIN { printf "%.6f", f ? t / (f * bs) : 0 }')
	is "$(q /fragment_fill)" "$fill" "$name: fragment fill"
	is "$(q /sparse/blocks /sparse/bytes)" "$sparse_blocks $((sparse_blocks * BS))" \
		"$name: sparse savings"
}

n_cdev=1 # the pseudo definition
img=$TMP/default.sq
# shellcheck disable=SC2086
mksquashfs "$src" "$img" -quiet -no-progress -noappend -b $BS -p "$pseudo" >/dev/null 2>&1 ||
	{ echo "Bail out! mksquashfs failed"; exit 1; }
check_image default "$img"
json=$TMP/default.json
q() { "$JSONQ" "$json" "$@" | tr '\n' ' ' | sed 's/ $//'; }
is "$(q /compression /flags/exportable /flags/duplicates /flags/no_fragments /tables/export/lookup)" \
	"gzip true true false $(sb_u64 "$img" 88)" "default: gzip, exportable, duplicates, fragments"
is "$(q /dedup/blocks /dedup/tails /dedup/bytes)" "4 0 $random_size" \
	"default: the copy's 4 blocks are deduplicated"
is "$(q /data/tail_bytes)" "$tails_small" "default: small files' bytes are the tails"
is "$(q /options_block /tables/data/start)" "null 96" "default: no options block"
is "$(q /compressor_options/compression_level /compressor_options/window_size)" "9 15" \
	"default: gzip's defaults shown"

img=$TMP/bare.sq
# shellcheck disable=SC2086
mksquashfs "$src" "$img" -quiet -no-progress -noappend -b $BS -p "$pseudo" -no-fragments -no-exports \
	-no-xattrs -no-duplicates -comp gzip -Xcompression-level 1 -Xwindow-size 12 >/dev/null 2>&1 ||
	{ echo "Bail out! mksquashfs failed"; exit 1; }
check_image bare "$img"
json=$TMP/bare.json
is "$(q /compression /flags/exportable /flags/xattrs /flags/no_xattrs /flags/duplicates /flags/no_fragments)" \
	"gzip false false true false true" "bare: flags"
is "$(q /tables/export /tables/xattr /tables/fragment/size /fragments)" "null null 0 0" \
	"bare: no export, xattr or fragment table"
is "$(q /dedup/blocks /dedup/bytes)" "0 0" "bare: nothing deduplicated"
is "$(q /options_block/start /compressor_options/compression_level /compressor_options/window_size)" "96 1 12" \
	"bare: gzip options come from the options block"

img=$TMP/raw.sq
# shellcheck disable=SC2086
mksquashfs "$src" "$img" -quiet -no-progress -noappend -b $BS -p "$pseudo" -always-use-fragments \
	-noI -noD -noF -noX -comp zstd >/dev/null 2>&1 || { echo "Bail out! mksquashfs failed"; exit 1; }
check_image raw "$img"
json=$TMP/raw.json
is "$(q /flags/always_fragments /flags/uncompressed_inodes /flags/uncompressed_data /flags/uncompressed_fragments)" \
	"true true true true" "raw: flags"
is "$(q /dedup/blocks /dedup/tails /dedup/bytes)" "3 1 $random_size" \
	"raw: the copy's blocks and tail are deduplicated"
is "$(q /data/tail_bytes)" "$tails_all" "raw: every file's tail is in a fragment"
# An uncompressed metadata block is stored as it is, behind its 2-byte header.
is "$(q /tables/inode/stored)" "$(($(q /tables/inode/uncompressed) + 2 * $(q /tables/inode/metadata_blocks)))" \
	"raw: the inode table is stored uncompressed"
is "$(q /data/stored)" \
	"$(awk -v z=$((sparse_blocks * BS)) '{ s += $2 } END { print s - z }' "$TMP/contents")" \
	"raw: uncompressed data stores every distinct byte but the sparse ones"

# squashfs-tools-ng lays tables out its own way: they must still tile the image.
if command -v tar2sqfs >/dev/null 2>&1; then
	n_cdev=0
	img=$TMP/ng.sq
	(cd "$src" && tar cf - .) | tar2sqfs -q -b $BS -c gzip "$img" >/dev/null 2>&1 ||
		{ echo "Bail out! tar2sqfs failed"; exit 1; }
	check_image tar2sqfs "$img"
else
	skip "tar2sqfs is not installed"
fi

# An image of an empty directory: its directory table is empty.
mkdir "$TMP/nothing"
img=$TMP/empty.sq
mksquashfs "$TMP/nothing" "$img" -quiet -no-progress -noappend >/dev/null 2>&1 ||
	{ echo "Bail out! mksquashfs failed"; exit 1; }
json=$TMP/empty.json
"$SQUASHKIT" inspect --json "$img" >"$json"
is "$?" 0 "empty: exit 0"
is "$(q /counts/directories /counts/files /tables/directory/start /tables/directory/size)" \
	"1 0 $(sb_u64 "$img" 72) 0" "empty: one directory, an empty directory table"
is "$(q /tables/export/start)" "$(od -An -tu8 -j"$(sb_u64 "$img" 88)" -N8 "$img" | tr -d ' ')" \
	"empty: the export table starts at its first metadata block"
is "$("$SQUASHKIT" ls "$img" | wc -c)" 0 "empty: ls lists nothing"

# Text output.
"$SQUASHKIT" inspect "$TMP/default.sq" >"$TMP/text"
is "$?" 0 "text: exit 0"
is "$(grep -E '^(Compression|Block size|Inodes):' "$TMP/text" | tr -s ' ' | tr '\n' '|')" \
	"Compression: gzip (id 1)|Block size: $BS (log 12)|Inodes: $(sb_u32 "$TMP/default.sq" 4)|" \
	"text: compressor, block size, inodes"

# Errors.
printf 'not an image at all, just text that is long enough\n' >"$TMP/notimg"
expect_status 1 "not an image" "$SQUASHKIT" inspect "$TMP/notimg"
is "$(wc -l <"$TMP/.err")" 1 "not an image: one line"
head -c 4096 "$TMP/default.sq" >"$TMP/trunc.sq"
expect_status 1 "a truncated image" "$SQUASHKIT" inspect "$TMP/trunc.sq"
is "$(wc -l <"$TMP/.err")" 1 "a truncated image: one line"
expect_status 1 "a missing image" "$SQUASHKIT" inspect "$TMP/none.sq"
expect_status 2 "no operand" "$SQUASHKIT" inspect
expect_status 2 "too many operands" "$SQUASHKIT" inspect "$TMP/default.sq" x
expect_status 2 "an unknown option" "$SQUASHKIT" inspect --bogus "$TMP/default.sq"
is "$(tail -1 "$TMP/.err")" "Try 'squashkit inspect --help'." "an unknown option: the hint"
expect_status 0 "options after operands" "$SQUASHKIT" inspect "$TMP/default.sq" --json
expect_status 0 "--help" "$SQUASHKIT" inspect --help

done_testing
