#!/bin/sh
# reader-memory.t: what the readers keep about a whole image (the walk's
# directories entered and hard links, fsck's records of every inode and
# directory, the data blocks it saw, the order of the listings, diff's hard
# links on each side) lives in stores that go to unnamed temporary files
# past --memory (util/store.h). With --memory 1, every store spills past its
# one page; the answers must be those of a run with plenty:
#   - unimage -o: the same archive, byte for byte; unimage -d: the tree
#     unsquashfs makes of the image (tests/tools/manifest);
#   - ls -R: a directory of 40000 entries (over a thousand pieces) in order;
#   - fsck --json: the same report on the image and on one damaged by every
#     kind of tests/tools/tamper (nlink, orphan, dir-loop, dir-cycle, ...),
#     each of which names its own check;
#   - diff: the same differences (hard links regrouped included), image
#     against image and against a directory;
#   - --stats says temporary files were made; none is left behind, as none
#     ever has a name.
# Then faults (tests/tools/libfault.so): each call of the temporary files
# (open, write, read) failed in turn, for fsck, unimage -d and diff: one
# line naming the temporary directory and the errno's words, the command's
# failure status, nothing left (unimage's destination gone); and SIGINT at
# a write of one: the run dies of it, nothing left.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/interop/tamper-base.sh"

need_cmd mksquashfs unsquashfs
TAMPER=$SQK_TOOLS/tamper
MANIFEST=$SQK_TOOLS/manifest
FAULT=$SQK_TOOLS/libfault.so
[ -x "$TAMPER" ] && [ -x "$MANIFEST" ] || skip_all "tests/tools are not built"

W=$(cd "$TMP" && pwd -P)
T=$W/tmp
mkdir "$T"
sqk() { "$SQUASHKIT" "$@"; }
# The runs with a budget of nothing, their temporary files in $T.
tiny() {
	cmd=$1
	shift
	"$SQUASHKIT" "$cmd" --memory 1 --tmpdir "$T" "$@"
}
# Nothing in $T: the temporary files have no name, ever.
t_empty() { [ -z "$(ls -A "$T")" ]; }

# A tree: three directories of files with some hard links across them (and
# groups of three), a chain of directories, symlinks; a listing adds /w, a
# directory of 40000 empty files, so that even a bitmap a bit per inode
# spills.
src=$W/src
mkdir -p "$src/d1" "$src/d2" "$src/d3" "$src/empty"
i=0
while [ $i -lt 150 ]; do
	printf 'file %d\n%s\n' $i "$(seq 1 $((i % 17)))" >"$src/d1/f$i"
	printf 'other %d\n' $i >"$src/d3/g$i"
	[ $((i % 10)) -eq 0 ] && ln "$src/d1/f$i" "$src/d2/hl$i"
	[ $((i % 30)) -eq 0 ] && ln "$src/d1/f$i" "$src/d3/hl$i"
	i=$((i + 1))
done
ln -s ../d1/f3 "$src/d2/sym"
deep=$src/deep
i=0
while [ $i -lt 20 ]; do
	deep=$deep/l$i
	i=$((i + 1))
done
mkdir -p "$deep"
echo bottom >"$deep/file"
awk 'BEGIN { print "dir /w 0755 0 0"; for (i = 0; i < 40000; i++) printf "file /w/f%05d 0644 0 0\n", i }' \
	>"$W/listing"
img=$W/img
sqk mkimage -q -b 4K --listing "$W/listing" "$src" "$img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}

# unimage: the archive, then the tree.
sqk unimage -q -o "$W/plenty.tar" "$img" &&
	tiny unimage -q --stats -o "$W/tiny.tar" "$img" >"$W/stats" 2>&1
ok $? "unimage -o with and without memory"
cmp -s "$W/plenty.tar" "$W/tiny.tar"
ok $? "the same archive, byte for byte"
n=$(sed -n 's/^temporary files: \([0-9]*\),.*/\1/p' "$W/stats")
[ "${n:-0}" -ge 2 ]
ok $? "--stats: the walk's stores went to temporary files ($n)"
t_empty
ok $? "none is left"
unsquashfs -q -n -d "$W/peer" "$img" >/dev/null 2>&1
tiny unimage -q -d "$W/tiny-tree" "$img"
ok $? "unimage -d with no memory"
"$MANIFEST" "$W/peer" | sed "s|$W/peer|R|" >"$W/peer.m"
"$MANIFEST" "$W/tiny-tree" | sed "s|$W/tiny-tree|R|" >"$W/tiny.m"
same_file "$W/tiny.m" "$W/peer.m" "the tree unsquashfs makes ($(wc -l <"$W/peer.m") entries, hard links included)"
grep -q 'd2/hl30 .*link=d1/f30' "$W/tiny.m"
ok $? "  whose hard links are links"

# ls -R: /w in order, a piece at a time.
sqk ls -R "$img" /w | sed -n 's/^\(f[0-9]*\)$/\1/p' >"$W/ls"
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "f%05d\n", i }' >"$W/ls.want"
same_file "$W/ls" "$W/ls.want" "ls -R lists a directory of 40000 entries whole, in order"
sqk ls -lR "$img" >"$W/lsl" && [ "$(grep -c '^-rw-r--r-- 1 0 0 0 ' "$W/lsl")" -eq 40000 ]
ok $? "ls -lR: every entry with its inode"

# fsck: the same report with and without memory, on damage of every kind.
# The tamper tree with a directory of 300 more files, so that fsck's records
# pass a page of their stores.
tamper_base "$W/tb" "$W/unused.img"
mkdir "$W/tb/many"
i=0
while [ $i -lt 300 ]; do
	printf '%d\n' $i >"$W/tb/many/m$i"
	i=$((i + 1))
done
mksquashfs "$W/tb" "$W/base.img" -noappend -quiet -no-progress -b 4K -noI -noD -noF -noX \
	-all-time 1600000000 -mkfs-time 1600000000 >/dev/null 2>&1 || {
	echo "Bail out! mksquashfs failed"
	exit 1
}
fsck_same() { # IMAGE: the two reports; "" when they are the same
	sqk fsck --json "$1" >"$W/f.plenty" 2>&1
	a=$?
	tiny fsck --json "$1" >"$W/f.tiny" 2>&1
	b=$?
	[ $a -eq $b ] && cmp -s "$W/f.plenty" "$W/f.tiny" || echo "exit $a and $b"
}
is "$(fsck_same "$img")" "" "fsck of the image: the same report"
tiny fsck --stats "$img" | grep -q '^temporary files: [1-9]'
ok $? "  its records went to temporary files"
bad=0
kinds=0
for k in $("$TAMPER" 2>&1 | sed -n 's/^kinds: //p'); do
	"$TAMPER" "$k" "$W/base.img" "$W/t.img" >/dev/null 2>&1 || continue
	kinds=$((kinds + 1))
	why=$(fsck_same "$W/t.img")
	# Each kind's report names its check.
	want=$(echo "$k" | sed 's/^magic$/superblock/; s/^flags$/superblock/; s/^dir-link-type$/dir-type/;
		s/^dir-cycle$/dir-loop/; s/^kernel-.*/kernel-decode/')
	grep -q "\"check\":\"$want\"" "$W/f.tiny" || why="$why; no $want problem"
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		echo "#   $k: $why"
	fi
done
[ $kinds -ge 20 ] && [ $bad -eq 0 ]
ok $? "fsck of $kinds damaged images: the same reports, each naming its damage"
t_empty
ok $? "no temporary file is left"

# diff: hard links regrouped, a file changed, one gone, one added.
cp -a "$src" "$W/src2"
rm "$W/src2/d2/hl10" "$W/src2/d1/f7"
ln "$W/src2/d1/f20" "$W/src2/d2/hl10"
echo changed >"$W/src2/d3/g5"
echo new >"$W/src2/d1/new"
sqk mkimage -q -b 4K --listing "$W/listing" "$W/src2" "$W/img2"
sqk diff "$img" "$W/img2" >"$W/d.plenty"
a=$?
tiny diff "$img" "$W/img2" >"$W/d.tiny"
b=$?
[ $a -eq 1 ] && [ $b -eq 1 ] && cmp -s "$W/d.plenty" "$W/d.tiny"
ok $? "diff image against image: the same differences"
grep -q '^H /d2/hl10: hard link /d1/f10 -> /d1/f20' "$W/d.tiny" &&
	grep -q '^- /d1/f7' "$W/d.tiny" && grep -q '^+ /d1/new' "$W/d.tiny"
ok $? "  the regrouped link, the file gone and the one added among them"
sqk diff "$img" "$W/src2" >"$W/dd.plenty" 2>&1
tiny diff "$img" "$W/src2" >"$W/dd.tiny" 2>&1
cmp -s "$W/dd.plenty" "$W/dd.tiny" && grep -q '^H /d2/hl10' "$W/dd.tiny"
ok $? "diff image against a directory: the same differences"
tiny diff -q "$img" "$W/tiny-tree" 2>"$W/err"
is "$?:$(cat "$W/err")" "0:" "diff of the image and its extracted tree: the same"
t_empty
ok $? "no temporary file is left"

# Faults in the temporary files.
if [ ! -f "$FAULT" ]; then
	skip "faults: $FAULT is not built"
	done_testing
	exit
fi
asan=$(ldd "$SQUASHKIT" | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan }$FAULT"
# squashkit under the fault library with no memory; a run that hangs is a failure.
faulty() {
	cmd=$1
	shift
	timeout 120 env --default-signal=INT LD_PRELOAD="$PRELOAD" "$SQUASHKIT" "$cmd" \
		--memory 1 --tmpdir "$T" "$@"
}
run_fsck() { faulty fsck -q "$W/base.img"; }
prep_fsck() { :; }
left_fsck() { :; }
# Images of the tree alone (fewer files to make): their hard links still spill.
sqk mkimage -q -b 4K "$src" "$W/small.img" && sqk mkimage -q -b 4K "$W/src2" "$W/small2.img" || {
	echo "Bail out! the images cannot be built"
	exit 1
}
run_dir() { faulty unimage -q -d "$W/x" "$W/small.img"; }
prep_dir() { rm -rf "$W/x"; }
left_dir() { [ ! -e "$W/x" ]; }
run_diff() { faulty diff -q "$W/small.img" "$W/small2.img"; }
prep_diff() { :; }
left_diff() { :; }
. "$SQK_SRCDIR/tests/interop/spill-faults.sh"
sweep fsck 8
[ $runs -gt 5 ] && [ $bad -eq 0 ]
ok $? "fsck: $runs calls of its temporary files failed in turn: exit 8, the line, nothing left"
sweep dir 1
[ $runs -gt 5 ] && [ $bad -eq 0 ]
ok $? "unimage -d: $runs calls failed in turn: exit 1, the line, no destination left"
sweep diff 2
[ $runs -gt 5 ] && [ $bad -eq 0 ]
ok $? "diff: $runs calls failed in turn: exit 2, the line, nothing left"

# SIGINT at the first write of a temporary file.
n=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	prep_dir
	under "write:$i:SIGINT" run_dir
	case $f in "$T"/*) n=$i && break ;; esac
done
[ $n -gt 0 ] && [ $st -eq 130 ] && [ ! -e "$W/x" ] && t_empty
ok $? "unimage -d killed by SIGINT at a write of a temporary file ($n, exit $st): nothing left"
under "write:1:SIGINT" run_fsck
[ $st -eq 130 ] && t_empty
ok $? "fsck killed by SIGINT likewise (exit $st): nothing left"

done_testing
