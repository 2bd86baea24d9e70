#!/bin/sh
# fsck on clean images: what Debian's mksquashfs writes (every compressor, and
# every option that changes the layout), what squashfs-tools-ng's gensquashfs
# writes, and what squashkit mkimage writes, all of the reference tree, must be
# clean (exit 0, nothing on stdout, "clean":true in JSON, with the counts of
# what was checked). Also the command line: exit codes 8 and 16, -j, --stats,
# --json.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs timeout
JSONQ=$SQK_TOOLS/jsonq

tree=$TMP/tree
ref_tree "$tree"

sqk() {
	timeout 300 "$SQUASHKIT" "$@"
}

# clean NAME IMAGE: fsck exits 0 and prints nothing on stdout; JSON says clean.
clean() {
	name=$1
	img=$2
	sqk fsck -q -j 2 "$img" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ]; then
		ok 0 "fsck: $name is clean"
	else
		ok 1 "fsck: $name is clean"
		echo "#   exit $rc"
		head -20 "$TMP/out" "$TMP/err" | sed 's/^/#   /'
	fi
}

# --- mksquashfs: every compressor, then the layout options ---

for c in gzip lzma lzo xz lz4 zstd; do
	if peer_image "$TMP/m-$c.img" "$tree" mksquashfs "$tree" "$TMP/m-$c.img" -noappend -quiet \
		-no-progress -comp "$c" >"$TMP/mks.err" 2>&1; then
		clean "mksquashfs -comp $c" "$TMP/m-$c.img"
	else
		skip "mksquashfs -comp $c failed: $(head -1 "$TMP/mks.err")"
	fi
done

opt_i=0
while IFS='|' read -r comp opts; do
	[ -n "$comp" ] || continue
	opt_i=$((opt_i + 1))
	img=$TMP/o-$opt_i.img
	# shellcheck disable=SC2086 # the options are words
	if peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress \
		-comp "$comp" $opts >"$TMP/mks.err" 2>&1; then
		clean "mksquashfs -comp $comp $opts" "$img"
	else
		skip "mksquashfs $opts failed: $(head -1 "$TMP/mks.err")"
	fi
	[ "$opt_i" -gt 1 ] && rm -f "$img" # keep the first for the command-line tests
done <<'EOF'
gzip|-no-fragments
zstd|-always-use-fragments
lz4|-b 4K
xz|-b 1M
gzip|-noI -noD -noF -noX
lzo|-no-xattrs
gzip|-no-duplicates
zstd|-no-exports
xz|-b 4K -no-fragments -no-duplicates -no-exports
EOF

# --- squashfs-tools-ng ---

if command -v gensquashfs >/dev/null 2>&1; then
	for c in gzip xz zstd; do
		if peer_image "$TMP/g-$c.img" "$tree" gensquashfs --keep-xattr -q -c "$c" -D "$tree" \
			"$TMP/g-$c.img" >"$TMP/gen.err" 2>&1; then
			clean "gensquashfs -c $c" "$TMP/g-$c.img"
		else
			skip "gensquashfs -c $c failed: $(head -1 "$TMP/gen.err")"
		fi
		rm -f "$TMP/g-$c.img"
	done
else
	skip "gensquashfs is not installed"
fi

# --- squashkit mkimage ---

if sqk mkimage -q "$tree" "$TMP/probe.img" >/dev/null 2>&1; then
	clean "mkimage (defaults)" "$TMP/probe.img"
	for opts in "-c gzip" "-c lzma" "-c lzo" "-c xz" "-c lz4" "-c zstd" "--no-fragments" \
		"--tail-ends" "-b 4K" "-b 1M" "--no-dedup" "--no-sparse" "--no-xattrs" \
		"--no-export" "--no-hardlinks"; do
		rm -f "$TMP/k.img"
		# shellcheck disable=SC2086
		if sqk mkimage -q $opts "$tree" "$TMP/k.img" >"$TMP/mk.err" 2>&1; then
			clean "mkimage $opts" "$TMP/k.img"
		else
			ok 1 "mkimage $opts builds"
			head -3 "$TMP/mk.err" | sed 's/^/#   /'
		fi
	done
	rm -f "$TMP/probe.img" "$TMP/k.img"
else
	skip "squashkit mkimage does not build an image yet"
fi

# --- the command line ---

img=$TMP/m-gzip.img
sqk fsck --json -j 1 "$img" >"$TMP/json" 2>"$TMP/err"
is "$?" 0 "fsck --json: exit 0"
if [ -x "$JSONQ" ]; then
	is "$("$JSONQ" "$TMP/json" /clean '/errors/#' /image)" "$(printf 'true\n0\n%s' "$img")" \
		"fsck --json: one valid object, clean, no errors, the image named"
	inodes=$(sqk inspect --json "$img" 2>/dev/null | "$JSONQ" - /inodes 2>/dev/null)
	got=$("$JSONQ" "$TMP/json" /checked/inodes)
	if [ -n "$inodes" ] && [ "$inodes" != "<missing>" ]; then
		is "$got" "$inodes" "fsck --json: checked.inodes is the image's inode count"
	else
		ok "$([ "$got" -gt 3000 ]; echo $?)" "fsck --json: checked.inodes counts the inodes"
	fi
	for k in directories blocks fragments bytes; do
		v=$("$JSONQ" "$TMP/json" "/checked/$k")
		ok "$([ "$v" -gt 0 ] 2>/dev/null; echo $?)" "fsck --json: checked.$k is counted ($v)"
	done
	sqk fsck --json --stats -j 2 "$img" >"$TMP/json" 2>/dev/null
	is "$("$JSONQ" "$TMP/json" /clean /stats/caches/data/fills)" \
		"$(printf 'true\n%s' "$("$JSONQ" "$TMP/json" /checked/blocks)")" \
		"fsck --json --stats: one object; each data block filled (decompressed) once"
else
	skip "jsonq is not built"
fi
sqk fsck "$img" >"$TMP/out" 2>"$TMP/err"
ok "$([ ! -s "$TMP/err" ] && grep -q "^$img: clean: .* bytes checked\$" "$TMP/out"; echo $?)" \
	"fsck: the summary on stdout, as fsck(8) tools put it; nothing on stderr"
sqk fsck -q "$img" >"$TMP/out" 2>"$TMP/err"
ok "$([ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; echo $?)" "fsck -q: nothing at all"
sqk fsck --stats -q -j 3 "$img" >"$TMP/out" 2>&1
ok "$(grep -q 'data cache' "$TMP/out"; echo $?)" "fsck --stats prints the cache counters"

expect_status 0 "fsck --help exits 0" sqk fsck --help
expect_status 8 "fsck of a missing file exits 8" sqk fsck "$TMP/no-such.img"
expect_status 8 "fsck of a directory exits 8" sqk fsck "$TMP"
expect_status 16 "fsck without IMAGE exits 16" sqk fsck
expect_status 16 "fsck with two images exits 16" sqk fsck "$img" "$img"
expect_status 16 "fsck with an unknown option exits 16" sqk fsck --no-such-option "$img"
expect_status 16 "fsck -j 0 exits 16" sqk fsck -j 0 "$img"
expect_status 16 "fsck -j x exits 16" sqk fsck -j x "$img"
expect_status 0 "fsck -- IMAGE works" sqk fsck -q -- "$img"
expect_status 0 "fsck IMAGE -j 1 (options after the operand)" sqk fsck "$img" -q -j 1

# A file that is not an image is read, and found wrong: 4, not 8.
head -c 100000 /dev/zero >"$TMP/zeros"
expect_status 4 "fsck of a file of zeros exits 4" sqk fsck "$TMP/zeros"
: >"$TMP/empty"
expect_status 4 "fsck of an empty file exits 4" sqk fsck "$TMP/empty"

done_testing
