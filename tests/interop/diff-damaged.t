#!/bin/sh
# squashkit diff on hostile and damaged images: never a crash, a hang or a
# wrong "same".
#
# Hostile: each broken image of tests/tools/craft against the valid one, and
# against itself: exit 2 and one line on stderr, "squashkit diff: IMAGE: ...".
#
# Damaged: a small gzip image (and a zstd one whose inode, fragment and
# xattr tables are stored uncompressed, so that flips change fields) gets
# single-bit flips and truncations from the seeded generator of
# tests/tools/lib/damage.c (tests/tools/corrupt). Each damaged image is
# compared with the undamaged one (`diff -T`, times too), and every fifth
# also with the source directory:
#   - the exit status is 0, 1 or 2, within 20 s, with no sanitizer report;
#   - 2 comes with exactly one line on stderr, 1 and 0 with none;
#   - 0 ("the same") only where the damaged image really shows the same
#     tree: unsquashfs extracts it to what it extracts from the undamaged
#     image (tests/tools/manifest: types, modes, owners, times, contents,
#     holes, targets, xattrs, hard links). Where unsquashfs refuses such an
#     image (it is stricter than the kernel in places, see agree-damaged.t),
#     unimage's extraction is the judge instead, and a note says so.
SCRATCH=shm-user-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs unsquashfs timeout
. "$SQK_SRCDIR/tests/interop/damage.sh"
CRAFT=$SQK_TOOLS/craft
MANIFEST=$SQK_TOOLS/manifest
[ -x "$CRAFT" ] || skip_all "$CRAFT is not built"
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"

# A sample: corrupt.t and agree-damaged.t sweep the reader over thousands.
FLIPS=120
TRUNCS=12
if [ -n "${SQK_SANITIZED:-}" ]; then
	FLIPS=60
	TRUNCS=6
	echo "# SQK_SANITIZED: $FLIPS flips and $TRUNCS truncations per image (120 and 12 without)"
fi
SEED=20241201
WORKERS=2

sqk() {
	timeout 20 "$SQUASHKIT" "$@"
}

# one_line_error FILE: exactly one line, from squashkit diff.
one_line_error() {
	[ "$(wc -l <"$1")" -eq 1 ] && grep -q '^squashkit diff: ' "$1"
}

# --- hostile images ---
"$CRAFT" ok "$TMP/ok.img" || echo "Bail out! craft cannot write the valid image"
for kind in dotdot dot slash nul dupname unsorted loop truncated tablepast badinode hugefile; do
	if ! "$CRAFT" "$kind" "$TMP/$kind.img" 2>/dev/null; then
		skip "craft has no kind $kind"
		continue
	fi
	sqk diff "$TMP/ok.img" "$TMP/$kind.img" >/dev/null 2>"$TMP/err"
	st=$?
	ok "$([ $st -eq 2 ] && one_line_error "$TMP/err"; echo $?)" \
		"$kind: against the valid image, exit 2 and one line ($st: $(head -1 "$TMP/err"))"
	sqk diff -j 2 "$TMP/$kind.img" "$TMP/$kind.img" >/dev/null 2>"$TMP/err"
	st=$?
	ok "$([ $st -eq 2 ] && one_line_error "$TMP/err"; echo $?)" \
		"$kind: against itself, exit 2 and one line ($st)"
done

# --- damaged images ---
t=$TMP/tree
small_tree "$t" 60
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%c", (i * 7919) % 251 }' >"$t/dir/noise"
cp "$t/dir/noise" "$t/dir/noise-again"
setfattr -n user.comment -v "some value" "$t/hello" 2>/dev/null
setfattr -n user.other -v "$(printf '%0100d' 0)" "$t/dir/blocks" 2>/dev/null
unsq_opts=""
[ "$(id -u)" -eq 0 ] || unsq_opts="-no-xattrs"

# judge CASE IMG: is IMG the same tree as the undamaged image? 0 yes.
judge() {
	rm -rf "$TMP/j-$2"
	# shellcheck disable=SC2086
	if timeout 20 unsquashfs -n $unsq_opts -d "$TMP/j-$2" "$1" >/dev/null 2>&1; then
		"$MANIFEST" "$TMP/j-$2" >"$TMP/j-$2.m" 2>&1
		rm -rf "$TMP/j-$2"
		cmp -s "$TMP/j-$2.m" "$TMP/good.m"
		return
	fi
	rm -rf "$TMP/j-$2"
	echo "#   unsquashfs refuses an image diff calls the same; unimage judges it"
	timeout 20 "$SQUASHKIT" unimage -q -d "$TMP/j-$2" "$1" >/dev/null 2>&1 || return 1
	"$MANIFEST" "$TMP/j-$2" >"$TMP/j-$2.m" 2>&1
	rm -rf "$TMP/j-$2"
	cmp -s "$TMP/j-$2.m" "$TMP/good.m"
}

# check CASE WHAT STATUS ERRFILE IMG W: one line "CASE verdict status what".
check() {
	v=ok
	if [ "$3" -ge 124 ] || grep -q -E 'Sanitizer|runtime error' "$4"; then
		v=crash
		head -20 "$4" | sed "s/^/#   case $1: /"
	elif [ "$3" -eq 2 ]; then
		one_line_error "$4" || v=lines
	elif [ "$3" -gt 2 ]; then
		v=status
	elif [ -s "$4" ]; then
		v=lines
	elif [ "$3" -eq 0 ] && ! judge "$5" "$6"; then
		v=wrong-same
	fi
	[ $v = ok ] || echo "#   case $1 ($2): exit $3: $v"
	echo "$1 $v $3"
}

# cases IMG SRC WORKER: every WORKERS-th case from WORKER on.
cases() {
	i=$3
	while [ $i -lt $((FLIPS + TRUNCS)) ]; do
		d=$TMP/d-$3.img
		what=$("$CORRUPT" "$1" "$d" $SEED $i $FLIPS) || {
			echo "$i corrupt-failed 0"
			i=$((i + WORKERS))
			continue
		}
		sqk diff -T -j 2 "$1" "$d" >/dev/null 2>"$TMP/e-$3"
		check "$i" "$what" $? "$TMP/e-$3" "$d" "$3"
		if [ $((i % 5)) -eq 0 ]; then
			sqk diff -T "$d" "$2" >/dev/null 2>"$TMP/e-$3"
			check "$i-dir" "$what, against the directory" $? "$TMP/e-$3" "$d" "$3"
		fi
		i=$((i + WORKERS))
	done
}

for comp in gzip zstd; do
	img=$TMP/$comp.img
	raw=""
	[ $comp = zstd ] && raw="-noI -noF -noX"
	# shellcheck disable=SC2086
	if ! mksquashfs "$t" "$img" -noappend -quiet -no-progress -b 4K -comp $comp $raw \
		>"$TMP/mks.err" 2>&1; then
		skip "mksquashfs -comp $comp failed: $(head -1 "$TMP/mks.err")"
		continue
	fi
	rm -rf "$TMP/good"
	# shellcheck disable=SC2086
	unsquashfs -n $unsq_opts -d "$TMP/good" "$img" >/dev/null 2>&1
	"$MANIFEST" "$TMP/good" >"$TMP/good.m"
	rm -rf "$TMP/good"
	expect_status 0 "$comp: the undamaged image against its source" sqk diff -T "$img" "$t"
	w=0
	while [ $w -lt $WORKERS ]; do
		cases "$img" "$t" $w >"$TMP/res-$w" 2>&1 &
		w=$((w + 1))
	done
	wait
	cat "$TMP"/res-* >"$TMP/res"
	grep -a '^#' "$TMP/res"
	eval "$(awk '/^#/ { next } { n++; v[$2]++; s[$3]++ }
		END { printf "ran=%d bad=%d wrong=%d crash=%d same=%d differ=%d trouble=%d\n", n,
			n - v["ok"], v["wrong-same"] + 0, v["crash"] + 0, s[0] + 0, s[1] + 0, s[2] + 0 }' \
		"$TMP/res")"
	echo "# $comp: $ran comparisons: $same the same, $differ different, $trouble trouble"
	want=$((FLIPS + TRUNCS + (FLIPS + TRUNCS + 4) / 5))
	is "$ran" "$want" "$comp: every case ran"
	is "$crash" 0 "$comp: never a crash or a hang"
	is "$wrong" 0 "$comp: never 'the same' about an image that shows another tree"
	is "$bad" 0 "$comp: exit 0, 1 or 2; one line on stderr with 2, none otherwise"
	ok "$([ "$trouble" -gt 0 ]; echo $?)" \
		"$comp: damage is found, as trouble ($trouble) or as a difference ($differ)"
done

# A damaged image under --json: the document stays whole, with the error.
# The first data block is overwritten: the walk starts, then a block fails.
cp "$TMP/gzip.img" "$TMP/broken.img"
printf 'XXXXXXXXXXXXXXXX' | dd of="$TMP/broken.img" bs=1 seek=100 conv=notrunc 2>/dev/null
sqk diff --json "$TMP/gzip.img" "$TMP/broken.img" >"$TMP/out.json" 2>"$TMP/err"
st=$?
ok "$([ $st -eq 2 ] && one_line_error "$TMP/err"; echo $?)" \
	"--json, a broken data block: exit 2 and one line ($(cat "$TMP/err"))"
"$SQK_TOOLS/jsonq" "$TMP/out.json" /error >"$TMP/jerr" 2>&1
ok $? "--json, a broken data block: valid JSON with the error ($(cat "$TMP/jerr"))"

done_testing
