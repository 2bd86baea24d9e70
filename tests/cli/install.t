#!/bin/sh
# make install puts the binary, the man pages and the completions, the
# library (headers, libsquashkit.a and .so, squashkit.pc, section 3 pages)
# under DESTDIR; make install-links adds the mkimage and unimage links, and only
# those; make uninstall takes all of it away again.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd make

. "$SQK_SRCDIR/tests/cli/install-lib.sh"

root=$TMP/root
p=$root/usr/local
expect_success "make install DESTDIR=..." mk "$root" install
test -x "$p/bin/squashkit"
ok $? "the binary is in bin/"
is "$("$p/bin/squashkit" --version)" "$("$SQUASHKIT" --version)" "and it runs"
for page in "$SQK_SRCDIR"/man/*.1; do
	cmp -s "$page" "$p/share/man/man1/$(basename "$page")" || break
done
ok $? "every man page is in share/man/man1/"
same_file "$SQK_SRCDIR/completions/squashkit.bash" "$p/share/bash-completion/completions/squashkit" \
	"the bash completion is where bash-completion loads it from"
same_file "$SQK_SRCDIR/completions/_squashkit" "$p/share/zsh/site-functions/_squashkit" \
	"the zsh completion is in site-functions"
same_file "$SQK_SRCDIR/completions/squashkit.fish" \
	"$p/share/fish/vendor_completions.d/squashkit.fish" "the fish completion is in vendor_completions.d"
for h in "$SQK_SRCDIR"/include/squashkit/*.h; do
	cmp -s "$h" "$p/include/squashkit/$(basename "$h")" || break
done
ok $? "every public header is in include/squashkit/"
ls "$p/include/squashkit" >"$TMP/headers"
ls "$SQK_SRCDIR/include/squashkit" >"$TMP/src-headers"
same_file "$TMP/src-headers" "$TMP/headers" "and nothing else is"
same_file "$(dirname "$SQUASHKIT")/libsquashkit.a" "$p/lib/libsquashkit.a" "libsquashkit.a is in lib/"
same_file "$(dirname "$SQUASHKIT")/libsquashkit.so.1" "$p/lib/libsquashkit.so.1" "libsquashkit.so.1 is in lib/"
is "$(readlink "$p/lib/libsquashkit.so")" libsquashkit.so.1 "libsquashkit.so links to it, for -lsquashkit"
for page in "$SQK_SRCDIR"/man/*.3; do
	cmp -s "$page" "$p/share/man/man3/$(basename "$page")" || break
done
ok $? "the library's man pages are in share/man/man3/"
# man(1) finds a page for every exported function: a link to libsquashkit(3)
# (symbols.t checks that it describes each).
sed -n 's/^\t\(sqk_[a-z_0-9]*\);$/\1/p' "$SQK_SRCDIR/core/api/libsquashkit.map" >"$TMP/names"
: >"$TMP/no-page"
while read -r n; do
	f=$(man -M "$p/share/man" -w 3 "$n" 2>/dev/null)
	[ "$f" = "$p/share/man/man3/libsquashkit.3" ] &&
		[ "$(cat "$p/share/man/man3/$n.3")" = ".so man3/libsquashkit.3" ] ||
		echo "$n" >>"$TMP/no-page"
done <"$TMP/names"
test -s "$TMP/names" && test ! -s "$TMP/no-page"
ok $? "man -w 3 NAME finds a link to libsquashkit(3) for each of the $(wc -l <"$TMP/names") exported functions"
sed 's/^/#   no page: /' "$TMP/no-page" | head
n=$(tail -1 "$TMP/names")
MANWIDTH=100 man -M "$p/share/man" 3 "$n" 2>/dev/null | col -b >"$TMP/page"
head -1 "$TMP/page" | grep -q '^LIBSQUASHKIT(3)' && grep -q "$n(" "$TMP/page"
ok $? "man 3 $n shows libsquashkit(3), which describes it"
pc=$p/lib/pkgconfig/squashkit.pc
is "$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --variable=includedir squashkit 2>&1)" \
	/usr/local/include "squashkit.pc knows the prefix it was installed under"
is "$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --libs squashkit 2>&1 | sed 's/ *$//')" \
	"-L/usr/local/lib -lsquashkit" "and links the shared library alone"
PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --static --libs squashkit >"$TMP/static" 2>&1
grep -q -e '-lzstd' "$TMP/static" && grep -q -e '-larchive' "$TMP/static"
ok $? "a static link gets the compression and archive libraries"
expect_success "make install LIBDIR=.../lib64" mk "$TMP/r64" LIBDIR=/usr/local/lib64 install
test -f "$TMP/r64/usr/local/lib64/libsquashkit.so.1" && test -f "$TMP/r64/usr/local/lib64/pkgconfig/squashkit.pc"
ok $? "LIBDIR places the libraries and squashkit.pc"
grep -q '^libdir=/usr/local/lib64$' "$TMP/r64/usr/local/lib64/pkgconfig/squashkit.pc"
ok $? "and squashkit.pc says so"
test ! -e "$p/bin/mkimage" && test ! -e "$p/bin/unimage"
ok $? "no mkimage or unimage link by default"

expect_success "make install-links" mk "$root" install-links
is "$(readlink "$p/bin/mkimage")" squashkit "bin/mkimage links to squashkit"
is "$(readlink "$p/bin/unimage")" squashkit "bin/unimage links to squashkit"
"$p/bin/mkimage" --help >"$TMP/help" 2>&1
head -1 "$TMP/help" | grep -q "squashkit mkimage"
ok $? "the mkimage link runs mkimage"
expect_success "make install-links again is fine" mk "$root" install-links

expect_success "make uninstall" mk "$root" uninstall
find "$root" -type f -o -type l >"$TMP/left"
is "$(cat "$TMP/left")" "" "nothing is left behind: no file, no link"

# Somebody else's mkimage (U-Boot's) stays, with or without install-links.
other=$TMP/other
mkdir -p "$other/usr/local/bin"
printf '#!/bin/sh\necho u-boot mkimage\n' >"$other/usr/local/bin/mkimage"
chmod 755 "$other/usr/local/bin/mkimage"
cp "$other/usr/local/bin/mkimage" "$TMP/mkimage.orig"
expect_success "make install beside another mkimage" mk "$other" install
same_file "$other/usr/local/bin/mkimage" "$TMP/mkimage.orig" "install leaves the other mkimage alone"
expect_status 2 "make install-links refuses to replace it" mk "$other" install-links
grep -q "exists and is not squashkit" "$TMP/.err"
ok $? "and says why"
same_file "$other/usr/local/bin/mkimage" "$TMP/mkimage.orig" "the other mkimage is untouched"
expect_success "make uninstall" mk "$other" uninstall
find "$other" -type f -o -type l >"$TMP/left"
is "$(cat "$TMP/left")" "$other/usr/local/bin/mkimage" "uninstall removes ours only"

done_testing
