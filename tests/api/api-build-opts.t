#!/bin/sh
# api-build-opts.t: the build options of squashkit/build.h that mkimage
# has (modes, the root's owner, xattr filters and additions, the sort
# file, the parts stored uncompressed, no-pad, the epoch, reuse of earlier
# images, exclude-from, named-sources, full-paths, offset) and the sources (a
# directory, an archive, a listing, a pseudo file). Each image built
# through the API (tests/api/api-build-opts.c, against the installed
# library) is compared byte for byte with the image `squashkit mkimage`
# builds from the same sources with the same options; the kernel and
# unsquashfs read one of each group.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd unsquashfs setfattr tar
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest

api_cc "$SQK_SRCDIR/tests/api/api-build-opts.c"

S=$TMP/src
mkdir -p "$S/a/b" "$S/c"
seq 1 30000 >"$S/a/big"
head -c 300000 /dev/urandom >"$S/a/b/random"
printf 'small\n' >"$S/c/small"
printf 'other\n' >"$S/top"
ln -s a/big "$S/link"
setfattr -n user.one -v 1 "$S/a/big"
setfattr -n trusted.two -v 2 "$S/c"
chmod 0750 "$S/a/b"
find "$S" -exec touch -h -d @1600000000 {} +
printf 'a/b/random 10\nc/small 5\n' >"$TMP/sortfile"
mkdir -p "$TMP/arc/from-archive"
printf 'archived\n' >"$TMP/arc/from-archive/f"
tar -C "$TMP/arc" --mtime=@1600000000 -cf "$TMP/src.tar" from-archive
printf 'dir listed 0755 0 0\nslink listed/l 0777 0 0 target\n' >"$TMP/listing"
printf 'pseudo d 0755 0 0\npseudo/d d 0700 1 1\npseudo/f f 0644 2 2 echo hi\n' >"$TMP/pseudo"

n=0
# same DESC "API ARGS" "MKIMAGE ARGS" [ENV]: the image the API builds from
# $S and the one mkimage builds from $S with the options it is given, byte
# for byte (words split on spaces: no spaces in the arguments).
same() {
	n=$((n + 1))
	# shellcheck disable=SC2086
	api_run api-build-opts "$TMP/api$n.img" $2 dir="$S" >"$TMP/out" 2>"$TMP/err"
	ok $? "$1: the API builds it"
	sed 's/^/#   /' "$TMP/err" | head -5
	# shellcheck disable=SC2086
	env ${4:-} "$SQUASHKIT" mkimage -q $3 "$S" "$TMP/mk$n.img" 2>"$TMP/err"
	ok $? "$1: mkimage builds it"
	sed 's/^/#   /' "$TMP/err" | head -5
	cmp "$TMP/api$n.img" "$TMP/mk$n.img" >"$TMP/cmp" 2>&1
	ok $? "$1: the same bytes"
	sed 's/^/#   /' "$TMP/cmp" | head -3
}

# kernel_reads N WHAT: the kernel mounts image N and shows what unsquashfs
# extracts (a symlink's mode aside: unsquashfs makes every one 0777).
kernel_reads() {
	rm -rf "$TMP/unsq"
	unsquashfs -no-progress -d "$TMP/unsq" "$TMP/api$1.img" >/dev/null 2>&1
	mount -t squashfs -o loop,ro "$TMP/api$1.img" "$MNT" 2>/dev/null &&
		"$M" --no-holes "$MNT" >"$TMP/kernel.man" 2>&1
	umount "$MNT" 2>/dev/null
	"$M" --no-holes "$TMP/unsq" >"$TMP/unsq.man" 2>&1
	sed -i 's/ symlink mode=[0-7]*/ symlink/' "$TMP/kernel.man" "$TMP/unsq.man"
	same_file "$TMP/kernel.man" "$TMP/unsq.man" "$2: the kernel and unsquashfs read the same tree"
}

same "modes and the root's owner" \
	"file-mode=0600 dir-mode=u+rwX,go-w root-mode=0700 root-uid=5 root-gid=6" \
	"--file-mode 0600 --dir-mode u+rwX,go-w --root-mode 0700 --root-uid 5 --root-gid 6"
kernel_reads $n "modes"
is "$(stat -c '%a %u %g' "$TMP/unsq")" "700 5 6" "the root's mode and owner"
is "$(stat -c '%a' "$TMP/unsq/a/big" "$TMP/unsq/a/b")" "$(printf '600\n750')" \
	"a file's mode, a directory's"

same "xattr filters and additions" \
	"xattrs-include=^user xattrs-add=user.added=0x4142 xattrs-add=trusted.t=v" \
	"--xattrs-include ^user --xattrs-add user.added=0x4142 --xattrs-add trusted.t=v"
kernel_reads $n "xattrs"
is "$(getfattr --only-values -n user.added "$TMP/unsq/top" 2>/dev/null)" "AB" "every inode gets the added attribute"
getfattr -n trusted.two "$TMP/unsq/c" >/dev/null 2>&1
is $? 1 "an attribute the include pattern leaves out is not there"
same "xattrs-exclude" "xattrs-exclude=^user" "--xattrs-exclude ^user"

same "the sort file" "sort=$TMP/sortfile" "--sort $TMP/sortfile"
same "the parts stored uncompressed" "uncompressed=inodes,data,fragments,xattrs,ids" \
	"--uncompressed inodes,data,fragments,xattrs,ids"
kernel_reads $n "uncompressed"
unsquashfs -s "$TMP/api$n.img" >"$TMP/s" 2>&1
grep -q "^Inodes are uncompressed" "$TMP/s" && grep -q "^Data is uncompressed" "$TMP/s" &&
	grep -q "^Fragments are uncompressed" "$TMP/s"
ok $? "unsquashfs says inodes, data and fragments are uncompressed"
same "no-pad" "no-pad" "--no-pad"
is "$(($(stat -c %s "$TMP/api$n.img") % 4096 != 0))" 1 "the image ends at its last byte"
same "the epoch" "source-date-epoch=1500000000" "" SOURCE_DATE_EPOCH=1500000000
kernel_reads $n "epoch"
is "$(stat -c %Y "$TMP/unsq/top")" 1500000000 "it clamps newer times"

# Reuse: an earlier image with one file changed since.
"$SQUASHKIT" mkimage -q -b 64K "$S" "$TMP/old.img"
printf 'changed\n' >>"$S/top"
touch -d @1600000000 "$S/top"
same "reuse" "block-size=64K reuse=$TMP/old.img" "-b 64K --reuse $TMP/old.img"
api_run api-build-opts "$TMP/r.img" block-size=64K "reuse=$TMP/old.img" dir="$S" >"$TMP/out" 2>&1
blocks=$(sed -n 's/^reused_blocks //p' "$TMP/out")
[ "${blocks:-0}" -gt 0 ]
ok $? "blocks are reused ($blocks)"
head -c 4321 /dev/urandom >"$TMP/blob"
cat "$TMP/old.img" >>"$TMP/blob"
same "reuse at an offset found" "block-size=64K reuse=$TMP/blob reuse-offset=auto" \
	"-b 64K --reuse $TMP/blob --reuse-offset auto"
api_run api-build-opts "$TMP/r.img" force "reuse=$TMP/old.img" compressor=gzip dir="$S" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:error -5 $TMP/old.img: cannot be reused: compressed with zstd, not gzip" \
	"an image that cannot serve is refused, with why"

printf '# a comment\n\na/b\ntop\n' >"$TMP/excludes"
same "exclude-from" "exclude-from=$TMP/excludes" "--exclude-from $TMP/excludes"
kernel_reads $n "exclude-from"
is "$(ls "$TMP/unsq" "$TMP/unsq/a" | tr '\n' ' ')" "$TMP/unsq: a c link  $TMP/unsq/a: big " \
	"the patterns of the file are left out"

# named-sources and full-paths: what a directory source becomes.
n=$((n + 1))
api_run api-build-opts "$TMP/api$n.img" named-sources dir="$S/a" dir="$S/top" >/dev/null 2>"$TMP/err"
ok $? "named-sources: the API builds it"
"$SQUASHKIT" mkimage -q --named-sources "$S/a" "$S/top" "$TMP/mk$n.img" 2>"$TMP/err"
cmp -s "$TMP/api$n.img" "$TMP/mk$n.img"
ok $? "named-sources: the same bytes as mkimage"
kernel_reads $n "named-sources"
is "$(ls "$TMP/unsq" | tr '\n' ' ')" "a top " "each source under its own name"
n=$((n + 1))
# From a directory nothing is written to: the leading directories (and the
# root) take their attributes from it, and an image being written beside
# them would change its time between the two builds.
mkdir -p "$TMP/fp/src/a"
cp -a "$S/a/b" "$TMP/fp/src/a/"
touch -d @1600000000 "$TMP/fp/src/a" "$TMP/fp/src" "$TMP/fp"
(cd "$TMP/fp" && api_run api-build-opts "$TMP/api$n.img" full-paths dir=src/a/b >/dev/null 2>"$TMP/err")
ok $? "full-paths: the API builds it"
(cd "$TMP/fp" && "$SQUASHKIT" mkimage -q --full-paths src/a/b "$TMP/mk$n.img" 2>"$TMP/err")
cmp -s "$TMP/api$n.img" "$TMP/mk$n.img"
ok $? "full-paths: the same bytes as mkimage"
kernel_reads $n "full-paths"
test -f "$TMP/unsq/src/a/b/random" && [ "$(ls "$TMP/unsq")" = src ]
ok $? "the source at its own path"
api_run api-build-opts "$TMP/bad.img" named-sources full-paths dir="$S" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:error -5 named-sources and full-paths exclude each other" \
	"named-sources and full-paths exclude each other"

# An image after bytes kept in front of it (an AppImage's runtime, say).
n=$((n + 1))
head -c 12345 /dev/urandom >"$TMP/api$n.img"
chmod 0755 "$TMP/api$n.img"
cp -p "$TMP/api$n.img" "$TMP/mk$n.img"
cp "$TMP/api$n.img" "$TMP/lead"
api_run api-build-opts "$TMP/api$n.img" offset=12345 dir="$S" >/dev/null 2>"$TMP/err"
ok $? "offset: the API builds it"
sed 's/^/#   /' "$TMP/err" | head -5
"$SQUASHKIT" mkimage -q --offset 12345 "$S" "$TMP/mk$n.img" 2>"$TMP/err"
cmp -s "$TMP/api$n.img" "$TMP/mk$n.img"
ok $? "offset: the same bytes as mkimage"
head -c 12345 "$TMP/api$n.img" | cmp -s - "$TMP/lead" && [ "$(stat -c %a "$TMP/api$n.img")" = 755 ]
ok $? "the leading bytes and the file's mode are kept"
mount -t squashfs -o loop,ro,offset=12345 "$TMP/api$n.img" "$MNT" 2>/dev/null &&
	"$M" --no-holes "$MNT" >"$TMP/kernel.man" 2>&1
umount "$MNT" 2>/dev/null
"$M" --no-holes "$S" >"$TMP/src.man" 2>&1
same_file "$TMP/src.man" "$TMP/kernel.man" "the kernel mounts it at the offset and reads the source"
api_run api-build-opts "$TMP/api$n.img" offset=100 dir="$S" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" \
	"1:error -11 $TMP/api$n.img: has bytes after offset 100 (set \"force\" to replace them)" \
	"bytes after the offset are not replaced without force"
api_run api-build-opts "$TMP/none.img" offset=100 dir="$S" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" \
	"1:error -22 $TMP/none.img: offset needs the existing file: No such file or directory" \
	"an offset needs the existing file"

# Sources: an archive, a listing, a pseudo file beside the directory.
n=$((n + 1))
api_run api-build-opts "$TMP/api$n.img" dir="$S" archive="$TMP/src.tar" listing="$TMP/listing" \
	pseudo-file="$TMP/pseudo" >/dev/null 2>"$TMP/err"
ok $? "the API builds from a directory, an archive, a listing and a pseudo file"
sed 's/^/#   /' "$TMP/err" | head -5
"$SQUASHKIT" mkimage -q "$S" --archive="$TMP/src.tar" --listing "$TMP/listing" \
	--pseudo-file "$TMP/pseudo" "$TMP/mk$n.img" 2>"$TMP/err"
cmp -s "$TMP/api$n.img" "$TMP/mk$n.img"
ok $? "the same bytes as mkimage from the same sources"
kernel_reads $n "sources"
is "$(cat "$TMP/unsq/from-archive/f" "$TMP/unsq/pseudo/f"; readlink "$TMP/unsq/listed/l")" \
	"$(printf 'archived\nhi\ntarget')" "each source's entries are there"

# Bad values are refused when set.
for bad in "file-mode=0999" "root-uid=x" "xattrs-include=(" "xattrs-add=nons=1" \
	"sort=$TMP/none" "exclude-from=$TMP/none" "uncompressed=inodes,nothing" "source-date-epoch=-1" "reuse-offset=x" "offset=x"; do
	api_run api-build-opts "$TMP/bad.img" "$bad" dir="$S" >/dev/null 2>"$TMP/err"
	is "$?:$(grep -c '^error -[0-9]* ' "$TMP/err")" "1:1" "$bad is refused"
	sed 's/^/#   /' "$TMP/err"
done
test ! -e "$TMP/bad.img"
ok $? "and no image is left"

done_testing
