#!/bin/sh
# api.t: the public API as a program gets it. make install DESTDIR=...; the
# test programs of tests/api and the examples build against the installed
# headers and pkg-config file alone and run with the shared library. Each
# program's results are compared with what the peers see: the kernel's
# mount, unsquashfs, and the trees the images were built from. Extraction
# has its own test, api-extract.t.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs
need_cmd unsquashfs
need_cmd setfattr
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest

for src in "$SQK_SRCDIR"/tests/api/api-read.c "$SQK_SRCDIR"/tests/api/api-build.c \
	"$SQK_SRCDIR"/tests/api/api-check.c "$SQK_SRCDIR"/tests/api/api-diff.c \
	"$SQK_SRCDIR"/examples/*.c; do
	api_cc "$src"
done
LD_LIBRARY_PATH=$api_lib ldd "$TMP/bin/api-read" | grep -q "=> $api_lib/libsquashkit.so.1 "
ok $? "the programs load the installed libsquashkit.so.1"

# ---- reading: an image mksquashfs wrote, opened every way ----
ref_tree "$TMP/tree"
mksquashfs "$TMP/tree" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the reference tree"
mount -t squashfs -o loop,ro "$TMP/img" "$MNT" && "$M" --no-holes "$MNT" >"$TMP/kernel" 2>&1
umount "$MNT"
test -s "$TMP/kernel"
ok $? "the kernel mounts it"

# An image inside a blob: 12345 bytes before it.
head -c 12345 /dev/urandom >"$TMP/blob"
cat "$TMP/img" >>"$TMP/blob"
for how in path offset auto fd io; do
	file=$TMP/img
	case $how in offset | auto) file=$TMP/blob ;; esac
	rm -rf "$TMP/out-$how"
	api_run api-read "$how" "$file" "$TMP/out-$how" 12345 >"$TMP/read-$how" 2>"$TMP/err"
	ok $? "api-read opens the image by $how, lists, walks and reads it whole"
	sed 's/^/#   /' "$TMP/err" | head -10
	"$M" --no-holes "$TMP/out-$how" >"$TMP/man-$how" 2>&1
	same_file "$TMP/kernel" "$TMP/man-$how" "what it read ($how) is what the kernel shows"
done
sed -n 's/^list //p' "$TMP/read-path" | sort >"$TMP/listed"
awk '$1 != "." { print $1 }' "$TMP/kernel" | sort >"$TMP/kpaths"
same_file "$TMP/kpaths" "$TMP/listed" "sqk_dir_next lists every entry the kernel shows"
is "$(sed -n 's/^offset //p' "$TMP/read-auto")" 12345 "offset auto finds the image at 12345"

unsquashfs -s "$TMP/img" >"$TMP/peer" 2>&1
fact() { sed -n "s/^$1 //p" "$TMP/read-path"; }
is "$(fact inodes)" "$(sed -n 's/^Number of inodes //p' "$TMP/peer")" "inodes as unsquashfs counts them"
is "$(fact block_size)" "$(sed -n 's/^Block size //p' "$TMP/peer")" "block size as unsquashfs says"
is "$(fact bytes_used)" "$(sed -n 's/^Filesystem size \([0-9]*\) bytes.*/\1/p' "$TMP/peer")" \
	"bytes used as unsquashfs says"
is "$(fact compressor)" "$(sed -n 's/^Compression //p' "$TMP/peer")" "the compressor as unsquashfs says"
is "$(fact version)" "$("$SQUASHKIT" --version | awk '{ print $NF }')" \
	"sqk_version() is the version of the squashkit built with it"

# ---- building entry by entry ----
D=$TMP/b
mkdir -p "$D/src/sub" "$D/arc/a" "$D/out" "$D/data"
printf 'one\n' >"$D/src/one"
printf 'skip\n' >"$D/src/skipme"
printf 'deep\n' >"$D/src/sub/f"
printf 'in the archive\n' >"$D/arc/a/f"
tar -C "$D/arc" -cf "$D/arc.tar" a
printf 'dir list 0755 0 0\nfile list/f 0644 9 9 %s\nslink list/l 0777 0 0 f\nnod list/c 0600 0 0 c 4 5\npipe list/p 0644 0 0\n' \
	"$D/src/one" >"$D/listing"
printf 'ps/d2 d 0700 1 1\n' >"$D/pseudo"
head -c 20000 /dev/urandom >"$D/host"
: >"$D/out/image" # replaced: the build is told to force
api_run api-build "$D/out/image" "$D/src" "$D/arc.tar" "$D/listing" "$D/pseudo" "$D/host" \
	"$D/data" 2>"$TMP/err"
ok $? "api-build builds an image from sources and entries added one by one"
sed 's/^/#   /' "$TMP/err" | head -20

# The same tree made on the host.
R=$TMP/ref
mkdir "$R"
cp -a "$D/src/." "$R/"
rm "$R/skipme"
tar -C "$R" -xf "$D/arc.tar"
mkdir -m 0755 "$R/list" "$R/api"
install -m 0644 -o 9 -g 9 "$D/src/one" "$R/list/f"
ln -s f "$R/list/l"
mknod -m 0600 "$R/list/c" c 4 5
mkfifo -m 0644 "$R/list/p"
mkdir -m 0711 "$R/ps" && chown 7:8 "$R/ps"
mkdir -m 0700 "$R/ps/d2" && chown 1:1 "$R/ps/d2"
chown 5:6 "$R/api"
setfattr -n trusted.x "$R/api"
mkdir -p -m 0750 "$R/api/sub/deep" && chown -R 1:2 "$R/api/sub" && chmod 0750 "$R/api/sub"
install -m 0640 -o 3 -g 4 "$D/host" "$R/api/host"
install -m 0640 -o 3 -g 4 "$D/data/data" "$R/api/data"
install -m 0640 -o 3 -g 4 "$D/data/fn" "$R/api/fn"
install -m 0640 -o 3 -g 4 /dev/null "$R/api/empty"
setfattr -n user.comment -v hello "$R/api/data"
ln "$R/api/data" "$R/api/hard"
ln -s data "$R/api/link"
mknod -m 0640 "$R/api/blk" b 8 1
mknod -m 0640 "$R/api/chr" c 1 300
mkfifo -m 0640 "$R/api/fifo"
chown 3:4 "$R/api/blk" "$R/api/chr" "$R/api/fifo"
find "$R" -exec touch -h -d @1700000000 {} +
"$M" --no-sockets --no-holes "$R" >"$TMP/ref.man"

mount -t squashfs -o loop,ro "$D/out/image" "$MNT" 2>"$TMP/err"
ok $? "the kernel mounts the built image"
"$M" --no-sockets --no-holes "$MNT" >"$TMP/built.kernel" 2>&1
test -S "$MNT/api/sock" && [ "$(stat -c '%a %u %g' "$MNT/api/sock")" = "640 3 4" ]
ok $? "the socket is there, with its mode and owner"
umount "$MNT"
same_file "$TMP/ref.man" "$TMP/built.kernel" "the kernel reads the tree made on the host"
unsquashfs -no-progress -d "$TMP/unsq" "$D/out/image" >/dev/null 2>&1
ok $? "unsquashfs extracts the built image"
"$M" --no-sockets --no-holes "$TMP/unsq" >"$TMP/built.unsq" 2>&1
same_file "$TMP/ref.man" "$TMP/built.unsq" "unsquashfs reads the tree made on the host"

# ---- verifying: problems as data ----
api_run api-check "$TMP/img" >"$TMP/check" 2>"$TMP/err"
ok $? "api-check checks the clean image from its path and from memory alike"
is "$(sed -n 's/^clean //p' "$TMP/check")" 1 "it is clean"
blocks=$(sed -n 's/^blocks //p' "$TMP/check")
ok "$([ "$blocks" -gt 0 ] 2>/dev/null; echo $?)" "it decompressed data blocks ($blocks)"
is "$(sed -n 's/^fills //p' "$TMP/check")" "$blocks" \
	"the report's image: each data block the check counted was decompressed once"
. "$SQK_SRCDIR/tests/interop/tamper-base.sh"
tamper_base "$TMP/tb" "$TMP/tb.img" || echo "Bail out! mksquashfs failed"
for kind in data dir-order nlink id fragment; do
	"$SQK_TOOLS/tamper" "$kind" "$TMP/tb.img" "$TMP/bad.img" >/dev/null 2>&1 || {
		ok 1 "tamper makes a $kind problem"
		continue
	}
	api_run api-check "$TMP/bad.img" >"$TMP/check" 2>"$TMP/err"
	ok $? "api-check checks an image with a $kind problem"
	grep -q "^clean 0$" "$TMP/check" && grep -q "^problem $kind " "$TMP/check"
	ok $? "it is not clean, and the problems name the check $kind"
	sed -n 's/^problem /#   /p' "$TMP/check" | head -5
done

# ---- comparing: changes as data ----
cp -a "$TMP/tree" "$TMP/tree2"
f=$(cd "$TMP/tree2" && find . -type f -size +1k -links 1 | sort | head -1)
f=${f#.}
printf 'Z' | dd of="$TMP/tree2$f" bs=1 seek=100 conv=notrunc status=none
chmod 0600 "$TMP/tree2$f"
printf 'new\n' >"$TMP/tree2/added-by-test"
mksquashfs "$TMP/tree2" "$TMP/img2" -noappend -quiet -no-progress >/dev/null 2>&1
api_run api-diff "$TMP/img" "$TMP/img2" >"$TMP/diff" 2>"$TMP/err"
is $? 1 "api-diff says the images differ"
grep -v "^mtime " "$TMP/diff" >"$TMP/diff.got"
printf 'added /added-by-test\nmode %s 0644 0600\ncontents %s at 100\n' "$f" "$f" | sort >"$TMP/diff.want"
sort "$TMP/diff.got" >"$TMP/diff.sorted"
same_file "$TMP/diff.want" "$TMP/diff.sorted" "the changes are the three made"
api_run api-diff "$TMP/img" "$TMP/tree" >"$TMP/diff" 2>"$TMP/err"
is $? 0 "an image and the tree it was built from are the same"
api_run api-diff "$TMP/img" "$TMP/img2" no-contents no-permissions "exclude=added-by-test" \
	>"$TMP/diff" 2>"$TMP/err"
is "$?:$(cat "$TMP/diff")" "0:" "the options leave out contents, modes and an excluded path"

# ---- the examples ----
api_run sqk-cat "$TMP/img" "$f" >"$TMP/cat" 2>"$TMP/err"
cmp -s "$TMP/cat" "$TMP/tree$f"
ok $? "examples/sqk-cat.c writes out a file of the image"
api_run sqk-cat "$TMP/img" /no/such >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:sqk-cat: /no/such: no such file or directory in the image" \
	"and says which path is missing"
(cd "$D" && find src arc | api_run sqk-pack "$TMP/pack.img") 2>"$TMP/err"
ok $? "examples/sqk-pack.c builds an image from a list of paths"
mount -t squashfs -o loop,ro "$TMP/pack.img" "$MNT" &&
	"$M" --no-mtime-dirs "$MNT/src" >"$TMP/pack.src" && "$M" --no-mtime-dirs "$MNT/arc" >"$TMP/pack.arc"
umount "$MNT"
"$M" --no-mtime-dirs "$D/src" >"$TMP/host.src"
"$M" --no-mtime-dirs "$D/arc" >"$TMP/host.arc"
same_file "$TMP/host.src" "$TMP/pack.src" "the kernel reads src/ as it was listed"
same_file "$TMP/host.arc" "$TMP/pack.arc" "and arc/"
api_run sqk-extract "$TMP/img" "$TMP/ex" 2>"$TMP/err"
ok $? "examples/sqk-extract.c extracts an image"
"$M" --no-holes "$TMP/ex" >"$TMP/ex.man" 2>&1
same_file "$TMP/kernel" "$TMP/ex.man" "what it made is what the kernel shows"
api_run sqk-extract "$TMP/img" "$TMP/ex" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:sqk-extract: $TMP/ex: destination exists (set \"force\")" \
	"and refuses an existing destination"
api_run sqk-verify "$TMP/img" "$TMP/pack.img" >"$TMP/verify" 2>&1
is "$?:$(tail -1 "$TMP/verify")" "0:$TMP/pack.img: clean" "examples/sqk-verify.c passes clean images"
api_run sqk-verify "$TMP/bad.img" >"$TMP/verify" 2>&1
is $? 1 "and fails a damaged one"
grep -q "^$TMP/bad.img: /.*: fragment: " "$TMP/verify"
ok $? "printing its problem"
api_run sqk-verify "$TMP/none.img" >"$TMP/verify" 2>&1
is "$?:$(cat "$TMP/verify")" "2:sqk-verify: $TMP/none.img: No such file or directory" \
	"an image that cannot be read is exit status 2"

done_testing
