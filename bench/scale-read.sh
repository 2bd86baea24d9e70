#!/bin/sh
# scale-read.sh [IMAGE-SPEC...]: the readers on images of millions of
# entries: time and peak RSS of unimage (to tmpfs and as a tar stream),
# ls -R, fsck, diff (image against image, image against its extracted
# tree) and the mount (ls -l of the big directory or find over the tree;
# the daemon's peak and final RSS, and its RSS once the kernel has dropped
# its dentries and inodes, i.e. sent its forgets).
#
# IMAGE-SPEC is SHAPE:N with SHAPE flat (N files in one directory) or tree
# (a software-like tree of about N entries, hard links included), built
# once from tests/tools/gentar's stream (flat: gentar -f; tree: its software
# tree, hard links included; default: flat:1000000 tree:3000000).
#
# Environment: SQUASHKIT (the build measured), BEFORE (another build, e.g.
# the one before a change, measured in the same runs, interleaved), RUNS
# (default 3; medians), WORK (default /dev/shm/sqk-scale-read; the images
# stay there between runs), OPS (default: all of unimage-d unimage-o ls-R
# fsck diff-img diff-dir mount; also fsck-64M, fsck --memory 64M with its
# temporary files in WORK, for builds that have the option, not BEFORE's;
# for a tree, unimage-d and diff-dir only
# when TREE_EXTRACT=1: its files take a page of tmpfs each, 4 GB a million,
# and the tree's inodes may pass the tmpfs's limit), DROP=0 to leave the
# kernel's caches alone after the mount's walk (by default dentries and
# inodes are dropped, as echo 2 > /proc/sys/vm/drop_caches does, which
# needs root).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
: "${WORK:=/dev/shm/sqk-scale-read}"
. "$HERE/lib.sh"
: "${GENTAR:=$HERE/../build/tests/tools/gentar}"
: "${RUNS:=3}"
: "${OPS:=unimage-d unimage-o ls-R fsck diff-img diff-dir mount}"
: "${DROP:=1}"
BEFORE=${BEFORE:-}
mkdir -p "$WORK"
MNT=$WORK/mnt
DEST=$WORK/dest
cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && fusermount3 -u "$MNT" 2>/dev/null
	rm -rf "$DEST"
}
trap cleanup EXIT INT TERM

[ $# -gt 0 ] || set -- flat:1000000 tree:3000000

# image SPEC: the image's path, built on first use (with a copy for diff and
# its extracted tree).
image() {
	img=$WORK/${1%%:*}-${1#*:}.img
	if [ ! -f "$img" ]; then
		echo "building $img" >&2
		"$GENTAR" $([ "${1%%:*}" = flat ] && echo -f) "${1#*:}" |
			"$SQUASHKIT" mkimage -q --archive - "$img.part"
		mv "$img.part" "$img"
	fi
	[ -f "$img.copy" ] || cp "$img" "$img.copy"
	case " $OPS " in
	*" diff-dir "*) [ -d "$img.tree" ] || ! extracts "$1" ||
		"$SQUASHKIT" unimage -q -d "$img.tree" "$img" ;;
	esac
	echo "$img"
}

# extracts SPEC: is the image extracted (unimage -d, diff against a tree)?
extracts() {
	[ "${1%%:*}" = flat ] || [ "${TREE_EXTRACT:-0}" = 1 ]
}

# mount_run SQK IMG WHAT: the walk's time, then the daemon's peak RSS, its
# RSS after the walk and after the kernel's forgets (KiB).
mount_run() {
	mkdir -p "$MNT"
	"$1" mount -f "$2" "$MNT" 2>/dev/null &
	pid=$!
	# Its own counter: the runs' (i) is a global of the caller's loop.
	waited=0
	until mountpoint -q "$MNT"; do
		waited=$((waited + 1))
		[ $waited -lt 200 ] || { echo "mount did not come up" >&2; kill "$pid"; return 1; }
		sleep 0.05
	done
	s=$(date +%s.%N)
	if [ -d "$MNT/big" ]; then ls -l "$MNT/big" >/dev/null; else find "$MNT" >/dev/null; fi
	e=$(date +%s.%N)
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	after=-
	if [ "$DROP" = 1 ] && echo 2 >/proc/sys/vm/drop_caches 2>/dev/null; then
		sleep 2
		after=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	fi
	fusermount3 -u "$MNT"
	wait "$pid" || true
	echo "$s $e" | awk -v h="$hwm" -v r="$rss" -v a="$after" '{ printf "%.2f %s %s %s\n", $2 - $1, h, r, a }'
}

# one SQK OP IMG: "seconds peakKiB cpu-seconds" (mount: "seconds peakKiB rssKiB afterKiB")
one() {
	case $2 in
	unimage-d)
		rm -rf "$DEST"
		measure t r c "$1" unimage -q -d "$DEST" "$3"
		rm -rf "$DEST" ;;
	unimage-o) measure t r c "$1" unimage -q -o - "$3" ;;
	ls-R) measure t r c "$1" ls -R "$3" ;;
	fsck) measure t r c "$1" fsck "$3" ;;
	fsck-64M) measure t r c "$1" fsck --memory 64M --tmpdir "$WORK" "$3" ;;
	diff-img) measure t r c "$1" diff -q "$3" "$3.copy" ;;
	diff-dir) measure t r c "$1" diff -q "$3" "$3.tree" ;;
	mount) mount_run "$1" "$3"; return ;;
	esac
	echo "$t $r $c"
}

mb() { awk -v k="$1" 'BEGIN { if (k == "-") print "-"; else printf "%.0f", k / 1024 }'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; RUNS=$RUNS"
printf '%-16s %-10s %-7s %8s %8s %8s  %s\n' image op build seconds "CPU s" "peak MB" "(mount: daemon RSS after the walk, after the forgets, MB)"
for spec in "$@"; do
	img=$(image "$spec")
	for op in $OPS; do
		case $op in
		unimage-d | diff-dir) extracts "$spec" || continue ;;
		esac
		for b in ${BEFORE:+before} after; do
			: >"$WORK/res.$b"
		done
		i=0
		while [ $i -lt "$RUNS" ]; do
			for b in ${BEFORE:+before} after; do
				sqk=$SQUASHKIT
				[ $b = before ] && sqk=$BEFORE
				if [ $b = before ] && [ $op = fsck-64M ]; then
					echo "- - -" >>"$WORK/res.$b"
					continue
				fi
				one "$sqk" "$op" "$img" >>"$WORK/res.$b"
			done
			i=$((i + 1))
		done
		for b in ${BEFORE:+before} after; do
			t=$(median $(cut -d' ' -f1 "$WORK/res.$b"))
			r=$(median $(cut -d' ' -f2 "$WORK/res.$b"))
			c=- extra=
			if [ "$op" = mount ]; then
				extra="$(mb "$(median $(cut -d' ' -f3 "$WORK/res.$b"))") $(mb "$(tail -n1 "$WORK/res.$b" | cut -d' ' -f4)")"
			else
				c=$(median $(cut -d' ' -f3 "$WORK/res.$b"))
			fi
			printf '%-16s %-10s %-7s %8s %8s %8s  %s\n' "$spec" "$op" "$b" "$t" "$c" "$(mb "$r")" "$extra"
		done
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
