#!/bin/sh
# Reader and fsck agree on images from other writers: for every image that
# mksquashfs, gensquashfs and tar2sqfs write of a tree that reaches the odd
# corners (empty files, files of exactly one block and one byte more at 4K,
# 128K and 1M, all-zero files, holes, a directory of 2000 entries, names of
# 255 bytes, a 4000-byte symlink, devices, a fifo, xattrs short, long and
# shared, hard links), with each compressor each writer offers and the
# options that change the layout, `unimage` succeeds exactly when `fsck`
# says clean, and here both must say yes: the kernel and unsquashfs read
# every one of these images. Then a tree 1500 directories deep.
#
# tar2sqfs gets the tree as a pax archive from GNU tar; gensquashfs reads
# the directory. Under the sanitizers (SQK_SANITIZED=1) fewer images are
# built, as each process starts far slower there.
SCRATCH=shm-user-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs gensquashfs tar2sqfs setfattr tar timeout

root=0
[ "$(id -u)" -eq 0 ] && root=1

. "$SQK_SRCDIR/tests/interop/gen.sh"
TXT_LABEL="a file in the agreement tree"

t=$TMP/tree
mkdir -p "$t/sizes" "$t/zeros" "$t/big" "$t/links" "$t/special" "$t/xattr"
: >"$t/sizes/empty"
printf x >"$t/sizes/one-byte"
rnd 1 4096 >"$t/sizes/4K"
rnd 2 4097 >"$t/sizes/4K-plus-1"
txt 3 131072 >"$t/sizes/128K"
txt 4 131073 >"$t/sizes/128K-plus-1"
txt 5 1048576 >"$t/sizes/1M"
txt 6 1048577 >"$t/sizes/1M-plus-1"
head -c 4096 /dev/zero >"$t/zeros/4K"
head -c 131072 /dev/zero >"$t/zeros/128K"
head -c 300000 /dev/zero >"$t/zeros/300000"
truncate -s 2000000 "$t/zeros/holes"
truncate -s 1048576 "$t/zeros/hole-data-hole"
txt 7 5000 | dd of="$t/zeros/hole-data-hole" bs=4096 seek=100 conv=notrunc status=none
i=0
while [ $i -lt 2000 ]; do
	n=$((10000 + i))
	case $i in
	*3) printf '%s\n' $i >"$t/big/entry-${n#1}" ;;
	*) : >"$t/big/entry-${n#1}" ;;
	esac
	i=$((i + 1))
done
long=$(awk 'BEGIN { for (i = 0; i < 255; i++) printf "%c", 97 + i % 26 }')
printf 'long name\n' >"$t/$long"
mkdir "$t/d$(echo "$long" | cut -c2-)"
printf 'inside\n' >"$t/d$(echo "$long" | cut -c2-)/f"
ln -s ../sizes/one-byte "$t/links/short"
ln -s "$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "%s", "component/" }')" "$t/links/long"
txt 8 3000 >"$t/links/three-a"
ln "$t/links/three-a" "$t/links/three-b"
ln "$t/links/three-a" "$t/big/three-c"
mkfifo "$t/special/fifo"
if [ $root -eq 1 ]; then
	mknod "$t/special/null" c 1 3
	mknod "$t/special/sda1" b 8 1
	mknod "$t/special/max" c 4095 1048575
fi
printf 'a\n' >"$t/xattr/short"
setfattr -n user.a -v "a value" "$t/xattr/short"
txt 9 100 >"$t/xattr/long"
setfattr -n user.long -v "$(txt 10 2000)" "$t/xattr/long"
for n in 1 2 3 4; do
	printf '%s\n' $n >"$t/xattr/shared-$n"
	setfattr -n user.shared -v "$(txt 11 300)" "$t/xattr/shared-$n"
done
setfattr -n user.dir -v "on a directory" "$t/xattr"
[ $root -eq 1 ] && setfattr -n trusted.t -v "trusted" "$t/xattr/short"
# Times fixed, so that the tree is the same on every run: the peers' images
# of it are then made once a suite run (peer_image).
find "$t" -exec touch -h -d @1600000000 {} +
echo "# tree: $(find "$t" | wc -l) entries; $(du -sk "$t" | cut -f1) KiB"

tar -C "$t" --format=posix --xattrs --xattrs-include='*' -cf "$TMP/tree.tar" . 2>"$TMP/tar.err" ||
	echo "# GNU tar: $(head -1 "$TMP/tar.err")"

# agree NAME IMAGE: fsck and unimage agree, and both accept the image.
agree() {
	timeout 300 "$SQUASHKIT" fsck -q -j 2 "$2" >"$TMP/f.out" 2>&1
	f=$?
	timeout 300 "$SQUASHKIT" unimage -q -d "$TMP/x" "$2" >"$TMP/u.out" 2>&1
	u=$?
	rm -rf "$TMP/x" "$2"
	ok "$([ $((f == 0)) -eq $((u == 0)) ]; echo $?)" \
		"$1: unimage succeeds exactly when fsck says clean (fsck $f, unimage $u)"
	ok "$([ $f -eq 0 ] && [ $u -eq 0 ]; echo $?)" "$1: both accept the image"
	if [ $f -ne 0 ] || [ $u -ne 0 ]; then
		head -3 "$TMP/f.out" "$TMP/u.out" | sed 's/^/#   /'
	fi
}

# build NAME CMD...: run a writer; a failure is a failed test, not a skip
# (every writer here is expected to handle every option given).
build() {
	name=$1
	shift
	if "$@" >"$TMP/w.out" 2>&1; then
		return 0
	fi
	ok 1 "$name: the writer builds the image"
	head -3 "$TMP/w.out" | sed 's/^/#   /'
	return 1
}

comps="gzip lzma lzo xz lz4 zstd"
if [ -n "${SQK_SANITIZED:-}" ]; then
	mks_opts="-noI -noD -noF -noX|gzip
-b 4K -no-fragments|xz
-always-use-fragments -b 1M|lz4"
	gen_opts="-b 4096|xz
-T|lzo"
	t2s_opts="-b 4096|xz"
	comps="gzip xz"
else
	mks_opts="-noI|gzip
-noD|xz
-noF|lz4
-noX|zstd
-noI -noD -noF -noX|gzip
-no-fragments|lzo
-always-use-fragments|zstd
-b 4K|xz
-b 1M|gzip
-b 4K -always-use-fragments -no-duplicates|lz4
-tailends -no-exports|xz"
	gen_opts="-b 4096|xz
-b 4096|gzip
-b 1048576|zstd
-T|lzo
-e|lz4"
	t2s_opts="-b 4096|xz
-b 1048576|lz4
-T|gzip"
fi

img=$TMP/img
for c in $comps; do
	build "mksquashfs -comp $c" peer_image "$img" "$t" mksquashfs "$t" "$img" -noappend \
		-quiet -no-progress -comp "$c" && agree "mksquashfs -comp $c" "$img"
	build "gensquashfs -c $c" peer_image "$img" "$t" gensquashfs -q -f -k -x -c "$c" \
		-D "$t" "$img" && agree "gensquashfs -c $c" "$img"
	build "tar2sqfs -c $c" sh -c 'tar2sqfs -q -f -c "$1" "$2" <"$3"' sh "$c" "$img" \
		"$TMP/tree.tar" && agree "tar2sqfs -c $c" "$img"
done
# (here-documents, not pipes: the loops must run in this shell to count tests)
while IFS='|' read -r opts c; do
	# shellcheck disable=SC2086 # the options are words
	build "mksquashfs -comp $c $opts" peer_image "$img" "$t" mksquashfs "$t" "$img" \
		-noappend -quiet -no-progress -comp "$c" $opts && agree "mksquashfs -comp $c $opts" "$img"
done <<EOF
$mks_opts
EOF
while IFS='|' read -r opts c; do
	# shellcheck disable=SC2086
	build "gensquashfs -c $c $opts" peer_image "$img" "$t" gensquashfs -q -f -k -x -c "$c" \
		$opts -D "$t" "$img" && agree "gensquashfs -c $c $opts" "$img"
done <<EOF
$gen_opts
EOF
while IFS='|' read -r opts c; do
	build "tar2sqfs -c $c $opts" sh -c 'c=$1; i=$2; a=$3; shift 3
		tar2sqfs -q -f -c "$c" "$@" "$i" <"$a"' sh "$c" "$img" "$TMP/tree.tar" $opts &&
		agree "tar2sqfs -c $c $opts" "$img"
done <<EOF
$t2s_opts
EOF

# A tree 1500 directories deep (mksquashfs builds it; the kernel, unsquashfs
# and sqfs2tar read it): fsck and unimage agree on it too, and the walk goes
# all the way down, in more levels than a process may hold open.
deep=$TMP/deep
way=$(awk 'BEGIN { for (i = 0; i < 1500; i++) printf "d/" }')
mkdir -p "$deep/$way"
printf 'at the bottom\n' >"$deep/${way}f"
# Times to restore on the way back up, one level far from the others.
find "$deep" -type d -exec touch -d @1600000000 {} +
touch -d @1700000000 "$deep/$(echo "$way" | cut -c1-400)"
if build "mksquashfs, 1500 levels" mksquashfs "$deep" "$img" -noappend -quiet -no-progress; then
	timeout 300 "$SQUASHKIT" fsck -q "$img" >"$TMP/f.out" 2>&1
	is "$?" 0 "1500 levels: fsck says clean"
	timeout 300 "$SQUASHKIT" unimage -q -d "$TMP/x" "$img" >"$TMP/u.out" 2>&1
	is "$?" 0 "1500 levels: unimage extracts it"
	head -2 "$TMP/u.out" | sed 's/^/#   /'
	is "$(find "$TMP/x" -type d | wc -l)" 1501 "1500 levels: every directory is there"
	same_file "$deep/${way}f" "$TMP/x/${way}f" "1500 levels: the file at the bottom"
	is "$(cd "$TMP/x" && find . -type d -printf '%T@\n' | cut -d. -f1 | uniq -c | xargs)" \
		"200 1600000000 1 1700000000 1300 1600000000" \
		"1500 levels: each directory keeps its time"
	is "$("$SQUASHKIT" ls -R "$img" | grep -c '^/')" 1501 "1500 levels: ls -R lists each directory"
	"$SQUASHKIT" unimage -q -o - "$img" | tar -tf - | grep -c '/f$' >"$TMP/t.out"
	is "$(cat "$TMP/t.out")" 1 "1500 levels: the archive holds the file at the bottom"
	rm -rf "$TMP/x" "$img"
fi

done_testing
