#!/bin/sh
# squashkit unsquashfs -pf FILE: the pseudo file it writes, given back to
# Debian's mksquashfs (as unsquashfs's README-4.5.1 rebuilds one:
# "mksquashfs - IMAGE -pf FILE") and to squashkit mkimage --pseudo-file,
# gives the tree of the original image, seen through the kernel's mount
# (tests/tools/manifest). And it holds the definitions Debian's unsquashfs
# -pf writes for the same image, in the same order, with the same data.
#
# Where the two files may differ in spelling only, definitions are compared
# decoded: a name's backslash escapes (the peer escapes ' and leaves a tab
# bare, squashkit the other way round; both read back alike, which the
# rebuilt trees show) and owners above 2^31 (the peer prints them signed).
# Device numbers are left out of that comparison: unsquashfs 4.5.1 writes
# them decoded the old 8-bit-minor way (4095:1048575 comes out as -1 255);
# the rebuilt trees show squashkit's are right.
#
# Pseudo files of 4.5.1 hold no extended attributes: both leave them out,
# so the trees are compared without them. A name with a newline cannot be
# written in a pseudo file: the peer writes it anyway (the file no longer
# reads back), squashkit refuses with exit 1; that tree is tested apart.
SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setfattr perl
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
need_unsquashfs_4_5_1

tree=$TMP/tree
ref_tree "$tree"

# First the name with a newline, alone.
mkdir "$TMP/nl"
echo x >"$TMP/nl/with
newline"
mksquashfs "$TMP/nl" "$TMP/nl.img" -quiet -no-progress >/dev/null 2>&1
"$SQUASHKIT" unsquashfs -pf "$TMP/nl.pf" "$TMP/nl.img" >"$TMP/s.out" 2>"$TMP/s.err"
is "$?" 1 "a name with a newline: exit 1"
is "$(wc -l <"$TMP/s.err")" 1 "a name with a newline: one line says why"
test ! -e "$TMP/nl.pf"
ok $? "a name with a newline: no pseudo file"
find "$tree" -name '*
*' -exec rm -f {} +

img=$TMP/ref.img
mksquashfs "$tree" "$img" -quiet -no-progress -comp gzip >/dev/null 2>&1 ||
	{
		echo "Bail out! mksquashfs failed"
		exit 1
	}

"$SQUASHKIT" unsquashfs -pf "$TMP/s.pf" "$img" >"$TMP/s.out" 2>"$TMP/s.err"
is "$?" 0 "-pf: exit 0"
test ! -s "$TMP/s.out" && test ! -s "$TMP/s.err"
ok $? "-pf: nothing on stdout or stderr"
unsquashfs -n -pf "$TMP/p.pf" "$img" >/dev/null 2>&1
is "$?" 0 "the peer's -pf: exit 0"

# Definitions, decoded as the header says; data sections as they are.
defs() {
	perl -ne '
		last if /^# START OF DATA/;
		next if /^#/;
		chomp;
		my ($name, $rest) = /^((?:\\.|[^\\ ])*) (.*)$/s or die "bad line: $_\n";
		$name =~ s/\\(.)/$1/g;
		my @f = split / /, $rest, -1;
		for my $i (3, 4) { $f[$i] += 2**32 if $f[$i] =~ /^-\d+$/ }
		splice(@f, 5) if $f[0] eq "B" || $f[0] eq "C";
		print "$name @f\n";
	' "$1"
}
data() {
	sed -n '/^# START OF DATA/,$p' "$1"
}
defs "$TMP/p.pf" >"$TMP/p.defs"
defs "$TMP/s.pf" >"$TMP/s.defs"
test -s "$TMP/p.defs"
ok $? "the peer's definitions are read"
same_file "$TMP/p.defs" "$TMP/s.defs" "the peer's definitions, in its order"
data "$TMP/p.pf" >"$TMP/p.data"
data "$TMP/s.pf" >"$TMP/s.data"
same_file "$TMP/p.data" "$TMP/s.data" "the peer's data section"

# Rebuilt, mounted, compared.
for d in orig peer native; do mkdir "$TMP/$d"; done
at_exit "umount '$TMP/orig' '$TMP/peer' '$TMP/native' 2>/dev/null"
mksquashfs - "$TMP/peer.img" -pf "$TMP/s.pf" -quiet -no-progress >/dev/null 2>"$TMP/mk.err"
is "$?" 0 "mksquashfs - IMAGE -pf FILE: exit 0"
"$SQUASHKIT" mkimage -q --pseudo-file "$TMP/s.pf" "$TMP/native.img" 2>"$TMP/mk.err"
is "$?" 0 "squashkit mkimage --pseudo-file FILE: exit 0"
for d in orig peer native; do
	case $d in
	orig) i=$img ;;
	*) i=$TMP/$d.img ;;
	esac
	if mount -t squashfs -o loop,ro "$i" "$TMP/$d" 2>"$TMP/mount.err"; then
		"$MANIFEST" "$TMP/$d" 2>&1 | sed 's/ xattr:[^ ]*//g' >"$TMP/$d.m"
	else
		echo "no mount: $(head -1 "$TMP/mount.err")" >"$TMP/$d.m"
	fi
done
test "$(wc -l <"$TMP/orig.m")" -gt 3000
ok $? "the original tree is read"
same_file "$TMP/orig.m" "$TMP/peer.m" "rebuilt by mksquashfs: the original tree"
same_file "$TMP/orig.m" "$TMP/native.m" "rebuilt by squashkit mkimage: the original tree"

# As the peer: an existing file is replaced, and "-" is a file named "-".
echo old >"$TMP/again.pf"
"$SQUASHKIT" unsquashfs -pf "$TMP/again.pf" "$img" >/dev/null 2>&1
is "$?" 0 "-pf over an existing file: exit 0"
same_file "$TMP/s.pf" "$TMP/again.pf" "-pf over an existing file: replaced"
(cd "$TMP" && "$SQUASHKIT" unsquashfs -pf - "$img" >"$TMP/dash.out" 2>&1)
is "$?" 0 "-pf -: exit 0"
test ! -s "$TMP/dash.out" && cmp -s "$TMP/s.pf" "$TMP/-"
ok $? "-pf -: a file named -, as the peer writes"

done_testing
