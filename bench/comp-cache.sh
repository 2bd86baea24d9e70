#!/bin/sh
# The compressed-block cache on a slow device: fio's job in the seed thread
# (one reader, iodepth 1, psync: random reads of a block) through the model
# with a cache of N compressed blocks, N from 0 up to the whole working set,
# and through the kernel's squashfs (which keeps no compressed blocks unless
# built with CONFIG_SQUASHFS_COMP_CACHE_FULL), on the same device:
#
#   squashkit bench -w randread -t 1 -p herd --cache comp=N \
#       --slow-device IOPS,BYTES --against kernel IMAGE
#
# The device is a loop device over the image whose reads the block layer
# throttles (bench's --slow-device); the model reads it with O_DIRECT, the
# kernel drops the block's pages before each read. Reported per N: IOPS
# (block reads per second), MiB/s of file data, reads that reached the
# device per block read, the device's MiB/s, the memory the cache holds, and
# the median latency; medians of $RUNS runs of $DURATION each, the model and
# the kernel interleaved in every run.
#
#   bench/comp-cache.sh [IMAGE...]
# Without IMAGE, two are built in $WORK: "libs" (32 MiB of shared libraries:
# two files, compressed about 2.5x) and "random" (32 MiB from /dev/urandom,
# which the writer stores uncompressed, as fio's random data would be).
# Environment: RUNS (3), DURATION (3s), IOPS (1000), BYTES (100M),
# SIZES (entries: "0 16 32 64 128 192 256 320"), WORK, SQUASHKIT. Needs root.
set -e
: "${RUNS:=3}"
. "$(dirname "$0")/lib.sh"
: "${DURATION:=3s}"
: "${IOPS:=1000}"
: "${BYTES:=100M}"
: "${SIZES:=0 16 32 64 128 192 256 320}"
[ "$(id -u)" -eq 0 ] || { echo "needs root (loop devices, the throttle, kernel mounts)" >&2; exit 1; }
[ -x "$SQUASHKIT" ] || { echo "$SQUASHKIT: not built (run make)" >&2; exit 1; }
mkdir -p "$WORK"

if [ $# -eq 0 ]; then
	src=$WORK/comp-libs
	if [ ! -d "$src" ]; then
		mkdir -p "$src"
		libs() {
			find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name '*.so*' -type f | sort "$@" |
				xargs cat 2>/dev/null | head -c 16M
		}
		libs >"$src/libs-1" || true
		libs -r >"$src/libs-2" || true
	fi
	[ -f "$WORK/comp-libs.img" ] || "$SQUASHKIT" mkimage -q -c gzip "$src" "$WORK/comp-libs.img"
	src=$WORK/comp-random
	if [ ! -d "$src" ]; then
		mkdir -p "$src"
		head -c 16M /dev/urandom >"$src/random-1"
		head -c 16M /dev/urandom >"$src/random-2"
	fi
	[ -f "$WORK/comp-random.img" ] || "$SQUASHKIT" mkimage -q -c gzip "$src" "$WORK/comp-random.img"
	set -- "$WORK/comp-libs.img" "$WORK/comp-random.img"
fi

# col FILE ROW NAME: the named column of a CSV row (1 = the first after the header);
# "-" for a figure the place cannot give (an empty field).
col() {
	awk -F, -v row="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		NR == row + 1 { print ($c == "" ? "-" : $c) }' "$1"
}

echo "device: loop device, reads throttled to $IOPS/s and $BYTES/s; $RUNS runs of $DURATION;" \
	"$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for img in "$@"; do
	out=$WORK/comp-cache.$(basename "$img").txt
	: >"$out"
	for n in $SIZES; do
		"$SQUASHKIT" bench -q -f csv -w randread -t 1 -p herd -d "$DURATION" -r "$RUNS" \
			--cache "comp=$n" --slow-device "$IOPS,$BYTES" --against kernel "$img" \
			>"$WORK/comp-cache.csv"
		for row in 1 2; do
			echo "$n $(col "$WORK/comp-cache.csv" $row where)" \
				"$(col "$WORK/comp-cache.csv" $row ops_per_s)" \
				"$(col "$WORK/comp-cache.csv" $row mib_per_s)" \
				"$(col "$WORK/comp-cache.csv" $row device_reads_per_op)" \
				"$(col "$WORK/comp-cache.csv" $row device_mib_per_s)" \
				"$(col "$WORK/comp-cache.csv" $row comp_cache_kib)" \
				"$(col "$WORK/comp-cache.csv" $row p50_us)" >>"$out"
		done
		echo "$(basename "$img"): comp=$n done" >&2
	done
	echo
	echo "$(basename "$img") ($(du -h "$img" | cut -f1))"
	printf '%-8s %8s %8s %10s %11s %10s %12s %8s\n' where comp IOPS MiB/s "dev rd/op" "dev MiB/s" \
		"cache MiB" "p50 us"
	awk '$2 == "model" { printf "%-8s %8s %8.0f %10.1f %11.2f %10.1f %12.1f %8.0f\n",
		"model", $1, $3, $4, $5, $6, $7 / 1024, $8 }' "$out"
	# The kernel ran beside every N: the median of those.
	printf '%-8s %8s %8s %10s %11s %10s %12s %8s\n' kernel - \
		"$(median $(awk '$2 == "kernel" { print $3 }' "$out") | awk '{ printf "%.0f", $1 }')" \
		"$(median $(awk '$2 == "kernel" { print $4 }' "$out") | awk '{ printf "%.1f", $1 }')" \
		"$(median $(awk '$2 == "kernel" { print $5 }' "$out") | awk '{ printf "%.2f", $1 }')" \
		"$(median $(awk '$2 == "kernel" { print $6 }' "$out") | awk '{ printf "%.1f", $1 }')" \
		"n/a" \
		"$(median $(awk '$2 == "kernel" { print $8 }' "$out") | awk '{ printf "%.0f", $1 }')"
done
