#!/bin/sh
# mkimage-vs-mksquashfs.sh [SOURCE_DIR]
#
# Times `squashkit mkimage` against Debian's mksquashfs on the same tree with
# the same compressor, level, block size and thread count; median of RUNS
# runs (default 3). Prints, per compressor, the wall-clock time ratio
# (mkimage / mksquashfs: below 1 is faster), the CPU time (user + system)
# ratio, which stays meaningful on a machine shared with other work, the
# image size ratio (mkimage / mksquashfs) and both peak RSS figures.
#
# Without SOURCE_DIR a few hundred MB of mixed files are copied into
# /dev/shm (parts of /usr/share, /usr/include, /usr/lib/python3*) and removed
# at the end. Environment: SQUASHKIT (binary), RUNS, THREADS (default: online
# CPUs), BLOCK (default 128K), COMPRESSORS (default "gzip xz zstd").
set -eu

HERE=$(cd "$(dirname "$0")/.." && pwd)
SQK=${SQUASHKIT:-$HERE/build/squashkit}
RUNS=${RUNS:-3}
THREADS=${THREADS:-$(nproc)}
BLOCK=${BLOCK:-128K}
COMPRESSORS=${COMPRESSORS:-"gzip xz zstd"}

command -v mksquashfs >/dev/null || { echo "mksquashfs is not installed" >&2; exit 1; }
[ -x "$SQK" ] || { echo "$SQK: not built (run make)" >&2; exit 1; }

WORK=$(mktemp -d /dev/shm/sqk-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM

if [ $# -ge 1 ]; then
	SRC=$1
else
	SRC=$WORK/src
	mkdir -p "$SRC"
	# About 400 MB of sources, docs, headers and bytecode: many small files and some large.
	for d in /usr/include /usr/lib/python3* /usr/share/doc /usr/share/perl /usr/share/i18n \
		/usr/share/man /usr/share/zoneinfo /usr/share/mime; do
		[ -d "$d" ] && cp -a "$d" "$SRC/$(echo "$d" | tr / _)" 2>/dev/null || true
	done
fi
echo "source: $SRC ($(du -sh "$SRC" | cut -f1), $(find "$SRC" | wc -l) entries)"
echo "threads $THREADS, block $BLOCK, median of $RUNS runs"

# A peak-RSS probe: /usr/bin/time when present, else a tiny getrusage wrapper.
if [ -x /usr/bin/time ]; then
	measure() { /usr/bin/time -f "%e %M %U %S" -o "$WORK/m" "$@" >/dev/null 2>&1; tail -1 "$WORK/m"; }
else
	cat >"$WORK/rss.c" <<'C'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct timeval a, b;
	struct rusage ru;
	int st;
	pid_t p;

	gettimeofday(&a, NULL);
	p = fork();
	if (p == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	waitpid(p, &st, 0);
	gettimeofday(&b, NULL);
	getrusage(RUSAGE_CHILDREN, &ru);
	fprintf(stderr, "%.2f %ld %.2f %.2f\n",
		(b.tv_sec - a.tv_sec) + (b.tv_usec - a.tv_usec) / 1e6, ru.ru_maxrss,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
C
	cc -O2 -o "$WORK/rss" "$WORK/rss.c"
	measure() { "$WORK/rss" "$@" 2>"$WORK/m" >/dev/null; cat "$WORK/m"; }
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

level_of() {
	case $1 in
	gzip) echo 9 ;; xz) echo 6 ;; zstd) echo 15 ;; lz4) echo 0 ;; lzo) echo 8 ;; *) echo "" ;;
	esac
}

printf '%-6s %8s %8s %7s %8s %8s %7s %11s %11s %7s %9s %9s\n' codec mk_s mksq_s time_r \
	mk_cpu mksq_cpu cpu_r mk_bytes mksq_bytes size_r mk_rss_MB mksq_rss_MB
for c in $COMPRESSORS; do
	lvl=$(level_of "$c")
	: >"$WORK/t1"
	: >"$WORK/t2"
	: >"$WORK/r1"
	: >"$WORK/r2"
	: >"$WORK/c1"
	: >"$WORK/c2"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$WORK/a.sqfs" "$WORK/b.sqfs"
		sync
		set -- $(measure "$SQK" mkimage -q -c "$c" -L "$lvl" -b "$BLOCK" -j "$THREADS" \
			"$SRC" "$WORK/a.sqfs")
		echo "$1" >>"$WORK/t1"
		echo "$2" >>"$WORK/r1"
		echo "$3 $4" | awk '{ print $1 + $2 }' >>"$WORK/c1"
		# mksquashfs's xz has no level: its preset matches our default (6).
		case $c in
		gzip | zstd) mopt="-Xcompression-level $lvl" ;;
		lz4) mopt="" ;;
		*) mopt="" ;;
		esac
		# shellcheck disable=SC2086
		set -- $(measure mksquashfs "$SRC" "$WORK/b.sqfs" -noappend -quiet -no-progress \
			-comp "$c" $mopt -b "$BLOCK" -processors "$THREADS")
		echo "$1" >>"$WORK/t2"
		echo "$2" >>"$WORK/r2"
		echo "$3 $4" | awk '{ print $1 + $2 }' >>"$WORK/c2"
		i=$((i + 1))
	done
	t1=$(median <"$WORK/t1")
	t2=$(median <"$WORK/t2")
	r1=$(median <"$WORK/r1")
	r2=$(median <"$WORK/r2")
	c1=$(median <"$WORK/c1")
	c2=$(median <"$WORK/c2")
	s1=$(stat -c %s "$WORK/a.sqfs")
	s2=$(stat -c %s "$WORK/b.sqfs")
	printf '%-6s %8s %8s %7.3f %8s %8s %7.3f %11s %11s %7.4f %9.1f %9.1f\n' "$c" "$t1" "$t2" \
		"$(echo "$t1 $t2" | awk '{ if ($2 > 0) print $1 / $2; else print 0 }')" "$c1" "$c2" \
		"$(echo "$c1 $c2" | awk '{ if ($2 > 0) print $1 / $2; else print 0 }')" "$s1" "$s2" \
		"$(echo "$s1 $s2" | awk '{ print $1 / $2 }')" \
		"$(echo "$r1" | awk '{ print $1 / 1024 }')" "$(echo "$r2" | awk '{ print $1 / 1024 }')"
done

# One pipeline's command line through both front ends, unchanged: Yocto's
# squashfs-xz image type (image_types.bbclass: ${IMAGE_ROOTFS} OUT -noappend -comp xz).
echo
echo "pipeline: mksquashfs SRC OUT -noappend -comp xz (Yocto squashfs-xz), one run"
set -- $(measure "$SQK" mksquashfs "$SRC" "$WORK/a.sqfs" -noappend -comp xz -quiet)
echo "squashkit mksquashfs  ${1}s  rss $(echo "$2" | awk '{ print $1 / 1024 }') MiB  $(stat -c %s "$WORK/a.sqfs") bytes"
set -- $(measure mksquashfs "$SRC" "$WORK/b.sqfs" -noappend -comp xz -quiet -no-progress)
echo "mksquashfs            ${1}s  rss $(echo "$2" | awk '{ print $1 / 1024 }') MiB  $(stat -c %s "$WORK/b.sqfs") bytes"
