#!/bin/sh
# Time `squashkit fsck -j 2` against `unsquashfs -d /dev/shm/x` on the same
# image: both decompress every block once; unsquashfs also writes the tree to
# tmpfs, fsck also checks every structure. Median of $RUNS runs, interleaved
# so that machine noise hits both alike. Prints both times, the CPU time of
# each and the ratio fsck / unsquashfs (the goal: at most 1.2).
#
#   bench/fsck-vs-unsquashfs.sh [IMAGE]
# Without IMAGE, a gzip image of a few hundred MB of files from this machine
# is built in $WORK. Environment: RUNS (5), FSCK_THREADS (2), WORK
# (/dev/shm/sqk-bench), SQUASHKIT, UNSQUASHFS (unsquashfs).
set -e
. "$(dirname "$0")/lib.sh"
command -v "$UNSQUASHFS" >/dev/null || { echo "$UNSQUASHFS is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
[ -x "$SQUASHKIT" ] || { echo "$SQUASHKIT: not built (run make)" >&2; exit 1; }
J=${FSCK_THREADS:-2}
mkdir -p "$WORK"
img=${1:-}
if [ -z "$img" ]; then
	make_source "$WORK/src"
	img=$WORK/src.gzip.img
	[ -f "$img" ] || mksquashfs "$WORK/src" "$img" -quiet -noappend -comp gzip >/dev/null
fi
x=/dev/shm/sqk-bench-x.$$
trap 'rm -rf "$x"' EXIT INT TERM
echo "image: $img ($(du -h "$img" | cut -f1)), fsck -j $J, runs: $RUNS"

# cpu CMD...: wall and user+system seconds of one run, as "WALL CPU".
cpu() {
	/usr/bin/env time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -n 1 |
		awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
}

tf="" tu="" cf="" cu=""
# A first, untimed read of each: the image in the page cache for both.
"$SQUASHKIT" fsck -q -j "$J" "$img" || { echo "fsck: the image is not clean" >&2; exit 1; }
i=0
while [ $i -lt "$RUNS" ]; do
	rm -rf "$x"
	set -- $(cpu "$UNSQUASHFS" -q -n -d "$x" "$img")
	tu="$tu $1" cu="$cu $2"
	rm -rf "$x"
	set -- $(cpu "$SQUASHKIT" fsck -q -j "$J" "$img")
	tf="$tf $1" cf="$cf $2"
	i=$((i + 1))
done
mu=$(median $tu) mf=$(median $tf)
printf 'unsquashfs -d %s   %6.2f s wall  %6.2f s cpu\n' "$x" "$mu" "$(median $cu)"
printf 'squashkit fsck -j %s       %6.2f s wall  %6.2f s cpu\n' "$J" "$mf" "$(median $cf)"
echo "ratio (fsck time / unsquashfs time): $(ratio "$mf" "$mu")"
