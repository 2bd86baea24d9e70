#!/bin/sh
# mkimage-reuse.sh [SOURCE_DIR]
#
# A rebuild after a small change: `mkimage --reuse OLD` against a full
# build of the same tree, and mksquashfs's full build beside. The source
# (bench/lib.sh's tree by default) is built once per compressor (OLD); then
# its files are changed, one in two by a line appended, the other by 16
# bytes overwritten in its middle: "1" and "10" change every 100th / 10th
# file in path order, spread over the whole tree (the worst case: each
# changed small file spoils the fragment block it shares with others);
# "1c" changes 1% of the files in one run of consecutive paths, as an
# update of one package does. Each changed tree is built plain, with
# --reuse OLD, and (spread changes) by mksquashfs, interleaved, RUNS times
# (default 5, bench/lib.sh). Prints medians of wall time, CPU time (user +
# system: what a shared machine cannot steal) and peak RSS, the ratios
# reuse / plain, whether the rebuild is the plain build byte for byte, and
# the blocks copied and compressed.
#
# Where the time goes, per compressor (CPU seconds, medians):
#   read    a build storing everything uncompressed: reading SOURCE,
#           hashing, dedup, packing and writing, no codec at all
#   prove   --reuse of the unchanged tree minus read: indexing OLD and
#           decompressing every block it gives (nothing is compressed)
#   compress   each rebuild minus the unchanged one: what changed
#
# Environment: SQUASHKIT, RUNS, THREADS (default: online CPUs), BLOCK
# (default 128K), CODECS (default "xz zstd:19": codec[:level]), CHANGES
# (default "1 10 1c"), WORK (the cached source lives in $WORK/src; default
# /dev/shm/sqk-bench).
set -eu

HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/bench/lib.sh"
SQK=$SQUASHKIT
BLOCK=${BLOCK:-128K}
CODECS=${CODECS:-"xz zstd:19"}
CHANGES=${CHANGES:-"1 10 1c"}

command -v mksquashfs >/dev/null || { echo "mksquashfs is not installed" >&2; exit 1; }
[ -x "$SQK" ] || { echo "$SQK: not built (run make)" >&2; exit 1; }

if [ $# -ge 1 ]; then
	SRC=$1
else
	SRC=$WORK/src
	make_source "$SRC"
fi
T=$(mktemp -d "${WORK%/*}/sqk-reuse.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# change SPEC DIR: a copy of SRC with files changed as SPEC says (above).
change() {
	rm -rf "$2"
	cp -a "$SRC" "$2"
	(cd "$2" && find . -type f | LC_ALL=C sort) >"$T/all"
	case $1 in
	*c) awk -v p="${1%c}" '{ f[NR] = $0 } END { n = int(NR * p / 100)
		for (i = int(NR / 2); i < int(NR / 2) + n; i++) print f[i] }' "$T/all" >"$T/list" ;;
	*) awk -v n=$((100 / $1)) 'NR % n == 0' "$T/all" >"$T/list" ;;
	esac
	i=0
	while IFS= read -r f; do
		if [ $((i % 2)) -eq 0 ]; then
			echo "changed by mkimage-reuse.sh" >>"$2/$f"
		else
			size=$(stat -c %s "$2/$f")
			printf 'changed in place' |
				dd of="$2/$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
		fi
		i=$((i + 1))
	done <"$T/list"
	echo "$i"
}

# run OUT CMD...: "wall cpu rss_kib" of one run.
run() {
	_o=$1
	shift
	/usr/bin/env time -f '%e %U %S %M' -o "$T/m" "$@" >"$_o" 2>"$T/err" ||
		{ cat "$T/err" >&2; exit 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$T/m"
}

# col N FILE: the median of column N.
col() {
	# shellcheck disable=SC2046
	median $(awk -v c="$1" '{ print $c }' "$2")
}

echo "source: $SRC ($(du -sh "$SRC" | cut -f1), $(find "$SRC" -type f | wc -l) files)"
echo "threads $THREADS, block $BLOCK, medians of $RUNS interleaved runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ch in $CHANGES; do
	echo "change $ch: $(change "$ch" "$T/chg$ch") files"
done

for spec in $CODECS; do
	c=${spec%%:*}
	lvl=
	[ "$spec" != "$c" ] && lvl=${spec#*:}
	opts="-q -c $c ${lvl:+-L $lvl} -b $BLOCK -j $THREADS"
	case $c in
	gzip | zstd) mopt=${lvl:+-Xcompression-level $lvl} ;;
	*) mopt= ;;
	esac
	echo
	echo "== $c${lvl:+ -L $lvl}"
	rm -f "$T/old.img"
	# shellcheck disable=SC2086
	set -- $(run /dev/null "$SQK" mkimage $opts "$SRC" "$T/old.img")
	echo "full build of the source (OLD): ${1}s, cpu ${2}s, rss $(($3 / 1024)) MiB, $(stat -c %s "$T/old.img") bytes"

	# Where the time goes: no codec at all, and --reuse of the unchanged tree.
	: >"$T/read"
	: >"$T/same"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$T/raw.img" "$T/same.img"
		# shellcheck disable=SC2086
		run /dev/null "$SQK" mkimage $opts --uncompressed data,fragments "$SRC" "$T/raw.img" >>"$T/read"
		# shellcheck disable=SC2086
		run /dev/null "$SQK" mkimage $opts --reuse "$T/old.img" "$SRC" "$T/same.img" >>"$T/same"
		i=$((i + 1))
	done
	cmp -s "$T/same.img" "$T/old.img" && same=identical || same=DIFFERENT
	read_cpu=$(col 2 "$T/read")
	same_cpu=$(col 2 "$T/same")

	printf '%-5s %-7s %9s %9s %9s %8s %8s %8s %7s %7s %7s  %s\n' change build wall_s cpu_s rss_MiB \
		copied compr. ratio_w ratio_c mksq_s mksq_cpu "same bytes as plain"
	for pct in $CHANGES; do
		: >"$T/plain"
		: >"$T/reuse"
		: >"$T/mksq"
		i=0
		while [ $i -lt "$RUNS" ]; do
			rm -f "$T/plain.img" "$T/reuse.img" "$T/mksq.img"
			# shellcheck disable=SC2086
			run /dev/null "$SQK" mkimage $opts "$T/chg$pct" "$T/plain.img" >>"$T/plain"
			# shellcheck disable=SC2086
			run "$T/reuse.json" "$SQK" mkimage $opts --json --reuse "$T/old.img" "$T/chg$pct" \
				"$T/reuse.img" >>"$T/reuse"
			# shellcheck disable=SC2086
			case $pct in
			*c) echo "- - -" >>"$T/mksq" ;;
			*) run /dev/null mksquashfs "$T/chg$pct" "$T/mksq.img" -noappend -quiet \
				-no-progress -comp "$c" $mopt -b "$BLOCK" -processors "$THREADS" >>"$T/mksq" ;;
			esac
			i=$((i + 1))
		done
		cmp -s "$T/reuse.img" "$T/plain.img" && ident=identical || ident=DIFFERENT
		copied=$(sed 's/.*"reuse":{"blocks":\([0-9]*\),.*/\1/' "$T/reuse.json")
		compr=$(sed 's/.*"reuse":{[^}]*"compressed":\([0-9]*\).*/\1/' "$T/reuse.json")
		pw=$(col 1 "$T/plain")
		pc=$(col 2 "$T/plain")
		rw=$(col 1 "$T/reuse")
		rc=$(col 2 "$T/reuse")
		printf '%-5s %-7s %9s %9s %9d %8s %8s %8s %7s %7s %7s  %s\n' "$pct" plain "$pw" "$pc" \
			$(($(col 3 "$T/plain") / 1024)) - - - - "$(col 1 "$T/mksq")" "$(col 2 "$T/mksq")" -
		printf '%-5s %-7s %9s %9s %9d %8s %8s %8s %7s %7s %7s  %s\n' "$pct" reuse "$rw" "$rc" \
			$(($(col 3 "$T/reuse") / 1024)) "$copied" "$compr" "$(ratio "$rw" "$pw")" \
			"$(ratio "$rc" "$pc")" - - "$ident"
		echo "$pct $rc" >>"$T/rebuilds"
	done
	echo "where the CPU goes: read ${read_cpu}s (a build with no codec)," \
		"prove $(awk -v a="$same_cpu" -v b="$read_cpu" 'BEGIN { printf "%.2f", a - b }')s" \
		"(--reuse of the unchanged tree: ${same_cpu}s, $same to OLD), compress:" \
		"$(awk -v s="$same_cpu" '{ printf "%s%s %.2fs", (NR > 1 ? ", " : ""), $1, $2 - s }' "$T/rebuilds")"
	rm -f "$T/rebuilds"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
