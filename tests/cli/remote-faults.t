#!/bin/sh
# remote-faults.t: an image read over HTTP when the server misbehaves.
# tests/tools/httpd injects each fault at a chosen request: a reply cut
# mid-body, a 503, a stall past --timeout, a server that ignores Range (from
# the start, or from a request on), the image replaced between two requests.
# What passes is tried again and the run reads the right bytes; what does not
# pass fails the run: exit 1, one line on stderr, never a wrong byte, and
# nothing left behind (unimage's destination, a temporary file).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/httpd.sh"

[ -x "$SQK_TOOLS/httpd" ] || skip_all "$SQK_TOOLS/httpd is not built"
sqk() { "$SQUASHKIT" "$@"; }

# Two images of the same tree but for big.bin's bytes: a replaced image
# must never give the other's bytes.
mkdir -p "$TMP/t1" "$TMP/t2" "$TMP/srv"
head -c 2000000 /dev/urandom >"$TMP/t1/big.bin"
head -c 2000000 /dev/urandom >"$TMP/t2/big.bin"
for i in 1 2 3 4 5 6 7 8; do echo "small $i" >"$TMP/t1/s$i"; cp "$TMP/t1/s$i" "$TMP/t2/s$i"; done
sqk mkimage -q "$TMP/t1" "$TMP/srv/img.sqfs" && sqk mkimage -q "$TMP/t2" "$TMP/one.sqfs" &&
	sqk mkimage -q "$TMP/t2" "$TMP/two.sqfs"
ok $? "the images are built"
log=$TMP/log

# read_with FAULT... -- CAT-OPTIONS: cat big.bin over HTTP with the server's faults.
read_with() {
	_f=""
	while [ "$1" != "--" ]; do
		_f="$_f $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # the fault options are meant to split
	http_start "$TMP/srv" "$log" $_f
	"$SQUASHKIT" cat "$@" "$BASE/img.sqfs" big.bin >"$TMP/out" 2>"$TMP/err"
	status=$?
	http_stop
}

# retried DESC: the run succeeded with the right bytes.
retried() {
	if [ $status -eq 0 ] && cmp -s "$TMP/out" "$TMP/t1/big.bin"; then ok 0 "$1"; else
		ok 1 "$1"
		echo "#   exit $status"
		sed 's/^/#   /' "$TMP/err" | head -3
		sed 's/^/#   log: /' "$log" | head -10
	fi
}

# failed DESC WORDS: exit 1, one line naming the URL and saying WORDS, no wrong byte.
failed() {
	_lines=$(wc -l <"$TMP/err")
	_n=$(stat -c %s "$TMP/out")
	if [ $status -eq 1 ] && [ "$_lines" -eq 1 ] && grep -q "$2" "$TMP/err" &&
		grep -q "$BASE/img.sqfs" "$TMP/err" &&
		head -c "$_n" "$TMP/t1/big.bin" | cmp -s - "$TMP/out"; then
		ok 0 "$1"
	else
		ok 1 "$1"
		echo "#   exit $status, $_lines line(s), $_n bytes out"
		sed 's/^/#   /' "$TMP/err" | head -3
	fi
}

# Request 1 is the probe (the first block), 2 the tables at the end, 3 on the data.
read_with --fault cut@3 -- ; retried "a reply cut mid-body is tried again"
grep -q '^4 GET /img.sqfs' "$log" && awk '$1 == 3 && $6 > 0' "$log" | grep -q .
ok $? "the cut reply sent part of its body, and the range was asked again"
read_with --fault 503@3 -- ; retried "a 503 is tried again"
read_with --fault 503@1 -- ; retried "a 503 to the first request is tried again"
read_with --fault stall@3 --stall 4 -- --timeout 1; retried "a reply that stalls past --timeout is tried again"
read_with --fault 503@3+ -- --retries 2; failed "503 for good: the read fails after the retries" "Input/output error"
is "$(awk '$5 == 503' "$log" | wc -l | tr -d ' ')" 3 "the first try and two retries, then no more"
read_with --fault stall@2+ --stall 3 -- --timeout 1 --retries 1; failed "stalls for good: the read fails" "timed out"
read_with --fault cut@3+ -- --retries 1; failed "cut replies for good: the read fails" "reset"

# A server without range support: refused, unless --download.
read_with --no-range -- ; failed "a server that ignores Range is refused" "ignores range requests"
grep -q -- "--download" "$TMP/err"
ok $? "and the line says --download fetches it whole"
before=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -newer "$TMP/srv/img.sqfs" 2>/dev/null | wc -l)
read_with --no-range -- --download; retried "--download reads it from a server that ignores Range"
after=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -newer "$TMP/srv/img.sqfs" 2>/dev/null | wc -l)
is "$after" "$before" "--download leaves no file behind in TMPDIR"
read_with --fault full@3 -- ; failed "a 200 in the middle of a run: the read fails" "Input/output error"

# The image replaced between requests: never bytes of the other image.
cp "$TMP/two.sqfs" "$TMP/srv/.next"
read_with --fault replace@3 --replace-from "$TMP/srv/.next" --replace-to "$TMP/srv/img.sqfs" --
failed "the image replaced after open: the read fails" "Stale file handle"
grep ' 412 ' "$log" | grep -q .
ok $? "the server refused the conditional request (412)"
cmp -s "$TMP/out" "$TMP/t2/big.bin"
ok $((!$?)) "and not one byte of the new image was written"
rm -f "$TMP/srv/img.sqfs"
sqk mkimage -q "$TMP/t1" "$TMP/srv/img.sqfs"

# unimage: a failure in the middle leaves no destination behind.
http_start "$TMP/srv" "$log" --fault 503@4+
sqk unimage -q --retries 1 "$BASE/img.sqfs" -d "$TMP/dest" >/dev/null 2>"$TMP/err"
s=$?
http_stop
is "$s $(wc -l <"$TMP/err")" "1 1" "unimage: 503 for good is exit 1, one line"
test ! -e "$TMP/dest"
ok $? "and no destination is left behind"
# Its archive: no archive and no temporary file.
mkdir -p "$TMP/arch"
http_start "$TMP/srv" "$log" --fault 503@4+
sqk unimage -q --retries 1 "$BASE/img.sqfs" -o "$TMP/arch/x.tar" >/dev/null 2>"$TMP/err"
s=$?
http_stop
is "$s $(ls -A "$TMP/arch" | wc -l)" "1 0" "unimage -o: exit 1, no archive and no temporary file"

# The on-disk cache keeps whole blocks only: a cut reply leaves none.
http_start "$TMP/srv" "$log" --fault cut@3+
sqk cat --retries 0 --cache-dir "$TMP/cache" "$BASE/img.sqfs" big.bin >/dev/null 2>&1
http_stop
# Block N (the hex after '-') holds 4 KiB, the last what is left of the image.
size=$(stat -c %s "$TMP/srv/img.sqfs")
bad=0
for f in "$TMP/cache"/*-*; do
	[ -e "$f" ] || continue
	n=$(printf '%d' "0x${f##*-}")
	want=$((size - n * 4096))
	[ $want -gt 4096 ] && want=4096
	[ "$(stat -c %s "$f")" -eq $want ] &&
		dd if="$TMP/srv/img.sqfs" bs=4096 skip="$n" count=1 2>/dev/null | cmp -s - "$f" ||
		bad=$((bad + 1))
done
is "$bad" 0 "after cut replies the cache holds only whole blocks, each the image's bytes"
ls -A "$TMP/cache" | grep -q '^\.tmp-'
ok $((!$?)) "and no temporary file"
http_start "$TMP/srv" "$log"
sqk cat --cache-dir "$TMP/cache" "$BASE/img.sqfs" big.bin >"$TMP/out" 2>"$TMP/err"
status=$?
http_stop
retried "then a run with that cache reads the right bytes"

done_testing
