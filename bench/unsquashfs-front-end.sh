#!/bin/sh
# Time `squashkit unsquashfs -d X IMAGE` of two squashkit builds on the same
# image (a change to the front end's path against the build before it):
# same thread count, output on tmpfs, median of $RUNS runs, interleaved so
# that machine noise hits both alike. Prints wall and CPU time, peak RSS
# and the ratios.
#
#   BEFORE=/path/to/old/squashkit bench/unsquashfs-front-end.sh [IMAGE]
# Without IMAGE, the gzip image of bench/unimage-vs-unsquashfs.sh is built.
# Environment: BEFORE (required), RUNS (5), THREADS (nproc), WORK
# (/dev/shm/sqk-bench), SQUASHKIT (the build measured against BEFORE).
set -e
. "$(dirname "$0")/lib.sh"
[ -x "${BEFORE:-}" ] || { echo "set BEFORE to the squashkit to compare with" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
mkdir -p "$WORK"
img=$(bench_image "${1:-}")
echo "image: $img ($(du -h "$img" | cut -f1)), threads: $THREADS, runs: $RUNS"

tb="" ta="" rb="" ra="" cb="" ca=""
i=0
while [ $i -lt "$RUNS" ]; do
	rm -rf "$WORK/x"
	measure t r c "$BEFORE" unsquashfs -q -n -p "$THREADS" -d "$WORK/x" "$img"
	tb="$tb $t" rb="$rb $r" cb="$cb $c"
	rm -rf "$WORK/x"
	measure t r c "$SQUASHKIT" unsquashfs -q -n -p "$THREADS" -d "$WORK/x" "$img"
	ta="$ta $t" ra="$ra $r" ca="$ca $c"
	i=$((i + 1))
done
rm -rf "$WORK/x"
printf '%-8s %6.2f s  cpu %6.2f s  peak %6d KiB\n' before "$(median $tb)" "$(median $cb)" \
	"$(median $rb)"
printf '%-8s %6.2f s  cpu %6.2f s  peak %6d KiB\n' after "$(median $ta)" "$(median $ca)" \
	"$(median $ra)"
echo "after / before: time $(ratio "$(median $ta)" "$(median $tb)")x," \
	"cpu $(ratio "$(median $ca)" "$(median $cb)")x"
