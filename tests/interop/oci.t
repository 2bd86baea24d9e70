#!/bin/sh
# OCI images built from their layout (mkimage --oci) against what umoci
# makes of the same image: the kernel's mount of the image equals the root
# file system `umoci unpack` extracts, every attribute and xattr compared
# (tests/tools/manifest). The layers (tests/interop/oci-lib.sh) replace
# files, remove a file, a directory and one made again by whiteouts, make a
# directory opaque, turn a file into a directory and back, link within a
# layer and to a lower layer's file that a later layer removes, and hold
# symlinks, devices, a fifo, owners, setuid and xattrs in three namespaces'
# worth, in tar, gzip and zstd layers (umoci 0.4 reads no zstd: its copy of
# the image has that layer gzip-compressed, the same tar).
#
# Then: the megabyte a later layer removes is not in the image; the same
# image from oci-archive:FILE (a tar of the layout, plain and gzipped), from
# --archive ... --whiteouts with the layer files and with one of them on
# standard input, byte for byte the same; under a tiny memory budget (every
# structure spilled to --tmpdir, as tests/interop/writer-memory.t forces
# it), an image of three layers (whiteouts, an opaque directory, a link to
# a lower layer's file) and one with a directory removed and made again in
# one layer are the bytes of the build with plenty, for -j 1 and 2, and
# nothing is left in --tmpdir; --oci-layers makes one image per
# layer that the kernel's overlayfs stacks (mount -t overlay, lowest layer
# last) into the flattened image's tree, whiteouts as character devices 0/0
# and opaque directories by trusted.overlay.opaque.
SCRATCH=shm-xattrs
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd umoci tar gzip zstd sha256sum setfattr getfattr mknod
MAN=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq
[ -x "$MAN" ] && [ -x "$JSONQ" ] || skip_all "manifest or jsonq is not built"
. "$SQK_SRCDIR/tests/interop/oci-lib.sh"
scratch_mount

L=$TMP/layers
oci_layers "$L" 2>"$TMP/layers.err" || {
	echo "Bail out! the layers cannot be made: $(head -1 "$TMP/layers.err")"
	exit 1
}
zstd -qdc "$L/l3.tar.zst" | gzip -n >"$L/l3.tar.gz"
IMG=$TMP/img
oci_init "$IMG"
oci_image "$IMG" v1 - "tar:$L/l1.tar" "gzip:$L/l2.tar.gz" "zstd:$L/l3.tar.zst" "tar:$L/l4.tar"
oci_image "$IMG" v2 - "tar:$L/l1.tar" "gzip:$L/l2.tar.gz" "gzip:$L/l5.tar.gz"
UMO=$TMP/img-umoci
oci_init "$UMO"
oci_image "$UMO" v1 - "tar:$L/l1.tar" "gzip:$L/l2.tar.gz" "gzip:$L/l3.tar.gz" "tar:$L/l4.tar"

bytes_used() {
	"$SQUASHKIT" inspect --json "$1" >"$TMP/i.json" 2>&1 && "$JSONQ" "$TMP/i.json" /bytes_used
}

expect_success "mkimage --oci LAYOUT:REF builds the image" \
	"$SQUASHKIT" mkimage -q --oci "$IMG:v1" "$TMP/v1.img"
kernel_view "$TMP/v1.img" "$TMP/v1.man"
if umoci unpack --image "$UMO:v1" "$TMP/bundle" >"$TMP/umoci.out" 2>&1; then
	"$MAN" "$TMP/bundle/rootfs" >"$TMP/umoci.man" 2>&1
	same_file "$TMP/v1.man" "$TMP/umoci.man" \
		"the kernel mounts the image as umoci unpack's root file system"
else
	ok 1 "umoci unpack: $(tail -1 "$TMP/umoci.out")"
fi
grep -q '^xlink file .* xattr:user.one=31$' "$TMP/v1.man" &&
	grep -q '^etc/passwd-hard file .*size=11 ' "$TMP/v1.man" &&
	grep -q '^zlink file .*link=usr/lib/sub/deep$' "$TMP/v1.man"
ok $? "links to a lower layer's file keep its data, its path removed or not"
used=$(bytes_used "$TMP/v1.img")
[ "${used:-0}" -gt 300000 ] && [ "$used" -lt 1048576 ]
ok $? "a removed file's data is not in the image ($used bytes, under the 1 MiB it holds)"

# The same image from an archive of the layout, and from the layers as archives.
(cd "$IMG" && tar -cf "$TMP/img.tar" .) && gzip -n <"$TMP/img.tar" >"$TMP/img.tar.gz"
expect_success "oci-archive:FILE:REF" \
	"$SQUASHKIT" mkimage -q --oci "oci-archive:$TMP/img.tar:v1" "$TMP/ar.img"
same_file "$TMP/ar.img" "$TMP/v1.img" "oci-archive:FILE: the same image, byte for byte"
"$SQUASHKIT" mkimage -q --oci "oci-archive:$TMP/img.tar.gz:v1" "$TMP/arz.img" 2>"$TMP/err"
same_file "$TMP/arz.img" "$TMP/v1.img" "a gzipped oci-archive: the same image"
expect_success "--archive ... --whiteouts with the layers' files" \
	"$SQUASHKIT" mkimage -q --whiteouts --archive="$L/l1.tar" --archive="$L/l2.tar.gz" \
	--archive="$L/l3.tar.zst" --archive="$L/l4.tar" "$TMP/wh.img"
same_file "$TMP/wh.img" "$TMP/v1.img" "--whiteouts: the same image as --oci"
"$SQUASHKIT" mkimage -q --whiteouts --archive="$L/l1.tar" --archive=- \
	--archive="$L/l3.tar.zst" --archive="$L/l4.tar" "$TMP/stdin.img" <"$L/l2.tar.gz"
same_file "$TMP/stdin.img" "$TMP/v1.img" "--whiteouts: a lower layer on stdin (read twice)"

# A tiny budget: the tree's entries in sorted runs, removals and tags among them.
oci_image "$IMG" v3 - "tar:$L/l1.tar" "gzip:$L/l2.tar.gz" "zstd:$L/l3.tar.zst"
SPILL=$TMP/spill
mkdir "$SPILL"
tiny() { SQK_TEST_SPILL=tiny "$SQUASHKIT" mkimage -q --memory 8M --tmpdir "$SPILL" "$@"; }
for ref in v3 v2; do
	rm -f "$TMP/p.img" "$TMP/t1.img" "$TMP/t2.img"
	"$SQUASHKIT" mkimage -q -j 2 --oci "$IMG:$ref" "$TMP/p.img" 2>"$TMP/err" &&
		tiny -j 1 --oci "$IMG:$ref" "$TMP/t1.img" 2>>"$TMP/err" &&
		tiny -j 2 --stats --json --oci "$IMG:$ref" "$TMP/t2.img" >"$TMP/json" 2>>"$TMP/err"
	st=$?
	spilled=$(grep -o '"spilled_bytes":[0-9]*' "$TMP/json" | cut -d: -f2)
	[ $st -eq 0 ] && cmp -s "$TMP/p.img" "$TMP/t1.img" && cmp -s "$TMP/p.img" "$TMP/t2.img" &&
		[ "${spilled:-0}" -gt 0 ] && [ -z "$(ls -A "$SPILL")" ]
	ok $? "$ref in a tiny budget: the image built with plenty, -j 1 and 2 ($spilled bytes spilled)"
	[ $st -eq 0 ] || sed 's/^/#   /' "$TMP/err" | head -5
done
kernel_view "$TMP/t2.img" "$TMP/v2t.man"
grep -q '^usr/lib/again file ' "$TMP/v2t.man" && ! grep -q '^usr/lib/sub' "$TMP/v2t.man" &&
	! grep -q '^again/old ' "$TMP/v2t.man" && grep -q '^again/new ' "$TMP/v2t.man"
ok $? "  v2 (tiny): a directory removed and made again holds only what was made again"

# --oci-layers: one image per layer, stacked by overlayfs.
expect_success "--oci-layers makes one image per layer" \
	"$SQUASHKIT" mkimage -q --oci "$IMG:v2" --oci-layers "$TMP/ly"
is "$(cd "$TMP" && echo ly.*)" "ly.1 ly.2 ly.3" "IMAGE.1 (the lowest) to IMAGE.3"
kernel_view "$TMP/ly.2" "$TMP/ly2.man"
grep -q '^gone chr mode=0644 uid=0 gid=0 mtime=200001002 dev=0:0$' "$TMP/ly2.man" &&
	grep -q '^opq dir .*xattr:trusted.overlay.opaque=79$' "$TMP/ly2.man" &&
	grep -q '^again dir .*xattr:trusted.overlay.opaque=79$' "$TMP/ly2.man" &&
	! grep -q '^opq/old1 \|^\.wh\.' "$TMP/ly2.man"
ok $? "a layer's image: .wh.NAME a device 0/0, .wh..wh..opq and a directory made again opaque"
"$SQUASHKIT" mkimage -q --oci "$IMG:v2" "$TMP/v2.img"
kernel_view "$TMP/v2.img" "$TMP/v2.man"
stack=$TMP/stack
mkdir -p "$stack/1" "$stack/2" "$stack/3" "$stack/ov"
unstack() {
	umount "$stack/ov" 2>/dev/null
	for i in 3 2 1; do umount "$stack/$i" 2>/dev/null; done
}
at_exit unstack
mounted=1
for i in 1 2 3; do
	mount -t squashfs -o loop,ro "$TMP/ly.$i" "$stack/$i" 2>"$TMP/mount.err" || mounted=0
done
if [ $mounted -eq 0 ]; then
	ok 1 "the layers' images mount: $(cat "$TMP/mount.err")"
elif ! mount -t overlay overlay -o "lowerdir=$stack/3:$stack/2:$stack/1" "$stack/ov" \
	2>"$TMP/ov.err"; then
	skip "overlayfs does not mount here: $(cat "$TMP/ov.err")"
else
	"$MAN" "$stack/ov" >"$TMP/ov.man" 2>&1
	same_file "$TMP/ov.man" "$TMP/v2.man" \
		"overlayfs stacks the layers' images into the flattened image's tree"
fi
unstack

# A layer that links to a lower layer's file has no overlayfs form.
"$SQUASHKIT" mkimage -q --oci "$IMG:v1" --oci-layers "$TMP/bad" 2>"$TMP/err"
st=$?
is "$st $(wc -l <"$TMP/err")" "1 1" "--oci-layers: a link to a lower layer's file is refused (exit 1, one line)"
grep -q "xlink: hard link to './etc/keep', which is not in this layer" "$TMP/err"
ok $? "the line names the layer and the link: $(cat "$TMP/err")"
is "$(cd "$TMP" && echo bad*)" "bad.1 bad.2" "the layers below it are complete images, no more"

done_testing
