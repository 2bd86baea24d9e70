#!/bin/sh
# Damaged images: a small image made by mksquashfs with three compressors gets
# 1000 single-bit flips and 100 truncations each (deterministic: positions come
# from the seeded generator of tests/tools/lib/damage.c, inside bytes_used,
# half of the flips in the tables; the zstd image keeps its inode, fragment
# and xattr tables uncompressed, so flips there change fields rather than
# break a compressed block). For each:
#   - fsck and unimage never crash (no signal, no sanitizer report) and never
#     hang (20 s a case);
#   - fsck says clean (0) only about images that unimage extracts;
#   - every image that unsquashfs rejects (non-zero exit), fsck reports (4).
# unsquashfs runs only where fsck says clean: the third property is about
# those. A flip inside a block stored uncompressed (bit 24 of its size, or
# the -noD/-noF style raw data) changes file contents and nothing else: no
# reader can tell, and all three accept the image.
#
# The cases run in tests/tools/damage-run, which makes the calls of
# `fsck -q -j 2` and `unimage -q -j 1 -d` in one process (a process start
# costs far more than a case); a crash or a hang there ends the process and
# is reported for the case it happened in. On every 25th case the commands
# themselves run too (on the image tests/tools/corrupt damages the same
# way), and their exit statuses must be damage-run's.
#
# Exceptions to "unsquashfs rejects => fsck reports", none of them corruption
# (so none is expected here, but each would be a failure of the harness, not
# of fsck): unsquashfs also fails when it cannot create what the image
# holds — devices and owners without root, xattrs the destination file system
# refuses (user xattrs on tmpfs before Linux 6.6), no space. The tree has no
# devices, keeps the owner of the user running the test, and gets xattrs only
# when the scratch directory takes them; unsquashfs then uses -no-xattrs when
# it does not. Under the sanitizers (SQK_SANITIZED=1) half the cases run:
# each runs several times slower there, and the counts are said in the output.
# Thousands of small extractions: on tmpfs they cost a fraction of a disk's.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs unsquashfs timeout nproc
. "$SQK_SRCDIR/tests/interop/damage.sh"

FLIPS=1000
TRUNCS=100
if [ -n "${SQK_SANITIZED:-}" ]; then
	FLIPS=500
	TRUNCS=50
	echo "# SQK_SANITIZED: $FLIPS flips and $TRUNCS truncations per compressor" \
		"(1000 and 100 without sanitizers)"
fi
SEED=20240601
WORKERS=$(nproc 2>/dev/null || echo 2)
[ "$WORKERS" -le 4 ] || WORKERS=4

# --- a small tree: blocks, tails, fragments, a hole, links, a large directory ---
t=$TMP/tree
small_tree "$t" 180
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%c", (i * 7919) % 251 }' >"$t/dir/noise"
xattrs=0
if setfattr -n user.comment -v "some value" "$t/hello" 2>/dev/null &&
	setfattr -n user.other -v "$(printf '%0100d' 0)" "$t/dir/blocks" 2>/dev/null; then
	setfattr -n user.other -v "$(printf '%0100d' 0)" "$t/dir/noise"
	xattrs=1
fi
unsq_opts=""
[ $xattrs -eq 1 ] || unsq_opts="-no-xattrs"
echo "# tree: $(find "$t" | wc -l) entries; xattrs: $([ $xattrs -eq 1 ] && echo yes || echo no)"

# run_cases IMAGE WORKER: the cases WORKER, WORKER + WORKERS, ...: the
# driver's lines ("CASE FSCK UNIMAGE WHAT"), then "CASE unsquashfs STATUS"
# for each image fsck says clean, then the commands on the sample.
run_cases() {
	x=$TMP/x-$2
	drive "$1" $2 -j 2 >"$TMP/drv-$2"
	cat "$TMP/drv-$2"
	awk '$2 == "0" { print $1 }' "$TMP/drv-$2" | while read -r i; do
		cur=$TMP/scr-$2/clean-$i.img
		if [ ! -f "$cur" ]; then
			echo "#   case $i: fsck says clean, and damage-run kept no image"
			echo "$i unsquashfs missing"
			continue
		fi
		# shellcheck disable=SC2086
		timeout 20 unsquashfs -n $unsq_opts -d "$x" "$cur" >/dev/null 2>"$x.serr"
		s=$?
		rm -rf "$x"
		if [ $s -ne 0 ]; then
			echo "#   case $i ($(sed -n "s/^$i 0 [0-9]* //p" "$TMP/drv-$2")):" \
				"unsquashfs exit $s, fsck says clean:"
			grep -v '^$' "$x.serr" | head -2 | sed 's/^/#     /'
		fi
		echo "$i unsquashfs $s"
	done
	commands "$1" $2 2
	rm -rf "$TMP/scr-$2" "$TMP/drv-$2" "$x".*
}

for comp in gzip xz zstd; do
	img=$TMP/$comp.img
	raw=""
	[ "$comp" = zstd ] && raw="-noI -noF -noX"
	# shellcheck disable=SC2086
	if ! mksquashfs "$t" "$img" -noappend -quiet -no-progress -b 4K -comp "$comp" $raw \
		-all-time 1600000000 -mkfs-time 1600000000 >"$TMP/mks.err" 2>&1; then
		skip "mksquashfs -comp $comp failed: $(head -1 "$TMP/mks.err")"
		continue
	fi
	# The undamaged image: all three accept it.
	timeout 60 "$SQUASHKIT" fsck -q "$img" >/dev/null 2>&1
	f=$?
	timeout 60 "$SQUASHKIT" unimage -q -d "$TMP/clean" "$img" >/dev/null 2>&1
	u=$?
	# shellcheck disable=SC2086
	unsquashfs -n $unsq_opts -d "$TMP/uclean" "$img" >/dev/null 2>&1
	s=$?
	rm -rf "$TMP/clean" "$TMP/uclean"
	if [ $f -ne 0 ] || [ $u -ne 0 ] || [ $s -ne 0 ]; then
		ok 1 "$comp: the undamaged image passes fsck, unimage and unsquashfs"
		echo "#   fsck $f, unimage $u, unsquashfs $s"
		continue
	fi
	ok 0 "$comp: the undamaged image passes fsck, unimage and unsquashfs"

	# The cases run in parallel workers; see run_cases for their lines.
	cases=$((FLIPS + TRUNCS))
	all_cases "$img"
	eval "$(awk '/^#/ { next }
	$2 == "crash" {
		if ($4 == "fsck") crash_f++
		else if ($4 == "unimage") crash_u++
		else { crash_f++; crash_u++ }
		if ($1 ~ /^[0-9]+$/) n++
		next
	}
	$2 == "unsquashfs" { s[$1] = $3; next }
	$2 ~ /^[0-9]+$/ {
		if ($2 == 0) n_clean++; else if ($2 == 4) n_errors++; else other++
		if ($3 != 0) n_unimage_fail++
		if ($2 == 0 && $3 != 0) false_clean++
		if ($2 == 0) clean[$1] = 1
		n++
	}
	END {
		for (c in clean)
			if (!(c in s) || s[c] != 0) missed++
		printf "crash_f=%d crash_u=%d n_clean=%d n_errors=%d other=%d n_unimage_fail=%d ", \
			crash_f, crash_u, n_clean, n_errors, other, n_unimage_fail
		printf "false_clean=%d missed=%d ran=%d\n", false_clean, missed, n
	}' "$TMP/res")"
	compare_commands
	is "$ran" "$cases" "$comp: every case ran"
	echo "# $comp: $cases cases: fsck clean $n_clean, errors $n_errors;" \
		"unimage failed on $n_unimage_fail"
	is "$crash_f" 0 "$comp: fsck never crashed or hung ($FLIPS flips, $TRUNCS truncations)"
	is "$other" 0 "$comp: fsck exit status is 0 or 4 on every damaged image (the file is readable)"
	is "$crash_u" 0 "$comp: unimage never crashed or hung"
	is "$false_clean" 0 "$comp: fsck never said clean about an image unimage could not extract"
	is "$missed" 0 "$comp: every image unsquashfs rejects, fsck reports"
	ok "$([ $n_errors -gt 0 ]; echo $?)" "$comp: fsck found errors in damaged images ($n_errors)"
	ok "$([ "$sampled" -gt 0 ] && [ "$cmd_diff" -eq 0 ]; echo $?)" \
		"$comp: fsck and unimage, run as commands on every ${SAMPLE}th case ($sampled), exit as damage-run says"
done

done_testing
