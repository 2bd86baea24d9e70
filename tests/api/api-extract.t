#!/bin/sh
# api-extract.t: sqk_extract_dir, sqk_extract_archive and
# sqk_extract_archive_fd (tests/api/api-extract.c), built against the
# installed library. What they write is compared with the kernel's mount of
# the image (a directory; a pax archive and a cpio archive, unpacked by
# GNU tar and cpio) and with `squashkit unimage` given the same options
# (archives, byte for byte). Keep-going on a damaged image names the lost
# entries through the callback; without it nothing is left; an existing
# destination is refused without "force"; the errno and path are in the
# message.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs tar cpio unzip
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest
LOCATE=$SQK_TOOLS/locate

api_cc "$SQK_SRCDIR/tests/api/api-extract.c"
x() { api_run api-extract "$@" 2>"$TMP/err"; }

ref_tree "$TMP/tree"
mksquashfs "$TMP/tree" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the reference tree"
mount -t squashfs -o loop,ro "$TMP/img" "$MNT" && "$M" --no-holes "$MNT" >"$TMP/kernel" 2>&1 &&
	"$M" --no-holes --no-xattrs --no-sockets "$MNT" >"$TMP/kernel.cpio" 2>&1 &&
	"$M" --no-holes "$MNT/blocks" >"$TMP/kernel.sub" 2>&1
umount "$MNT"
test -s "$TMP/kernel"
ok $? "the kernel mounts it"

# ---- into a directory ----
x dir "$TMP/img" "$TMP/out"
ok $? "sqk_extract_dir extracts the image"
sed 's/^/#   /' "$TMP/err" | head -5
"$M" --no-holes "$TMP/out" >"$TMP/out.man" 2>&1
same_file "$TMP/kernel" "$TMP/out.man" "the directory is what the kernel shows"

# An existing destination: refused without "force", filled with it.
x dir "$TMP/img" "$TMP/out"
is "$?:$(grep ^error "$TMP/err")" "1:error -11 0 $TMP/out: destination exists (set \"force\")" \
	"an existing destination is refused without force"
x dir "$TMP/img" "$TMP/out" force
ok $? "and filled with it"
"$M" --no-holes "$TMP/out" >"$TMP/out.man" 2>&1
same_file "$TMP/kernel" "$TMP/out.man" "still what the kernel shows"

# A selection: the subtree and its parents, nothing else.
x dir "$TMP/img" "$TMP/sel" /blocks/
ok $? "a selected path extracts"
is "$(ls -A "$TMP/sel")" "blocks" "only the selected path is there"
"$M" --no-holes "$TMP/sel/blocks" >"$TMP/sel.man" 2>&1
same_file "$TMP/kernel.sub" "$TMP/sel.man" "its subtree is what the kernel shows"
x dir "$TMP/img" "$TMP/sel2" /no/such
is "$?:$(grep ^error "$TMP/err")" "1:error -6 0 the image: /no/such: no such file or directory in the image" \
	"a path the image lacks is refused"
test ! -e "$TMP/sel2"
ok $? "before anything is made"

# The errno and the path of the call that failed.
x dir "$TMP/img" "$TMP/none/out"
is "$?:$(grep ^error "$TMP/err")" "1:error -22 2 $TMP/none/out: No such file or directory" \
	"a destination that cannot be made: its errno and path"
mkdir "$TMP/small"
mount -t tmpfs -o size=256k tmpfs "$TMP/small" && at_exit "umount '$TMP/small' 2>/dev/null"
x dir "$TMP/img" "$TMP/small/out"
is "$?:$(grep -c "^error -12 28 $TMP/small/out: /[^:]*: No space left on device\$" "$TMP/err")" "1:1" \
	"a full destination: ENOSPC and the entry's path in the destination"
grep ^error "$TMP/err" | sed 's/^/#   /'
is "$(ls -A "$TMP/small")" "" "and what was made is gone"
x archive "$TMP/img" "$TMP/small/t.tar"
is "$?:$(grep -c "^error -12 28 the archive: No space left on device\$" "$TMP/err")" "1:1" \
	"an archive that does not fit: ENOSPC"
grep ^error "$TMP/err" | sed 's/^/#   /'
is "$(ls -A "$TMP/small")" "" "and no temporary file is left"

# ---- archives ----
# Each is the same bytes as unimage writes with the same options; pax (the
# reference tree) unpacked by GNU tar reads as the kernel does, cpio lists
# the kernel's entries, and unzip finds the files of a plain tree.
mkdir "$TMP/a"
same_as_unimage() { # FORMAT IMAGE
	"$SQUASHKIT" unimage -q --format $1 -o "$TMP/a/unimage.$1" "$2" 2>/dev/null
	x archive "$2" "$TMP/a/api.$1" format=$1
	ok $? "sqk_extract_archive writes $1"
	grep '^error' "$TMP/err" | sed 's/^/#   /'
	cmp -s "$TMP/a/unimage.$1" "$TMP/a/api.$1"
	ok $? "$1: the same bytes as squashkit unimage --format $1"
}
same_as_unimage pax "$TMP/img"
same_as_unimage cpio "$TMP/img"
grep -q '^problem /special/socket 0 socket ignored$' "$TMP/err"
ok $? "the socket an archive cannot hold is a warning through the callback"
api_run api-extract fd "$TMP/img" - format=cpio 2>"$TMP/err" >"$TMP/a/fd.cpio"
ok $? "sqk_extract_archive_fd writes to a pipe"
cmp -s "$TMP/a/unimage.cpio" "$TMP/a/fd.cpio"
ok $? "the same bytes"

mkdir "$TMP/px"
tar -C "$TMP/px" --xattrs --xattrs-include='*' --numeric-owner -xpf "$TMP/a/api.pax" 2>"$TMP/tar.err"
ok $? "GNU tar unpacks the pax archive"
"$M" --no-holes --no-sockets "$TMP/px" >"$TMP/px.man" 2>&1
"$M" --no-holes --no-sockets "$TMP/out" >"$TMP/out.nosock" 2>&1
same_file "$TMP/out.nosock" "$TMP/px.man" "the pax archive holds what the kernel shows (sockets aside)"
# Names as find and cpio print them (one with a newline is two lines in both).
cpio -it --quiet <"$TMP/a/api.cpio" 2>/dev/null | sort >"$TMP/cpio.list"
(cd "$TMP/out" && find . ! -type s | sort) >"$TMP/out.list"
same_file "$TMP/out.list" "$TMP/cpio.list" "cpio lists every entry the kernel shows (sockets aside)"

# gnu, ustar and zip cannot hold all of the reference tree: a plain one.
src=$TMP/k
mkdir -p "$src/d"
seq 1 20000 >"$src/big"
ln "$src/big" "$src/d/biglink"
printf 'small\n' >"$src/d/small"
seq 1 3000 >"$src/other"
"$SQUASHKIT" mkimage -q -c gzip -b 4K "$src" "$TMP/k.img"
ok $? "squashkit mkimage packs a plain tree"
for f in gnu ustar zip; do
	same_as_unimage $f "$TMP/k.img"
done
mkdir "$TMP/zx"
(cd "$TMP/zx" && unzip -qq "$TMP/a/api.zip" >/dev/null 2>&1)
ok $? "unzip unpacks the zip archive"
sums() { (cd "$1" && find . -type f | sort | xargs cksum); }
is "$(sums "$TMP/zx")" "$(sums "$src")" "with every file and its contents (a hard link's too)"

x archive "$TMP/img" "$TMP/a/api.pax"
is "$?:$(grep ^error "$TMP/err")" "1:error -11 0 $TMP/a/api.pax: file exists (set \"force\" to replace it)" \
	"an existing archive is refused without force"
x archive "$TMP/img" "$TMP/a/api.pax" force format=cpio
cmp -s "$TMP/a/unimage.cpio" "$TMP/a/api.pax"
ok $? "and replaced with it"
x archive "$TMP/img" "$TMP/a" force
is "$?:$(grep ^error "$TMP/err")" "1:error -5 0 $TMP/a: is a directory" "a directory is never replaced"
x archive "$TMP/img" "$TMP/a/x" format=rar
is "$?:$(grep ^error "$TMP/err")" \
	"1:error -5 0 unknown archive format 'rar' (pax, gnu, ustar, cpio, zip)" "an unknown format is refused"

# ---- a damaged image ----
smash_block "$TMP/k.img" data /big 3
ok $? "the plain tree's image with a damaged data block"
x dir "$TMP/k.img" "$TMP/k.out"
is "$?:$(ls -A "$TMP" | grep -c '^k.out$')" "1:0" "without keep-going: a failure, nothing left"
grep ^error "$TMP/err" | sed 's/^/#   /'
grep -q "^error -8 0 the image: /\(big\|d/biglink\): " "$TMP/err"
ok $? "the message names the entry"
x dir "$TMP/k.img" "$TMP/k.out" keep-going
is $? 1 "keep-going: a failure at the end"
grep "^problem " "$TMP/err" | cut -d' ' -f2,3 | sort >"$TMP/k.problems"
printf '/big -8\n/d/biglink -8\n' >"$TMP/k.want"
same_file "$TMP/k.want" "$TMP/k.problems" "the callback hears of the lost file and its hard link"
grep -q "^error -8 0 2 entries could not be extracted (the first: /\(big\|d/biglink\))" "$TMP/err"
ok $? "the call returns the first one's error"
is "$(cd "$TMP/k.out" && find . | sort | tr '\n' ' ')" ". ./d ./d/small ./other " "what could be read is kept"
cmp -s "$TMP/k.out/other" "$src/other"
ok $? "whole"
x archive "$TMP/k.img" "$TMP/k.tar"
is "$?:$(ls -A "$TMP" | grep -c '^k.tar')" "1:0" "an archive without keep-going: nothing left"
x archive "$TMP/k.img" "$TMP/k.tar" keep-going
is "$?:$(grep -c "^problem " "$TMP/err")" "1:2" "with it: the two lost entries through the callback"
is "$(tar -tf "$TMP/k.tar" | sort | tr '\n' ' ')" "./ ./d/ ./d/small ./other " "and the archive holds the rest"

# ---- the options ----
x dir "$TMP/img" "$TMP/nx" no-xattrs no-owner threads=1
ok $? "no-xattrs, no-owner, threads=1"
"$M" --no-holes --no-xattrs --no-owner "$TMP/out" >"$TMP/out.nx"
"$M" --no-holes --no-xattrs --no-owner "$TMP/nx" >"$TMP/nx.man"
same_file "$TMP/out.nx" "$TMP/nx.man" "the same tree"
is "$(find "$TMP/nx" ! -uid 0 | wc -l)" 0 "every entry owned by the caller (root)"
is "$(getfattr -R -d -m - "$TMP/nx" 2>/dev/null | grep -c '=')" 0 "without an attribute"
x dir "$TMP/img" "$TMP/xi" xattrs-include=^user
"$M" --no-holes --xattr-ns user "$TMP/out" >"$TMP/out.xu"
"$M" --no-holes "$TMP/xi" >"$TMP/xi.man"
same_file "$TMP/out.xu" "$TMP/xi.man" "xattrs-include=^user restores the user attributes alone"
x dir "$TMP/img" "$TMP/bad" xattrs-exclude='('
is "$?:$(grep -c "^error -5 0 invalid xattrs-exclude '(': " "$TMP/err")" "1:1" "a bad pattern is refused"
x dir "$TMP/img" "$TMP/bad" nosuch
is "$?:$(grep ^error "$TMP/err")" "1:error -5 0 no extract switch 'nosuch'" "an unknown option is refused"

done_testing
