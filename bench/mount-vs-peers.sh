#!/bin/sh
# The same image mounted by `squashkit mount`, by squashfuse_ll (Debian
# squashfuse) and by the kernel; workloads run from outside through the VFS
# with N parallel readers:
#   walk    readdir every directory and lstat every entry
#   read    read every file to its end
#   random  random 4 KiB reads in two 16 MiB files
# (bench/vfs-load.pl: one process per reader, forked once, so that no exec
# per file drowns the file system's cost)
# Each (workload, readers, mounter) gets a fresh mount with the image dropped
# from the page cache: the first pass is "cold", a second pass on the same
# mount is "warm". Reported: throughput and CPU (the readers' user+system
# time plus the daemon's), medians of $RUNS runs, interleaved so that noise
# on the shared machine hits every mounter alike.
#
# The herd through a real VFS (squashkit mount under each wait policy, with
# the daemon's counters, beside the model and the kernel) is
# `squashkit bench --against kernel,mount` (bench/README.md).
#
#   bench/mount-vs-peers.sh [IMAGE]
# Without IMAGE, a gzip image of /usr/include (without node and llvm) and
# two 16 MiB files of shared libraries is built in $WORK. Needs root.
# Environment: RUNS (3), READERS ("1 4 16 64"), MOUNTERS ("squashkit
# squashfuse kernel"), WORKLOADS ("walk read random"), RANDOM_READS (4000
# per pass), SK_OPTS (more squashkit mount options), WORK
# (/dev/shm/sqk-bench), SQUASHKIT.
set -e
: "${RUNS:=3}"
. "$(dirname "$0")/lib.sh"
: "${READERS:=1 4 16 64}"
: "${MOUNTERS:=squashkit squashfuse kernel}"
: "${RANDOM_READS:=4000}"
: "${WORKLOADS:=walk read random}"
: "${SK_OPTS:=}"
[ "$(id -u)" -eq 0 ] || { echo "needs root (kernel mounts, dropping the image from the page cache)" >&2; exit 1; }
for c in squashfuse_ll fusermount3 mountpoint perl mksquashfs; do
	command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
[ -x "$SQUASHKIT" ] || { echo "$SQUASHKIT: not built (run make)" >&2; exit 1; }

mkdir -p "$WORK"
img=${1:-}
src=$WORK/mount-src
if [ -z "$img" ]; then
	if [ ! -d "$src" ]; then
		mkdir -p "$src/big"
		# Headers: thousands of small files; node and llvm left out to keep runs short.
		cp -a /usr/include "$src/"
		rm -rf "$src/include/node" "$src/include/llvm-14"
		# Shared libraries compress like real binaries do.
		libs() {
			find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name '*.so*' -type f | sort "$@" |
				xargs cat 2>/dev/null | head -c 16M
		}
		libs >"$src/big/libs-1" || true
		libs -r >"$src/big/libs-2" || true
	fi
	img=$WORK/mount-src.gzip.img
	[ -f "$img" ] || mksquashfs "$src" "$img" -quiet -no-progress -noappend -comp gzip >/dev/null
fi

mnt=$WORK/mnt
mkdir -p "$mnt"
dpid=""
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
	fi
	[ -z "$dpid" ] || kill "$dpid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the workloads read: lists made through a kernel mount of the image.
mount -t squashfs -o loop,ro "$img" "$mnt"
(cd "$mnt" && find . -type d -print0) >"$WORK/dirs.list"
(cd "$mnt" && find . -type f -print0) >"$WORK/files.list"
entries=$(cd "$mnt" && find . | wc -l)
bytes=$(cd "$mnt" && find . -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
bigs=$(cd "$mnt" && find . -type f -size +8M | head -4 | tr '\n' ' ')
umount "$mnt"
[ -n "$bigs" ] || { echo "the image has no file over 8 MiB for the random reads" >&2; exit 1; }
tck=$(getconf CLK_TCK)
echo "image: $img ($(du -h "$img" | cut -f1)), $entries entries, $((bytes / 1048576)) MiB in files;" \
	"random reads in:$bigs; runs: $RUNS; $(nproc) CPUs"

# mount_as M: a fresh mount by M, the image out of the page cache.
mount_as() {
	who=$1
	dd if="$img" iflag=nocache count=0 status=none
	case $who in
	squashkit)
		# shellcheck disable=SC2086 # SK_OPTS holds several options
		"$SQUASHKIT" mount -f $SK_OPTS "$img" "$mnt" 2>>"$WORK/daemon.err" &
		dpid=$!
		;;
	squashfuse)
		squashfuse_ll -f "$img" "$mnt" 2>>"$WORK/daemon.err" &
		dpid=$!
		;;
	kernel)
		mount -t squashfs -o loop,ro "$img" "$mnt"
		dpid=""
		;;
	esac
	tries=0
	until mountpoint -q "$mnt"; do
		tries=$((tries + 1))
		[ $tries -lt 200 ] || { echo "$who: the mount did not come up" >&2; exit 1; }
		sleep 0.05
	done
	ls "$mnt" >/dev/null
}

unmount_as() {
	case $1 in
	squashkit) "$SQUASHKIT" umount "$mnt" ;;
	squashfuse) fusermount3 -u "$mnt" ;;
	kernel) umount "$mnt" ;;
	esac
	if [ -n "$dpid" ]; then
		tries=0
		while kill -0 "$dpid" 2>/dev/null; do
			tries=$((tries + 1))
			[ $tries -lt 200 ] || { echo "$1: the daemon did not end" >&2; exit 1; }
			sleep 0.05
		done
		wait "$dpid" || true
		dpid=""
	fi
}

ticks() {
	if [ -n "$dpid" ] && [ -r "/proc/$dpid/stat" ]; then
		sed 's/.*) //' "/proc/$dpid/stat" | awk '{ print $12 + $13 }'
	else
		echo 0
	fi
}

load=$(cd "$(dirname "$0")" && pwd)/vfs-load.pl

# run_workload W N: one pass through the mount; prints "WALL CPU".
run_workload() {
	t0=$(ticks)
	case $1 in
	walk) set -- walk "$2" "$WORK/dirs.list" ;;
	read) set -- read "$2" "$WORK/files.list" ;;
	random) set -- random "$2" "$RANDOM_READS" $bigs ;;
	esac
	out=$(cd "$mnt" && /usr/bin/env time -f '%e %U %S' perl "$load" "$@" 2>&1 >/dev/null |
		tail -n 1)
	t1=$(ticks)
	echo "$out" | awk -v d=$((t1 - t0)) -v tck="$tck" '{ printf "%s %.2f\n", $1, $2 + $3 + d / tck }'
}

# throughput W WALL: entries/s, MiB/s or reads/s.
throughput() {
	case $1 in
	walk) awk -v n="$entries" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }' ;;
	read) awk -v n="$bytes" -v t="$2" 'BEGIN { printf "%.1f", (t > 0 ? n / 1048576 / t : 0) }' ;;
	random) awk -v n="$RANDOM_READS" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }' ;;
	esac
}

unit() {
	case $1 in walk) echo "entries/s" ;; read) echo "MiB/s" ;; random) echo "reads/s" ;; esac
}

res=$WORK/mount-results.txt
: >"$res"
: >"$WORK/daemon.err"

i=0
while [ $i -lt "$RUNS" ]; do
	for w in $WORKLOADS; do
		for n in $READERS; do
			for m in $MOUNTERS; do
				mount_as "$m"
				for phase in cold warm; do
					set -- $(run_workload $w "$n")
					echo "$m $w $n $phase $1 $2 $(throughput $w "$1")" >>"$res"
				done
				unmount_as "$m"
			done
		done
		echo "run $((i + 1))/$RUNS: $w done" >&2
	done
	i=$((i + 1))
done

printf '\n%-7s %-4s %-5s' workload N pass
for m in $MOUNTERS; do printf ' %22s' "$m"; done
printf '   %s\n' "squashkit/squashfuse squashkit/kernel"
for w in $WORKLOADS; do
	for n in $READERS; do
		for phase in cold warm; do
			printf '%-7s %-4s %-5s' $w "$n" $phase
			for m in $MOUNTERS; do
				tp=$(median $(awk -v m=$m -v w=$w -v n="$n" -v p=$phase \
					'$1 == m && $2 == w && $3 == n && $4 == p { print $7 }' "$res"))
				cpu=$(median $(awk -v m=$m -v w=$w -v n="$n" -v p=$phase \
					'$1 == m && $2 == w && $3 == n && $4 == p { print $6 }' "$res"))
				eval "tp_$m=\$tp"
				printf ' %9s %-9s %4ss' "$tp" "$(unit $w)" "$cpu"
			done
			printf '   %6s %6s\n' "$(ratio "${tp_squashkit:-0}" "${tp_squashfuse:-0}")" \
				"$(ratio "${tp_squashkit:-0}" "${tp_kernel:-0}")"
		done
	done
done
echo "(throughput, then CPU seconds: the readers' user+system time and the daemon's)"

if [ -s "$WORK/daemon.err" ]; then
	echo "daemons wrote to stderr:" >&2
	head -5 "$WORK/daemon.err" >&2
fi
