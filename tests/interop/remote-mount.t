#!/bin/sh
# remote-mount.t: squashkit mount of an image served over HTTP (tests/tools/httpd
# on 127.0.0.1) against the kernel's mount of the same image file: the same
# tree through the VFS (the manifest: contents, types, modes, owners, times,
# xattrs, devices, hard links; holes aside: the kernel does not say where
# they are) and the same stat fields. Then the faults a
# mount must survive: the image replaced on the server after the mount (a
# read of a block not yet fetched is EIO, never the new image's bytes, and
# the mount goes on), and a server that fails for good (EIO). Every mount is
# undone by a trap; every wait is bounded.
SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/httpd.sh"

need_root
need_cmd timeout mountpoint fusermount3
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
[ -x "$SQK_TOOLS/httpd" ] || skip_all "$SQK_TOOLS/httpd is not built"
. "$SQK_SRCDIR/tests/interop/mount-lib.sh"

tree=$TMP/tree
ref_tree "$tree"
head -c 3000000 /dev/urandom >"$tree/big.bin"
mkdir -p "$TMP/srv"
img=$TMP/srv/ref.sqfs
"$SQUASHKIT" mkimage -q "$tree" "$img"
ok $? "mkimage builds the reference image"
http_start "$TMP/srv" "$TMP/log"

stats_of() {
	(cd "$1" && find . -exec stat -c '%n ino=%i blocks=%b size=%s nlink=%h mode=%f rdev=%t:%T mtime=%Y uid=%u gid=%g' {} + | sort)
}

kmnt=$TMP/kmnt
mkdir -p "$kmnt"
if mount -t squashfs -o loop,ro "$img" "$kmnt" 2>"$TMP/kmount.err"; then
	at_exit "umount '$kmnt' 2>/dev/null"
	"$MANIFEST" --no-holes "$kmnt" >"$TMP/kernel.manifest" 2>&1
	stats_of "$kmnt" >"$TMP/kernel.stats"
	umount "$kmnt"
	ok 0 "the kernel mounts the image"
else
	ok 1 "the kernel mounts the image"
	sed 's/^/#   /' "$TMP/kmount.err"
fi

mnt=$TMP/mnt
if mount_start "$BASE/ref.sqfs" "$mnt"; then
	ok 0 "squashkit mount of the URL comes up"
	"$MANIFEST" --no-holes "$mnt" >"$TMP/url.manifest" 2>&1
	same_file "$TMP/url.manifest" "$TMP/kernel.manifest" "the mount over HTTP shows the kernel's tree (manifest)"
	stats_of "$mnt" >"$TMP/url.stats"
	same_file "$TMP/url.stats" "$TMP/kernel.stats" "and the kernel's stat fields"
	cmp -s "$mnt/big.bin" "$tree/big.bin"
	ok $? "a file of 3 MB reads right through the mount"
	mount_stop "$mnt" "url"
fi

# The image replaced on the server after the mount came up.
"$SQUASHKIT" mkimage -q -c lz4 "$tree" "$TMP/two.sqfs"
if mount_start "$BASE/ref.sqfs" "$mnt"; then
	ok 0 "a second mount comes up"
	cp "$TMP/two.sqfs" "$TMP/srv/.next" && mv "$TMP/srv/.next" "$img"
	timeout 30 cat "$mnt/big.bin" >"$TMP/big.out" 2>"$TMP/big.err"
	s=$?
	grep -q "Input/output error" "$TMP/big.err"
	is "$s $?" "1 0" "a read of the replaced image is EIO"
	sed 's/^/#   /' "$TMP/big.err" | head -2
	head -c "$(stat -c %s "$TMP/big.out")" "$tree/big.bin" | cmp -s - "$TMP/big.out"
	ok $? "what was read before it is the old image's bytes"
	mountpoint -q "$mnt"
	ok $? "the mount goes on"
	mount_stop "$mnt" "replaced"
fi

# A server that fails for good after the mount: EIO, and the mount goes on.
http_stop
"$SQUASHKIT" mkimage -q "$tree" "$img.new" && mv "$img.new" "$img"
http_start "$TMP/srv" "$TMP/log" --fail-while "$TMP/fail"
if mount_start "$BASE/ref.sqfs" "$mnt" --retries 1; then
	ok 0 "a mount on a server about to fail comes up"
	: >"$TMP/fail"
	timeout 30 cat "$mnt/big.bin" >/dev/null 2>"$TMP/big.err"
	s=$?
	grep -q "Input/output error" "$TMP/big.err"
	is "$s $?" "1 0" "503 for good: the read is EIO"
	mountpoint -q "$mnt"
	ok $? "the mount goes on"
	mount_stop "$mnt" "failing"
fi

done_testing
