#!/bin/sh
# remote.t: every command that reads an image reads it over HTTP exactly as
# from the file. The reference tree (mktree.sh) is built into an image, served
# by tests/tools/httpd on 127.0.0.1, and each of ls, cat, stat, inspect, fsck,
# unimage, diff and bench is run on the URL and on the file: listings and
# reports byte-identical (the operand's name aside), extracted trees equal
# (manifest), fsck verdicts equal. Then: --offset auto on a file with bytes
# in front (an AppImage), redirects, --root-hash checking every fetched block
# (a block changed on the server is EIO, never its bytes), --cache-dir (a
# second run fetches nothing it has), and what the requests cost (a range
# request per miss, never the whole image).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/httpd.sh"

MANIFEST=$SQK_TOOLS/manifest
[ -x "$SQK_TOOLS/httpd" ] || skip_all "$SQK_TOOLS/httpd is not built"
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
sqk() { "$SQUASHKIT" "$@"; }

tree=$TMP/tree
ref_tree "$tree"
# Data over several remote blocks (4 KiB), so that runs and readahead are used.
head -c 3000000 /dev/urandom >"$tree/big.bin"
srv=$TMP/srv
mkdir -p "$srv"
img=$srv/ref.sqfs
expect_success "mkimage builds the reference image" sqk mkimage -q "$tree" "$img"
http_start "$srv" "$TMP/log"
url=$BASE/ref.sqfs

# same_output DESC CMD ARGS: CMD on the URL and on the file say the same, the
# operand's name aside, with the same exit status.
same_output() {
	_desc=$1
	shift
	"$SQUASHKIT" "$@" "$url" $rest >"$TMP/u.out" 2>"$TMP/u.err"
	_us=$?
	"$SQUASHKIT" "$@" "$img" $rest >"$TMP/f.out" 2>"$TMP/f.err"
	_fs=$?
	sed "s|$url|IMAGE|g" "$TMP/u.out" >"$TMP/u.cmp"
	sed "s|$img|IMAGE|g" "$TMP/f.out" >"$TMP/f.cmp"
	if [ $_us -eq $_fs ] && [ -s "$TMP/f.cmp" ] && cmp -s "$TMP/u.cmp" "$TMP/f.cmp"; then
		ok 0 "$_desc"
	else
		ok 1 "$_desc"
		echo "#   exit $_us over HTTP, $_fs from the file"
		diff "$TMP/f.cmp" "$TMP/u.cmp" | head -10 | sed 's/^/#   /'
		sed 's/^/#   /' "$TMP/u.err" | head -5
	fi
}

rest=""
same_output "ls -R -l: the same listing" ls -R -l
same_output "ls --json -R: the same listing" ls --json -R
rest="big.bin"
same_output "cat of a file of 3 MB: the same bytes" cat
cmp -s "$TMP/u.out" "$tree/big.bin"
ok $? "and they are the file's"
rest=""
files=$(cd "$tree" && find . -type f | sed 's|^\./||' | sort | head -40)
# shellcheck disable=SC2086 # the names have no spaces (mktree.sh)
for f in $files; do printf '%s\n' "$f"; done >"$TMP/names"
rest=$(tr '\n' ' ' <"$TMP/names")
same_output "cat of 40 files: the same bytes" cat
rest=big.bin
same_output "stat: the same inode" stat
same_output "stat --json: the same inode" stat --json
rest=""
same_output "inspect: the same report" inspect
same_output "inspect --json: the same report" inspect --json
same_output "fsck: the same verdict" fsck
same_output "fsck --json: the same verdict" fsck --json

# unimage: the same tree.
sqk unimage -q "$url" -d "$TMP/x.url" 2>"$TMP/x.err"
ok $? "unimage extracts the image over HTTP"
sed 's/^/#   /' "$TMP/x.err" | head -5
sqk unimage -q "$img" -d "$TMP/x.file" 2>/dev/null
"$MANIFEST" "$TMP/x.url" >"$TMP/m.url" 2>&1
"$MANIFEST" "$TMP/x.file" >"$TMP/m.file" 2>&1
same_file "$TMP/m.url" "$TMP/m.file" "the extracted trees are the same (manifest)"
sqk unimage -q "$url" -o "$TMP/x.tar" 2>"$TMP/x.err" &&
	sqk unimage -q "$img" -o "$TMP/f.tar" 2>/dev/null
ok $? "unimage -o writes an archive over HTTP"
cmp -s "$TMP/x.tar" "$TMP/f.tar"
ok $? "the same archive, byte for byte"

# diff: the URL against the file is no difference; against another image, the file's.
expect_status 0 "diff URL FILE: the same" sqk diff "$url" "$img"
echo changed >"$tree/new-file"
sqk mkimage -q "$tree" "$srv/other.sqfs"
rm "$tree/new-file"
sqk diff "$BASE/other.sqfs" "$url" >"$TMP/d.url" 2>&1
s1=$?
sqk diff "$srv/other.sqfs" "$img" >"$TMP/d.file" 2>&1
s2=$?
is "$s1 $(cat "$TMP/d.url")" "$s2 $(cat "$TMP/d.file")" "diff of two URLs says what diff of the files says"

# bench: the workloads run over the URL, and the table has the remote columns.
sqk bench -q -w randread -t 1,4 -p keyed -d 0.2 -r 1 "$url" >"$TMP/b.out" 2>"$TMP/b.err"
ok $? "bench runs over HTTP"
sed 's/^/#   /' "$TMP/b.err" | head -5
grep -q "requests" "$TMP/b.out" && grep -q "fetched" "$TMP/b.out" && grep -q "saved" "$TMP/b.out"
ok $? "its table has requests sent, bytes fetched and fetches saved"

# --offset auto: an image after 70000 bytes of something else.
head -c 70000 /dev/urandom >"$srv/app.bin"
cat "$img" >>"$srv/app.bin"
sqk cat --offset auto "$BASE/app.bin" big.bin >"$TMP/o.out" 2>"$TMP/o.err"
ok $? "--offset auto finds the image in a remote file"
cmp -s "$TMP/o.out" "$tree/big.bin"
ok $? "and reads it"
sqk ls --offset 70000 "$BASE/app.bin" >"$TMP/o.ls" 2>&1 && sqk ls "$img" >"$TMP/f.ls"
same_file "$TMP/o.ls" "$TMP/f.ls" "--offset N reads the image N bytes in"

# Redirects are followed.
sqk cat "$BASE/redirect/ref.sqfs" big.bin >"$TMP/r.out" 2>"$TMP/r.err"
cmp -s "$TMP/r.out" "$tree/big.bin"
ok $? "a redirect is followed"

# Nothing of the image is fetched twice in one run, and a small read is no download.
: >"$TMP/log"
sqk cat "$url" big.bin >/dev/null
bytes=$(http_bytes "$TMP/log")
size=$(stat -c %s "$img")
[ "$bytes" -le "$size" ]
ok $? "cat of a file fetches no block twice ($bytes bytes of $size)"
: >"$TMP/log"
first=$(grep -v big.bin "$TMP/names" | head -1)
sqk cat "$url" "$first" >/dev/null
bytes=$(http_bytes "$TMP/log")
[ "$bytes" -lt $((size / 4)) ]
ok $? "cat of a small file fetches little of the image ($bytes bytes of $size)"
grep -v ' 206 ' "$TMP/log" | sed 's/^/#   /' | head -3
test ! -s "$(grep -v ' 206 ' "$TMP/log" >"$TMP/non206"; echo "$TMP/non206")"
ok $? "every request was a range request answered 206"

# --root-hash: each fetched block is checked; a changed block is EIO, never its bytes.
sqk mkimage -q --verity "$tree" "$srv/v.sqfs" >"$TMP/root" 2>"$TMP/v.err"
ok $? "mkimage --verity builds an image with its tree"
sqk cat --root-hash "$(cat "$TMP/root")" "$BASE/v.sqfs" big.bin >"$TMP/v.out" 2>"$TMP/v.err"
ok $? "cat --root-hash over HTTP reads it"
cmp -s "$TMP/v.out" "$tree/big.bin"
ok $? "the checked bytes are the file's"
# A byte in the middle of big.bin's data changed on the server.
at=$("$SQK_TOOLS/locate" "$srv/v.sqfs" data /big.bin 2>/dev/null | awk 'NR == 1 { print $1 + 100 }')
if [ -n "$at" ]; then
	printf 'X' | dd of="$srv/v.sqfs" bs=1 seek="$at" conv=notrunc 2>/dev/null
	sqk cat --root-hash "$(cat "$TMP/root")" "$BASE/v.sqfs" big.bin >"$TMP/v.out" 2>"$TMP/v.err"
	s=$?
	is "$s $(wc -l <"$TMP/v.err")" "1 1" "a block changed on the server: exit 1, one line"
	grep -q "does not match its hash\|Input/output error" "$TMP/v.err"
	ok $? "which says the block does not match its hash"
	sed 's/^/#   /' "$TMP/v.err" | head -3
	cmp -s "$TMP/v.out" "$tree/big.bin" && ok 1 "no changed bytes are written" ||
		{ head -c "$(stat -c %s "$TMP/v.out")" "$tree/big.bin" | cmp -s - "$TMP/v.out"; ok $? "no changed bytes are written (what was written is the file's)"; }
else
	skip "locate found no block of big.bin"
fi

# --cache-dir: a second run fetches no block the first fetched.
cache=$TMP/cache
: >"$TMP/log"
sqk cat --cache-dir "$cache" "$url" big.bin >"$TMP/c1.out" 2>"$TMP/c.err"
ok $? "cat --cache-dir reads the image"
first_bytes=$(http_bytes "$TMP/log")
: >"$TMP/log"
sqk cat --cache-dir "$cache" "$url" big.bin >"$TMP/c2.out" 2>>"$TMP/c.err"
cmp -s "$TMP/c2.out" "$tree/big.bin"
ok $? "a second run reads the same bytes from the cache"
second_bytes=$(http_bytes "$TMP/log")
# The second run asks for the first block again: it pins the image's identity.
[ "$second_bytes" -le 4096 ] && [ "$first_bytes" -gt 1000000 ]
ok $? "and fetches only the first block again ($second_bytes bytes; the first run $first_bytes)"
ls "$cache" | grep -c -- '-' >"$TMP/c.n"
[ "$(cat "$TMP/c.n")" -gt 10 ]
ok $? "the cache holds the blocks, one file each ($(cat "$TMP/c.n"))"
ls -a "$cache" | grep -q '^\.tmp-'
ok $((!$?)) "no temporary file is left in it"
# Four readers at once on one cache directory: every one reads the right bytes.
pids=""
for i in 1 2 3 4; do
	"$SQUASHKIT" cat --cache-dir "$TMP/cache2" "$url" big.bin >"$TMP/p$i.out" 2>"$TMP/p$i.err" &
	pids="$pids $!"
done
# shellcheck disable=SC2086 # one pid a word
wait $pids
bad=0
for i in 1 2 3 4; do cmp -s "$TMP/p$i.out" "$tree/big.bin" || bad=$((bad + 1)); done
is "$bad" 0 "four runs sharing a new cache directory all read the right bytes"
# A bound: --cache-size keeps the directory under it.
sqk cat --cache-dir "$TMP/cache3" --cache-size 1M "$url" big.bin >/dev/null 2>"$TMP/c3.err"
sed 's/^/#   /' "$TMP/c3.err" | head -3
held=$(du -sb "$TMP/cache3" | cut -f1)
[ "$held" -le $((1024 * 1024 + 4096 + 8192)) ]
ok $? "--cache-size 1M keeps the directory near its bound ($held bytes)"

# --header: a server that wants a token gets it with every request.
http_stop
http_start "$srv" "$TMP/log" --require "Authorization: Bearer t0ken"
sqk cat "$BASE/ref.sqfs" big.bin >/dev/null 2>"$TMP/h.err"
is "$? $(wc -l <"$TMP/h.err")" "1 1" "without the header the server says 401: exit 1, one line"
grep -q "HTTP 401" "$TMP/h.err"
ok $? "which says HTTP 401"
sqk cat --header "Authorization: Bearer t0ken" "$BASE/ref.sqfs" big.bin >"$TMP/h.out" 2>"$TMP/h.err"
cmp -s "$TMP/h.out" "$tree/big.bin"
ok $? "with --header every request has it, and the bytes are right"
http_stop
http_start "$srv" "$TMP/log"
url=$BASE/ref.sqfs

# Errors: a missing image, a server that is gone, bad options.
sqk ls "$BASE/none.sqfs" >/dev/null 2>"$TMP/e.err"
is "$? $(wc -l <"$TMP/e.err")" "1 1" "a missing image: exit 1, one line"
grep -q "404" "$TMP/e.err"
ok $? "which says HTTP 404"
sed 's/^/#   /' "$TMP/e.err"
expect_status 2 "--timeout 0 is a usage error" sqk ls --timeout 0 "$url"
expect_status 2 "a header without a colon is a usage error" sqk ls --header nocolon "$url"
http_stop
sqk ls --retries 0 "$url" >/dev/null 2>"$TMP/e.err"
is "$? $(wc -l <"$TMP/e.err")" "1 1" "a server that is gone: exit 1, one line"
sed 's/^/#   /' "$TMP/e.err"

done_testing
