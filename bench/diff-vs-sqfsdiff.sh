#!/bin/sh
# Time `squashkit diff` against squashfs-tools-ng's `sqfsdiff` on pairs of
# gzip images of the bench tree (bench/lib.sh, a few hundred MB), median of
# $RUNS runs each, the two interleaved so that machine noise hits both alike:
#
#   one file changed   the tree, and the tree with one byte changed in the
#                      middle of its largest file: the same paths, almost
#                      every block stored alike (the goal: 10x faster)
#   recompressed       the tree as gzip and as zstd: every block must be
#                      decompressed on both sides and compared
#   unrelated          two halves of the tree, no path in common
#
# Both must give the same exit status (0 or 1) on each pair, or the script
# stops. Prints wall time, peak RSS and the ratio sqfsdiff / squashkit.
#
#   bench/diff-vs-sqfsdiff.sh
# Environment: RUNS (5), THREADS (nproc: squashkit diff -j; sqfsdiff has one
# thread), WORK (/dev/shm/sqk-bench), SQUASHKIT.
set -e
. "$(dirname "$0")/lib.sh"
command -v sqfsdiff >/dev/null || { echo "sqfsdiff is not installed (squashfs-tools-ng)" >&2; exit 1; }
command -v mksquashfs >/dev/null || { echo "mksquashfs is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
[ -x "$SQUASHKIT" ] || { echo "$SQUASHKIT: not built (run make)" >&2; exit 1; }
mkdir -p "$WORK"
make_source "$WORK/src"
d=$WORK/diff
mkdir -p "$d"

# mk SOURCE IMAGE [mksquashfs options]: build IMAGE once.
mk() {
	_src=$1 _img=$2
	shift 2
	[ -f "$_img" ] || mksquashfs "$_src" "$_img" -quiet -no-progress -noappend \
		-processors "$THREADS" "$@" >/dev/null
}

# The changed tree shares every file with the tree (hard links) but one.
if [ ! -d "$d/changed" ]; then
	cp -al "$WORK/src" "$d/changed"
	big=$(cd "$d/changed" && find . -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
	cp "$d/changed/$big" "$d/big.tmp"
	size=$(stat -c %s "$d/big.tmp")
	printf 'X' | dd of="$d/big.tmp" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	mv "$d/big.tmp" "$d/changed/$big"
	echo "changed: $big (byte $((size / 2)) of $size)"
fi
if [ ! -d "$d/half1" ]; then
	mkdir "$d/half1" "$d/half2"
	n=0
	for sub in "$WORK/src"/*; do
		cp -al "$sub" "$d/half$((n % 2 + 1))/"
		n=$((n + 1))
	done
fi
mk "$WORK/src" "$d/src.gzip.img" -comp gzip
mk "$WORK/src" "$d/src.zstd.img" -comp zstd
mk "$d/changed" "$d/changed.gzip.img" -comp gzip
mk "$d/half1" "$d/half1.gzip.img" -comp gzip
mk "$d/half2" "$d/half2.gzip.img" -comp gzip

echo "tree: $WORK/src ($(du -sh "$WORK/src" | cut -f1)), image $(du -h "$d/src.gzip.img" | cut -f1)"
echo "threads: $THREADS (squashkit), runs: $RUNS, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# status CMD...: the exit status, output thrown away.
status() {
	"$@" >/dev/null 2>&1 && echo 0 || echo $?
}

# pair NAME A B: both tools on A and B, interleaved.
pair() {
	name=$1 a=$2 b=$3
	want=$(status sqfsdiff -a "$a" -b "$b")
	got=$(status "$SQUASHKIT" diff -j "$THREADS" "$a" "$b")
	if [ "$want" != "$got" ]; then
		echo "$name: sqfsdiff exits $want, squashkit diff $got" >&2
		exit 1
	fi
	tp="" rp="" cp="" tq="" rq="" cq="" i=0
	while [ $i -lt "$RUNS" ]; do
		measure t r c sqfsdiff -a "$a" -b "$b"
		tp="$tp $t" rp="$rp $r" cp="$cp $c"
		measure t r c "$SQUASHKIT" diff -j "$THREADS" "$a" "$b"
		tq="$tq $t" rq="$rq $r" cq="$cq $c"
		i=$((i + 1))
	done
	mp=$(median $tp) mq=$(median $tq)
	printf '%-18s sqfsdiff %6.2f s (cpu %6.2f) %7d KiB   squashkit %6.2f s (cpu %6.2f) %7d KiB   %sx  (exit %s)\n' \
		"$name" "$mp" "$(median $cp)" "$(median $rp)" "$mq" "$(median $cq)" "$(median $rq)" \
		"$(ratio "$mp" "$mq")" "$got"
}

# A first, untimed read of each: the images in the page cache for both.
cat "$d"/*.img >/dev/null
pair "one file changed" "$d/src.gzip.img" "$d/changed.gzip.img"
pair "recompressed" "$d/src.gzip.img" "$d/src.zstd.img"
pair "unrelated" "$d/half1.gzip.img" "$d/half2.gzip.img"
