#!/bin/sh
# pkgconfig.t: the installed library as a distribution's user builds with it.
# mount and bench are not in the library: libsquashkit.so.0 and .a hold no
# part of the FUSE daemon or the cache laboratory and need no libfuse3, and
# squashkit.pc requires only the library's own packages, so that
# `pkg-config --cflags --libs squashkit` works where fuse3's development
# files are not installed. A program links the shared library with what
# --libs gives, and the static one with what --static --libs gives.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
need_cmd readelf
need_cmd nm
need_cmd ar
. "$SQK_SRCDIR/tests/api/api-lib.sh"

so=$api_lib/libsquashkit.so.0
readelf -d "$so" >"$TMP/dynamic" 2>&1
grep -q 'NEEDED.*liblzma' "$TMP/dynamic"
ok $? "readelf lists the shared library's needs (liblzma among them)"
! grep -q 'NEEDED.*libfuse' "$TMP/dynamic"
ok $? "libsquashkit.so.0 does not need libfuse3"
LD_LIBRARY_PATH=$api_lib ldd "$so" >"$TMP/ldd" 2>&1
! grep -q libfuse "$TMP/ldd"
ok $? "nor does anything ldd loads with it"
grep libfuse "$TMP/ldd" | sed 's/^/#   /'

# The daemon's and the laboratory's functions (sqk_serve_*, sqk_fs_*,
# sqk_lab_*) are not in the shared library, hidden or not, nor in the
# static one.
nm "$so" | awk 'NF == 3 { print $3 }' | sort -u >"$TMP/so-syms"
grep -q '^sqk_image_open_path$' "$TMP/so-syms"
ok $? "nm lists the shared library's symbols (sqk_image_open_path among them)"
grep -E '^sqk_(serve|fs|lab)_' "$TMP/so-syms" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "no function of core/mount or core/lab in libsquashkit.so.0"
sed 's/^/#   /' "$TMP/bad" | head
ar t "$api_lib/libsquashkit.a" >"$TMP/members"
grep -q '^api_image.o$' "$TMP/members"
ok $? "ar lists the static library's members (api_image.o among them)"
nm "$api_lib/libsquashkit.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	grep -E '^sqk_(serve|fs|lab)_' >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "no function of core/mount or core/lab in libsquashkit.a"
sed 's/^/#   /' "$TMP/bad" | head

# A pkg-config that knows the install and the system's packages but fuse3.
mkdir -p "$TMP/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
	for pc in "$d"/*.pc; do
		[ -f "$pc" ] && [ "$(basename "$pc")" != fuse3.pc ] && cp "$pc" "$TMP/pc/"
	done
done
pc_in() { # ROOT ARGS...: pkg-config without fuse3, for the install in ROOT
	_root=$1
	shift
	PKG_CONFIG_LIBDIR=$_root/usr/local/lib/pkgconfig:$TMP/pc PKG_CONFIG_SYSROOT_DIR=$_root \
		pkg-config "$@"
}
if pkg-config --exists fuse3; then
	pc_in "$api_root" --exists fuse3
	is $? 1 "fuse3.pc, which this machine has, is hidden from this pkg-config"
else
	skip "this machine has no fuse3.pc to hide"
fi
is "$(pc_in "$api_root" --print-requires-private squashkit | awk '{ print $1 }' | sort | tr '\n' ' ')" \
	"libarchive libcrypto libdeflate liblz4 liblzma libselinux libzstd lzo2 zlib " \
	"squashkit.pc requires the compression and archive libraries, and not fuse3"
flags=$(pc_in "$api_root" --cflags --libs squashkit 2>"$TMP/pc.err")
ok $? "pkg-config --cflags --libs squashkit works without fuse3.pc"
sed 's/^/#   /' "$TMP/pc.err" | head -5
pc_in "$api_root" --static --cflags --libs squashkit >/dev/null 2>"$TMP/pc.err"
ok $? "and with --static"
sed 's/^/#   /' "$TMP/pc.err" | head -5

# An image to check, clean.
mkdir -p "$TMP/tree/d"
printf 'hello\n' >"$TMP/tree/d/f"
mksquashfs "$TMP/tree" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree"

# shellcheck disable=SC2086
cc ${SQK_SANITIZE:-} -o "$TMP/verify-so" "$SQK_SRCDIR/examples/sqk-verify.c" $flags 2>"$TMP/cc.err"
ok $? "examples/sqk-verify.c builds with those flags"
sed 's/^/#   /' "$TMP/cc.err" | head -10
LD_LIBRARY_PATH=$api_lib "$TMP/verify-so" "$TMP/img" >"$TMP/out" 2>&1
ok $? "and passes the image, through libsquashkit.so.0"
sed 's/^/#   /' "$TMP/out" | head -5

# The static library alone in an install of its own: -lsquashkit is then
# libsquashkit.a, and the link needs what squashkit.pc names for it: its
# Libs.private and the libraries of its Requires.private (linked shared here;
# `--static --libs` would add their own private libraries too, libarchive's
# -lacl -lxml2 ..., whose development files Debian's libarchive-dev does not
# bring).
st=$TMP/static
mkdir -p "$st/usr/local/lib"
cp -a "$api_root/usr/local/include" "$st/usr/local/"
cp -a "$api_lib/pkgconfig" "$api_lib/libsquashkit.a" "$st/usr/local/lib/"
own_private=$(sed -n 's/^Libs.private: //p' "$st/usr/local/lib/pkgconfig/squashkit.pc")
# shellcheck disable=SC2046
requires_libs=$(pc_in "$st" --libs $(pc_in "$st" --print-requires-private squashkit | awk '{ print $1 }'))
# shellcheck disable=SC2086
cc ${SQK_SANITIZE:-} -o "$TMP/verify-a" "$SQK_SRCDIR/examples/sqk-verify.c" $(pc_in "$st" --cflags --libs squashkit) \
	$own_private $requires_libs 2>"$TMP/cc.err"
ok $? "it links with libsquashkit.a and the private libraries squashkit.pc names"
sed 's/^/#   /' "$TMP/cc.err" | head -10
! ldd "$TMP/verify-a" 2>&1 | grep -q libsquashkit
ok $? "the program holds the library (it loads no libsquashkit.so)"
"$TMP/verify-a" "$TMP/img" >"$TMP/out" 2>&1
ok $? "and passes the image"
sed 's/^/#   /' "$TMP/out" | head -5
# The control: the private libraries are what makes the static link work.
# shellcheck disable=SC2086
cc ${SQK_SANITIZE:-} -o "$TMP/verify-bare" "$SQK_SRCDIR/examples/sqk-verify.c" \
	$(pc_in "$st" --cflags --libs squashkit) >/dev/null 2>&1
test $? -ne 0
ok $? "without them the same link fails"

done_testing
