#!/bin/sh
# What bench tells a newcomer: a progress line as each run and each cell
# ends (not a batch after the group, so that an early Ctrl-C has shown
# something); a table of the few columns most need, every one with --wide,
# each column named in the legend under it; the default image named for
# what it is (its scratch path is gone when bench ends), and the mkimage
# bench starts for it shown as squashkit in ps, not as "exe".
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd ps
JSONQ=$SQK_TOOLS/jsonq

mkdir -p "$TMP/src/d"
seq 1 100000 >"$TMP/src/big"
for f in 1 2 3 4 5; do seq "$f" 7 3000 >"$TMP/src/d/f$f"; done
img=$TMP/a.img
"$SQUASHKIT" mkimage -q "$TMP/src" "$img" || {
	echo "Bail out! mkimage failed"
	exit 1
}

# 1. Each cell is told of as soon as its last run ends: in a group of two
# cells run twice each, the first cell's line comes before the second
# cell's last run, not with it after the group.
"$SQUASHKIT" bench -w stat -t 1 -p herd,keyed -d 20ms -r 2 "$img" >/dev/null 2>"$TMP/p.err"
ok $? "bench, two cells of two runs: exit 0"
sed -n 's/^bench: \[\([0-9]\)\/2\] stat [a-z]* 1 thread\(, run \([0-9]\)\/2: [0-9]* ops\/s\| \.\.\. .*\)$/\1 \3/p' \
	"$TMP/p.err" | tr '\n' '|' >"$TMP/order"
is "$(cat "$TMP/order")" "1 1|2 1|1 2|1 |2 2|2 |" \
	"each run as it ends, each cell with its medians right after its last run" ||
	sed 's/^/#   /' "$TMP/p.err"

# 2. An early Ctrl-C: what was measured so far has been said. Two cells of
# three 2 s runs: the first line comes at the end of the first run, long
# before the group's end (12 s), when a batch would come.
: >"$TMP/int.err"
"$SQUASHKIT" bench -w stat -t 1 -p herd,keyed -d 2s -r 3 "$img" >/dev/null 2>"$TMP/int.err" &
pid=$!
n=0
while ! grep -q '^bench: \[1/2\]' "$TMP/int.err" && [ $n -lt 80 ]; do
	sleep 0.1
	n=$((n + 1))
done
grep -q '^bench: \[1/2\] stat herd 1 thread, run 1/3: [0-9]* ops/s$' "$TMP/int.err"
ok $? "a line for the first run, within 8 s of a 12 s group"
kill -INT $pid
wait $pid
is $? 130 "SIGINT then ends bench by it"

# 3. The default table: a few columns, each in the legend; --wide: all of them.
"$SQUASHKIT" bench -q -w stat -t 1,2 -p keyed -d 20ms -r 1 "$img" >"$TMP/t.txt"
ok $? "bench, the default table: exit 0"
"$SQUASHKIT" bench -q --wide -w stat -t 1,2 -p keyed -d 20ms -r 1 "$img" >"$TMP/w.txt"
ok $? "bench --wide: exit 0"
# heads FILE: the figures' column heads (after where, work, policy, thr).
heads() {
	awk '$1 == "where" { for (i = 5; i <= NF; i++) print $i; exit }' "$1"
}
# legend FILE: the column names the legend explains.
legend() {
	awk '/^columns:$/ { on = 1; next } on && /^  / { print $1; next } on { exit }' "$1"
}
heads "$TMP/t.txt" >"$TMP/t.heads"
heads "$TMP/w.txt" >"$TMP/w.heads"
n_t=$(wc -l <"$TMP/t.heads")
n_w=$(wc -l <"$TMP/w.heads")
ok "$([ "$n_t" -ge 4 ] && [ "$n_t" -le 8 ]; echo $?)" "the default table: $n_t figures, a few"
width=$(awk '$1 == "where" || $1 == "model" { if (length($0) > w) w = length($0) } END { print w }' "$TMP/t.txt")
ok "$([ "$width" -le 100 ]; echo $?)" "the default table fits 100 columns ($width)"
ok "$([ "$n_w" -gt "$n_t" ]; echo $?)" "--wide: more figures ($n_w)"
grep -vxF -f "$TMP/w.heads" "$TMP/t.heads" >"$TMP/extra"
is "$(cat "$TMP/extra")" "" "--wide has every column of the default table"
legend "$TMP/t.txt" >"$TMP/t.legend"
legend "$TMP/w.txt" >"$TMP/w.legend"
same_file "$TMP/t.heads" "$TMP/t.legend" "the default table's legend names each of its columns"
grep -vxF -f "$TMP/w.legend" "$TMP/w.heads" >"$TMP/unexplained"
is "$(cat "$TMP/unexplained")" "" "--wide: every column is in the legend"
for h in unclaim_ms dec/blk devrd/op comp_KiB step vs_kern; do
	grep -q "^  $h  *[A-Za-z]" "$TMP/w.txt"
	ok $? "--wide: the legend says what $h is"
done
grep -q -- '^--wide shows every column' "$TMP/t.txt"
ok $? "the default table says --wide shows the rest"
# The JSON keeps every figure whatever the table shows.
"$SQUASHKIT" bench -q -f json -w stat -t 1 -p keyed -d 20ms -r 1 "$img" >"$TMP/j.json"
is "$("$JSONQ" "$TMP/j.json" /cells/0/unclaimed_free_ms /cells/0/comp_cache_kib /image_default \
	/cold | sed 's/[0-9.]*[0-9]/N/' | tr '\n' ' ')" "N N false false " \
	"--format json: every figure, and whether the image was the default and runs cold"

# 4. The default image: named for what it is; the mkimage that builds it
# shows as squashkit in ps.
"$SQUASHKIT" bench -w stat -t 1 -p keyed -d 20ms -r 1 >"$TMP/d.txt" 2>"$TMP/d.err" &
pid=$!
comm=""
n=0
while [ -z "$comm" ] && kill -0 $pid 2>/dev/null && [ $n -lt 300 ]; do
	comm=$(ps -o comm= --ppid $pid 2>/dev/null | head -1)
	sleep 0.05
	n=$((n + 1))
done
wait $pid
ok $? "bench with its default image: exit 0"
is "$comm" squashkit "the mkimage bench starts is squashkit in ps"
image=$(sed -n 's/^image: \(.*\)   cpus: .*/\1/p' "$TMP/d.txt")
case $image in
"the embedded default ("*) ok 0 "image: names the embedded default ($image)" ;;
*) ok 1 "image: names the embedded default, not '$image'" ;;
esac

done_testing
