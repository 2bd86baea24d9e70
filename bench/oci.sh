#!/bin/sh
# oci.sh: an OCI image of several hundred MB, four gzip layers, built into
# SquashFS straight from its layout (`squashkit mkimage --oci`) against
# unpacking it first (`umoci unpack`, what Apptainer, stacker and the rest
# do) and building from the unpacked tree (Debian's mksquashfs, and
# `squashkit mkimage`). Wall time, CPU time (user + system: it says more on
# a machine shared with other work) and peak RSS, medians of RUNS runs.
#
# The layers are made here: a base of about 400 MB copied from /usr, a
# layer that replaces a tenth of its files and removes two directories
# (whiteouts), one that makes a directory opaque and adds 60 MB, a small
# top layer. Environment: SQUASHKIT, RUNS (3), THREADS (online CPUs),
# COMPS, the compressors and levels to run, "zstd:15 zstd:3 lz4:0" by
# default (zstd 15: both programs' default; lz4 0: mksquashfs's lz4 without
# -Xhc), WORK (a directory for the layout and the outputs: /dev/shm by
# default; the unpacked trees go there too).
set -eu

HERE=$(cd "$(dirname "$0")/.." && pwd)
SQK=${SQUASHKIT:-$HERE/build/squashkit}
RUNS=${RUNS:-3}
THREADS=${THREADS:-$(nproc)}
COMPS=${COMPS:-"zstd:15 zstd:3 lz4:0"}
for c in umoci mksquashfs gzip tar sha256sum; do
	command -v $c >/dev/null || { echo "$c is not installed" >&2; exit 1; }
done
[ -x "$SQK" ] || { echo "$SQK: not built (run make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "umoci unpack needs root" >&2; exit 1; }
. "$HERE/tests/interop/oci-lib.sh"

W=$(mktemp -d "${WORK:-/dev/shm}/sqk-oci.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

# ---- the layers ----
L=$W/layers
mkdir -p "$L/1" "$L/2" "$L/3" "$L/4"
for d in /usr/include /usr/lib/python3* /usr/share/doc /usr/share/perl /usr/share/i18n \
	/usr/share/man /usr/share/zoneinfo /usr/share/mime /usr/share/locale; do
	[ -d "$d" ] && cp -a "$d" "$L/1/$(echo "${d#/}" | tr / _)" 2>/dev/null || true
done
# Layer 2: every tenth regular file of the base replaced, two directories removed.
(cd "$L/1" && find . -type f | awk 'NR % 10 == 0') | while read -r f; do
	mkdir -p "$L/2/$(dirname "$f")"
	{ cat "$L/1/$f"; echo changed; } >"$L/2/$f"
done
for d in usr_share_man usr_share_zoneinfo; do
	[ -d "$L/1/$d" ] && : >"$L/2/.wh.$d"
done
# Layer 3: a directory made opaque, 60 MB added.
if [ -d "$L/1/usr_include" ]; then
	mkdir -p "$L/3/usr_include"
	: >"$L/3/usr_include/.wh..wh..opq"
	echo "only this" >"$L/3/usr_include/README"
fi
mkdir -p "$L/3/opt"
head -c 30000000 /dev/urandom >"$L/3/opt/blob"
awk 'BEGIN { for (i = 0; i < 1500000; i++) printf "row %d of a generated table\n", i }' \
	>"$L/3/opt/table"
echo "4" >"$L/4/release"
for i in 1 2 3 4; do
	tar --sort=name --numeric-owner -C "$L/$i" -cf - . | gzip -6 >"$L/l$i.tar.gz"
done
IMG=$W/img
oci_init "$IMG"
oci_image "$IMG" v1 - "gzip:$L/l1.tar.gz" "gzip:$L/l2.tar.gz" "gzip:$L/l3.tar.gz" \
	"gzip:$L/l4.tar.gz"
rm -rf "$L/1" "$L/2" "$L/3" "$L/4"
echo "image: $(du -sh "$IMG" | cut -f1) of gzip layers," \
	"$(for i in 1 2 3 4; do gzip -dc "$L/l$i.tar.gz" | wc -c; done | awk '{ s += $1 } END { printf "%d MB", s / 1e6 }') of tar"
echo "$THREADS threads, median of $RUNS runs"

# run NAME CMD...: one timed run, "wall cpu rss" appended to $W/NAME.
run() {
	_n=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$W/m" "$@" >/dev/null 2>"$W/err" || {
		echo "$_n failed: $(tail -1 "$W/err")" >&2
		exit 1
	}
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/m" >>"$W/$_n"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$W/$1" | median; }

# mksquashfs's level options for COMP and LEVEL.
mksq_level() {
	case $COMP in
	gzip | zstd) echo "-Xcompression-level $LEVEL" ;;
	lz4) [ "$LEVEL" -gt 0 ] && echo -Xhc ;;
	esac
}
line() { printf '%-36s %9s %9s %8s MB %12s\n' "$1" "$2" "$3" "$(($4 / 1024))" "$5"; }
sum() { echo "$1 $2" | awk '{ print $1 + $2 }'; }

for cl in $COMPS; do
	COMP=${cl%:*}
	LEVEL=${cl#*:}
	rm -f "$W/oci" "$W/unpack" "$W/mksquashfs" "$W/mkimage"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -rf "$W/bundle" "$W"/*.img
		run oci "$SQK" mkimage -q -c "$COMP" -L "$LEVEL" -j "$THREADS" --oci "$IMG:v1" \
			"$W/oci.img"
		run unpack umoci unpack --image "$IMG:v1" "$W/bundle"
		# shellcheck disable=SC2046 # the level's words
		run mksquashfs mksquashfs "$W/bundle/rootfs" "$W/m.img" -quiet -noappend \
			-comp "$COMP" $(mksq_level) -processors "$THREADS"
		run mkimage "$SQK" mkimage -q -c "$COMP" -L "$LEVEL" -j "$THREADS" \
			"$W/bundle/rootfs" "$W/d.img"
		i=$((i + 1))
	done
	# The same tree every way.
	for f in oci d m; do
		unsquashfs -lln -UTC "$W/$f.img" 2>/dev/null |
			sed '1d; s|^\(d[^ ]* [^ ]*\) *[0-9]* |\1 |' | awk '{ $1 = $1; print }' >"$W/$f.list"
	done
	cmp -s "$W/oci.list" "$W/d.list" && cmp -s "$W/oci.list" "$W/m.list" ||
		echo "warning: the images' listings differ (see $W/*.list)" >&2
	u_w=$(col unpack 1) u_c=$(col unpack 2)
	echo
	printf '%-36s %9s %9s %10s %12s\n' "$COMP $LEVEL" "wall s" "cpu s" "peak RSS" "image bytes"
	line "mkimage --oci" "$(col oci 1)" "$(col oci 2)" "$(col oci 3)" "$(stat -c %s "$W/oci.img")"
	line "umoci unpack" "$u_w" "$u_c" "$(col unpack 3)" "-"
	line "umoci unpack + mksquashfs" "$(sum "$u_w" "$(col mksquashfs 1)")" \
		"$(sum "$u_c" "$(col mksquashfs 2)")" "$(col mksquashfs 3)" "$(stat -c %s "$W/m.img")"
	line "umoci unpack + mkimage" "$(sum "$u_w" "$(col mkimage 1)")" \
		"$(sum "$u_c" "$(col mkimage 2)")" "$(col mkimage 3)" "$(stat -c %s "$W/d.img")"
done
echo
echo "(the peak RSS of an unpack-then-build row is the build's; the unpack's is its own row)"
