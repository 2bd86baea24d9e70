#!/bin/sh
# mkimage's xattr filters and additions, forced modes, root owner and sort
# files, against mksquashfs and read back by the kernel and unsquashfs.
#
# Debian 12's mksquashfs is 4.5.1: it has -root-mode (octal only),
# -root-uid, -root-gid and -sort, so those are compared with it directly.
# It lacks -xattrs-include, -xattrs-exclude, -xattrs-add, -force-file-mode
# and -force-dir-mode (new in 4.6). Where it lacks one, the test builds what
# the option is documented to give (the 4.6 documentation: modes "as chmod
# takes them", applied to every non-directory or every directory; the
# filters keep a name that matches the include regex and not the exclude
# regex; added user. attributes go to files and directories, the others to
# every inode) by changing a copy of the source with chmod and setfattr,
# packs that copy with mksquashfs, and compares the two images as the kernel
# and unsquashfs show them. When the installed mksquashfs has an option, it
# is compared directly as well.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setfattr getfattr mknod mkfifo tar
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
SQK=$SQUASHKIT
scratch_mount

mksq() { mksquashfs "$@" -noappend -quiet -no-progress >"$TMP/mksq.out" 2>&1; }
has_opt() { mksquashfs -help 2>&1 | grep -q -- "^$1[ 	]"; }

# The source: every kind of inode, modes with special bits, and attributes of
# every namespace (user. only on files and directories, as the kernel wants).
T=$TMP/tree
mkdir -p "$T/etc/conf.d" "$T/bin" "$T/tmp" "$T/shared" "$T/data"
printf 'root:x:0:0\n' >"$T/etc/passwd"
printf 'x=1\n' >"$T/etc/conf.d/a"
printf '#!/bin/sh\n' >"$T/bin/tool"
printf 'suid\n' >"$T/bin/su"
head -c 5000 /dev/urandom >"$T/data/blob"
ln "$T/bin/tool" "$T/bin/tool2"
ln -s ../etc/passwd "$T/bin/pw"
mkfifo "$T/data/fifo"
mknod "$T/data/null" c 1 3
chmod 0644 "$T/etc/passwd" "$T/data/blob"
chmod 0600 "$T/etc/conf.d/a"
chmod 0755 "$T/bin/tool" "$T/etc" "$T/bin" "$T/data" "$T"
chmod 04755 "$T/bin/su"
chmod 01777 "$T/tmp"
chmod 02775 "$T/shared"
chmod 0700 "$T/etc/conf.d"
chmod 0620 "$T/data/fifo"
chown 1000:100 "$T/data/blob" "$T/shared"
setfattr -n user.keep -v one "$T/etc/passwd" &&
	setfattr -n user.drop -v two "$T/etc/passwd" &&
	setfattr -n trusted.keep -v three "$T/etc" &&
	setfattr -n security.sec -v four "$T/bin/tool" &&
	setfattr -n user.dropme -v five "$T/data" &&
	setfattr -h -n trusted.lnk -v six "$T/bin/pw" &&
	setfattr -n trusted.dev -v seven "$T/data/null"
ok $? "the source takes attributes of every namespace"
touch -d @1600000000 "$T/etc/passwd"

# unsq IMG OUT: the tree as unsquashfs extracts it.
unsq() {
	rm -rf "$TMP/u"
	if unsquashfs -q -n -d "$TMP/u" "$1" >/dev/null 2>"$TMP/unsq.err"; then
		"$MAN" "$TMP/u" >"$2" 2>&1
	else
		echo "unsquashfs failed: $(cat "$TMP/unsq.err")" >"$2"
	fi
	rm -rf "$TMP/u"
}
# same_images DESC A B [SED]: the kernel and unsquashfs show A and B alike
# (after SED on both views, if given).
same_images() {
	desc=$1
	sedx=${4:-}
	kernel_view "$2" "$TMP/a.k"
	kernel_view "$3" "$TMP/b.k"
	unsq "$2" "$TMP/a.u"
	unsq "$3" "$TMP/b.u"
	for f in a.k b.k a.u b.u; do
		sed -e "$sedx" "$TMP/$f" >"$TMP/$f.s"
	done
	same_file "$TMP/b.k.s" "$TMP/a.k.s" "$desc: the kernel shows the same tree"
	same_file "$TMP/b.u.s" "$TMP/a.u.s" "$desc: unsquashfs gives the same tree"
}

# ---- The harness: both tools, no options, same tree ----
mksq "$T" "$TMP/peer0.img"
ok $? "mksquashfs packs the source"
expect_success "mkimage packs the source" "$SQK" mkimage -q "$T" "$TMP/ours0.img"
same_images "no options" "$TMP/peer0.img" "$TMP/ours0.img"
kernel_view "$TMP/ours0.img" "$TMP/k0"
"$MAN" "$T" >"$TMP/src.m"
same_file "$TMP/src.m" "$TMP/k0" "harness: the kernel shows the source as it is"

# ---- Root mode and owner: mksquashfs has these ----
mksq "$T" "$TMP/peer1.img" -root-mode 0750 -root-uid 1234 -root-gid 99
ok $? "mksquashfs -root-mode -root-uid -root-gid"
expect_success "mkimage --root-mode --root-uid --root-gid" "$SQK" mkimage -q --root-mode 0750 \
	--root-uid 1234 --root-gid 99 "$T" "$TMP/ours1.img"
same_images "--root-mode 0750 --root-uid 1234 --root-gid 99" "$TMP/peer1.img" "$TMP/ours1.img"
grep -q '^\. dir mode=0750 uid=1234 gid=99 ' "$TMP/b.k"
ok $? "the kernel shows the root 0750, 1234/99"
mksq "$T" "$TMP/peer2.img" -all-root -root-mode 1777
expect_success "mkimage --all-root --root-mode 1777" "$SQK" mkimage -q --all-root \
	--root-mode 1777 "$T" "$TMP/ours2.img"
same_images "--all-root --root-mode 1777" "$TMP/peer2.img" "$TMP/ours2.img"

# ---- Modes: documented behaviour, made with chmod on a copy ----
fmode='u+rwX,go-w,o-x'
dmode='o-rwx,g+s'
E=$TMP/expect-modes
cp -a "$T" "$E"
find "$E" ! -type d ! -type l -exec chmod "$fmode" {} +
find "$E" -type d -exec chmod "$dmode" {} +
mksq "$E" "$TMP/peer3.img"
expect_success "mkimage --file-mode --dir-mode" "$SQK" mkimage -q --file-mode "$fmode" \
	--dir-mode "$dmode" "$T" "$TMP/ours3.img"
# chmod cannot change a symlink's mode, so the copy keeps 0777; the image holds
# what the mode makes of 0777 (every non-directory), checked on its own below.
same_images "--file-mode $fmode --dir-mode $dmode, as chmod makes them" \
	"$TMP/peer3.img" "$TMP/ours3.img" '/ symlink /s/mode=[0-7]*/mode=-/'
grep '^bin/pw symlink ' "$TMP/b.k" | sed 's/.* mode=\([0-7]*\) .*/\1/' >"$TMP/lnkmode"
is "$(cat "$TMP/lnkmode")" 0754 "the kernel shows the symlink's mode as --file-mode made it"
if has_opt -force-file-mode; then
	mksq "$T" "$TMP/peer3b.img" -force-file-mode "$fmode" -force-dir-mode "$dmode"
	same_images "against mksquashfs -force-file-mode -force-dir-mode" "$TMP/peer3b.img" \
		"$TMP/ours3.img"
else
	skip "mksquashfs $(mksquashfs -version | awk 'NR == 1 {print $3}') has no -force-file-mode"
fi
expect_success "mkimage --dir-mode with --root-mode" "$SQK" mkimage -q --dir-mode 0700 \
	--root-mode 0711 "$T" "$TMP/ours4.img"
E=$TMP/expect-dirs
cp -a "$T" "$E"
find "$E" -mindepth 1 -type d -exec chmod 0700 {} +
# GNU chmod keeps a directory's setgid under an octal mode; --dir-mode does not.
chmod g-s "$E/shared"
chmod 0711 "$E"
mksq "$E" "$TMP/peer4.img"
same_images "--dir-mode 0700 --root-mode 0711: the root's own wins" "$TMP/peer4.img" \
	"$TMP/ours4.img"

# ---- xattrs: documented behaviour, made with setfattr on a copy ----
E=$TMP/expect-xattrs
cp -a "$T" "$E"
# Keep what matches ^(user|trusted)\. and not drop; then the additions.
find "$E" | while IFS= read -r p; do
	getfattr -h -m - --absolute-names "$p" 2>/dev/null | grep -v '^#' | grep . |
		while IFS= read -r name; do
			if ! echo "$name" | grep -Eq '^(user|trusted)\.' || echo "$name" | grep -Eq 'drop'; then
				setfattr -h -x "$name" "$p"
			fi
		done
done
find "$E" -type f -o -type d | while IFS= read -r p; do
	setfattr -n user.added -v 'hi there' "$p"
done
find "$E" | while IFS= read -r p; do
	setfattr -h -n trusted.tag -v 0x0102ff "$p"
done
mksq "$E" "$TMP/peer5.img"
expect_success "mkimage with the xattr filters and additions" "$SQK" mkimage -q \
	--xattrs-include '^(user|trusted)\.' --xattrs-exclude drop \
	--xattrs-add 'user.added=0thi\040there' --xattrs-add trusted.tag=0x0102FF "$T" \
	"$TMP/ours5.img"
same_images "--xattrs-include/-exclude/-add, as documented" "$TMP/peer5.img" "$TMP/ours5.img"
grep -c ' xattr:trusted.tag=0102ff' "$TMP/b.k" >"$TMP/ntag"
is "$(cat "$TMP/ntag")" "$(wc -l <"$TMP/src.m" | tr -d ' ')" "the kernel shows the added attribute on every inode"
if has_opt -xattrs-add; then
	mksq "$T" "$TMP/peer5b.img" -xattrs-include '^(user|trusted)\.' -xattrs-exclude drop \
		-xattrs-add 'user.added=0thi\040there' -xattrs-add trusted.tag=0x0102FF
	same_images "against mksquashfs -xattrs-include/-exclude/-add" "$TMP/peer5b.img" \
		"$TMP/ours5.img"
else
	skip "mksquashfs $(mksquashfs -version | awk 'NR == 1 {print $3}') has no -xattrs-add"
fi

# unimage: the filters choose what is restored, to a tree and to an archive.
E=$TMP/expect-restore
cp -a "$T" "$E"
find "$E" | while IFS= read -r p; do
	getfattr -h -m - --absolute-names "$p" 2>/dev/null | grep -v '^#' | grep . |
		while IFS= read -r name; do
			case $name in
			trusted.* | user.keep) ;;
			*) setfattr -h -x "$name" "$p" ;;
			esac
		done
done
"$MAN" "$E" >"$TMP/want.m"
expect_success "unimage --xattrs-include --xattrs-exclude" "$SQK" unimage -q -d "$TMP/x" \
	--xattrs-include '^(trusted|user)\.' --xattrs-exclude '^user\.d' "$TMP/ours0.img"
"$MAN" "$TMP/x" >"$TMP/got.m"
same_file "$TMP/want.m" "$TMP/got.m" "unimage restores only what the filters pass"
expect_success "unimage --tar with the filters" "$SQK" unimage -q -o "$TMP/x.tar" \
	--xattrs-include '^(trusted|user)\.' --xattrs-exclude '^user\.d' "$TMP/ours0.img"
mkdir "$TMP/xt"
tar -C "$TMP/xt" -x --xattrs --xattrs-include='*' --numeric-owner -p -f "$TMP/x.tar"
"$MAN" --no-root "$TMP/xt" >"$TMP/got.m"
grep -v '^\. ' "$TMP/want.m" >"$TMP/want2.m"
same_file "$TMP/want2.m" "$TMP/got.m" "GNU tar restores only what the filters passed"

# ---- Sort files: mksquashfs has -sort ----
O=$TMP/order
mkdir -p "$O/boot" "$O/lib/mod" "$O/usr" "$O/var"
for f in boot/vmlinuz boot/initrd lib/mod/a.ko lib/mod/b.ko lib/libc usr/big var/log "a b"; do
	head -c 12000 /dev/urandom >"$O/$f"
done
ln "$O/usr/big" "$O/var/big-link"
cat >"$TMP/prio.sort" <<EOF
# boot first, then the modules, the rest after
boot 1000
boot/initrd 900
lib/mod 500
lib/mod/b.ko 600
a\ b 300
var -50
$O/lib/libc 200
EOF
mksq "$O" "$TMP/peer6.img" -b 4096 -sort "$TMP/prio.sort"
ok $? "mksquashfs -sort"
expect_success "mkimage --sort" "$SQK" mkimage -q -b 4K --sort "$TMP/prio.sort" "$O" \
	"$TMP/ours6.img"
same_images "--sort leaves the tree as it is" "$TMP/peer6.img" "$TMP/ours6.img"
# layout IMG: the files by where their data starts; every priority differs.
layout() {
	for p in boot/vmlinuz boot/initrd lib/mod/a.ko lib/mod/b.ko lib/libc usr/big var/log \
		"a b"; do
		printf '%s %s\n' "$("$SQK" stat --json "$1" "/$p" |
			sed 's/.*"blocks":\[{"start":\([0-9]*\).*/\1/')" "$p"
	done | sort -n | cut -d' ' -f2- | tr '\n' ' '
}
layout "$TMP/peer6.img" >"$TMP/peer.order"
layout "$TMP/ours6.img" >"$TMP/ours.order"
is "$(cat "$TMP/ours.order")" \
	"boot/vmlinuz boot/initrd lib/mod/b.ko lib/mod/a.ko a b lib/libc usr/big var/log " \
	"mkimage lays the data out by priority, directories passing theirs down"
is "$(cat "$TMP/ours.order")" "$(cat "$TMP/peer.order")" "mksquashfs lays it out the same"

done_testing
