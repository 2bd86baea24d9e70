#!/bin/sh
# mkimage --reuse with earlier images that cannot all be trusted: bit
# flips in the blocks it would copy (compressed, stored raw, fragments),
# flips anywhere in the image, images of another compressor or block size,
# a truncated image, one that is no image, and the earlier image being the
# IMAGE replaced (also after --offset bytes).
# Each result is the plain build of the tree byte for byte (or, where a
# flip leaves a block decoding the same, an image holding the same tree),
# or the command fails with one line and writes nothing; never a wrong
# image. The plain
# builds and the named results pass fsck and mount in the kernel. Then an
# earlier image made by mksquashfs: blocks are copied, and the kernel and
# fsck read the result as the tree.
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd mksquashfs od dd cmp
MANIFEST=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq
[ -x "$MANIFEST" ] && [ -x "$JSONQ" ] || skip_all "the test tools are not built"
grep -qw squashfs /proc/filesystems || modprobe squashfs 2>/dev/null
grep -qw squashfs /proc/filesystems || skip_all "no squashfs in the kernel"
scratch_mount
SQK=$SQUASHKIT

lines() { awk -v n="$1" -v w="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s line %d\n", w, i }'; }

A=$TMP/a
mkdir -p "$A/aa" "$A/d" "$A/small"
# First in the data: more tails than a fragment block holds, so one is
# written first of all, at the data area's start.
i=0
while [ $i -lt 40 ]; do
	lines 12 "first-$i" >"$A/aa/t$i"
	i=$((i + 1))
done
lines 2000 text >"$A/d/text"
head -c 12288 /dev/urandom >"$A/d/random"
lines 300 other >"$A/d/other"
i=0
while [ $i -lt 30 ]; do
	lines $((i % 5 + 1)) "small-$i" >"$A/small/f$i"
	i=$((i + 1))
done
B=$TMP/b
cp -a "$A" "$B"
lines 50 changed >>"$B/d/other"
lines 4 new >"$B/small/new"
"$MANIFEST" "$B" >"$TMP/b.m"

# jq FILE POINTER...: values of a --json summary.
jq() { "$JSONQ" "$@" 2>&1; }

# flip IMG POS: invert the byte at POS.
flip() {
	v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((v ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# mounts IMG DESC [OFFSET]: the kernel shows the changed tree; fsck says clean.
mounts() {
	kernel_view "$1" "$TMP/k.m" "${3:-0}"
	same_file "$TMP/k.m" "$TMP/b.m" "$2: the kernel mounts it and shows the tree"
	if [ -z "$3" ]; then
		expect_success "$2: fsck says clean" "$SQK" fsck "$1"
	else
		expect_success "$2: fsck says clean" "$SQK" fsck --offset "$3" "$1"
	fi
}

for c in xz lz4; do
	"$SQK" mkimage -q -c $c -b 4K "$A" "$TMP/a.$c.img" &&
		"$SQK" mkimage -q -c $c -b 4K "$B" "$TMP/plain.$c.img"
	ok $? "$c: the plain builds"
	mounts "$TMP/plain.$c.img" "$c: the plain build"

	# Named blocks the rebuild would copy: a compressed one, a raw one, a fragment.
	"$SQK" stat --json "$TMP/a.$c.img" /d/text >"$TMP/text.json"
	"$SQK" stat --json "$TMP/a.$c.img" /d/random >"$TMP/random.json"
	"$SQK" inspect --json "$TMP/a.$c.img" >"$TMP/inspect.json"
	text=$(($(jq "$TMP/text.json" /blocks/2/start) + $(jq "$TMP/text.json" /blocks/2/size) / 2))
	raw=$(($(jq "$TMP/random.json" /blocks/1/start) + 100))
	is "$(jq "$TMP/random.json" /blocks/1/compressed)" false "$c: the random file's blocks are stored raw"
	frag=$(($(jq "$TMP/inspect.json" /tables/data/start) + 10))
	for what in text raw frag; do
		eval "pos=\$$what"
		cp "$TMP/a.$c.img" "$TMP/bad.img"
		flip "$TMP/bad.img" "$pos"
		rm -f "$TMP/r.img"
		expect_success "$c: a flip in a $what block of the earlier image: the build succeeds" \
			"$SQK" mkimage -q -c $c -b 4K --json --reuse "$TMP/bad.img" "$B" "$TMP/r.img"
		same_file "$TMP/r.img" "$TMP/plain.$c.img" "$c: a flip in a $what block: the plain build"
		bad=$(($(jq "$TMP/.out" /reuse/images/0/unreadable) + $(jq "$TMP/.out" /reuse/images/0/rejected)))
		[ "$bad" -ge 1 ]
		ok $? "$c: a flip in a $what block: the block was refused ($bad)"
		mounts "$TMP/r.img" "$c: a flip in a $what block"
	done
	# A flip that fails to decompress is named in a note.
	cp "$TMP/a.$c.img" "$TMP/bad.img"
	flip "$TMP/bad.img" "$text"
	"$SQK" mkimage -q -f -c $c -b 4K --json --reuse "$TMP/bad.img" "$B" "$TMP/r.img" \
		>"$TMP/r.json" 2>"$TMP/err"
	n=$(jq "$TMP/r.json" /reuse/images/0/unreadable)
	if [ "$n" -ge 1 ]; then
		grep -q "bad.img: $n blocks\{0,1\} could not be read back (damaged); compressed afresh" "$TMP/err"
		ok $? "$c: unreadable blocks are named in a note"
	else
		grep -q "could not be read" "$TMP/err"
		ok $((!$?)) "$c: no unreadable block, no note"
	fi

	# A byte flipped every few hundred bytes through the whole image, one at a time.
	size=$(wc -c <"$TMP/a.$c.img")
	pos=7 wrong=0 cases=0 failed=0
	while [ $pos -lt "$size" ]; do
		cp "$TMP/a.$c.img" "$TMP/bad.img"
		flip "$TMP/bad.img" $pos
		rm -f "$TMP/r.img"
		if "$SQK" mkimage -q -c $c -b 4K --reuse "$TMP/bad.img" "$B" "$TMP/r.img" \
			>/dev/null 2>"$TMP/err"; then
			# A block altered so that it decodes the same is copied: sound, other bytes.
			if ! cmp -s "$TMP/r.img" "$TMP/plain.$c.img"; then
				rm -rf "$TMP/x"
				if "$SQK" fsck -q "$TMP/r.img" >/dev/null 2>&1 &&
					"$SQK" unimage -q -d "$TMP/x" "$TMP/r.img" 2>/dev/null &&
					"$MANIFEST" "$TMP/x" | cmp -s - "$TMP/b.m"; then
					echo "# $c: flip at $pos: a block that decodes the same was copied"
				else
					wrong=$((wrong + 1))
					echo "# $c: flip at $pos gave another image"
				fi
			fi
		else
			failed=$((failed + 1))
			if [ "$(wc -l <"$TMP/err")" -ne 1 ] || [ -e "$TMP/r.img" ]; then
				wrong=$((wrong + 1))
				echo "# $c: flip at $pos failed without one line, or left an image"
			fi
		fi
		cases=$((cases + 1))
		pos=$((pos + 331))
	done
	is "$wrong" 0 "$c: $cases flips through the image: never a wrong image ($failed failed with one line)"
done

# Another compressor, another block size: a note, and the plain build.
for other in "-c lz4 -b 4K" "-c xz -b 8K"; do
	rm -f "$TMP/o.img"
	# shellcheck disable=SC2086
	"$SQK" mkimage -q $other "$A" "$TMP/o.img"
	rm -f "$TMP/r.img"
	expect_success "an earlier image made with $other: the build succeeds" \
		"$SQK" mkimage -q -c xz -b 4K --reuse "$TMP/o.img" "$B" "$TMP/r.img"
	grep -q "o.img: .*: nothing reused" "$TMP/.err"
	ok $? "an earlier image made with $other: a note says why nothing is reused"
	same_file "$TMP/r.img" "$TMP/plain.xz.img" "an earlier image made with $other: the plain build"
	mounts "$TMP/r.img" "an earlier image made with $other"
done

# Truncated: the tables are gone, so it cannot be read.
head -c $(($(wc -c <"$TMP/a.xz.img") / 2)) "$TMP/a.xz.img" >"$TMP/short.img"
expect_status 1 "a truncated earlier image: an error" \
	"$SQK" mkimage -q -c xz -b 4K --reuse "$TMP/short.img" "$B" "$TMP/t.img"
is "$(wc -l <"$TMP/.err")" 1 "a truncated earlier image: one line"
grep -q "short.img: " "$TMP/.err"
ok $? "a truncated earlier image: the line names it"
[ ! -e "$TMP/t.img" ]
ok $? "a truncated earlier image: nothing written"
# Its padding cut off only: still whole.
rm -f "$TMP/t.img"
cp "$TMP/a.lz4.img" "$TMP/trim.img"
used=$("$SQK" inspect --json "$TMP/trim.img" | "$JSONQ" - /bytes_used)
truncate -s "$used" "$TMP/trim.img"
expect_success "an earlier image without its padding" \
	"$SQK" mkimage -q -c lz4 -b 4K --reuse "$TMP/trim.img" "$B" "$TMP/t.img"
same_file "$TMP/t.img" "$TMP/plain.lz4.img" "an earlier image without its padding: the plain build"

# Not an image.
lines 100 "not an image" >"$TMP/text.img"
expect_status 1 "an earlier image that is no image: an error" \
	"$SQK" mkimage -q --reuse "$TMP/text.img" "$B" "$TMP/t2.img"
is "$(wc -l <"$TMP/.err")" 1 "an earlier image that is no image: one line"
grep -q "^squashkit mkimage: $TMP/text.img: not a squashfs image" "$TMP/.err"
ok $? "an earlier image that is no image: the line names it and says so"
[ ! -e "$TMP/t2.img" ]
ok $? "an earlier image that is no image: nothing written"
expect_status 1 "a directory as the earlier image: an error" \
	"$SQK" mkimage -q --reuse "$A" "$B" "$TMP/t2.img"
is "$(wc -l <"$TMP/.err")" 1 "a directory as the earlier image: one line"

# The earlier image is the IMAGE replaced.
cp "$TMP/a.xz.img" "$TMP/same.img"
expect_status 1 "--reuse IMAGE without --force: IMAGE exists" \
	"$SQK" mkimage -q -c xz -b 4K --reuse "$TMP/same.img" "$B" "$TMP/same.img"
cmp -s "$TMP/same.img" "$TMP/a.xz.img"
ok $? "--reuse IMAGE without --force: IMAGE untouched"
expect_success "--reuse IMAGE --force" \
	"$SQK" mkimage -q -f -c xz -b 4K --json --reuse "$TMP/same.img" "$B" "$TMP/same.img"
same_file "$TMP/same.img" "$TMP/plain.xz.img" "--reuse IMAGE --force: the plain build"
[ "$(jq "$TMP/.out" /reuse/blocks)" -ge 10 ]
ok $? "--reuse IMAGE --force: blocks were copied from it"
mounts "$TMP/same.img" "--reuse IMAGE --force"
# After --offset bytes, as an AppImage holds it.
head -c 3000 /dev/urandom >"$TMP/head"
cp "$TMP/head" "$TMP/app"
"$SQK" mkimage -q -f -c xz -b 4K --offset 3000 "$A" "$TMP/app"
cp "$TMP/head" "$TMP/app-plain"
"$SQK" mkimage -q -f -c xz -b 4K --offset 3000 "$B" "$TMP/app-plain"
expect_success "--reuse IMAGE --offset 3000 --reuse-offset 3000" \
	"$SQK" mkimage -q -f -c xz -b 4K --offset 3000 --reuse-offset 3000 --json \
	--reuse "$TMP/app" "$B" "$TMP/app"
same_file "$TMP/app" "$TMP/app-plain" "--reuse IMAGE after --offset: the plain build"
[ "$(jq "$TMP/.out" /reuse/blocks)" -ge 10 ]
ok $? "--reuse IMAGE after --offset: blocks were copied from it"
mounts "$TMP/app" "--reuse IMAGE after --offset" 3000

# An earlier image made by mksquashfs with the same compressor and options.
for c in xz zstd gzip; do
	rm -f "$TMP/m.img"
	mksquashfs "$A" "$TMP/m.img" -comp $c -b 4096 -noappend -no-progress -quiet >/dev/null 2>&1
	ok $? "mksquashfs $c: the earlier image"
	rm -f "$TMP/r.img"
	expect_success "mksquashfs $c: --reuse of its image" \
		"$SQK" mkimage -q -c $c -b 4K --json --reuse "$TMP/m.img" "$B" "$TMP/r.img"
	cp "$TMP/.out" "$TMP/m.json"
	copied=$(jq "$TMP/m.json" /reuse/images/0/blocks)
	[ "$copied" -ge 10 ]
	ok $? "mksquashfs $c: $copied blocks copied ($(jq "$TMP/m.json" /reuse/compressed) compressed)"
	echo "# mksquashfs $c: stored as this build stores: $(jq "$TMP/m.json" /reuse/images/0/same_compression)"
	mounts "$TMP/r.img" "mksquashfs $c"
done

done_testing
