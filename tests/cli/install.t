#!/bin/sh
# make install puts the binary, the man pages and the completions under
# DESTDIR; make install-links adds the mkimage and unimage links, and only
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
