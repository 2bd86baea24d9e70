#!/bin/sh
# A block device as the output (CLI.md, --force): mkimage --force, squashkit
# mksquashfs and unimage -o write a loop device's node in place; the node
# stays a block device and the kernel mounts what was written, the tree
# given. Without --force it is refused and left untouched. The drop-in
# appends to the image the device holds unless -noappend, and refuses one
# holding none, as mksquashfs does. A device too small, or SIGINT, leaves one
# line saying the device holds a partial image. Every loop device is
# detached at exit, and a node the run damaged is made again first.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd losetup
SQK=$SQUASHKIT
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
FAULT=$SQK_TOOLS/libfault.so
asan=$(ldd "$SQK" | awk '/libasan/ { print $3 }')

MNT=$TMP/mnt
mkdir -p "$MNT"
LOOPS=""
# The node of each loop device as it was ("PATH MAJOR MINOR MODE"), to put back.
NODES=""
restore_all() {
	umount "$MNT" 2>/dev/null
	echo "$NODES" | while read -r node maj min mode; do
		[ -n "$node" ] || continue
		if [ ! -b "$node" ]; then
			rm -f "$node"
			mknod -m "$mode" "$node" b "$maj" "$min"
		fi
		losetup -d "$node" 2>/dev/null
	done
}
at_exit restore_all

# loop_on FILE: a loop device over FILE in $L.
loop_on() {
	L=$(losetup -f --show "$1") || {
		echo "Bail out! no loop device: losetup -f failed"
		exit 1
	}
	# shellcheck disable=SC2046 # two numbers, in hex
	set -- $(stat -c '%t %T %a' "$L")
	NODES="$NODES
$L $((0x$1)) $((0x$2)) $3"
}

# tree_of DEV [OFFSET]: the manifest of what the kernel mounts from DEV, or why not.
tree_of() {
	if mount -t squashfs -o "ro,offset=${2:-0}" "$1" "$MNT" 2>"$TMP/mount.err"; then
		"$MAN" --no-holes "$MNT"
		umount "$MNT"
	else
		echo "mount failed: $(cat "$TMP/mount.err")"
	fi
}

# zeroed DEV: whether its first MiB is all zero bytes.
zeroed() {
	head -c 1048576 "$1" | cmp -s - "$TMP/zero"
}

S=$TMP/src
mkdir -p "$S/dir" "$TMP/more"
printf 'hello\n' >"$S/a.txt"
head -c 300000 /dev/urandom >"$S/dir/rnd"
ln "$S/a.txt" "$S/dir/hard"
ln -s a.txt "$S/link"
printf 'added\n' >"$TMP/more/new.txt"
head -c 1048576 /dev/zero >"$TMP/zero"
"$MAN" --no-holes "$S" >"$TMP/src.man"
"$SQK" mkimage -q "$S" "$TMP/ref.img" && "$SQK" unimage -q -o "$TMP/ref.tar" "$TMP/ref.img" || {
	echo "Bail out! the reference image cannot be built"
	exit 1
}

truncate -s 16M "$TMP/dev.img"
loop_on "$TMP/dev.img"
DEV=$L

# --- mkimage
expect_status 1 "mkimage onto a block device without --force" "$SQK" mkimage -q "$S" "$DEV"
is "$(cat "$TMP/.err")" "squashkit mkimage: $DEV: file exists (use --force to overwrite it)" \
	"the refusal says to use --force"
zeroed "$DEV"
ok $? "the refused device is untouched"
expect_success "mkimage --force onto a block device" "$SQK" mkimage -q --force "$S" "$DEV"
test -b "$DEV"
ok $? "the node stays a block device"
tree_of "$DEV" >"$TMP/k.man"
same_file "$TMP/k.man" "$TMP/src.man" "the kernel mounts the tree from the device"
cmp -s -n "$(stat -c %s "$TMP/ref.img")" "$DEV" "$TMP/ref.img"
ok $? "the device holds the bytes of a build to a file"

expect_success "mkimage --force --offset 1M onto the device" \
	"$SQK" mkimage -q --force --offset 1M "$S" "$DEV"
tree_of "$DEV" 1048576 >"$TMP/k.man"
same_file "$TMP/k.man" "$TMP/src.man" "the kernel mounts the tree 1 MiB into the device"

# --- squashkit mksquashfs: appends to the device's image unless -noappend
dd if=/dev/zero of="$DEV" bs=1M count=16 status=none
expect_status 1 "mksquashfs (drop-in) onto a device holding no image" \
	"$SQK" mksquashfs "$S" "$DEV" -quiet
zeroed "$DEV"
ok $? "it does not write over what is there"
expect_success "mksquashfs (drop-in) -noappend onto the device" \
	"$SQK" mksquashfs "$S" "$DEV" -quiet -noappend
tree_of "$DEV" >"$TMP/k.man"
grep -q "^a.txt " "$TMP/k.man" && grep -q "^dir/rnd " "$TMP/k.man"
ok $? "the kernel mounts what -noappend wrote"
expect_success "mksquashfs (drop-in) appends to the device's image" \
	"$SQK" mksquashfs "$TMP/more" "$DEV" -quiet
tree_of "$DEV" >"$TMP/k.man"
grep -q "^new.txt " "$TMP/k.man" && grep -q "^a.txt " "$TMP/k.man"
ok $? "the kernel mounts the old entries and the appended one"

# --- unimage -o
expect_status 1 "unimage -o onto a block device without --force" \
	"$SQK" unimage -q -o "$DEV" "$TMP/ref.img"
expect_success "unimage -o -f onto a block device" "$SQK" unimage -q -f -o "$DEV" "$TMP/ref.img"
test -b "$DEV"
ok $? "the node stays a block device"
cmp -s -n "$(stat -c %s "$TMP/ref.tar")" "$DEV" "$TMP/ref.tar"
ok $? "the device holds the archive"

# --- what a failure leaves: said in one line
truncate -s 64K "$TMP/small.img"
loop_on "$TMP/small.img"
SMALL=$L
expect_status 1 "mkimage --force onto a device too small" "$SQK" mkimage -q --force "$S" "$SMALL"
is "$(cat "$TMP/.err")" \
	"squashkit mkimage: $SMALL: No space left on device; the device holds a partial image" \
	"one line: the errno, and that the device holds a partial image"
test -b "$SMALL"
ok $? "the small device stays a block device"
expect_status 1 "unimage -o -f onto a device too small" "$SQK" unimage -q -f -o "$SMALL" "$TMP/ref.img"
is "$(wc -l <"$TMP/.err")" 1 "unimage: one line"
grep -q "No space left on device; the device holds a partial archive$" "$TMP/.err"
ok $? "unimage: the errno, and that the device holds a partial archive"

# SIGINT while writing (sent by the fault library at the third write).
if [ -f "$FAULT" ]; then
	sig_run() {
		env --default-signal=INT SQK_FAULT=write:3:SIGINT LD_PRELOAD="${asan:+$asan }$FAULT" \
			"$@" >/dev/null 2>"$TMP/.err"
	}
	sig_run "$SQK" mkimage -q --force "$S" "$DEV"
	is "$?" 130 "mkimage: SIGINT while writing the device ends it by the signal"
	is "$(cat "$TMP/.err")" \
		"squashkit mkimage: $DEV: interrupted; the device holds a partial image" \
		"after one line saying the device holds a partial image"
	sig_run "$SQK" unimage -q -f -o "$DEV" "$TMP/ref.img"
	is "$?" 130 "unimage: SIGINT while writing the device ends it by the signal"
	grep -q "the device holds a partial archive$" "$TMP/.err" && [ "$(wc -l <"$TMP/.err")" -eq 1 ]
	ok $? "after one line saying the device holds a partial archive"
	test -b "$DEV"
	ok $? "the node stays a block device"
	# Every write and open of a build to the device failed in turn: exit 1,
	# one line with the errno and the device's state, the node a block device.
	rm -f "$TMP/count"
	SQK_FAULT_COUNT=$TMP/count LD_PRELOAD="${asan:+$asan }$FAULT" \
		"$SQK" mkimage -q --force -b 4K "$S" "$DEV" 2>/dev/null
	# dev_fault SPEC: one run with the fault; why it went wrong, or nothing.
	dev_fault() {
		SQK_FAULT=$1 LD_PRELOAD="${asan:+$asan }$FAULT" \
			"$SQK" mkimage -q --force -b 4K "$S" "$DEV" >/dev/null 2>"$TMP/err"
		st=$?
		if [ $st -ne 1 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
			echo "exit $st: $(head -2 "$TMP/err" | tr '\n' '|')"
		elif ! grep -q "Input/output error" "$TMP/err"; then
			echo "not the errno's words: $(cat "$TMP/err")"
		elif [ "${1%%:*}" != open ] &&
			! grep -q "; the device holds a partial image$" "$TMP/err"; then
			echo "does not say the device holds a partial image: $(cat "$TMP/err")"
		elif [ ! -b "$DEV" ]; then
			echo "the node is no block device"
		fi
	}
	each_fault "$TMP/count" dev_fault write open sync
	is "$bad" 0 "each write, open and sync to the device failed in turn ($runs runs) as it should"
else
	skip "SIGINT and faults: the fault library is not built"
fi

done_testing
