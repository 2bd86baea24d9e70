#!/bin/sh
# systemd-repart building a Format=squashfs partition from a CopyFiles= tree
# with `squashkit mksquashfs` first in PATH (a directory holding a link
# named mksquashfs to squashkit). repart runs "mksquashfs TREE /dev/loopN
# -quiet -noappend" on a loop device of the new partition: the image must
# go onto the device, and the kernel mount the partition as the tree. A
# loop node the run turns into anything but a block device is made again
# (or removed, when it was not there) on every exit.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd systemd-repart losetup
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"

MNT=$TMP/mnt
mkdir -p "$MNT" "$TMP/bin" "$TMP/defs"
# The loop nodes as they are now ("PATH MAJOR MINOR MODE"), to put back.
for n in /dev/loop[0-9]*; do
	[ -b "$n" ] || continue
	# shellcheck disable=SC2046 # three fields
	set -- $(stat -c '%t %T %a' "$n")
	echo "$n $((0x$1)) $((0x$2)) $3"
done >"$TMP/nodes"
restore_nodes() {
	umount "$MNT" 2>/dev/null
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP" 2>/dev/null
	for n in /dev/loop[0-9]*; do
		[ -e "$n" ] && [ ! -b "$n" ] && rm -f "$n"
	done
	while read -r n maj min mode; do
		[ -b "$n" ] || mknod -m "$mode" "$n" b "$maj" "$min"
	done <"$TMP/nodes"
}
at_exit restore_nodes

ln -s "$SQUASHKIT" "$TMP/bin/mksquashfs"
T=$TMP/tree
mkdir -p "$T/etc" "$T/usr/bin"
printf 'NAME=test\n' >"$T/etc/os-release"
head -c 200000 /dev/urandom >"$T/usr/bin/tool"
chmod 755 "$T/usr/bin/tool"
ln -s ../usr/bin/tool "$T/etc/tool"
ln "$T/etc/os-release" "$T/usr/os-release"
"$MAN" --no-holes "$T" >"$TMP/tree.man"
cat >"$TMP/defs/10-root.conf" <<EOF
[Partition]
Type=root
Format=squashfs
CopyFiles=$T:/
EOF

PATH=$TMP/bin:$PATH systemd-repart --empty=create --size=64M --definitions="$TMP/defs" \
	--dry-run=no "$TMP/disk.img" >"$TMP/repart.out" 2>&1
st=$?
ok $st "systemd-repart builds the image with squashkit as mksquashfs"
[ $st -eq 0 ] || sed 's/^/#   /' "$TMP/repart.out" | tail -20
grep -q "successfully formatted as squashfs" "$TMP/repart.out"
ok $? "repart says the partition was formatted as squashfs"
bad=$(for n in /dev/loop[0-9]*; do [ -e "$n" ] && [ ! -b "$n" ] && echo "$n"; done)
is "$bad" "" "every loop node is still a block device"

LOOP=$(losetup -f --show -P "$TMP/disk.img")
[ -b "${LOOP}p1" ] || partx -a "$LOOP" 2>/dev/null
if mount -t squashfs -o ro "${LOOP}p1" "$MNT" 2>"$TMP/mount.err"; then
	"$MAN" --no-holes "$MNT" >"$TMP/part.man"
	umount "$MNT"
	same_file "$TMP/part.man" "$TMP/tree.man" "the kernel mounts the partition as the CopyFiles tree"
else
	ok 1 "the kernel mounts the partition: $(cat "$TMP/mount.err")"
fi

done_testing
