#!/bin/sh
# inspect against unsquashfs -s: for images that Debian's mksquashfs writes
# with every compressor and with the options that change the superblock,
# every field both tools show must agree. The expected values are parsed
# from unsquashfs's output, never taken from ours. The walk's counts are
# checked against unsquashfs -lln (one line per path).
SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs unsquashfs setfattr awk
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
export LC_ALL=C

tree=$TMP/tree
ref_tree "$tree"

if [ -n "${SQK_SANITIZED:-}" ]; then
	optsets="
		gzip|
		xz|-b 1M -Xbcj x86,arm -Xdict-size 512K
		gzip|-noI -noD -noF -noX -no-fragments"
else
	optsets="
		gzip|
		lzma|
		lzo|
		xz|
		lz4|
		zstd|
		gzip|-no-fragments
		zstd|-always-use-fragments
		lz4|-b 4K -Xhc
		xz|-b 1M -Xbcj x86,arm -Xdict-size 512K
		xz|-Xdict-size 64K -no-exports
		gzip|-noI -noD -noF -noX
		gzip|-noId
		lzo|-no-xattrs -Xalgorithm lzo1x_999 -Xcompression-level 5
		lzo|-Xalgorithm lzo1x_1_11
		gzip|-no-duplicates -Xcompression-level 1 -Xwindow-size 9 -Xstrategy filtered,run_length_encoded
		zstd|-no-exports -no-xattrs -Xcompression-level 3"
fi

# expected < unsquashfs -s: "POINTER VALUE" lines, POINTER into our JSON.
# "A|B" means A or B (the id table is uncompressed when either flag says so).
expected() {
	awk '
	function yes(c) { return c ? "true" : "false" }
	function list(s) { gsub(/, /, ",", s); return s }
	/^Found a valid SQUASHFS/ { v = $5; sub(/:/, ".", v); print "/version", v; next }
	/^Filesystem size/ { print "/bytes_used", $3; next }
	/^Compression / { print "/compression", $2; next }
	/^\tcompression-level / { print "/compressor_options/compression_level", $2; next }
	/^\twindow-size / { print "/compressor_options/window_size", $2; next }
	/^\tStrategies selected: / { sub(/^\tStrategies selected: /, ""); print "/compressor_options/strategies", list($0); next }
	/^\tDictionary size / { print "/compressor_options/dict_size", $3; next }
	/^\tFilters selected: / { sub(/^\tFilters selected: /, ""); print "/compressor_options/filters", list($0); next }
	/^\talgorithm / { print "/compressor_options/algorithm", $2; next }
	/^\tcompression level / { print "/compressor_options/compression_level", $3; next }
	/^\tNo filters specified/ { print "/compressor_options/filters", "none"; next }
	/^\tHigh Compression option specified/ { print "/compressor_options/hc", 1; next }
	/^Block size / { print "/block_size", $3; next }
	/^Filesystem is (not )?exportable/ { print "/flags/exportable", yes($3 != "not"); next }
	/^Inodes are / { print "/flags/uncompressed_inodes", yes($3 == "uncompressed"); next }
	/^Data is / { print "/flags/uncompressed_data", yes($3 == "uncompressed"); next }
	/^Uids\/Gids \(Id table\) are / { print "/flags/uncompressed_inodes|/flags/uncompressed_ids", yes($5 == "uncompressed"); next }
	/^Fragments are not stored/ { print "/flags/no_fragments", "true"; next }
	/^Fragments are / { print "/flags/no_fragments", "false"; print "/flags/uncompressed_fragments", yes($3 == "uncompressed"); next }
	/^Always-use-fragments option is / { print "/flags/always_fragments", yes($4 != "not"); next }
	/^Xattrs are not stored/ { print "/flags/no_xattrs", "true"; next }
	/^Xattrs are / { print "/flags/no_xattrs", "false"; print "/flags/uncompressed_xattrs", yes($3 == "uncompressed"); next }
	/^Duplicates are / { print "/flags/duplicates", yes($3 != "not"); next }
	/^Number of fragments / { print "/fragments", $4; next }
	/^Number of inodes / { print "/inodes", $4; next }
	/^Number of ids / { print "/ids", $4; next }
	/^Number of xattr ids / { print "/xattr_ids", $5; next }
	/^Creation or last append time / { next }
	{ print "UNPARSED", $0 }'
}

# ours JSON POINTER: our value; "A|B" is A or B.
ours() {
	case $2 in
	*"|"*)
		a=$("$JSONQ" "$1" "${2%%|*}")
		b=$("$JSONQ" "$1" "${2#*|}")
		if [ "$a" = true ] || [ "$b" = true ]; then echo true; else echo false; fi
		;;
	*) "$JSONQ" "$1" "$2" ;;
	esac
}

echo "$optsets" >"$TMP/optsets"
n=0
while IFS='|' read -r comp opts; do
	[ -n "$comp" ] || continue
	comp=$(echo "$comp" | tr -d ' \t')
	n=$((n + 1))
	img=$TMP/img$n.sq
	desc="$comp${opts:+ $opts}"
	# shellcheck disable=SC2086
	if ! peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress \
		-comp "$comp" $opts >/dev/null 2>"$TMP/mk.err"; then
		ok 1 "$desc: mksquashfs"
		sed 's/^/#   /' "$TMP/mk.err" | head -5
		continue
	fi
	json=$TMP/img$n.json
	if ! "$SQUASHKIT" inspect --json "$img" >"$json" 2>"$TMP/err" || ! "$JSONQ" "$json" >/dev/null; then
		ok 1 "$desc: inspect --json"
		sed 's/^/#   /' "$TMP/err" | head -5
		continue
	fi
	unsquashfs -s "$img" | expected >"$TMP/want"
	: >"$TMP/got"
	while read -r ptr val; do
		if [ "$ptr" = UNPARSED ]; then
			echo "UNPARSED $val" >>"$TMP/got"
		else
			echo "$ptr $(ours "$json" "$ptr")" >>"$TMP/got"
		fi
	done <"$TMP/want"
	# A line unsquashfs shows that the test cannot map must fail the test.
	sed -i 's/^UNPARSED .*/(unparsed)/' "$TMP/want"
	same_file "$TMP/got" "$TMP/want" "$desc: every field unsquashfs -s shows"
	if t=$(unsquashfs -mkfs-time "$img" 2>/dev/null) && [ -n "$t" ]; then
		is "$("$JSONQ" "$json" /mkfs_time)" "$t" "$desc: mkfs time"
	fi
	# The walk: directories, and every other path (hard links count once as an
	# inode). A line that does not start with a mode continues a name with a newline.
	unsquashfs -lln "$img" >"$TMP/lls" 2>/dev/null
	want=$(awk '
		substr($0, 1, 1) ~ /[-dlbcps]/ && substr($0, 2, 9) ~ /^[-rwxsStT]+$/ && substr($0, 11, 1) == " " {
			if ($1 ~ /^d/) d++; else o++
		}
		END { print d + 0, o + 0 }' "$TMP/lls")
	got=$("$JSONQ" "$json" /counts/directories /counts/files /counts/symlinks /counts/block_devices \
		/counts/char_devices /counts/fifos /counts/sockets /counts/hard_links |
		awk 'NR == 1 { d = $1; next } { o += $1 } END { print d, o }')
	is "$got" "$want" "$desc: directories and other paths as unsquashfs lists them"
	is "$("$JSONQ" "$json" /counts/inodes)" "$("$JSONQ" "$json" /inodes)" \
		"$desc: the walk reaches every inode the superblock counts"
done <"$TMP/optsets"

done_testing
