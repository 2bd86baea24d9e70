#!/bin/sh
# squashkit diff between an image and a directory. An image against the tree
# it was built from (by mkimage and by mksquashfs, owners and devices kept)
# is the same, whichever side each is on and with times compared; the holes
# of a sparse file are no difference. Each single change made to a copy of
# the tree after the build is found, and named in the one line expected.
# Images built with options that change them on purpose (--pseudo,
# --all-root, --sort) compare as the same with the options the man page
# gives for them, and as different without.
SCRATCH=shm-user-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs setfattr

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}

# --- the tree: every kind of entry, owners, a device, xattrs, holes ---
src=$TMP/src
mkdir -p "$src/dir/sub" "$src/empty"
printf 'hello\n' >"$src/file"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %05d of a file of blocks\n", i }' \
	>"$src/blocks"
truncate -s 20000 "$src/sparse"
printf 'after the hole\n' >>"$src/sparse"
printf 'inner\n' >"$src/dir/sub/inner"
ln -s ../file "$src/dir/link"
printf 'linked\n' >"$src/hl1"
ln "$src/hl1" "$src/dir/hl2"
mkfifo "$src/fifo"
mknod "$src/dev" c 1 3
chown 1234:567 "$src/dir/sub/inner"
chmod 4755 "$src/dir"
printf 'a name\nwith a newline\n' >"$src/$(printf 'new\nline')"
xattrs=0
if setfattr -n user.note -v "one" "$src/file" 2>/dev/null; then
	setfattr -n user.dir -v "d" "$src/dir"
	xattrs=1
fi
echo "# xattrs in the scratch directory: $([ $xattrs -eq 1 ] && echo yes || echo no)"

img=$TMP/src.img
expect_success "mkimage builds the image" sqk mkimage -q "$src" "$img"

# --- an image against its own source ---
expect_status 0 "image against its source: the same" sqk diff "$img" "$src"
expect_status 0 "source against its image: the same" sqk diff "$src" "$img"
expect_status 0 "image against its source, times compared: the same" sqk diff -T "$img" "$src"
is "$(cat "$TMP/.out")" "" "image against its source: nothing printed"
mksquashfs "$src" "$TMP/mks.img" -noappend -quiet -no-progress >/dev/null 2>&1
expect_status 0 "an image by mksquashfs against its source: the same" sqk diff -T "$TMP/mks.img" "$src"
expect_status 0 "the two images: the same" sqk diff -T "$TMP/mks.img" "$img"

# --- one change at a time, to a copy ---
# change NAME EXPECTED CMD...: CMD runs in a fresh copy of the tree ($c);
# diff IMAGE COPY exits 1 and prints EXPECTED (lines joined with |).
change() {
	name=$1 want=$2
	shift 2
	rm -rf "$TMP/c"
	cp -a "$src" "$TMP/c"
	c=$TMP/c
	(cd "$c" && eval "$@") || {
		ok 1 "$name: the change could be made"
		return
	}
	sqk diff $opts "$img" "$c" >"$TMP/out" 2>"$TMP/err"
	st=$?
	got=$(tr '\n' '|' <"$TMP/out" | sed 's/|$//')
	if [ $st -eq 1 ] && [ "$got" = "$want" ]; then
		ok 0 "$name: found ($got)"
	else
		ok 1 "$name: found"
		echo "#   exit $st; want 1 and: $want"
		sed 's/^/#   got: /' "$TMP/out" "$TMP/err"
	fi
}
opts=""
change "a file added" "+ /dir/new" 'echo new >dir/new'
change "a directory added" "+ /more|+ /more/x" 'mkdir more && echo x >more/x'
change "a file removed" "- /file" 'rm file'
change "a directory removed" "- /dir/sub|- /dir/sub/inner" 'rm -r dir/sub'
change "a mode" "M /blocks: mode 0644 -> 0600" 'chmod 600 blocks'
change "a setuid bit" "M /dir: mode 4755 -> 0755" 'chmod u-s dir'
change "an owner" "O /dir/sub/inner: owner 1234:567 -> 1234:568" 'chown 1234:568 dir/sub/inner'
change "contents in the middle" "C /blocks: contents differ from byte 50000" \
	'printf X | dd of=blocks bs=1 seek=50000 conv=notrunc 2>/dev/null'
change "contents in a tail" "C /file: contents differ from byte 4" \
	'printf O | dd of=file bs=1 seek=4 conv=notrunc 2>/dev/null'
size=$(stat -c %s "$src/blocks")
change "a size" "S /blocks: size $size -> $((size - 1))" "truncate -s $((size - 1)) blocks"
change "a byte in a hole" "C /sparse: contents differ from byte 4096" \
	'printf X | dd of=sparse bs=1 seek=4096 conv=notrunc 2>/dev/null'
change "a symlink's target" "L /dir/link: target ../file -> ../blocks" 'ln -sfn ../blocks dir/link'
change "a device number" "R /dev: device 1,3 -> 1,5" 'rm dev && mknod dev c 1 5'
change "a type" "T /fifo: type fifo -> file" 'rm fifo && : >fifo'
change "a directory made a file" "T /dir/sub: type directory -> file|- /dir/sub/inner" \
	'rm -r dir/sub && : >dir/sub'
change "a hard link split" "H /hl1: hard link /dir/hl2 -> none" \
	'rm hl1 && cp -p dir/hl2 hl1'
change "a name with a newline" '- /new\nline|+ /new\nline2' "mv 'new
line' 'new
line2'"
if [ $xattrs -eq 1 ]; then
	change "an xattr value" 'X /file: xattr user.note "one" -> "two"' \
		'setfattr -n user.note -v two file'
	change "an xattr added" 'X /blocks: xattr user.more none -> "x"' \
		'setfattr -n user.more -v x blocks'
	change "a directory's xattr removed" 'X /dir: xattr user.dir "d" -> none' \
		'setfattr -x user.dir dir'
else
	skip "the scratch directory takes no user xattrs"
fi
opts="-T"
change "an mtime, with --times" "D /blocks: mtime $(date -u -r "$src/blocks" '+%Y-%m-%d %H:%M:%S') -> 2001-02-03 04:05:06" \
	"touch -d '2001-02-03 04:05:06 UTC' blocks"
opts=""
rm -rf "$TMP/c"
cp -a "$src" "$TMP/c"
touch -d '2001-02-03 04:05:06 UTC' "$TMP/c/blocks"
expect_status 0 "an mtime, without --times: the same" sqk diff "$img" "$TMP/c"

# The hole written as zeros: the same bytes, no difference.
rm -rf "$TMP/c"
cp -a "$src" "$TMP/c"
dd if=/dev/zero of="$TMP/c/sparse" bs=4096 count=4 conv=notrunc 2>/dev/null
du_dense=$(du -k "$TMP/c/sparse" | cut -f1)
du_sparse=$(du -k "$src/sparse" | cut -f1)
ok "$([ "$du_dense" -gt "$du_sparse" ]; echo $?)" "harness: the copy is dense ($du_dense KiB, the source $du_sparse KiB)"
expect_status 0 "a sparse file's holes against zeros: the same" sqk diff "$img" "$TMP/c"

# --- images that differ from their source by design ---
# --pseudo adds /devices and /devices/null and sets a mode.
expect_success "mkimage --pseudo" sqk mkimage -q --pseudo 'devices d 755 0 0' \
	--pseudo 'devices/null c 666 0 0 1 3' --pseudo 'file m 600 0 0' "$src" "$TMP/pseudo.img"
sqk diff "$TMP/pseudo.img" "$src" >"$TMP/out" 2>&1
is "$?:$(tr '\n' '|' <"$TMP/out")" \
	"1:- /devices|- /devices/null|M /file: mode 0600 -> 0644|" \
	"--pseudo: what it added and changed is named"
expect_status 0 "--pseudo: the same with -e /devices -P -O" \
	sqk diff -e /devices -P -O "$TMP/pseudo.img" "$src"

expect_success "mkimage --all-root" sqk mkimage -q --all-root "$src" "$TMP/root.img"
sqk diff "$TMP/root.img" "$src" >"$TMP/out" 2>&1
is "$?:$(tr '\n' '|' <"$TMP/out")" "1:O /dir/sub/inner: owner 0:0 -> 1234:567|" \
	"--all-root: the entry not owned by root is named"
expect_status 0 "--all-root: the same with --no-owner" sqk diff --no-owner "$TMP/root.img" "$src"

printf 'sparse 10\nblocks -5\nfile 3\n' >"$TMP/sortfile"
expect_success "mkimage --sort" sqk mkimage -q --sort "$TMP/sortfile" "$src" "$TMP/sorted.img"
expect_status 0 "--sort: the same as its source (the order of the data is not compared)" \
	sqk diff -T "$TMP/sorted.img" "$src"
expect_status 0 "--sort: the same as the unsorted image" sqk diff -T "$TMP/sorted.img" "$img"

done_testing
