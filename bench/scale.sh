#!/bin/sh
# scale.sh [N...]: building from a stream of N entries, and reading back.
#
# For each N (default: 1000000 3000000), tests/tools/gentar writes a tar of
# a software-like tree of N entries (packages, directories of a dozen to
# thousands of entries, log-normal sizes around MEDIAN bytes, duplicates,
# hard links, symlinks) through a pipe, nothing on disk, and
#   1. mkimage builds it (--archive -), and squashfs-tools 4.7's sqfstar
#      builds the same stream: wall, CPU and peak RSS (/usr/bin/time -v's
#      "Maximum resident set size") of each, the image sizes, and what
#      mkimage sent to temporary files (--stats --json);
#   2. unimage -o (the image as a tar, to /dev/null), ls -R and fsck of
#      mkimage's image: wall and peak RSS;
#   3. the kernel mounts mkimage's image and GNU tar --diff compares every
#      entry of the same stream, made again, with it (contents, sizes,
#      modes, owners, times, link targets, hard links): the number of
#      differences must be 0 (KERNEL=0 to skip; needs root). Every entry:
#      GNU tar matches a list of names (-T) member by member against the
#      whole list, so a sample of 10,000 names over 10,000,000 members is
#      slower than comparing them all.
# Last, what a build of 200,000,000 entries would take on this design, from
# the growth between the two largest N measured.
#
# sqfstar 4.7: SQFSTAR=PATH, or the sqfstar on PATH when it is 4.7 or later;
# else this script fetches squashfs-tools' source from the newest Debian
# suite through apt-get source (with a list of its own: the system's is not
# touched) and builds it in $WORK/sqfs-src. If that fails, it says that the
# peer is absent and measures mkimage alone (PEER=0 skips it on purpose).
#
# Environment: SQUASHKIT, GENTAR (default build/tests/tools/gentar), MEDIAN
# (default 256), THREADS (default: nproc), MEMORY (mkimage --memory; default
# its own), WORK (default /dev/shm/sqk-scale: the images, kept between runs
# only while the script runs), KERNEL, PEER, SQFSTAR; PEER_UPTO and
# KERNEL_UPTO (entries): the peer and the kernel's check only up to that N;
# KERNEL_FROM: the kernel's check only from that N.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
: "${WORK:=/dev/shm/sqk-scale}"
. "$HERE/lib.sh"
: "${GENTAR:=$HERE/../build/tests/tools/gentar}"
: "${MEDIAN:=256}"
: "${KERNEL:=1}"
: "${PEER:=1}"
: "${MEMORY:=}"
: "${PEER_UPTO:=999999999999}"
: "${KERNEL_UPTO:=999999999999}"
: "${KERNEL_FROM:=0}"
[ $# -gt 0 ] || set -- 1000000 3000000
[ -x "$GENTAR" ] || {
	echo "scale.sh: $GENTAR is not built (make tests)" >&2
	exit 1
}
mkdir -p "$WORK"
MNT=$WORK/mnt
cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	rm -f "$WORK"/*.img "$WORK"/*.json
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run NAME CMD...: wall, CPU and peak RSS of CMD reading the stream of $n
# entries on stdin (or nothing, with n=0), into the variables NAME_t, NAME_c
# and NAME_m (MiB); its output in $OUT.
OUT=$WORK/out
run() {
	_name=$1
	shift
	if [ "$n" -gt 0 ]; then
		"$GENTAR" -m "$MEDIAN" "$n" | /usr/bin/time -v "$@" >"$OUT" 2>"$WORK/time"
	else
		/usr/bin/time -v "$@" >"$OUT" 2>"$WORK/time" </dev/null
	fi || {
		echo "scale.sh: $1 failed:" >&2
		tail -5 "$WORK/time" >&2
		exit 1
	}
	eval "${_name}_t=$(awk -F': ' '/Elapsed \(wall/ { n = split($2, p, ":");
		s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$WORK/time")"
	eval "${_name}_c=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 }
		END { printf "%.1f", u + s }' "$WORK/time")"
	eval "${_name}_m=$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$WORK/time")"
}

# sqfstar 4.7, or nothing.
find_sqfstar() {
	if [ -n "${SQFSTAR:-}" ]; then
		return 0
	fi
	v=$(sqfstar -version 2>/dev/null | awk 'NR == 1 { print $3 }')
	case $v in
	4.[7-9]* | [5-9].*)
		SQFSTAR=$(command -v sqfstar)
		return 0
		;;
	esac
	b=$WORK/sqfs-src
	if [ ! -x "$b/sqfstar" ]; then
		echo "# sqfstar here is ${v:-absent}; fetching squashfs-tools' source (apt-get source)" >&2
		# This system's Debian mirror, with the unstable suite, which has 4.7.
		uri=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '{ print $2; exit }')
		[ -n "$uri" ] || uri=$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null |
			awk '{ print $2; exit }')
		mkdir -p "$b/lists/partial"
		echo "deb-src $uri sid main" >"$b/sources.list"
		set -- -o "Dir::Etc::SourceList=$b/sources.list" -o Dir::Etc::SourceParts=/dev/null \
			-o "Dir::State::Lists=$b/lists"
		if [ -n "$uri" ] && (cd "$b" && apt-get "$@" update &&
			apt-get "$@" source --download-only squashfs-tools) >"$b/log" 2>&1; then
			t=$(ls "$b"/squashfs-tools_4.[7-9]*.orig.tar.* 2>/dev/null | head -1)
			if [ -n "$t" ] && mkdir -p "$b/src" && tar -C "$b/src" -xf "$t" &&
				make -C "$(ls -d "$b"/src/*/squashfs-tools | head -1)" -j"$THREADS" \
					GZIP_SUPPORT=1 XZ_SUPPORT=1 ZSTD_SUPPORT=1 LZ4_SUPPORT=1 \
					LZO_SUPPORT=0 >>"$b/log" 2>&1; then
				ln -sf "$(ls -d "$b"/src/*/squashfs-tools | head -1)/sqfstar" "$b/sqfstar"
			fi
		fi
	fi
	[ -x "$b/sqfstar" ] && SQFSTAR=$b/sqfstar && return 0
	return 1
}

peer=
if [ "$PEER" = 1 ]; then
	if find_sqfstar; then
		peer=$SQFSTAR
		echo "# peer: $("$peer" -version 2>/dev/null | head -1) ($peer)"
	else
		echo "# peer: squashfs-tools 4.7's sqfstar is ABSENT (not on PATH, and its source could not be fetched or built; see $WORK/sqfs-src/log): mkimage alone"
	fi
fi
mem=${MEMORY:+--memory $MEMORY}
echo "# $(nproc) cores, $(free -g | awk '/Mem:/ { print $2 }') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), gentar -m $MEDIAN, -j $THREADS ${mem}"
printf '%-9s %-8s %9s %9s %9s %11s %s\n' entries tool wall_s cpu_s rss_mib image_mib notes

prev_n= prev_m= last_n= last_m= last_t=
for n in "$@"; do
	img=$WORK/sqk-$n.img
	rm -f "$img"
	# shellcheck disable=SC2086
	run mk "$SQUASHKIT" mkimage -q --stats --json -j "$THREADS" $mem --archive - "$img"
	spilled=$(grep -o '"spilled_bytes":[0-9]*' "$WORK/out" | cut -d: -f2)
	printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$n" mkimage "$mk_t" "$mk_c" "$mk_m" \
		"$(($(stat -c %s "$img") >> 20))" "$((${spilled:-0} >> 20)) MiB to temporary files"
	if [ -n "$peer" ] && [ "$n" -le "$PEER_UPTO" ]; then
		rm -f "$WORK/peer.img"
		run pe "$peer" -processors "$THREADS" -no-progress -quiet "$WORK/peer.img"
		printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$n" sqfstar "$pe_t" "$pe_c" "$pe_m" \
			"$(($(stat -c %s "$WORK/peer.img") >> 20))" \
			"mkimage: $(ratio "$pe_t" "$mk_t")x its speed, $(ratio "$mk_m" "$pe_m") of its memory"
		rm -f "$WORK/peer.img"
	fi
	keep=$n
	n=0
	OUT=/dev/null
	run un "$SQUASHKIT" unimage -q -j "$THREADS" -o - "$img"
	OUT=$WORK/out
	printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$keep" unimage "$un_t" "$un_c" "$un_m" - "-o - (a tar of it)"
	run ls "$SQUASHKIT" ls -R "$img"
	printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$keep" ls-R "$ls_t" "$ls_c" "$ls_m" - \
		"$(wc -l <"$WORK/out") lines"
	run fs "$SQUASHKIT" fsck -q -j "$THREADS" "$img"
	printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$keep" fsck "$fs_t" "$fs_c" "$fs_m" - "exit 0"
	n=$keep
	if [ "$KERNEL" = 1 ] && [ "$n" -le "$KERNEL_UPTO" ] && [ "$n" -ge "$KERNEL_FROM" ]; then
		mkdir -p "$MNT"
		if mount -t squashfs -o loop,ro "$img" "$MNT" 2>"$WORK/mount.err"; then
			s=$(date +%s)
			"$GENTAR" -m "$MEDIAN" "$n" | tar -d -C "$MNT" >"$WORK/tar-diff" 2>&1 || :
			d=$(wc -l <"$WORK/tar-diff")
			umount "$MNT"
			printf '%-9s %-8s %9s %9s %9s %11s %s\n' "$n" kernel "$(($(date +%s) - s))" - - - \
				"mount + tar --diff of every entry: $d differences"
			[ "$d" -eq 0 ] || {
				head -5 "$WORK/tar-diff" | sed 's/^/#   /'
				exit 1
			}
		else
			echo "# the kernel did not mount it: $(cat "$WORK/mount.err")"
		fi
	fi
	rm -f "$img"
	prev_n=$last_n prev_m=$last_m
	last_n=$n last_m=$mk_m last_t=$mk_t
done

# 200 million entries on this design, from the growth between the last two N.
if [ -n "$prev_n" ]; then
	awk -v n1="$prev_n" -v m1="$prev_m" -v n2="$last_n" -v m2="$last_m" -v t2="$last_t" 'BEGIN {
		per = (m2 - m1) * 1048576 / (n2 - n1)
		printf "# mkimage peak RSS: %d MiB at %d, %d MiB at %d entries: %.1f bytes an entry more\n",
			m1, n1, m2, n2, per
		printf "# 200,000,000 entries: about %.0f MiB of peak RSS (%.0f MiB + that growth), ",
			m2 + per * (200e6 - n2) / 1048576, m2
		printf "%.1f hours at this rate (%.2f ms an entry), temporary files beside the image\n",
			t2 / n2 * 200e6 / 3600, t2 / n2 * 1000
	}'
fi
