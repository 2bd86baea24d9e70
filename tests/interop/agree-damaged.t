#!/bin/sh
# Reader and fsck on damaged images, the direction corrupt.t does not check:
# where fsck reports problems, unimage must fail too, unless every problem
# reported is one that only fsck can see by design. Damaged images come from
# the seeded generator of tests/tools/lib/damage.c (bit flips, half of them
# in the tables, and truncations) applied to two small images whose tables a
# flip changes field by field rather than making a block fail to
# decompress: mksquashfs with uncompressed inode, fragment and xattr tables
# (zstd, 4K blocks), and gensquashfs with lzo, which carries no checksum
# (its tables, extended inodes and sparse files are laid out the
# squashfs-tools-ng way). For each
# case: fsck says clean only where unimage succeeds, and where fsck reports
# and unimage succeeds, each problem is one of these:
#
#   - export table (entries or blocks): it only maps inode numbers to inodes
#     for NFS file handles; extraction, the kernel's reads and unsquashfs
#     never use it.
#   - dir-parent: the parent inode number of a directory; extraction walks
#     down from the root and never reads it (the kernel only reports it as
#     the inode number of "..").
#   - dir-index: a directory's index only speeds up lookups by name;
#     unimage, like unsquashfs, reads whole listings. (Lookups by name, in
#     cat, stat and ls PATH, use it as the kernel does.)
#   - nlink, orphan, and inode_count against the inodes in the table: link
#     counts and unreachable inodes change nothing that is extracted.
#   - sparse: the sparse byte count of an extended file is a hint for
#     making holes; the block list says where the holes are.
#   - "the inode at ...: type N is not an inode type": bytes of the inode
#     table that no entry points at, met by fsck's scan in table order after
#     an inode's length changed (a file size or symlink length that is
#     consistent in itself); readers find inodes by reference and never look
#     there.
#   - any problem of an inode no directory reaches, which fsck names by
#     number ("inode table: CHECK: inode N: ...") instead of by path: when a
#     flip empties or shortens a directory, what it listed is still decoded
#     in fsck's scan, and a flip in a compressed table without a checksum
#     (lzo) can damage such an inode too; extraction and the kernel reach
#     inodes through directories only. Such a problem is on the list only
#     where fsck reports an orphan too.
#   - fragment, xattr id or id table blocks holding more or fewer entries
#     than the superblock's counts say, where every entry in use is whole:
#     the kernel reads entries on demand, as unimage does.
#   - an inode, directory or xattr (pairs) table block whose stored length
#     runs past the table's end: readers take (block, offset) references
#     into what it decompresses to, and never use the bytes it took from the
#     next table.
#   - an xattr set that overlaps the set before it: readers find a set by
#     its id's reference and read its pairs from there, as the kernel does.
#   - an xattr id that lists no pairs: the file has no xattrs, as the
#     kernel shows it.
#   - unused bytes between the last table and bytes_used.
# The rule behind the list: where the kernel reads an image and shows the
# tree unimage extracts, unimage is right to extract it, and fsck right to
# report what is inconsistent; where the kernel refuses an inode, unimage
# refuses it too. Each item was checked against the kernel when the list
# was drawn up (unsquashfs agrees but for two: it refuses a fragment table
# shorter than fragment_count says, and exits 2 over an xattr id with no
# pairs). A problem not on the list, with unimage succeeding, fails the test.
#
# The cases run in tests/tools/damage-run, which makes the calls of
# `fsck -q -j 1` and `unimage -q -j 1 -d` in one process and writes fsck's
# problems as the command prints them; a crash or a hang fails the test. On
# every 25th case the commands themselves run too, and must exit as
# damage-run says, fsck printing the same problems.
#
# One disagreement of another kind is checked on a crafted image: a file
# whose size is a multiple of the block size (here 0) with a fragment set.
# The kernel refuses that inode (a whole number of blocks has no tail to
# keep in a fragment); fsck reported it, unimage used to extract an empty
# file. Now both refuse it.
#
# And one where fsck named a good inode as missing: a symlink whose size is
# one byte too large runs into the inode after it. Readers find both by
# reference and read them (the link's target gains a byte); fsck's scan in
# table order meets garbage after the link, and used to trust its own scan
# for everything before that point, so the entry naming the next inode was
# reported as naming nothing. Now fsck decodes that inode by reference too,
# and reports only the garbage (an item of the list above).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs gensquashfs od timeout
. "$SQK_SRCDIR/tests/interop/damage.sh"

FLIPS=300
TRUNCS=30
SEED=20251130
WORKERS=2

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}

# u32 FILE OFFSET: the little-endian 32-bit number at OFFSET.
u32() {
	od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '
}

# put32 FILE OFFSET VALUE: write VALUE there, little-endian.
put32() {
	v=$3
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) \
		$((v >> 16 & 255)) $((v >> 24 & 255)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# --- the crafted case: a fragment on a file with no tail ---

mkdir "$TMP/one"
printf 'hello\n' >"$TMP/one/hello"
img=$TMP/frag.img
if mksquashfs "$TMP/one" "$img" -noappend -quiet -no-progress -noI -no-xattrs \
	-all-time 1600000000 >/dev/null 2>&1; then
	# With -noI the inode table is stored raw: the file's inode comes first,
	# right after the block's 2-byte header, and its size is at byte 28.
	it=$(od -An -tu8 -j 64 -N 8 "$img" | tr -d ' ')
	at=$((it + 2))
	if [ "$(od -An -tu2 -j $at -N 2 "$img" | tr -d ' ')" = 2 ] &&
		[ "$(u32 "$img" $((at + 20)))" = 0 ] && [ "$(u32 "$img" $((at + 28)))" = 6 ]; then
		ok 0 "harness: hello is the first inode, 6 bytes in fragment 0"
		expect_status 0 "the untouched image is clean" sqk fsck -q "$img"
		put32 "$img" $((at + 28)) 0
		is "$(u32 "$img" $((at + 28)))" 0 "harness: hello's size is now 0, its fragment kept"
		if [ "$(id -u)" -eq 0 ] && mkdir "$TMP/mnt" &&
			mount -t squashfs -o loop,ro "$img" "$TMP/mnt" 2>/dev/null; then
			at_exit "umount '$TMP/mnt' 2>/dev/null"
			# Older kernels read it as an empty file; newer ones refuse the inode.
			if cat "$TMP/mnt/hello" >/dev/null 2>&1; then
				echo "# this kernel reads the inode (it predates the check)"
			else
				echo "# this kernel refuses the inode"
			fi
			umount "$TMP/mnt"
		fi
		expect_status 1 "unimage refuses a fragment on a file whose size leaves no tail" \
			sqk unimage -d "$TMP/frag.out" "$img"
		grep -q '/hello' "$TMP/.err"
		ok $? "the message names /hello"
		expect_status 1 "cat refuses it too" sqk cat "$img" /hello
		sqk fsck -q "$img" >"$TMP/frag.fsck" 2>&1
		is "$?" 4 "fsck reports it"
		ok "$(grep -q '^/hello: fragment: ' "$TMP/frag.fsck"; echo $?)" \
			"fsck names /hello and the fragment check"
	else
		ok 1 "harness: hello is the first inode, 6 bytes in fragment 0"
	fi
else
	skip "mksquashfs -noI failed"
fi

# --- the crafted case: a symlink one byte too long ---

mkdir "$TMP/two"
printf 'hello\n' >"$TMP/two/b-file"
ln -s hello "$TMP/two/a-link"
img=$TMP/link.img
if mksquashfs "$TMP/two" "$img" -noappend -quiet -no-progress -noI -no-xattrs \
	-all-time 1600000000 >/dev/null 2>&1; then
	# With -noI the raw inode table starts with a-link (sorted first), its
	# target size at byte 20, then b-file right after its 5-byte target.
	at=$(($(od -An -tu8 -j 64 -N 8 "$img" | tr -d ' ') + 2))
	if [ "$(od -An -tu2 -j $at -N 2 "$img" | tr -d ' ')" = 3 ] &&
		[ "$(u32 "$img" $((at + 20)))" = 5 ] &&
		[ "$(od -An -tu2 -j $((at + 29)) -N 2 "$img" | tr -d ' ')" = 2 ]; then
		ok 0 "harness: a-link is the first inode, b-file right after it"
		put32 "$img" $((at + 20)) 6
		expect_status 0 "unimage reads the longer link and the file after it" \
			sqk unimage -d "$TMP/link.out" "$img"
		is "$(readlink "$TMP/link.out/a-link" | od -An -c | tr -s ' ')" " h e l l o 002 \\n" \
			"the link's target gained the next inode's first byte"
		same_file "$TMP/two/b-file" "$TMP/link.out/b-file" "b-file reads as it was"
		if [ "$(id -u)" -eq 0 ] && mkdir -p "$TMP/mnt" &&
			mount -t squashfs -o loop,ro "$img" "$TMP/mnt" 2>/dev/null; then
			at_exit "umount '$TMP/mnt' 2>/dev/null"
			is "$(readlink "$TMP/mnt/a-link" | od -An -c | tr -s ' ')" \
				"$(readlink "$TMP/link.out/a-link" | od -An -c | tr -s ' ')" \
				"the kernel reads the same target"
			umount "$TMP/mnt"
		fi
		sqk fsck -q "$img" >"$TMP/link.fsck" 2>&1
		is "$?" 4 "fsck reports the image"
		is "$(grep -c -v ': type [0-9]* is not an inode type$' "$TMP/link.fsck")" 0 \
			"fsck reports only the garbage its scan met after the link"
		ok "$(grep -q 'b-file' "$TMP/link.fsck"; [ $? -eq 1 ]; echo $?)" \
			"fsck does not report b-file"
	else
		ok 1 "harness: a-link is the first inode, b-file right after it"
	fi
else
	skip "mksquashfs -noI failed"
fi

# --- mutated images ---

t=$TMP/tree
small_tree "$t" 120
ln -s "$(printf '%0300d' 0)" "$t/dir/long-symlink"
truncate -s 655360 "$t/all-hole"
xattrs=""
if setfattr -n user.comment -v "some value" "$t/hello" 2>/dev/null; then
	setfattr -n user.other -v "$(printf '%0100d' 0)" "$t/dir/blocks"
	xattrs=yes
fi
# gensquashfs -k keeps the tree's times: fixed, they make the image the same
# bytes on every run, so each seeded case damages the same field every time.
find "$t" -exec touch -h -d @1600000000 {} +
echo "# tree: $(find "$t" | wc -l) entries; xattrs: ${xattrs:-no}"

# The problems fsck alone can see by design (see the top of this file), as
# "PATH: CHECK: DETAIL" lines.
FSCK_ONLY='^export table: (export|metadata): |: (dir-parent|dir-index|nlink|orphan|sparse): |^inode table: inode-number: inode_count is |^inode table: inode: the inode at .*: type [0-9]+ is not an inode type$|^(fragment|xattr|id) table: metadata: metadata block [0-9]+ at [0-9]+ (decompresses to [0-9]+ bytes, not |ends at )|^(inode|directory|xattr) table: metadata: metadata block at [0-9]+ runs past the table.s end at [0-9]+$|^xattr table: xattr: xattr id [0-9]+ has no pairs$|^xattr table: xattr: xattr id [0-9]+ at .* overlaps the set before it$|^superblock: [0-9]+ bytes between the last table|^fsck: [a-z-]+: [0-9]+ more problems'

# Problems of inodes no directory reaches: fsck-only where fsck also finds
# an unreachable inode (an orphan), the sign that a directory lost entries.
UNREACHED='^inode table: [a-z-]+: inode [0-9]+: '

# run_cases IMAGE WORKER: the cases WORKER, WORKER + WORKERS, ...: the
# driver's lines ("CASE FSCK UNIMAGE WHAT"), with fsck's problems in
# $TMP/prob-WORKER, then the commands on the sample (whose fsck must print
# the same problems).
run_cases() {
	drive "$1" $2 -j 1 -p "$TMP/prob-$2" >"$TMP/drv-$2"
	cat "$TMP/drv-$2"
	commands "$1" $2 1 "$TMP/prob-$2"
	rm -rf "$TMP/scr-$2" "$TMP/drv-$2"
}

# unexplained: for each case where fsck reports and unimage succeeds (in
# $TMP/res), the problems not matched by FSCK_ONLY (in $TMP/prob-*), nor by
# UNREACHED in a case with an orphan: notes for the first three of each
# case, and "CASE unexplained N" lines.
unexplained() {
	cat "$TMP"/prob-* >"$TMP/prob" 2>/dev/null
	cut -f2- "$TMP/prob" | grep -a -n -v -E "$FSCK_ONLY" | cut -d: -f1 >"$TMP/prob.lines"
	grep -a '	inode table: orphan: ' "$TMP/prob" | cut -f1 >"$TMP/prob.orphans"
	awk -F '\t' -v unreached="$UNREACHED" 'FILENAME == ARGV[1] {
		if ($0 ~ /^[0-9]+ [0-9]+ [0-9]+ /) {
			split($0, a, " "); sub(/^[0-9]+ [0-9]+ [0-9]+ /, "")
			if (a[2] == 4 && a[3] == 0) what[a[1]] = $0
		}
		next }
	FILENAME == ARGV[2] { out[$1] = 1; next }
	FILENAME == ARGV[3] { orphan[$1] = 1; next }
	($1 in orphan) && substr($0, length($1) + 2) ~ unreached { next }
	(FNR in out) && ($1 in what) {
		if (!n[$1]++)
			print "#   case " $1 " (" what[$1] "): fsck reports, unimage succeeds:"
		if (n[$1] <= 3)
			print "#     " substr($0, length($1) + 2)
	}
	END { for (c in n) print c, "unexplained", n[c] }' "$TMP/res" "$TMP/prob.lines" \
		"$TMP/prob.orphans" "$TMP/prob"
	rm -f "$TMP"/prob*
}

sample() {
	name=$1
	img=$2
	sqk fsck -q "$img" >/dev/null 2>&1
	f=$?
	sqk unimage -q -d "$TMP/clean" "$img" >/dev/null 2>&1
	u=$?
	rm -rf "$TMP/clean"
	if [ $f -ne 0 ] || [ $u -ne 0 ]; then
		ok 1 "$name: the undamaged image passes fsck and unimage (fsck $f, unimage $u)"
		return
	fi
	ok 0 "$name: the undamaged image passes fsck and unimage"
	rm -f "$TMP"/prob-*
	all_cases "$img"
	unexplained >"$TMP/unexpl"
	grep -a '^#' "$TMP/unexpl"
	grep -a -v '^#' "$TMP/unexpl" >>"$TMP/res"
	eval "$(awk '$2 == "crash" { crashes++; if ($1 ~ /^[0-9]+$/) n++ }
	$2 == "unexplained" { unexplained++ }
	$2 ~ /^[0-9]+$/ {
		n++
		if ($2 == 4) reported++
		if ($2 == 4 && $3 == 0) only++
		if ($2 == 0 && $3 != 0) false_clean++
	} END {
		printf "ran=%d reported=%d only=%d unexplained=%d false_clean=%d crashes=%d\n", \
			n, reported, only, unexplained, false_clean, crashes
	}' "$TMP/res")"
	compare_commands
	is "$ran" $((FLIPS + TRUNCS)) "$name: every case ran"
	echo "# $name: fsck reported problems in $reported images; unimage extracted" \
		"$only of them, each for problems only fsck sees"
	is "$unexplained" 0 "$name: where fsck reports and unimage succeeds, only fsck can see the problem"
	is "$false_clean" 0 "$name: fsck never says clean where unimage fails"
	ok "$([ "$reported" -gt 0 ]; echo $?)" "$name: fsck found problems in damaged images"
	is "$crashes" 0 "$name: fsck and unimage never crashed or hung"
	ok "$([ "$sampled" -gt 0 ] && [ "$cmd_diff" -eq 0 ]; echo $?)" \
		"$name: fsck and unimage, run as commands on every ${SAMPLE}th case ($sampled), exit as damage-run says"
}

if mksquashfs "$t" "$TMP/mks.img" -noappend -quiet -no-progress -b 4K -comp zstd \
	-noI -noF -noX -all-time 1600000000 -mkfs-time 1600000000 >"$TMP/w.err" 2>&1; then
	sample "mksquashfs, raw tables" "$TMP/mks.img"
else
	ok 1 "mksquashfs builds the image"
	head -3 "$TMP/w.err" | sed 's/^/#   /'
fi
if gensquashfs -q -k ${xattrs:+-x} -c lzo -D "$t" "$TMP/gen.img" >"$TMP/w.err" 2>&1; then
	sample "gensquashfs lzo" "$TMP/gen.img"
else
	ok 1 "gensquashfs builds the image"
	head -3 "$TMP/w.err" | sed 's/^/#   /'
fi

done_testing
