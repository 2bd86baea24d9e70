#!/bin/sh
# bench's options for the laboratory beside reality: --against and
# --slow-device are refused without root (one line, exit 1) and checked as
# usage (exit 2); the model alone still says where each cell ran; randread
# (fio's random reads) runs in the model, and --cache comp=0 means no
# compressed-block cache while comp=N holds the blocks read (with counters).
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
JSONQ=$SQK_TOOLS/jsonq

mkdir -p "$TMP/src/d"
seq 1 200000 >"$TMP/src/big"
for f in 1 2 3 4 5; do seq "$f" 7 3000 >"$TMP/src/d/f$f"; done
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/a.img" || {
	echo "Bail out! mkimage failed"
	exit 1
}
# The refusals come before the image is opened.
img=$TMP/a.img

usage() {
	desc=$1
	shift
	expect_status 2 "$desc" "$SQUASHKIT" bench "$@"
	is "$(tail -1 "$TMP/.err")" "Try 'squashkit bench --help'." "$desc: the hint"
}
usage "--against an unknown place" --against kernel,moon "$img"
is "$(head -1 "$TMP/.err")" "squashkit bench: invalid place list 'kernel,moon' (kernel, mount)" \
	"--against an unknown place: says which list"
usage "--slow-device 0" --slow-device 0 "$img"
usage "--slow-device with bad bytes" --slow-device 100,fast "$img"
usage "--slow-device with --against mount" --slow-device 100 --against kernel,mount "$img"
is "$(head -1 "$TMP/.err")" \
	"squashkit bench: --slow-device: the mount reads through the page cache; use --against kernel" \
	"--slow-device with the mount: says why"
usage "--cache meta=0" --cache meta=0 "$img"

# Without root: a clear refusal, one line, exit 1. As root, as nobody.
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null; then
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		as_user=""
	fi
else
	as_user="env"
fi
if [ -n "$as_user" ]; then
	for opt in "--against kernel" "--against mount" "--slow-device 1000"; do
		# shellcheck disable=SC2086 # two words each
		expect_status 1 "bench $opt without root: exit 1" $as_user "$SQUASHKIT" bench $opt "$img"
		case $opt in
		--slow*) want="squashkit bench: --slow-device needs root: it sets up loop devices and throttles them" ;;
		*) want="squashkit bench: --against needs root: it sets up loop devices and mounts" ;;
		esac
		is "$(cat "$TMP/.err")" "$want" "bench $opt without root: one line says why"
	done
else
	skip "no setpriv to run as another user"
fi

# The model alone: every cell is the model's, the machine's load is reported.
expect_success "bench -f json, the model alone" "$SQUASHKIT" bench -q -f json -w stat,randread \
	-t 1 -p keyed -d 30ms -r 1 "$img"
cp "$TMP/.out" "$TMP/m.json"
is "$("$JSONQ" "$TMP/m.json" '/cells/*/where' | tr '\n' ' ')" "model model " "every cell says model"
is "$("$JSONQ" "$TMP/m.json" '/machine/load/#' '/device')" "$(printf '3\nnull')" \
	"the machine's three load averages; no slow device"
is "$("$JSONQ" "$TMP/m.json" '/cells/1/workload' '/cells/1/errors')" "$(printf 'randread\n0')" \
	"randread runs without errors"
awk -v v="$("$JSONQ" "$TMP/m.json" '/cells/1/mib_per_s')" 'BEGIN { exit !(v > 0) }'
ok $? "randread reads data"
is "$("$JSONQ" "$TMP/m.json" '/cells/1/step' '/cells/1/step_vs_kernel')" "$(printf 'null\nnull')" \
	"one thread count, no kernel: no step"

# comp=0 is no compressed-block cache; comp=64 holds what was read.
expect_success "--cache comp=0" "$SQUASHKIT" bench -q -f json -w randread -t 1 -p keyed -d 30ms \
	-r 1 --cache comp=0 "$img"
is "$("$JSONQ" "$TMP/.out" '/cells/0/cache/comp' '/cells/0/comp_cache_kib')" "$(printf '0\n0.0')" \
	"comp=0: no cache, nothing held"
expect_success "--cache comp=64" "$SQUASHKIT" bench -q -f json -w randread -t 1 -p keyed -d 100ms \
	-r 1 --cache comp=64 "$img"
is "$("$JSONQ" "$TMP/.out" '/cells/0/cache/comp')" 64 "comp=64 is in the cell"
awk -v v="$("$JSONQ" "$TMP/.out" '/cells/0/comp_cache_kib')" \
	-v r="$("$JSONQ" "$TMP/.out" '/cells/0/device_reads_per_op')" 'BEGIN { exit !(v > 0 && r < 1) }'
ok $? "comp=64 holds compressed blocks, and spares reads of the image file"

echo "1..$test_count"
