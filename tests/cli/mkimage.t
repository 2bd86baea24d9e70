#!/bin/sh
# mkimage's command line: every option of CLI.md, usage errors, and what
# each option changes in the image (read back with unsquashfs).
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd unsquashfs

SQK=$SQUASHKIT
S=$TMP/src
mkdir -p "$S/dir/sub" "$S/keep"
printf 'hello\n' >"$S/a.txt"
printf 'hello\n' >"$S/dup.txt"
head -c 300000 /dev/urandom >"$S/dir/rnd"
cp "$S/dir/rnd" "$S/dir/rnd2"
printf 'x\n' >"$S/dir/sub/x.o"
printf 'k\n' >"$S/keep/k.o"
ln "$S/a.txt" "$S/hard.txt"
ln -s a.txt "$S/link"
truncate -s 1M "$S/zeros"
touch -d @1000000000 "$S/a.txt"

# list IMG: "mode uid/gid path" lines, numeric owners.
list() { unsquashfs -lln "$1" | awk '{print $1, $2, $6}' | sort; }
json_num() { echo "$1" | sed "s/.*\"$2\":\([0-9]*\).*/\1/"; }

expect_status 0 "--help exits 0" "$SQK" mkimage --help
for o in --compressor --level --comp-opt --block-size --no-fragments --tail-ends --no-dedup \
	--no-sparse --no-xattrs --no-hardlinks --no-export --all-root --uid --gid --mtime \
	--fstime --exclude --exclude-from --listing --archive --threads --force --quiet --stats \
	--json --help; do
	grep -q -- "$o" "$TMP/.out"
	ok $? "--help lists $o"
done

expect_status 2 "an unknown option is a usage error" "$SQK" mkimage --bogus "$S" "$TMP/x"
grep -q "Try 'squashkit mkimage --help'" "$TMP/.err"
ok $? "a usage error says how to get help"
expect_status 2 "no operands is a usage error" "$SQK" mkimage
expect_status 2 "no SOURCE is a usage error" "$SQK" mkimage "$TMP/x"
expect_status 2 "a block size that is not a power of two" "$SQK" mkimage -b 100K "$S" "$TMP/x"
expect_status 2 "a block size below 4K" "$SQK" mkimage -b 2K "$S" "$TMP/x"
expect_status 2 "a block size above 1M" "$SQK" mkimage -b 2M "$S" "$TMP/x"
expect_status 2 "an unknown compressor" "$SQK" mkimage -c bzip2 "$S" "$TMP/x"
expect_status 2 "a level out of range" "$SQK" mkimage -c gzip -L 10 "$S" "$TMP/x"
expect_status 2 "an unknown codec option" "$SQK" mkimage -X nonsense=1 "$S" "$TMP/x"
expect_status 2 "a bad thread count" "$SQK" mkimage -j 0 "$S" "$TMP/x"
expect_status 2 "a bad uid" "$SQK" mkimage --uid -1 "$S" "$TMP/x"
expect_status 2 "a bad time" "$SQK" mkimage --mtime soon "$S" "$TMP/x"
expect_status 2 "--tail-ends with --no-fragments" "$SQK" mkimage --tail-ends --no-fragments "$S" "$TMP/x"
[ ! -e "$TMP/x" ]
ok $? "usage errors create nothing"
expect_status 1 "a missing SOURCE fails" "$SQK" mkimage "$TMP/nonexistent" "$TMP/x"
grep -q "^squashkit mkimage: $TMP/nonexistent: " "$TMP/.err"
ok $? "the failure names the path"

# Options after operands, and -- ending them.
expect_success "options after operands" "$SQK" mkimage "$S" "$TMP/o.sqfs" -q -c gzip
expect_success "-- ends the options" "$SQK" mkimage -q -- "$S" "$TMP/o2.sqfs"
cmp -s "$TMP/o.sqfs" "$TMP/o2.sqfs"
[ $? -ne 0 ]
ok $? "the two builds used their own compressors"
expect_status 1 "an existing IMAGE without -f" "$SQK" mkimage -q "$S" "$TMP/o.sqfs"
expect_success "-f overwrites" "$SQK" mkimage -q -f "$S" "$TMP/o.sqfs"

for c in gzip lzma lzo xz lz4 zstd; do
	expect_success "-c $c" "$SQK" mkimage -q -f -c "$c" "$S" "$TMP/c.sqfs"
	unsquashfs -s "$TMP/c.sqfs" | grep -q "Compression $c"
	ok $? "-c $c is recorded in the superblock"
done
expect_success "-L 1 with zstd" "$SQK" mkimage -q -f -c zstd -L 1 "$S" "$TMP/c.sqfs"
expect_success "-X dict-size with xz" "$SQK" mkimage -q -f -c xz -X dict-size=64K "$S" "$TMP/c.sqfs"
unsquashfs -s "$TMP/c.sqfs" | grep -qi "dictionary size 65536"
ok $? "xz dict-size lands in the options block"
expect_success "-X bcj with xz" "$SQK" mkimage -q -f -c xz -X bcj=x86,arm "$S" "$TMP/c.sqfs"
unsquashfs -s "$TMP/c.sqfs" | grep -qi "filters.*x86"
ok $? "xz filters land in the options block"
expect_success "-X window with gzip" "$SQK" mkimage -q -f -c gzip -X window=12 "$S" "$TMP/c.sqfs"
unsquashfs -s "$TMP/c.sqfs" | grep -qi "window-size 12"
ok $? "gzip window lands in the options block"
expect_success "-L 9 with lz4 (HC)" "$SQK" mkimage -q -f -c lz4 -L 9 "$S" "$TMP/c.sqfs"
unsquashfs -d "$TMP/u" "$TMP/c.sqfs" >/dev/null 2>&1 && cmp -s "$TMP/u/dir/rnd" "$S/dir/rnd"
ok $? "an lz4 HC image reads back"
rm -rf "$TMP/u"

expect_success "-b 4K" "$SQK" mkimage -q -f -b 4K "$S" "$TMP/b.sqfs"
unsquashfs -s "$TMP/b.sqfs" | grep -q "Block size 4096"
ok $? "-b 4K is recorded"
expect_success "-b 1M" "$SQK" mkimage -q -f -b 1M "$S" "$TMP/b.sqfs"
unsquashfs -s "$TMP/b.sqfs" | grep -q "Block size 1048576"
ok $? "-b 1M is recorded"

# Layout options, seen through the stats.
j=$("$SQK" mkimage -q -f --stats --json "$S" "$TMP/l.sqfs")
is "$(json_num "$j" fragments)" 1 "small files share one fragment block"
dedup=$(echo "$j" | sed 's/.*"dedup":{"files":\([0-9]*\).*/\1/')
is "$dedup" 1 "a duplicate file is stored once"
is "$(echo "$j" | sed 's/.*"tails":\([0-9]*\).*/\1/')" 1 "a duplicate small file shares its fragment"
is "$(echo "$j" | sed 's/.*"sparse":{"blocks":\([0-9]*\).*/\1/')" 8 "zero blocks are sparse"
is "$(json_num "$j" hardlinks)" 1 "a hard link is one inode"
unsquashfs -s "$TMP/l.sqfs" | grep -q "Number of fragments 1"
ok $? "the superblock counts the fragment block"
unsquashfs -s "$TMP/l.sqfs" | grep -q "Filesystem is exportable"
ok $? "the export table is there by default"
j=$("$SQK" mkimage -q -f --stats --json --no-fragments "$S" "$TMP/l.sqfs")
is "$(json_num "$j" fragments)" 0 "--no-fragments: no fragment blocks"
unsquashfs -s "$TMP/l.sqfs" | grep -q "Fragments are not stored"
ok $? "--no-fragments: the superblock says so"
j=$("$SQK" mkimage -q -f --stats --json --tail-ends "$S" "$TMP/l.sqfs")
unsquashfs -s "$TMP/l.sqfs" | grep -q "Always-use-fragments option is specified"
ok $? "--tail-ends sets always-fragments"
j=$("$SQK" mkimage -q -f --stats --json --no-dedup "$S" "$TMP/l.sqfs")
is "$(echo "$j" | sed 's/.*"dedup":{"files":\([0-9]*\).*/\1/')" 0 "--no-dedup: nothing deduplicated"
unsquashfs -s "$TMP/l.sqfs" | grep -q "Duplicates are not removed"
ok $? "--no-dedup: the superblock says so"
j=$("$SQK" mkimage -q -f --stats --json --no-sparse "$S" "$TMP/l.sqfs")
is "$(echo "$j" | sed 's/.*"sparse":{"blocks":\([0-9]*\).*/\1/')" 0 "--no-sparse: no sparse blocks"
j=$("$SQK" mkimage -q -f --stats --json --no-hardlinks "$S" "$TMP/l.sqfs")
is "$(json_num "$j" hardlinks)" 0 "--no-hardlinks: every name its own inode"
"$SQK" mkimage -q -f --no-export "$S" "$TMP/l.sqfs"
unsquashfs -s "$TMP/l.sqfs" | grep -q "Filesystem is not exportable"
ok $? "--no-export: no export table"
if setfattr -n user.test -v 1 "$S/a.txt" 2>/dev/null; then
	"$SQK" mkimage -q -f "$S" "$TMP/l.sqfs"
	unsquashfs -s "$TMP/l.sqfs" | grep -q "Number of xattr ids 1"
	ok $? "xattrs are stored by default"
	"$SQK" mkimage -q -f --no-xattrs "$S" "$TMP/l.sqfs"
	unsquashfs -s "$TMP/l.sqfs" | grep -q "Xattrs are not stored"
	ok $? "--no-xattrs: none stored"
else
	skip "no user xattrs here"
	skip "no user xattrs here"
fi

# Owners and times.
"$SQK" mkimage -q -f --uid 1234 --gid 99 "$S" "$TMP/w.sqfs"
is "$(list "$TMP/w.sqfs" | awk '{print $2}' | sort -u)" "1234/99" "--uid and --gid set every owner"
"$SQK" mkimage -q -f --all-root "$S" "$TMP/w.sqfs"
is "$(list "$TMP/w.sqfs" | awk '{print $2}' | sort -u)" "0/0" "--all-root makes every owner root"
"$SQK" mkimage -q -f --mtime 1234567890 --fstime 42 "$S" "$TMP/w.sqfs"
is "$(unsquashfs -lln "$TMP/w.sqfs" | awk '{print $4}' | sort -u)" 2009-02-13 "--mtime sets every time"
is "$(od -An -tu4 -j8 -N4 "$TMP/w.sqfs" | tr -d ' ')" 42 "--fstime sets the superblock time"
"$SQK" mkimage -q -f "$S" "$TMP/w.sqfs"
newest=$(find "$S" -printf '%T@\n' | sort -n | tail -1 | cut -d. -f1)
is "$(od -An -tu4 -j8 -N4 "$TMP/w.sqfs" | tr -d ' ')" "$newest" "the superblock time is the newest inode time"

# Excludes match image paths.
"$SQK" mkimage -q -f -e '*.o' "$S" "$TMP/e.sqfs"
is "$(list "$TMP/e.sqfs" | grep -c '\.o$')" 0 "--exclude '*.o' matches base names anywhere"
"$SQK" mkimage -q -f -e dir/sub "$S" "$TMP/e.sqfs"
is "$(list "$TMP/e.sqfs" | grep -c 'dir/sub')" 0 "--exclude of a directory drops its subtree"
printf '# comment\n/keep\n\n*.txt\n' >"$TMP/ex"
"$SQK" mkimage -q -f --exclude-from "$TMP/ex" "$S" "$TMP/e.sqfs"
is "$(list "$TMP/e.sqfs" | grep -c 'keep\|\.txt$')" 0 "--exclude-from reads one pattern a line"

# Sources: merging directories, archives, listings.
mkdir -p "$TMP/s2/extra"
printf 'e\n' >"$TMP/s2/extra/e"
"$SQK" mkimage -q -f "$S" "$TMP/s2" "$TMP/m.sqfs"
list "$TMP/m.sqfs" | grep -q 'squashfs-root/extra/e$'
ok $? "several directories merge into one root"
expect_status 2 "the same path in two sources is a usage error" \
	"$SQK" mkimage -q "$S" "$S" "$TMP/m2.sqfs"
grep -q "Try 'squashkit mkimage --help'" "$TMP/.err"
ok $? "the clash says how to get help"
(cd "$S" && tar -cf "$TMP/s.tar" .)
expect_success "--archive=FILE" "$SQK" mkimage -q -f --archive="$TMP/s.tar" "$TMP/a.sqfs"
expect_success "--archive with SOURCE operands" "$SQK" mkimage -q -f --archive "$TMP/s.tar" "$TMP/a2.sqfs"
cmp -s "$TMP/a.sqfs" "$TMP/a2.sqfs"
ok $? "both spellings give the same image"
"$SQK" mkimage -q -f -e dir/sub --archive "$TMP/s.tar" "$TMP/ae.sqfs"
is "$(list "$TMP/ae.sqfs" | grep -c 'dir/sub')" 0 "--exclude of a directory drops its subtree from an archive"
(cd "$S" && find . | cpio -o -H newc 2>/dev/null) >"$TMP/s.cpio"
expect_success "a cpio archive" "$SQK" mkimage -q -f --archive "$TMP/s.cpio" "$TMP/a3.sqfs"
unsquashfs -d "$TMP/u" "$TMP/a3.sqfs" >/dev/null 2>&1 && cmp -s "$TMP/u/dir/rnd" "$S/dir/rnd" &&
	[ "$(stat -c %h "$TMP/u/a.txt")" = 2 ]
ok $? "cpio: data and hard links come through"
rm -rf "$TMP/u"
printf 'not an archive' >"$TMP/junk"
expect_status 1 "a file that is no archive fails" "$SQK" mkimage -q --archive "$TMP/junk" "$TMP/j.sqfs"
printf 'dir /d 0700 5 6\nfile /d/f 0600 5 6 %s\n' "$S/a.txt" >"$TMP/l.list"
expect_success "--listing" "$SQK" mkimage -q -f --listing "$TMP/l.list" "$TMP/li.sqfs"
is "$(list "$TMP/li.sqfs" | grep 'd/f$')" "-rw------- 5/6 squashfs-root/d/f" "a listing sets mode and owners"
expect_success "a listing next to a directory" "$SQK" mkimage -q -f --listing "$TMP/l.list" "$S" "$TMP/li2.sqfs"

# Output: quiet, stats, json.
expect_success "-q prints nothing" "$SQK" mkimage -q -f "$S" "$TMP/q.sqfs"
is "$(cat "$TMP/.out" "$TMP/.err")" "" "-q: no output at all"
"$SQK" mkimage -q -f --stats "$S" "$TMP/q.sqfs" >"$TMP/st.txt"
grep -q '^dedup' "$TMP/st.txt" && grep -q '^sparse' "$TMP/st.txt" && grep -q '^size' "$TMP/st.txt"
ok $? "--stats prints sizes, dedup and sparse savings"
"$SQK" mkimage -q -f --stats --json "$S" "$TMP/q.sqfs" >"$TMP/st.json"
is "$(wc -l <"$TMP/st.json" | tr -d ' ')" 1 "--json is one line"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["counts"]["inodes"] > 0 and "lseeks" in d' "$TMP/st.json"
	ok $? "--json is valid JSON with counts and lseeks"
else
	skip "no python3 to parse JSON"
fi
expect_success "-j 1" "$SQK" mkimage -q -f -j 1 "$S" "$TMP/t1.sqfs"
expect_success "-j 3" "$SQK" mkimage -q -f -j 3 "$S" "$TMP/t3.sqfs"
cmp -s "$TMP/t1.sqfs" "$TMP/t3.sqfs"
ok $? "thread count does not change the bytes"

done_testing
