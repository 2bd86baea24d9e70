#!/bin/sh
# Time `squashkit unimage` against Debian's `unsquashfs` on the same image:
# same thread count, output on tmpfs, median of $RUNS runs, interleaved so
# that machine noise hits both alike. Prints the wall time and CPU time
# ratios and peak RSS.
#
#   bench/unimage-vs-unsquashfs.sh [IMAGE]
# Without IMAGE, a gzip image of a few hundred MB of source files is built.
# Environment: RUNS (5), THREADS (nproc), WORK (/dev/shm/sqk-bench), SQUASHKIT,
# UNSQUASHFS (unsquashfs: another build of it, to compare with that).
set -e
. "$(dirname "$0")/lib.sh"
command -v "$UNSQUASHFS" >/dev/null || { echo "$UNSQUASHFS is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
mkdir -p "$WORK"
img=$(bench_image "${1:-}")
echo "image: $img ($(du -h "$img" | cut -f1)), threads: $THREADS, runs: $RUNS"

ts="" tu="" rs="" ru="" cs="" cu=""
i=0
while [ $i -lt "$RUNS" ]; do
	rm -rf "$WORK/x"
	measure t r c "$UNSQUASHFS" -q -n -p "$THREADS" -d "$WORK/x" "$img"
	tu="$tu $t" ru="$ru $r" cu="$cu $c"
	rm -rf "$WORK/x"
	measure t r c "$SQUASHKIT" unimage -q -j "$THREADS" -d "$WORK/x" "$img"
	ts="$ts $t" rs="$rs $r" cs="$cs $c"
	i=$((i + 1))
done
rm -rf "$WORK/x"
mu=$(median $tu) ms=$(median $ts)
printf '%-15s %6.2f s  cpu %6.2f s  peak %6d KiB\n' "$("$UNSQUASHFS" -v 2>&1 | head -1 |
	awk '{ print "unsquashfs " $3 }')" "$mu" "$(median $cu)" "$(median $ru)"
printf '%-15s %6.2f s  cpu %6.2f s  peak %6d KiB\n' squashkit "$ms" "$(median $cs)" "$(median $rs)"
echo "speedup (unsquashfs time / unimage time): $(ratio "$mu" "$ms")x;" \
	"cpu: $(ratio "$(median $cu)" "$(median $cs)")x"
