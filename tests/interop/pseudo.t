#!/bin/sh
# Pseudo definitions against Debian's mksquashfs, through the kernel:
# - the same definitions file (every type mksquashfs 4.5 documents, quoted
#   names, date strings, host files, inline data), given to mksquashfs -pf
#   and to mkimage --pseudo-file, with no other source and on top of a
#   directory source, gives trees that the kernel shows identically:
#   owners, modes, devices (20-bit minors too), times, contents, hard links
#   and xattrs of host files;
# - unimage --describe of an image of the reference tree, given back to
#   mkimage --pseudo-file (and to mksquashfs -pf) with no other source,
#   rebuilds a tree that the kernel shows as it shows the original, but for
#   xattrs, which the pseudo syntax cannot hold.
# Definitions without a time take the build's time in mksquashfs and
# SOURCE_DATE_EPOCH (else 0) in mkimage: SOURCE_DATE_EPOCH is set so that
# both give it.
SCRATCH=shm-user-xattrs
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd mksquashfs setfattr
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
SQK=$SQUASHKIT
scratch_mount
mkdir -p "$TMP/probe"
mksquashfs "$TMP/probe" "$TMP/probe.img" -noappend -quiet -no-progress >/dev/null 2>&1
if ! mount -t squashfs -o loop,ro "$TMP/probe.img" "$MNT" 2>/dev/null; then
	skip_all "cannot mount squashfs here (loop devices, squashfs module)"
fi
umount "$MNT"

export SOURCE_DATE_EPOCH=1700000000 TZ=UTC

# kman IMG OUT [FLAGS]: the manifest of IMG as the kernel shows it.
kman() {
	if mount -t squashfs -o loop,ro "$1" "$MNT" 2>"$TMP/.merr"; then
		"$MAN" $3 "$MNT" >"$2" 2>&1 || echo "manifest failed" >>"$2"
		umount "$MNT"
	else
		echo "$1: the kernel does not mount it: $(cat "$TMP/.merr")" >"$2"
	fi
}

# both DESC PF [SOURCE]: mksquashfs -pf and mkimage --pseudo-file agree through the kernel.
both() {
	rm -f "$TMP/m.img" "$TMP/k.img"
	if [ -n "${3:-}" ]; then
		mksquashfs "$3" "$TMP/m.img" -noappend -quiet -no-progress -pf "$2" >"$TMP/.mout" 2>&1
	else
		mksquashfs - "$TMP/m.img" -noappend -quiet -no-progress -pf "$2" >"$TMP/.mout" 2>&1
	fi
	ok $? "$1: mksquashfs takes the definitions"
	expect_success "$1: mkimage takes the definitions" "$SQK" mkimage -q --pseudo-file "$2" \
		${3:+"$3"} "$TMP/k.img"
	kman "$TMP/m.img" "$TMP/m.man"
	kman "$TMP/k.img" "$TMP/k.man"
	same_file "$TMP/k.man" "$TMP/m.man" "$1: the kernel shows the same tree"
}

# Host files for l: a file with an xattr and odd attributes, a fifo, a device. (Not a
# symlink: mksquashfs 4.5.1 stores l of a symlink with an empty target; the cli test
# checks that mkimage keeps it.)
H=$TMP/host
mkdir -p "$H"
printf 'from the host\n' >"$H/file"
setfattr -n user.from -v "the host" "$H/file"
chown 321:654 "$H/file"
chmod 4750 "$H/file"
mkfifo "$H/fifo"
mknod "$H/dev" c 259 65536
touch -h -d @1500000000 "$H/file" "$H/fifo" "$H/dev"

cat >"$TMP/all.pf" <<EOF
# every definition type of mksquashfs 4.5, with and without times
/ D 1600000000 755 0 0
dev d 755 0 0
dev/console c 600 0 5 5 1
dev/sda1 b 660 0 6 8 1
dev/minor-over-255 C 1600000001 640 7 8 259 65536
dev/max B 1600000002 600 0 0 4095 1048575
dev/tty L dev/console
etc D 1600000003 750 1000 1000
etc/hostname f 644 0 0 printf 'squashkit\\n'
etc/motd F 1600000004 644 0 0 printf 'line one\\n'; \\
	printf 'line two\\n'
etc/big F 1600000005 600 0 0 head -c 300000 /dev/zero | tr '\\0' 'z'; head -c 5000 /dev/zero
etc/link S 1600000006 777 0 0 hostname
etc/dangling s 777 0 0 no/such/target with spaces
run d 1777 0 0
run/fifo i 620 33 33 f
run/sock I 1600000007 600 33 33 s
run/pipe I 1600000008 600 33 33 f
"with space" D 1600000009 700 0 0
"with space/a \\"quoted\\" name" F 1600000010 644 0 0 printf q
with\\ space/escaped\\ name f 644 0 0 printf e
dated D "1 jan 2001" 755 0 0
dated/too D feb\\ 2\\ 2002\\ 12:00 755 0 0
owners D 1600000011 755 4294967294 1
owners/named d 700 root root
host l $H/file
host-fifo l $H/fifo
host-dev l $H/dev
host-again L host
inline R 1600000012 644 10 20 6 0
inline-tail R 1600000013 644 10 20 3 3
inline-link L inline
#
# START OF DATA - DO NOT MODIFY
#
abcdef
EOF
both "every type, no other source" "$TMP/all.pf"
grep -q '^dev/max blk mode=0600 uid=0 gid=0 mtime=1600000002 dev=4095:1048575$' "$TMP/k.man" &&
	grep -q '^dev/tty chr .* dev=5:1$' "$TMP/k.man" &&
	grep -q '^host-again file mode=4750 uid=321 gid=654 .*xattr:user.from=.* link=host$' \
		"$TMP/k.man" &&
	grep -q '^etc/motd file .* size=18 ' "$TMP/k.man"
ok $? "every type: the kernel shows devices, hard links, host attributes and commands' output"

# On top of a directory source: a d of a source's directory keeps it and adds to it,
# m and M change a source's entries, l of a source's file is a hard link to it.
# (mksquashfs 4.5.1 takes no entries below an M, only below an m: usr is m here; and
# its m of a file that an l links to splits the link: they name different files here.)
S=$TMP/src
mkdir -p "$S/etc" "$S/usr/bin"
printf 'root:x:0:0\n' >"$S/etc/passwd"
printf 'root:x:0:\n' >"$S/etc/group"
printf '#!/bin/sh\n' >"$S/usr/bin/tool"
chmod 755 "$S/usr/bin/tool"
find "$S" -exec touch -h -d @1650000000 {} +
cat >"$TMP/over.pf" <<EOF
etc d 700 1 1
etc/new c 600 0 0 1 3
etc/passwd m 600 0 42
usr m 711 2 2
usr/bin/tool M 1660000001 4755 0 0
usr/bin/new f 755 0 0 printf new
usr/bin/other L usr/bin/new
group-again l $S/etc/group
EOF
both "on top of a directory" "$TMP/over.pf" "$S"
grep -q '^group-again file .* link=etc/group$' "$TMP/k.man" &&
	grep -q '^etc dir mode=0755 ' "$TMP/k.man" &&
	grep -q '^etc/passwd file mode=0600 uid=0 gid=42 ' "$TMP/k.man"
ok $? "on top of a directory: l links a source's file, d keeps its directory, m changes"

# unimage --describe: the reference tree back through a pseudo file. The
# description holds every time: no SOURCE_DATE_EPOCH, so extreme times stay.
unset SOURCE_DATE_EPOCH
tree=$TMP/tree
ref_tree "$tree"
# A newline cannot be written in a pseudo file: that one name stays out.
expect_success "an image of the reference tree" "$SQK" mkimage -q -e 'with?newline' "$tree" \
	"$TMP/orig.img"
expect_success "--describe" "$SQK" unimage -q --no-xattrs --describe="$TMP/desc.pf" "$TMP/orig.img"
expect_success "mkimage rebuilds it from the description alone" "$SQK" mkimage -q \
	--pseudo-file "$TMP/desc.pf" "$TMP/back.img"
kman "$TMP/orig.img" "$TMP/orig.man" --no-xattrs
kman "$TMP/back.img" "$TMP/back.man" --no-xattrs
grep -q '^names/with\\x20space ' "$TMP/orig.man" && grep -q ' link=' "$TMP/orig.man"
ok $? "the original tree is all there (names, hard links)"
same_file "$TMP/back.man" "$TMP/orig.man" "the kernel shows the rebuilt tree as the original"
rm -f "$TMP/mback.img"
mksquashfs - "$TMP/mback.img" -noappend -quiet -no-progress -pf "$TMP/desc.pf" >"$TMP/.mout" 2>&1
ok $? "mksquashfs takes the description too"
kman "$TMP/mback.img" "$TMP/mback.man" --no-xattrs
same_file "$TMP/mback.man" "$TMP/orig.man" "and the kernel shows its tree as the original"

done_testing
