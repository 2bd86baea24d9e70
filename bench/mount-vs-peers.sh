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
# from the page cache: the first pass is "cold", $WARM more passes on the
# same mount are "warm" (several, so that a pass served from the kernel's
# caches lasts long enough to time). Reported: throughput and CPU (the
# readers' user+system time plus the daemon's), medians of $RUNS runs,
# interleaved so that noise on the shared machine hits every mounter alike.
# Then, per workload, what the daemons did: squashkit's requests per warm
# pass by kind (its --stats, written on SIGUSR1 after each phase), its cold
# decompressions per distinct block and most threads at once, and the peak
# RSS of squashkit's and squashfuse_ll's daemons.
#
# Then the herd through a real VFS: squashkit with the kernel's cache sizes
# (8 metadata, 3 fragment, 1 data block), one decompressor and a thread per
# reader, --cache-policy herd against keyed, cold, 16 and 64 readers:
# throughput, wakeups per release, context switches of the daemon (its
# --stats).
#
#   bench/mount-vs-peers.sh [IMAGE]
# Without IMAGE, a gzip image of /usr/include (without node and llvm) and
# two 16 MiB files of shared libraries is built in $WORK. Needs root.
# Environment: RUNS (3), READERS ("1 4 16 64"), MOUNTERS ("squashkit
# squashfuse kernel"), PARTS ("peers herd"), WORKLOADS ("walk read
# random"), RANDOM_READS (4000 per pass), WARM (3 passes), SK_OPTS (more
# squashkit mount options), WORK (/dev/shm/sqk-bench), SQUASHKIT.
set -e
: "${RUNS:=3}"
. "$(dirname "$0")/lib.sh"
: "${READERS:=1 4 16 64}"
: "${MOUNTERS:=squashkit squashfuse kernel}"
: "${PARTS:=peers herd}"
: "${RANDOM_READS:=4000}"
: "${WARM:=3}"
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

# mount_as M [OPTIONS]: a fresh mount by M, the image out of the page cache.
mount_as() {
	who=$1
	shift
	dd if="$img" iflag=nocache count=0 status=none
	case $who in
	squashkit)
		# shellcheck disable=SC2086 # SK_OPTS holds several options
		"$SQUASHKIT" mount -f $SK_OPTS "$@" "$img" "$mnt" 2>>"$WORK/daemon.err" &
		dpid=$!
		;;
	squashkit-counted)
		# shellcheck disable=SC2086
		"$SQUASHKIT" mount -f $SK_OPTS --stats="$WORK/sk.json" --json "$img" "$mnt" \
			2>>"$WORK/daemon.err" &
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
	squashkit*) "$SQUASHKIT" umount "$mnt" ;;
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

# run_workload W N [PASSES]: passes through the mount; prints "WALL CPU"
# (wall time from vfs-load.pl's clock, CPU from time(1) and the daemon).
run_workload() {
	t0=$(ticks)
	p=${3:-1}
	case $1 in
	walk) set -- walk "$2" "$WORK/dirs.list" ;;
	read) set -- read "$2" "$WORK/files.list" ;;
	random) set -- random "$2" "$RANDOM_READS" $bigs ;;
	esac
	wall=$(cd "$mnt" && PASSES=$p /usr/bin/env time -o "$WORK/time.out" -f '%U %S' \
		perl "$load" "$@" 2>/dev/null | tail -n 1)
	t1=$(ticks)
	awk -v w="$wall" -v d=$((t1 - t0)) -v tck="$tck" \
		'{ printf "%s %.2f\n", w, $1 + $2 + d / tck }' "$WORK/time.out"
}

# throughput W WALL [PASSES]: entries/s, MiB/s or reads/s.
throughput() {
	case $1 in
	walk) awk -v n="$entries" -v t="$2" -v p="${3:-1}" 'BEGIN { printf "%.0f", (t > 0 ? p * n / t : 0) }' ;;
	read) awk -v n="$bytes" -v t="$2" -v p="${3:-1}" 'BEGIN { printf "%.1f", (t > 0 ? p * n / 1048576 / t : 0) }' ;;
	random) awk -v n="$RANDOM_READS" -v t="$2" -v p="${3:-1}" 'BEGIN { printf "%.0f", (t > 0 ? p * n / t : 0) }' ;;
	esac
}

# stat_field FILE CACHE KEY: a counter from the --stats --json output.
stat_field() {
	sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" "$1" | tr ',' '\n' | sed -n "s/^\"$3\":\(.*\)/\1/p"
}

# snapshot NAME: squashkit's counters so far (SIGUSR1), copied to $WORK/sk.NAME.json.
snapshot() {
	: >"$WORK/sk.json"
	kill -USR1 "$dpid"
	tries=0
	until tail -c 3 "$WORK/sk.json" 2>/dev/null | grep -q '}'; do
		tries=$((tries + 1))
		[ $tries -lt 200 ] || { echo "squashkit: no counters on SIGUSR1" >&2; exit 1; }
		sleep 0.05
	done
	cp "$WORK/sk.json" "$WORK/sk.$1.json"
}

# requests FILE: "kind count" for every kind of request in squashkit's counters.
requests() {
	sed -n 's/.*"requests":{\([^}]*\)}.*/\1/p' "$1" | tr ',' '\n' | tr -d '"' | tr ':' ' '
}

# rss: the daemon's peak resident set, MiB.
rss() {
	awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$dpid/status" 2>/dev/null || echo 0
}

unit() {
	case $1 in walk) echo "entries/s" ;; read) echo "MiB/s" ;; random) echo "reads/s" ;; esac
}

res=$WORK/mount-results.txt
daemons=$WORK/mount-daemons.txt
: >"$res"
: >"$daemons"
: >"$WORK/daemon.err"

if echo "$PARTS" | grep -qw peers; then
	i=0
	while [ $i -lt "$RUNS" ]; do
		for w in $WORKLOADS; do
			for n in $READERS; do
				for m in $MOUNTERS; do
					as=$m
					[ "$m" = squashkit ] && as=squashkit-counted
					mount_as "$as"
					set -- $(run_workload $w "$n")
					echo "$m $w $n cold $1 $2 $(throughput $w "$1")" >>"$res"
					[ "$m" = squashkit ] && snapshot cold
					set -- $(run_workload $w "$n" "$WARM")
					echo "$m $w $n warm $1 $2 $(throughput $w "$1" "$WARM")" >>"$res"
					[ "$m" = squashkit ] && snapshot warm
					echo "$m $w $n rss $(rss)" >>"$daemons"
					if [ "$m" = squashkit ]; then
						f=$WORK/sk.cold.json
						fills=0 distinct=0
						for c in metadata fragment data; do
							fills=$((fills + $(stat_field "$f" $c fills)))
							distinct=$((distinct + $(stat_field "$f" $c distinct_blocks)))
						done
						echo "$m $w $n perblock $(ratio $fills $distinct)" >>"$daemons"
						echo "$m $w $n peak $(sed -n 's/.*"peak":\([0-9]*\).*/\1/p' "$f")" >>"$daemons"
						requests "$WORK/sk.cold.json" >"$WORK/req.cold"
						requests "$WORK/sk.warm.json" | awk -v p="$WARM" -v w=$w -v n="$n" '
							NR == FNR { before[$1] = $2; next }
							$1 != "total" && $2 > before[$1] { printf "req %s %s %s %g\n", w, n, $1, ($2 - before[$1]) / p }
						' "$WORK/req.cold" - >>"$daemons"
					fi
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
	echo "(throughput, then CPU seconds: the readers' user+system time and the daemon's;" \
		"warm: $WARM passes)"

	if echo "$MOUNTERS" | grep -qw squashkit; then
		printf '\n%-7s %-4s %9s %9s %10s %7s  %s\n' workload N "sk RSS" "sqfuse RSS" \
			"decomp/blk" threads "squashkit's requests per warm pass"
		for w in $WORKLOADS; do
			for n in $READERS; do
				col() {
					median $(awk -v m="$1" -v w=$w -v n="$n" -v k="$2" \
						'$1 == m && $2 == w && $3 == n && $4 == k { print $5 }' "$daemons")
				}
				reqs=$(awk -v w=$w -v n="$n" -v r="$RUNS" '
					$1 == "req" && $2 == w && $3 == n { sum[$4] += $5 }
					END { for (k in sum) printf "%s %g, ", k, sum[k] / r }' "$daemons" |
					sed 's/, $//')
				printf '%-7s %-4s %8sM %8sM %10s %7s  %s\n' $w "$n" "$(col squashkit rss)" \
					"$(col squashfuse rss)" "$(col squashkit perblock)" "$(col squashkit peak)" \
					"${reqs:-none}"
			done
		done
		echo "(peak RSS of the daemons; squashkit's cold decompressions per distinct block and"
		echo " most threads at once; requests: means of $RUNS runs)"
	fi
fi

# --- the herd through a real VFS ---

if echo "$PARTS" | grep -qw herd; then
	herd=$WORK/mount-herd.txt
	: >"$herd"
	i=0
	while [ $i -lt "$RUNS" ]; do
		for w in $WORKLOADS; do
			for n in 16 64; do
				for p in herd keyed; do
					# A thread per reader, as every reader of a kernel mount
					# is a thread in the kernel's cache.
					mount_as squashkit --cache meta=8,frag=3,data=1 --decomp single \
						-j "$n" --cache-policy $p --stats="$WORK/herd.json" --json
					set -- $(run_workload $w "$n")
					unmount_as squashkit
					f=$WORK/herd.json
					wk=0 rw=0
					for c in metadata fragment data; do
						wk=$((wk + $(stat_field "$f" $c wakeups)))
						rw=$((rw + $(stat_field "$f" $c release_wakes)))
					done
					vcsw=$(sed -n 's/.*"vcsw":\([0-9]*\).*/\1/p' "$f")
					ivcsw=$(sed -n 's/.*"ivcsw":\([0-9]*\).*/\1/p' "$f")
					spur=0
					for c in metadata fragment data; do
						spur=$((spur + $(stat_field "$f" $c spurious_wakeups)))
					done
					echo "$p $w $n $1 $2 $(throughput $w "$1") $(ratio "$wk" "$rw") $vcsw $ivcsw $spur" >>"$herd"
				done
			done
		done
		echo "herd run $((i + 1))/$RUNS done" >&2
		i=$((i + 1))
	done
	printf '\n%-7s %-4s %-6s %12s %-9s %8s %10s %9s %8s %9s\n' workload N policy throughput "" \
		"cpu s" wakeups/rel vcsw ivcsw spurious
	for w in $WORKLOADS; do
		for n in 16 64; do
			for p in herd keyed; do
				col() {
					median $(awk -v p=$p -v w=$w -v n="$n" -v k="$1" \
						'$1 == p && $2 == w && $3 == n { print $k }' "$herd")
				}
				printf '%-7s %-4s %-6s %12s %-9s %8s %10s %9s %8s %9s\n' $w "$n" $p "$(col 6)" \
					"$(unit $w)" "$(col 5)" "$(col 7)" "$(col 8)" "$(col 9)" "$(col 10)"
			done
		done
	done
	echo "(squashkit mount --cache meta=8,frag=3,data=1 --decomp single -j N, cold; medians of $RUNS)"
fi
if [ -s "$WORK/daemon.err" ]; then
	echo "daemons wrote to stderr:" >&2
	head -5 "$WORK/daemon.err" >&2
fi
