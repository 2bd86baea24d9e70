#!/bin/sh
# make install-compat adds the mksquashfs and unsquashfs links, which run
# the compatibility front ends; it refuses to shadow the peers' programs in
# the same directory, and then makes neither link; make uninstall takes the
# links away and leaves the peers' programs.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd make

. "$SQK_SRCDIR/tests/cli/install-lib.sh"

root=$TMP/root
p=$root/usr/local
expect_success "make install" mk "$root" install
test ! -e "$p/bin/mksquashfs" && test ! -e "$p/bin/unsquashfs"
ok $? "no mksquashfs or unsquashfs link by default"
expect_success "make install-compat" mk "$root" install-compat
is "$(readlink "$p/bin/mksquashfs")" squashkit "bin/mksquashfs links to squashkit"
is "$(readlink "$p/bin/unsquashfs")" squashkit "bin/unsquashfs links to squashkit"
test ! -e "$p/bin/mkimage" && test ! -e "$p/bin/unimage"
ok $? "and no native command link comes with them"
"$p/bin/unsquashfs" -no-such-option x >"$TMP/out" 2>&1
grep -q '^squashkit unsquashfs: ' "$TMP/out"
ok $? "the unsquashfs link runs squashkit's unsquashfs front end"
"$p/bin/mksquashfs" -no-such-option >"$TMP/out" 2>&1
grep -q '^squashkit mksquashfs: ' "$TMP/out"
ok $? "the mksquashfs link runs squashkit's mksquashfs front end"
expect_success "make install-compat again is fine" mk "$root" install-compat
expect_success "make uninstall" mk "$root" uninstall
find "$root" -type f -o -type l >"$TMP/left"
is "$(cat "$TMP/left")" "" "nothing is left behind"

# The peer's unsquashfs is there: install-compat refuses and makes no link.
other=$TMP/other
mkdir -p "$other/usr/local/bin"
printf '#!/bin/sh\necho the real unsquashfs\n' >"$other/usr/local/bin/unsquashfs"
chmod 755 "$other/usr/local/bin/unsquashfs"
cp "$other/usr/local/bin/unsquashfs" "$TMP/unsquashfs.orig"
expect_success "make install beside another unsquashfs" mk "$other" install
expect_status 2 "make install-compat refuses to replace it" mk "$other" install-compat
grep -q "unsquashfs exists and is not squashkit" "$TMP/.err"
ok $? "and says why"
same_file "$other/usr/local/bin/unsquashfs" "$TMP/unsquashfs.orig" "the other unsquashfs is untouched"
test ! -e "$other/usr/local/bin/mksquashfs" && test ! -L "$other/usr/local/bin/mksquashfs"
ok $? "and no mksquashfs link was made either"
expect_success "make uninstall" mk "$other" uninstall
find "$other" -type f -o -type l >"$TMP/left"
is "$(cat "$TMP/left")" "$other/usr/local/bin/unsquashfs" "uninstall removes ours only"

done_testing
