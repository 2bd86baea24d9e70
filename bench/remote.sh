#!/bin/sh
# remote.sh [IMAGE]: what reading an image over HTTP costs. The image (default:
# the gzip image of lib.sh's source tree) is served by tests/tools/httpd on
# 127.0.0.1 with LATENCY ms (default 20) added to every request, as a nearby
# web server or CDN would answer, its replies sharing a link of RATE bytes per
# second (default 12500000: 100 Mbit/s; 0: loopback's speed); the server's log
# counts the requests and the bytes sent.
#   1. 1% of the image's files (a fixed random choice) read with one
#      `squashkit cat URL ...`: bytes fetched against the image's size, time
#      against downloading the image first (curl) and reading it from the file.
#   2. `squashkit bench -w randread -t 64` over the URL, herd against keyed:
#      requests sent, blocks fetched per distinct block read, fetches saved.
#   3. squashkit mount of the URL with --cache-dir, the same 1% read, unmounted,
#      mounted again and read again: the requests the second mount sends (root
#      and FUSE needed; skipped otherwise).
. "$(dirname "$0")/lib.sh"

: "${LATENCY:=20}"
: "${RATE:=12500000}"
: "${HTTPD:=$(dirname "$SQUASHKIT")/tests/tools/httpd}"
[ -x "$HTTPD" ] || {
	echo "remote.sh: $HTTPD is not built (make tests)" >&2
	exit 1
}
IMG=$(bench_image "$1")
D=$WORK/remote
rm -rf "$D"
mkdir -p "$D/srv"
ln -s "$(readlink -f "$IMG")" "$D/srv/image.sqfs"
size=$(stat -L -c %s "$IMG")

pid=""
trap 'kill $pid 2>/dev/null; mountpoint -q "$D/mnt" && umount -l "$D/mnt"' EXIT
# serve RATE: (re)start the server with that link; URL is then the image's.
serve() {
	[ -n "$pid" ] && kill "$pid" && wait "$pid" 2>/dev/null
	rm -f "$D/port"
	"$HTTPD" --root "$D/srv" --port-file "$D/port" --log "$D/log" --latency "$LATENCY" \
		--rate "$1" --lifetime 3600 &
	pid=$!
	n=0
	while [ ! -s "$D/port" ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	URL=http://127.0.0.1:$(cat "$D/port")/image.sqfs
}
requests() { wc -l <"$D/log" | tr -d ' '; }
fetched() { awk '{ s += $6 } END { print s + 0 }' "$D/log"; }

# The regular files of the image, and 1% of them (the same choice every run).
"$SQUASHKIT" ls -R -l "$IMG" | awk '
	/^\/.*:$/ { dir = substr($0, 1, length($0) - 1); if (dir == "/") dir = ""; next }
	/^-/ && match($0, / [0-9][0-9]:[0-9][0-9] /) { print dir "/" substr($0, RSTART + RLENGTH) }' \
	>"$D/files"
total=$(wc -l <"$D/files")
awk 'BEGIN { srand(1) } rand() < 0.01' "$D/files" >"$D/some"
picked=$(wc -l <"$D/some")
bytes_picked=$(xargs -d '\n' "$SQUASHKIT" cat "$IMG" <"$D/some" | wc -c)
echo "image: $IMG ($size bytes, $total files); latency $LATENCY ms per request, link $RATE bytes/s (0: loopback)"
echo "1% of the files: $picked files, $bytes_picked bytes of data"

# 1. Reading 1% over HTTP against downloading first, on the link and on loopback.
for link in "$RATE" 0; do
	serve "$link"
	t_url=""
	t_dl=""
	for r in $(seq "$RUNS"); do
		: >"$D/log"
		s=$(date +%s.%N)
		xargs -d '\n' "$SQUASHKIT" cat "$URL" <"$D/some" >/dev/null
		e=$(date +%s.%N)
		t_url="$t_url $(echo "$e - $s" | bc)"
		req=$(requests)
		got=$(fetched)
		s=$(date +%s.%N)
		curl -s -o "$D/dl.img" "$URL"
		xargs -d '\n' "$SQUASHKIT" cat "$D/dl.img" <"$D/some" >/dev/null
		e=$(date +%s.%N)
		t_dl="$t_dl $(echo "$e - $s" | bc)"
		rm -f "$D/dl.img"
	done
	# shellcheck disable=SC2086
	mu=$(median $t_url)
	# shellcheck disable=SC2086
	md=$(median $t_dl)
	echo "[link $link B/s] cat of 1% over HTTP: $req requests, $got bytes fetched = $(awk -v a="$got" -v b="$size" 'BEGIN { printf "%.2f", 100 * a / b }')% of the image; ${mu} s (median of $RUNS)"
	echo "[link $link B/s] download first (curl) and cat from the file: ${md} s; over HTTP takes $(ratio "$mu" "$md") of that"
done
serve "$RATE"

# 2. 64 random readers, herd against keyed.
: >"$D/log"
"$SQUASHKIT" bench -q -w randread -t 64 -p herd,keyed -d "${DURATION:-5}" -r 1 -f csv "$URL" \
	>"$D/bench.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ printf "64 random readers, %s: %.0f ops/s, %d requests, %.2f MiB fetched, %.3f blocks fetched per distinct block, %d fetches saved by waiting\n",
		$col["policy"], $col["ops_per_s"], $col["requests"], $col["fetched_mib"],
		$col["fetches_per_block"], $col["fetches_saved"] }' "$D/bench.csv"

# 3. A second mount with --cache-dir fetches nothing again.
if [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ]; then
	mkdir -p "$D/mnt"
	for pass in first second; do
		: >"$D/log"
		"$SQUASHKIT" mount --cache-dir "$D/cache" "$URL" "$D/mnt" || exit 1
		sed "s|^|$D/mnt|" "$D/some" | xargs -d '\n' cat >/dev/null
		"$SQUASHKIT" umount "$D/mnt"
		echo "mount --cache-dir, $pass mount reading the 1%: $(requests) requests, $(fetched) bytes fetched"
	done
	echo "cache directory: $(ls "$D/cache" | wc -l) blocks, $(du -sb "$D/cache" | cut -f1) bytes"
else
	echo "mount --cache-dir: skipped (needs root and /dev/fuse)"
fi
