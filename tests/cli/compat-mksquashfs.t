#!/bin/sh
# squashkit mksquashfs: option errors as mksquashfs gives them — exit 1, one
# line on stderr, nothing written — and the options that only tune the
# peer's memory accepted.
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SQK=$SQUASHKIT
mkdir -p "$TMP/src/d"
echo hello >"$TMP/src/d/f"
OUT=$TMP/out.img

# fails DESC WANT-LINE ARGS...: exit 1, exactly WANT-LINE on stderr, no image.
fails() {
	desc=$1
	want=$2
	shift 2
	rm -f "$OUT"
	"$SQK" mksquashfs "$@" >"$TMP/o" 2>"$TMP/e"
	is "$?" 1 "$desc: exit 1"
	is "$(cat "$TMP/e")" "$want" "$desc: one line naming it"
	! ls -a "$TMP" | grep -q '^out\.img'
	ok $? "$desc: nothing written"
}

fails "-action" "squashkit mksquashfs: -action is not supported" \
	"$TMP/src" "$OUT" -noappend -action 'exclude@name(*)'
fails "-one-file-system-x" "squashkit mksquashfs: -one-file-system-x is not supported" \
	"$TMP/src" "$OUT" -noappend -one-file-system-x
# The exclude is named as mapped (anchored at the root), with glibc's reason.
fails "a bad -regex exclude" \
	"squashkit mksquashfs: /x[: invalid regular expression: Invalid regular expression" \
	"$TMP/src" "$OUT" -noappend -regex -e 'x['
fails "-cpiostyle" "squashkit mksquashfs: -cpiostyle is not supported" \
	"$TMP/src" "$OUT" -cpiostyle
fails "-root-becomes" "squashkit mksquashfs: -root-becomes is not supported" \
	"$TMP/src" "$OUT" -root-becomes old
fails "an unknown option" "squashkit mksquashfs: unknown option '-frobnicate'" \
	"$TMP/src" "$OUT" -frobnicate
fails "-b without a value" "squashkit mksquashfs: -b: missing or invalid argument" \
	"$TMP/src" "$OUT" -noappend -b
fails "-comp without a value" "squashkit mksquashfs: -comp: missing or invalid argument" \
	"$TMP/src" "$OUT" -comp
fails "a bad block size" \
	"squashkit mksquashfs: invalid block size '3K' (a power of two from 4K to 1M)" \
	"$TMP/src" "$OUT" -noappend -b 3K
fails "an unknown compressor" \
	"squashkit mksquashfs: unknown compressor 'brotli' (gzip, lzma, lzo, xz, lz4, zstd)" \
	"$TMP/src" "$OUT" -noappend -comp brotli
fails "a bad uid" "squashkit mksquashfs: invalid --root-uid 'x1'" \
	"$TMP/src" "$OUT" -noappend -root-uid x1
fails "a missing DEST" "squashkit mksquashfs: SOURCE... DEST needed (squashkit mksquashfs -help)" \
	"$TMP/src"
fails "-Xlp 2 with the default -Xlc 3 (LZMA2 wants lc + lp <= 4)" \
	"squashkit mksquashfs: the xz options given do not go together" \
	"$TMP/src" "$OUT" -noappend -comp xz -Xlp 2
fails "-Xpb 5" "squashkit mksquashfs: invalid option 'pb=5' for xz" \
	"$TMP/src" "$OUT" -noappend -comp xz -Xpb 5
fails "-Xe without xz" "squashkit mksquashfs: invalid option 'extreme=1' for gzip" \
	"$TMP/src" "$OUT" -noappend -Xe
SOURCE_DATE_EPOCH=soon fails "a bad SOURCE_DATE_EPOCH" \
	"squashkit mksquashfs: SOURCE_DATE_EPOCH has an invalid time value 'soon'" \
	"$TMP/src" "$OUT" -noappend
unset SOURCE_DATE_EPOCH

# An existing DEST is left alone when the command line is refused.
echo keep >"$OUT"
"$SQK" mksquashfs "$TMP/src" "$OUT" -noappend -action x >/dev/null 2>&1
is "$(cat "$OUT")" keep "a refused command line leaves an existing DEST as it was"
rm -f "$OUT"

expect_success "-read-queue, -fragment-queue, -no-recovery are accepted" "$SQK" mksquashfs \
	"$TMP/src" "$OUT" -noappend -quiet -mem 64M -read-queue 16 -write-queue 16 \
	-fragment-queue 16 -no-recovery -exit-on-error
"$SQK" cat "$OUT" d/f >"$TMP/cat" 2>&1
is "$(cat "$TMP/cat")" hello "the image holds the source"
"$SQK" inspect --json "$OUT" >"$TMP/j"
grep -q '"compression":"gzip"' "$TMP/j"
ok $? "the peer's default compressor, gzip"
# -mem and -mem-percent are the build's memory budget (--memory), which --stats says.
"$SQK" mksquashfs "$TMP/src" "$TMP/m.img" -noappend -no-progress -mem 24M >"$TMP/o" 2>&1
grep -q '^memory  *24 MiB budget' "$TMP/o"
ok $? "-mem 24M: a budget of 24 MiB"
pct=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 / 100 * 3 }' /proc/meminfo)
"$SQK" mksquashfs "$TMP/src" "$TMP/m.img" -noappend -no-progress -mem-percent 3 >"$TMP/o" 2>&1
got=$(awk '/^memory/ { print $2 }' "$TMP/o")
[ -n "$got" ] && [ $((got - pct)) -le 1 ] && [ $((pct - got)) -le 1 ]
ok $? "-mem-percent 3: 3% of the memory ($got MiB, /proc/meminfo says $pct)"
fails "-mem under 8M" "squashkit mksquashfs: -mem: invalid size '4M' (at least 8M)" \
	"$TMP/src" "$OUT" -noappend -mem 4M
fails "-mem-percent 0" "squashkit mksquashfs: -mem-percent: '0' is not a percentage from 1 to 100" \
	"$TMP/src" "$OUT" -noappend -mem-percent 0
expect_success "-help exits 0" "$SQK" mksquashfs -help
grep -q 'squashkit-compat' "$TMP/.out"
ok $? "-help points at squashkit-compat(1)"

done_testing
