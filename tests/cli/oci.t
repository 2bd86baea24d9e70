#!/bin/sh
# mkimage --oci: which image of a layout is built (REF, the only one, a
# platform of an index, through a nested index, this machine's by default),
# and every way a layout can be wrong refused in one line, exit 1, with
# nothing written: a blob whose bytes are not its digest's, one of another
# size than its descriptor's, a missing blob, a layer that is no tar or not
# compressed as its media type says, a whiteout outside the tree (../.wh.x,
# an absolute path), one that names nothing, no oci-layout, an index that
# is not JSON, a choice that is not clear. And the options' own checks.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd tar gzip zstd sha256sum
. "$SQK_SRCDIR/tests/interop/oci-lib.sh"
SQK=$SQUASHKIT

# layer NAME FILE=TEXT...: a tar layer $TMP/NAME.tar of those files.
layer() {
	_n=$1
	shift
	rm -rf "$TMP/src-$_n"
	mkdir -p "$TMP/src-$_n"
	for _f; do
		mkdir -p "$TMP/src-$_n/$(dirname "${_f%%=*}")"
		printf '%s\n' "${_f#*=}" >"$TMP/src-$_n/${_f%%=*}"
	done
	tar --sort=name -C "$TMP/src-$_n" -cf "$TMP/$_n.tar" .
}
# content IMAGE FILE: what FILE of IMAGE holds.
content() { "$SQK" cat "$1" "$2" 2>&1; }

layer base etc/os=base a/b=b
layer amd arch=amd64
layer arm arch=arm64
layer v7 arch=armv7
L=$TMP/lay
oci_init "$L"
oci_image "$L" - linux/amd64 "tar:$TMP/base.tar" "tar:$TMP/amd.tar"
oci_image "$L" - linux/arm64 "tar:$TMP/base.tar" "tar:$TMP/arm.tar"
oci_image "$L" - linux/arm/v7 "tar:$TMP/base.tar" "tar:$TMP/v7.tar"

case $(uname -m) in
x86_64) native=amd64 ;;
aarch64) native=arm64 ;;
*) native= ;;
esac
if [ -n "$native" ]; then
	"$SQK" mkimage -q --oci "$L" "$TMP/n.img"
	is "$(content "$TMP/n.img" arch)" "$native" "an index of platforms: this machine's by default"
else
	skip "this machine ($(uname -m)) has no image in the test's index"
fi
"$SQK" mkimage -q --oci "$L" --platform linux/arm64 "$TMP/a.img"
is "$(content "$TMP/a.img" arch)" arm64 "--platform linux/arm64"
"$SQK" mkimage -q --oci "$L" --platform linux/arm/v7 "$TMP/v.img"
is "$(content "$TMP/v.img" arch)" armv7 "--platform linux/arm/v7 (a variant)"
is "$(content "$TMP/v.img" etc/os)" base "the lower layer is there too"

# refused DESC WANT CMD...: exit 1, one line on stderr matching WANT, no image.
refused() {
	desc=$1
	want=$2
	shift 2
	rm -rf "$TMP/out" && mkdir "$TMP/out"
	"$@" >"$TMP/o" 2>"$TMP/e"
	st=$?
	if [ $st -eq 1 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] && grep -q -- "$want" "$TMP/e" &&
		[ -z "$(ls -A "$TMP/out")" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   exit $st, want 1 and one line matching '$want', nothing in out/:"
		sed 's/^/#   /' "$TMP/e"
		ls -A "$TMP/out" | sed 's/^/#   left: /'
	fi
}

refused "a platform the index lacks: said, with what it has" \
	"no image for platform linux/riscv64 (it has: linux/amd64, linux/arm64, linux/arm/v7; --platform chooses)" \
	"$SQK" mkimage -q --oci "$L" --platform linux/riscv64 "$TMP/out/x.img"
oci_image "$L" - linux/arm64 "tar:$TMP/base.tar"
refused "two images of one platform: ambiguous" \
	"2 images for platform linux/arm64: name one as LAYOUT:REF" \
	"$SQK" mkimage -q --oci "$L" --platform linux/arm64 "$TMP/out/x.img"

# Names (REF), and a nested index.
N=$TMP/named
oci_init "$N"
oci_image "$N" first - "tar:$TMP/base.tar" "tar:$TMP/amd.tar"
oci_image "$N" second - "tar:$TMP/base.tar" "tar:$TMP/arm.tar"
"$SQK" mkimage -q --oci "$N:second" "$TMP/s.img"
is "$(content "$TMP/s.img" arch)" arm64 "LAYOUT:REF picks the image by its ref.name"
refused "--platform that the only image is not for" \
	"its image is for platform linux/arm64, not linux/s390x" \
	sh -c "cd '$TMP' && rm -rf one one.entries && . '$SQK_SRCDIR/tests/interop/oci-lib.sh' &&
		oci_init one && oci_image one - linux/arm64 'tar:$TMP/arm.tar' &&
		exec '$SQK' mkimage -q --oci one --platform linux/s390x '$TMP/out/x.img'"
refused "several images and no REF" "2 images: name one as LAYOUT:REF (first, second)" \
	"$SQK" mkimage -q --oci "$N" "$TMP/out/x.img"
refused "a REF the layout lacks" "no image named 'third' (it has: first, second)" \
	"$SQK" mkimage -q --oci "$N:third" "$TMP/out/x.img"
# The per-platform index of $L as a blob, named in a layout's index.json.
X=$TMP/nested
oci_init "$X"
cp "$L"/blobs/sha256/* "$X/blobs/sha256/"
cp "$L/index.json" "$TMP/inner.json"
d=$(oci_put "$X" "$TMP/inner.json")
printf '{"schemaVersion":2,"manifests":[%s]}\n' \
	"$(oci_desc application/vnd.oci.image.index.v1+json "${d% *}" "${d#* }" \
		',"annotations":{"org.opencontainers.image.ref.name":"multi"}')" >"$X/index.json"
"$SQK" mkimage -q --oci "$X:multi" --platform linux/arm/v7 "$TMP/x.img"
is "$(content "$TMP/x.img" arch)" armv7 "REF naming an index of platforms, --platform within it"
mkdir "$TMP/a:b"
cp -r "$N"/* "$TMP/a:b/"
"$SQK" mkimage -q --oci "$TMP/a:b:first" "$TMP/colon.img"
is "$(content "$TMP/colon.img" arch)" amd64 "a layout path with ':' in it, and a REF"

# A simple image to break in every way.
layer top top=top .wh.gone=
layer low gone=g keep=k
B=$TMP/b
# fresh KIND:FILE: the image of low.tar and that layer, made anew.
fresh() {
	rm -rf "$B" "$B.entries"
	oci_init "$B"
	oci_image "$B" - - "tar:$TMP/low.tar" "$1"
}
gzip -n <"$TMP/top.tar" >"$TMP/top.tar.gz"
fresh "gzip:$TMP/top.tar.gz"
"$SQK" mkimage -q --oci "$B" "$TMP/ok.img"
is "$("$SQK" ls "$TMP/ok.img" 2>&1 | tr '\n' ' ')" "keep top " "the image to break builds: the whiteout applied"
blob() { echo "$B/blobs/sha256/$(sha256sum <"$1" | cut -d' ' -f1)"; }
printf 'X' | dd of="$(blob "$TMP/top.tar.gz")" bs=1 seek=30 conv=notrunc status=none
refused "a blob whose bytes are not its digest's: said so, whatever else broke in them" \
	"$(blob "$TMP/top.tar.gz"): digest mismatch: its bytes hash to sha256:" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
fresh "gzip:$TMP/top.tar.gz"
printf '\0' >>"$(blob "$TMP/top.tar.gz")"
refused "a blob longer than its descriptor says" "more than the $(wc -c <"$TMP/top.tar.gz") bytes its descriptor says" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
fresh "gzip:$TMP/top.tar.gz"
rm "$(blob "$TMP/low.tar")"
refused "a missing blob" "$(blob "$TMP/low.tar"): No such file or directory" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
head -c 3000 /dev/urandom | gzip -n >"$TMP/rnd.gz"
fresh "gzip:$TMP/rnd.gz"
refused "a layer that is no tar" "$(blob "$TMP/rnd.gz"): not a tar archive" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
fresh "gzip:$TMP/top.tar"
refused "a layer not compressed as its media type says" \
	"$(blob "$TMP/top.tar"): not gzip-compressed, as its media type says" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
mkdir -p "$TMP/esc"
: >"$TMP/esc/x"
tar -P --transform='s,^.*/esc/x$,../.wh.keep,' -cf "$TMP/esc.tar" "$TMP/esc/x" 2>/dev/null
fresh "tar:$TMP/esc.tar"
refused "a whiteout escaping the tree (../.wh.x)" \
	"$(blob "$TMP/esc.tar"): ../.wh.keep: a whiteout outside the image's tree" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
tar -P --transform='s,^.*/esc/x$,/keep/../.wh.keep,' -cf "$TMP/abs.tar" "$TMP/esc/x" 2>/dev/null
fresh "tar:$TMP/abs.tar"
refused "an absolute whiteout" "/keep/../.wh.keep: a whiteout outside the image's tree" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
tar -P --transform='s,^.*/esc/x$,a/.wh.,' -cf "$TMP/none.tar" "$TMP/esc/x" 2>/dev/null
fresh "tar:$TMP/none.tar"
refused "a whiteout that names nothing" "a/.wh.: a whiteout that names nothing" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
fresh "gzip:$TMP/top.tar.gz"
rm "$B/oci-layout"
refused "no oci-layout file" "$B: not an OCI image layout: it has no oci-layout file" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
fresh "gzip:$TMP/top.tar.gz"
printf '{"schemaVersion":2,"manifests":[}' >"$B/index.json"
refused "an index.json that is not JSON" "$B/index.json: not valid JSON: .* at byte 32" \
	"$SQK" mkimage -q --oci "$B" "$TMP/out/x.img"
refused "a layout that is not there" "$TMP/nothing: No such file or directory" \
	"$SQK" mkimage -q --oci "$TMP/nothing" "$TMP/out/x.img"
refused "a layout that is a file" "not an OCI image layout directory (oci-archive:FILE for a tar of one)" \
	"$SQK" mkimage -q --oci "$TMP/low.tar" "$TMP/out/x.img"
refused "an oci-archive that lacks a blob" "no such blob in the archive" \
	sh -c "cd '$L' && tar -cf '$TMP/part.tar' oci-layout index.json && \
		exec '$SQK' mkimage -q --oci 'oci-archive:$TMP/part.tar' --platform linux/arm/v7 '$TMP/out/x.img'"

# The options' own checks: usage errors (exit 2).
expect_status 2 "--platform that is no platform" \
	"$SQK" mkimage --oci "$N" --platform amd64 "$TMP/out/x.img"
grep -q "invalid platform 'amd64'" "$TMP/.err"
ok $? "  says so: $(head -1 "$TMP/.err")"
expect_status 2 "--oci-layers without --oci" "$SQK" mkimage --oci-layers "$TMP/src-low" "$TMP/out/x.img"
expect_status 2 "--oci-layers with a SOURCE" \
	"$SQK" mkimage --oci "$N:first" --oci-layers "$TMP/src-low" "$TMP/out/x.img"
expect_status 2 "--oci-layers to stdout" "$SQK" mkimage --oci "$N:first" --oci-layers -
expect_status 2 "--oci with --append" "$SQK" mkimage --oci "$N:first" --append "$TMP/ok.img"
grep -q -- "--append and --oci exclude each other" "$TMP/.err"
ok $? "  says so: $(head -1 "$TMP/.err")"
expect_status 2 "--whiteouts without archives" \
	"$SQK" mkimage --whiteouts "$TMP/src-low" "$TMP/out/x.img"
expect_status 2 "--platform without --oci" \
	"$SQK" mkimage --platform linux/amd64 "$TMP/src-low" "$TMP/out/x.img"

# A layer past the last, through the library's option (the front end counts them).
"$SQK" mkimage -q --oci "$N:first" --oci-layers "$TMP/lay1" &&
	is "$(cd "$TMP" && echo lay1.*)" "lay1.1 lay1.2" "--oci-layers: IMAGE.1 and IMAGE.2 for two layers"

# --whiteouts with archives: the layers applied, excludes as for any archive.
"$SQK" mkimage -q --whiteouts --archive "$TMP/low.tar" "$TMP/top.tar" "$TMP/wh.img"
is "$("$SQK" ls "$TMP/wh.img" 2>&1 | tr '\n' ' ')" "keep top " "--archive SOURCEs --whiteouts: applied in order"
"$SQK" mkimage -q --whiteouts -e keep --archive "$TMP/low.tar" "$TMP/top.tar" "$TMP/whe.img"
is "$("$SQK" ls "$TMP/whe.img" 2>&1 | tr '\n' ' ')" "top " "--whiteouts: an --exclude leaves a path out of every layer"
"$SQK" mkimage -q --archive "$TMP/low.tar" "$TMP/top.tar" "$TMP/nowh.img" 2>"$TMP/e"
is "$("$SQK" ls "$TMP/nowh.img" 2>&1 | tr '\n' ' ')" ".wh.gone gone keep top " \
	"without --whiteouts a .wh. file is a file"
layer aufs .wh..wh.plnk/123.456=x d/.wh..wh.aufs=y f=z
"$SQK" mkimage -q --whiteouts --archive "$TMP/low.tar" "$TMP/aufs.tar" "$TMP/aufs.img"
is "$("$SQK" ls -R "$TMP/aufs.img" 2>&1 | tr '\n' ' ')" "/: d f gone keep  /d: " \
	"AUFS's own files (.wh..wh.*) are no part of the image"

done_testing
