#!/bin/sh
# dm-verity's cost. Medians of $RUNS runs, each pair interleaved so that the
# machine's noise hits both alike:
#   build   mkimage --verity against plain mkimage (the goal: at most 3% more
#           time), and against mksquashfs + veritysetup format on its image
#           (the pipelines' way today);
#   verify  fsck --root-hash --verity-only -j N against veritysetup verify
#           (the goal: half its time or less), and fsck --root-hash (the
#           structures and the tree) against plain fsck.
#
#   bench/verity.sh [SOURCE]
# Without SOURCE, the few hundred MB of files make_source copies from this
# machine. Environment: RUNS (5), THREADS (online CPUs), COMP (gzip; lz4
# makes hashing's share the largest), WORK (/dev/shm/sqk-bench), SQUASHKIT.
set -e
. "$(dirname "$0")/lib.sh"
for c in mksquashfs veritysetup; do
	command -v "$c" >/dev/null || { echo "$c is not installed" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
[ -x "$SQUASHKIT" ] || { echo "$SQUASHKIT: not built (run make)" >&2; exit 1; }
COMP=${COMP:-gzip}
mkdir -p "$WORK"
src=${1:-$WORK/src}
[ -n "${1:-}" ] || make_source "$src"
o=$WORK/verity.$$
mkdir -p "$o"
trap 'rm -rf "$o"' EXIT INT TERM
SALT=000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f

# cpu CMD...: "WALL CPU" of one run (user + system seconds).
cpu() {
	/usr/bin/env time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -n 1 |
		awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
}
# The peers' pipeline: mksquashfs, then veritysetup format appending the tree.
PEERS='mksquashfs "$1" "$2" -quiet -noappend -comp "$3" -processors "$4" >/dev/null &&
	veritysetup format "$2" "$2" --salt="$5" --hash-offset="$(stat -c %s "$2")" >/dev/null'

echo "source: $src ($(du -sh "$src" | cut -f1)), $COMP, -j $THREADS, runs: $RUNS"
# Untimed: the source in the page cache.
"$SQUASHKIT" mkimage -q -f -c "$COMP" -j "$THREADS" "$src" "$o/plain.img"

tp="" tv="" tm="" cp="" cv="" cm=""
i=0
while [ $i -lt "$RUNS" ]; do
	set -- $(cpu "$SQUASHKIT" mkimage -q -f -c "$COMP" -j "$THREADS" "$src" "$o/plain.img")
	tp="$tp $1" cp="$cp $2"
	set -- $(cpu "$SQUASHKIT" mkimage -q -f -c "$COMP" -j "$THREADS" --verity \
		--verity-salt "$SALT" --verity-root-hash-file "$o/root" "$src" "$o/v.img")
	tv="$tv $1" cv="$cv $2"
	set -- $(cpu sh -c "$PEERS" sh "$src" "$o/ms.img" "$COMP" "$THREADS" "$SALT")
	tm="$tm $1" cm="$cm $2"
	i=$((i + 1))
done
mp=$(median $tp) mv=$(median $tv) mm=$(median $tm)
echo "image: $(stat -c %s "$o/plain.img") bytes; with its tree $(stat -c %s "$o/v.img")"
printf 'mkimage                          %6.2f s wall  %6.2f s cpu\n' "$mp" "$(median $cp)"
printf 'mkimage --verity                 %6.2f s wall  %6.2f s cpu\n' "$mv" "$(median $cv)"
printf 'mksquashfs + veritysetup format  %6.2f s wall  %6.2f s cpu\n' "$mm" "$(median $cm)"
echo "build: --verity / plain $(ratio "$mv" "$mp") wall, $(ratio "$(median $cv)" "$(median $cp)") cpu;" \
	"/ the peers' pipeline $(ratio "$mv" "$mm")"

root=$(cat "$o/root")
off=$(stat -c %s "$o/plain.img")
veritysetup verify "$o/v.img" "$o/v.img" "$root" --hash-offset="$off" ||
	{ echo "veritysetup verify refuses the image" >&2; exit 1; }
ts="" to="" tf="" tn="" cs="" co="" cf="" cn=""
i=0
while [ $i -lt "$RUNS" ]; do
	set -- $(cpu veritysetup verify "$o/v.img" "$o/v.img" "$root" --hash-offset="$off")
	ts="$ts $1" cs="$cs $2"
	set -- $(cpu "$SQUASHKIT" fsck -q -j "$THREADS" --root-hash "$root" --verity-only "$o/v.img")
	to="$to $1" co="$co $2"
	set -- $(cpu "$SQUASHKIT" fsck -q -j "$THREADS" --root-hash "$root" "$o/v.img")
	tf="$tf $1" cf="$cf $2"
	set -- $(cpu "$SQUASHKIT" fsck -q -j "$THREADS" "$o/v.img")
	tn="$tn $1" cn="$cn $2"
	i=$((i + 1))
done
ms=$(median $ts) mo=$(median $to) mf=$(median $tf) mn=$(median $tn)
printf 'veritysetup verify               %6.2f s wall  %6.2f s cpu\n' "$ms" "$(median $cs)"
printf 'fsck --root-hash --verity-only   %6.2f s wall  %6.2f s cpu\n' "$mo" "$(median $co)"
printf 'fsck --root-hash                 %6.2f s wall  %6.2f s cpu\n' "$mf" "$(median $cf)"
printf 'fsck                             %6.2f s wall  %6.2f s cpu\n' "$mn" "$(median $cn)"
echo "verify: veritysetup / --verity-only $(ratio "$ms" "$mo")x;" \
	"fsck --root-hash / fsck $(ratio "$mf" "$mn")"
