#!/bin/sh
# api-diff-more.t: the comparison object of the public API
# (tests/api/api-diff-more.c, against the installed library) on trees and
# images made here with known differences: each change comes with its
# entry's type (a file's size where it was added or removed), in the order
# of the tree; a superblock flag is told from a number; the counts are
# those of the differences made (entries, bytes, blocks found alike by
# their stored bytes between two images built alike, up to the first byte
# that differs, bytes read from a directory); a failure says its side, path and errno; a PATH in neither
# tree is a failure of both sides.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-diff-more.c"

# A: a file of three 4K blocks (compressible), a small one, a file that becomes a
# directory, a directory of two files that goes, a symlink, a fifo.
S=$TMP/a
mkdir -p "$S/d"
awk 'BEGIN { for (i = 0; i < 600; i++) printf "line %d of a file of three blocks\n", i }' \
	>"$TMP/text"
head -c 5000 "$TMP/text" >"$S/big"
printf Q >>"$S/big"
tail -c 7287 "$TMP/text" >>"$S/big"
head -c 100 /dev/zero | tr '\0' s >"$S/same"
printf 'was a file\n' >"$S/x"
head -c 1000 /dev/urandom >"$S/d/a"
head -c 2000 /dev/urandom >"$S/d/b"
ln -s same "$S/l"
mkfifo "$S/p"
# B: byte 5000 of big changed, d gone, x a directory, a file and a symlink added.
T=$TMP/b
cp -a "$S" "$T"
printf R | dd of="$T/big" bs=1 seek=5000 conv=notrunc status=none
rm -r "$T/d" "$T/x"
mkdir "$T/x"
head -c 1234 /dev/urandom >"$T/new"
ln -s big "$T/newl"
pack() {
	src=$1 img=$2
	shift 2
	mksquashfs "$src" "$img" -b 4096 -no-fragments -noappend -quiet -no-progress "$@" \
		>/dev/null 2>&1
}
pack "$S" "$TMP/a.img" && pack "$T" "$TMP/b.img"
ok $? "mksquashfs packs both trees"

# run A B [OPTION...]: the changes into $TMP/out, the counts into $TMP/counts; $st the exit status.
run() {
	api_run api-diff-more "$@" >"$TMP/all" 2>"$TMP/err"
	st=$?
	grep -v '^count \|^failure ' "$TMP/all" >"$TMP/out"
	sed -n 's/^count //p' "$TMP/all" >"$TMP/counts"
	sed 's/^/#   /' "$TMP/err" | head -5
}
count() { sed -n "s/^$1 //p" "$TMP/counts"; }

run "$TMP/a.img" "$TMP/b.img"
is $st 1 "two images that differ: 1"
cat >"$TMP/want" <<'WANT'
contents /big file at 5000
removed /d directory
removed /d/a file 1000
removed /d/b file 2000
added /new file 1234
added /newl symlink
type /x file file directory
WANT
same_file "$TMP/want" "$TMP/out" "each change with its entry's type, in the order of the tree"
is "$(count added) $(count bytes_added)" "2 1234" "added: two entries, the new file's bytes"
is "$(count removed) $(count bytes_removed)" "3 3000" "removed: the directory and its two files' bytes"
is "$(count changed) $(count bytes_changed)" "2 12288" "changed: big and x, big's bytes"
is "$(count files_compared)" 2 "the contents of big and same compared"
is "$(count blocks_stored_alike)" 2 "big's first block and same's alike as stored"
is "$(count bytes_read)" 4096 "big's block that differs read, and nothing after it"
is "$(sed -n 's/^count \([a-z_]*\) .*/\1/p' "$TMP/all" | tr '\n' ' ')" \
	"added removed changed bytes_added bytes_removed bytes_changed files_compared blocks_stored_alike bytes_read " \
	"sqk_diff_count_names: every count of the summary, in its order"

# Against the tree A was built from: the same; every byte of every file read.
run "$TMP/a.img" "$S"
is "$st:$(cat "$TMP/out")" "0:" "an image and the tree it was built from: the same"
is "$(count files_compared) $(count blocks_stored_alike) $(count bytes_read)" \
	"5 0 $((12288 + 100 + 11 + 1000 + 2000))" "every file of the tree read and compared"

# The superblocks: a codec's name, numbers, a flag.
pack "$S" "$TMP/c.img" -comp xz -no-exports
run "$TMP/a.img" "$TMP/c.img" super
is $st 1 "images built with other options differ"
is "$(grep '^super compression ' "$TMP/out")" "super compression gzip xz text" \
	"the codecs by name"
a_used=$(stat -c %s "$TMP/a.img")
c_used=$(stat -c %s "$TMP/c.img")
grep -q "^super bytes_used [0-9]* [0-9]* number$" "$TMP/out" &&
	[ "$(grep '^super bytes_used ' "$TMP/out" | cut -d' ' -f3)" -le "$a_used" ] &&
	[ "$(grep '^super bytes_used ' "$TMP/out" | cut -d' ' -f4)" -le "$c_used" ]
ok $? "bytes used: a number, within each image's file"
is "$(grep '^super exportable ' "$TMP/out")" "super exportable 1 0 flag" \
	"-no-exports: the exportable flag, set in A, not in B, told as a flag"
is "$(grep -c '^super ' "$TMP/out")" "$(wc -l <"$TMP/out")" "nothing but the superblocks differs"

# PATH operands: doubled slashes taken as the walk takes them; one in neither tree.
run "$TMP/a.img" "$TMP/b.img" path=//d//
printf 'removed /d directory\nremoved /d/a file 1000\nremoved /d/b file 2000\n' >"$TMP/want"
same_file "$TMP/want" "$TMP/out" "path //d//: the subtree d alone"
run "$TMP/a.img" "$TMP/b.img" path=d path=/
is "$(count added):$(count removed)" "2:3" "a path of / compares everything"
run "$TMP/a.img" "$TMP/b.img" path=nowhere
is "$st $(sed -n 's/^failure \([-0-9]*\) \([^ ]*\) \([0-9]*\) .*/\1 \2 \3/p' "$TMP/all")" \
	"2 2 /nowhere 0" "a path in neither tree: a failure of both sides, with its path"

# A damaged image: one of big's blocks no longer decompresses, on either side.
cp "$TMP/a.img" "$TMP/bad.img"
smash_block "$TMP/bad.img" data /big 1
ok $? "the second block of big is smashed"
run "$TMP/bad.img" "$TMP/a.img"
is "$st $(sed -n 's/^failure \([-0-9]*\) \([^ ]*\) \([0-9]*\) .*/\1 \2 \3/p' "$TMP/all")" \
	"2 0 /big 0" "damage in A: exit 2, side 0, the file, no errno"
grep -q "^failure 0 /big 0 ." "$TMP/all"
ok $? "the failure is said in words"
run "$TMP/a.img" "$TMP/bad.img"
is "$st $(sed -n 's/^failure \([-0-9]*\) \([^ ]*\) \([0-9]*\) .*/\1 \2 \3/p' "$TMP/all")" \
	"2 1 /big 0" "damage in B: side 1"
n=$(count files_compared)
[ -n "$n" ] && [ "$n" -le 5 ]
ok $? "the counts of a failed run are there (files compared: $n of 5)"

done_testing
