#!/bin/sh
# Damaged images: a small image made by mksquashfs with three compressors gets
# 1000 single-bit flips and 100 truncations each (deterministic: positions come
# from tests/tools/corrupt's seeded generator, inside bytes_used, half of the
# flips in the tables; the zstd image keeps its inode, fragment and xattr
# tables uncompressed, so flips there change fields rather than break a
# compressed block). For each:
#   - fsck and unimage never crash (exit status below 124: no signal, no
#     timeout) and print no sanitizer report, and never hang (timeout 20);
#   - fsck says clean (0) only about images that unimage extracts;
#   - every image that unsquashfs rejects (non-zero exit), fsck reports (4).
# unsquashfs runs only where fsck says clean: the third property is about
# those. A flip inside a block stored uncompressed (bit 24 of its size, or
# the -noD/-noF style raw data) changes file contents and nothing else: no
# reader can tell, and all three accept the image.
#
# Exceptions to "unsquashfs rejects => fsck reports", none of them corruption
# (so none is expected here, but each would be a failure of the harness, not
# of fsck): unsquashfs also fails when it cannot create what the image
# holds — devices and owners without root, xattrs the destination file system
# refuses (user xattrs on tmpfs before Linux 6.6), no space. The tree has no
# devices, keeps the owner of the user running the test, and gets xattrs only
# when the scratch directory takes them; unsquashfs then uses -no-xattrs when
# it does not. Under the sanitizers (SQK_SANITIZED=1) fewer cases run: each
# process starts far slower there, and the counts are said in the output.
# Thousands of small extractions: on tmpfs they cost a fraction of a disk's.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs unsquashfs timeout nproc
. "$SQK_SRCDIR/tests/interop/damage.sh"

FLIPS=1000
TRUNCS=100
if [ -n "${SQK_SANITIZED:-}" ]; then
	FLIPS=150
	TRUNCS=20
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

# crashed STATUS ERRFILE: a signal, a timeout or a sanitizer report?
crashed() {
	[ "$1" -ge 124 ] || grep -q -E 'Sanitizer|runtime error|LeakSanitizer' "$2"
}

# run_cases IMAGE WORKER: the cases WORKER, WORKER + WORKERS, ...
run_cases() {
	img=$1
	i=$2
	cur=$TMP/cur-$2.img
	x=$TMP/x-$2
	while [ $i -lt $((FLIPS + TRUNCS)) ]; do
		what=$("$CORRUPT" "$img" "$cur" $SEED $i $FLIPS) || {
			echo "# corrupt failed on case $i"
			i=$((i + WORKERS))
			continue
		}
		crash=""
		timeout 20 "$SQUASHKIT" fsck -q -j 2 "$cur" >/dev/null 2>"$x.ferr"
		f=$?
		if crashed $f "$x.ferr"; then
			crash=f
			echo "#   case $i ($what): fsck exit $f"
			head -5 "$x.ferr" | sed 's/^/#     /'
		elif [ $f -ne 0 ] && [ $f -ne 4 ]; then
			echo "#   case $i ($what): fsck exit $f (not 0 or 4)"
			head -2 "$x.ferr" | sed 's/^/#     /'
		fi
		timeout 20 "$SQUASHKIT" unimage -q -j 1 -d "$x" "$cur" >/dev/null 2>"$x.uerr"
		u=$?
		rm -rf "$x"
		if crashed $u "$x.uerr"; then
			crash=${crash}u
			echo "#   case $i ($what): unimage exit $u"
			head -5 "$x.uerr" | sed 's/^/#     /'
		fi
		s=-
		if [ $f -eq 0 ]; then
			if [ $u -ne 0 ]; then
				echo "#   case $i ($what): fsck says clean, unimage fails:"
				head -2 "$x.uerr" | sed 's/^/#     /'
			fi
			# shellcheck disable=SC2086
			timeout 20 unsquashfs -n $unsq_opts -d "$x" "$cur" >/dev/null 2>"$x.serr"
			s=$?
			rm -rf "$x"
			if [ $s -ne 0 ]; then
				echo "#   case $i ($what): unsquashfs exit $s, fsck says clean:"
				grep -v '^$' "$x.serr" | head -2 | sed 's/^/#     /'
			fi
		fi
		echo "$i $f $u $s ${crash:--}"
		i=$((i + WORKERS))
	done
	rm -f "$cur" "$x".*
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

	# The cases run in parallel workers; each writes one line per case:
	# "CASE FSCK UNIMAGE UNSQUASHFS CRASH(f/u/-)" and its notes.
	cases=$((FLIPS + TRUNCS))
	all_cases "$img"
	eval "$(awk '!/^#/ {
		if ($5 ~ /f/) crash_f++
		if ($5 ~ /u/) crash_u++
		if ($2 == 0) n_clean++; else if ($2 == 4) n_errors++; else if ($5 !~ /f/) other++
		if ($3 != 0) n_unimage_fail++
		if ($2 == 0 && $3 != 0) false_clean++
		if ($2 == 0 && $4 != "-" && $4 != 0) missed++
		n++
	} END {
		printf "crash_f=%d crash_u=%d n_clean=%d n_errors=%d other=%d n_unimage_fail=%d ", \
			crash_f, crash_u, n_clean, n_errors, other, n_unimage_fail
		printf "false_clean=%d missed=%d ran=%d\n", false_clean, missed, n
	}' "$TMP/res")"
	is "$ran" "$cases" "$comp: every case ran"
	echo "# $comp: $cases cases: fsck clean $n_clean, errors $n_errors;" \
		"unimage failed on $n_unimage_fail"
	is "$crash_f" 0 "$comp: fsck never crashed or hung ($FLIPS flips, $TRUNCS truncations)"
	is "$other" 0 "$comp: fsck exit status is 0 or 4 on every damaged image (the file is readable)"
	is "$crash_u" 0 "$comp: unimage never crashed or hung"
	is "$false_clean" 0 "$comp: fsck never said clean about an image unimage could not extract"
	is "$missed" 0 "$comp: every image unsquashfs rejects, fsck reports"
	ok "$([ $n_errors -gt 0 ]; echo $?)" "$comp: fsck found errors in damaged images ($n_errors)"
done

done_testing
