#!/bin/sh
# unimage: destinations, selections, --force, archives and errors.
SCRATCH=shm
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs

mkdir "$TMP/src" "$TMP/src/dir" "$TMP/src/dir/sub"
printf 'hello\n' >"$TMP/src/top.txt"
printf 'inner\n' >"$TMP/src/dir/a.txt"
printf 'deep\n' >"$TMP/src/dir/sub/b.txt"
head -c 300000 /dev/urandom >"$TMP/src/dir/big.bin"
ln -s top.txt "$TMP/src/link"
mksquashfs "$TMP/src" "$TMP/img" -quiet -noappend -comp gzip >/dev/null

expect_success "extracts into a new directory" $SQUASHKIT unimage -d "$TMP/out" "$TMP/img"
same_file "$TMP/out/dir/big.bin" "$TMP/src/dir/big.bin" "a multi-block file comes back"
is "$(readlink "$TMP/out/link")" "top.txt" "a symlink keeps its target"

expect_status 1 "an existing destination is refused" $SQUASHKIT unimage -d "$TMP/out" "$TMP/img"
grep -q "exists" "$TMP/.err"
ok $? "and the message says it exists"
is "$(wc -l <"$TMP/.err")" 1 "in one line"

# --force replaces what is in the way and never follows a symlink found there.
mkdir "$TMP/outside"
rm -f "$TMP/out/top.txt"
ln -s "$TMP/outside/victim" "$TMP/out/top.txt"
expect_success "--force extracts over an existing tree" \
	$SQUASHKIT unimage -f -d "$TMP/out" "$TMP/img"
test ! -e "$TMP/outside/victim"
ok $? "a symlink in the destination was not followed"
test -f "$TMP/out/top.txt" && test ! -L "$TMP/out/top.txt"
ok $? "it was replaced by the file"

# Selections bring their parents and their subtree, nothing else.
expect_success "a PATH selects a subtree" $SQUASHKIT unimage -d "$TMP/sel" "$TMP/img" /dir/sub
test -f "$TMP/sel/dir/sub/b.txt" && test ! -e "$TMP/sel/dir/a.txt" && test ! -e "$TMP/sel/top.txt"
ok $? "only the selected subtree and its parents"
expect_status 1 "a missing PATH is an error" $SQUASHKIT unimage -d "$TMP/sel2" "$TMP/img" /nope
test ! -e "$TMP/sel2"
ok $? "and nothing is created"

# Archives.
expect_success "--tar writes an archive" $SQUASHKIT unimage -o "$TMP/t.tar" "$TMP/img"
mkdir "$TMP/tx" && tar -C "$TMP/tx" -xf "$TMP/t.tar"
same_file "$TMP/tx/dir/big.bin" "$TMP/src/dir/big.bin" "tar extracts the same contents"
$SQUASHKIT unimage -o - "$TMP/img" | tar -tf - | grep -qx './dir/sub/b.txt'
ok $? "--tar - writes to stdout"
for f in gnu ustar cpio zip; do
	expect_success "--format $f" $SQUASHKIT unimage --format $f -o "$TMP/t.$f" "$TMP/img"
done
# zip has no hard links: each one carries the data.
mkdir "$TMP/hl"
printf 'linked data\n' >"$TMP/hl/a"
ln "$TMP/hl/a" "$TMP/hl/b"
mksquashfs "$TMP/hl" "$TMP/hl.img" -quiet -noappend >/dev/null
expect_success "--format zip with a hard link" $SQUASHKIT unimage --format zip -o "$TMP/hl.zip" "$TMP/hl.img"
if command -v unzip >/dev/null; then
	mkdir "$TMP/hlx" && (cd "$TMP/hlx" && unzip -qq "$TMP/hl.zip")
	is "$(cat "$TMP/hlx/a" "$TMP/hlx/b" | tr '\n' ' ')" "linked data linked data " \
		"unzip gives both names the data"
else
	skip "unzip is not installed"
fi
expect_status 2 "an unknown format is a usage error" $SQUASHKIT unimage --format rar -o x "$TMP/img"

# Counters.
$SQUASHKIT unimage --stats --json -d "$TMP/st" "$TMP/img" >"$TMP/stats.json"
grep -q '"decompressions":' "$TMP/stats.json" && grep -q '"metadata":{' "$TMP/stats.json"
ok $? "--stats --json prints the cache counters"
grep -q '"vcsw":[0-9]' "$TMP/stats.json" && grep -q '"ivcsw":[0-9]' "$TMP/stats.json"
ok $? "and the context switches"
for p in herd exclusive keyed; do
	expect_success "--cache-policy $p extracts" \
		$SQUASHKIT unimage --cache-policy $p --cache meta=2,frag=1,data=1 -j 4 -d "$TMP/p-$p" "$TMP/img"
	same_file "$TMP/p-$p/dir/big.bin" "$TMP/src/dir/big.bin" "  and the contents are right"
done

# Errors and usage.
printf 'not an image at all, just some text that is long enough to read a header from......' \
	>"$TMP/junk"
expect_status 1 "a file that is not an image" $SQUASHKIT unimage -d "$TMP/j" "$TMP/junk"
grep -q "not a squashfs image" "$TMP/.err"
ok $? "says it is not a squashfs image"
expect_status 1 "a missing image" $SQUASHKIT unimage -d "$TMP/j" "$TMP/missing.img"
expect_status 2 "an unknown option" $SQUASHKIT unimage --bogus "$TMP/img"
grep -q "Try 'squashkit unimage --help'" "$TMP/.err"
ok $? "points at --help"
expect_status 2 "no operand" $SQUASHKIT unimage
expect_status 2 "a bad thread count" $SQUASHKIT unimage -j 0 "$TMP/img"
expect_status 2 "a bad policy" $SQUASHKIT unimage --cache-policy nope "$TMP/img"
expect_success "--help" $SQUASHKIT unimage --help
done_testing
