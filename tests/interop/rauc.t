#!/bin/sh
# RAUC (Debian's rauc 1.8) with squashkit as its mksquashfs and unsquashfs
# (links of those names first in PATH). `rauc bundle` runs "mksquashfs DIR
# BUNDLE -all-root -noappend -no-progress -no-xattrs [--mksquashfs-args]",
# with its stdout silenced, and looks at the exit status only; for the
# verity format it then hashes the image itself, which must be padded to
# 4 KiB. `rauc info` reads a plain bundle's manifest with "unsquashfs -dest
# DIR /proc/PID/fd/N manifest.raucm", `rauc extract` all of it the same way;
# a verity bundle's it reads through the kernel (dm-verity over a loop
# device). A test CA and a signing certificate are made here with openssl.
#
# For both formats: the bundle is made and verified against the CA
# (rauc info --keyring), the kernel mounts its image as the content
# directory (owners root, no xattrs, as the options say), rauc extract
# gives the content back; for verity, veritysetup verifies the hash tree
# RAUC wrote after the image with the salt and root hash rauc info shows.
# --mksquashfs-args reach the drop-in (a compressor and level).
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd rauc openssl veritysetup setfattr
MAN=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq
[ -x "$MAN" ] && [ -x "$JSONQ" ] || skip_all "manifest or jsonq is not built"
scratch_mount

mkdir -p "$TMP/bin" "$TMP/content/sub"
ln -s "$SQUASHKIT" "$TMP/bin/mksquashfs"
ln -s "$SQUASHKIT" "$TMP/bin/unsquashfs"
export PATH="$TMP/bin:$PATH"

# The CA, and a certificate it signed for the bundles.
cd "$TMP" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca \
	-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	>openssl.out 2>&1 &&
	openssl req -newkey rsa:2048 -nodes -keyout dev.key -out dev.csr -subj /CN=dev \
		>>openssl.out 2>&1 &&
	openssl x509 -req -in dev.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out dev.pem \
		-days 2 >>openssl.out 2>&1 || {
	echo "Bail out! openssl: $(tail -1 openssl.out)"
	exit 1
}

C=$TMP/content
head -c 300000 /dev/urandom >"$C/rootfs.img"
echo "post-install" >"$C/sub/hook.sh"
chmod 755 "$C/sub/hook.sh"
chown 1234:1234 "$C/sub/hook.sh"
setfattr -n user.note -v x "$C/rootfs.img"

# bundle FORMAT NAME [RAUC-ARGS]: make the bundle NAME.raucb of the content.
bundle() {
	printf '[update]\ncompatible=squashkit-test\nversion=1.0\n\n[bundle]\nformat=%s\n\n' "$1" \
		>"$C/manifest.raucm"
	printf '[image.rootfs]\nfilename=rootfs.img\n' >>"$C/manifest.raucm"
	_name=$2
	shift 2
	rauc bundle --cert=dev.pem --key=dev.key "$@" "$C" "$TMP/$_name.raucb" \
		>"$TMP/$_name.out" 2>&1
}

for format in plain verity; do
	bundle $format $format
	st=$?
	ok $st "rauc bundle, format=$format, with squashkit as mksquashfs"
	[ $st -eq 0 ] || sed 's/^/#   /' "$TMP/$format.out" | tail -5
	rauc info --keyring=ca.pem "$TMP/$format.raucb" >"$TMP/$format.info" 2>"$TMP/$format.ierr"
	st=$?
	ok $st "rauc info --keyring: the $format bundle's signature and manifest check"
	[ $st -eq 0 ] || sed 's/^/#   /' "$TMP/$format.ierr" | tail -5
	grep -q "^Compatible:[[:space:]]*'squashkit-test'$" "$TMP/$format.info" &&
		grep -q "Verified \(inline\|detached\) signature by 'CN = dev'" "$TMP/$format.ierr"
	ok $? "  it reads the compatible and the signer"

	# The image at the bundle's start: what the options say of the content.
	if mount -t squashfs -o loop,ro "$TMP/$format.raucb" "$MNT" 2>"$TMP/mount.err"; then
		"$MAN" --no-owner --no-xattrs "$MNT" >"$TMP/bundle.man"
		find "$MNT" ! -uid 0 -o ! -gid 0 >"$TMP/owners"
		getfattr -R -d -m - "$MNT" 2>/dev/null >"$TMP/xattrs"
		umount "$MNT"
		"$MAN" --no-owner --no-xattrs "$C" >"$TMP/content.man"
		same_file "$TMP/bundle.man" "$TMP/content.man" "  the kernel mounts the $format image as the content"
		is "$(cat "$TMP/owners" "$TMP/xattrs")" "" "  every inode root's (-all-root), no xattrs (-no-xattrs)"
	else
		ok 1 "  the kernel mounts the $format image: $(cat "$TMP/mount.err")"
	fi
	rm -rf "$TMP/out"
	rauc extract --keyring=ca.pem "$TMP/$format.raucb" "$TMP/out" >"$TMP/x.out" 2>&1
	st=$?
	cmp -s "$TMP/out/rootfs.img" "$C/rootfs.img" && cmp -s "$TMP/out/sub/hook.sh" "$C/sub/hook.sh"
	ok $((st + $?)) "  rauc extract gives the content back ($([ $format = plain ] &&
		echo "through squashkit as unsquashfs" || echo "through the kernel and dm-verity"))"
done

# verity: the tree RAUC made after the image, against its root hash.
salt=$(sed -n "s/^[[:space:]]*Verity Salt:[[:space:]]*'\([0-9a-f]*\)'$/\1/p" "$TMP/verity.info")
hash=$(sed -n "s/^[[:space:]]*Verity Hash:[[:space:]]*'\([0-9a-f]*\)'$/\1/p" "$TMP/verity.info")
"$SQUASHKIT" inspect --json "$TMP/verity.raucb" >"$TMP/i.json"
used=$("$JSONQ" "$TMP/i.json" /bytes_used)
size=$(((used + 4095) / 4096 * 4096))
veritysetup verify --no-superblock --hash-offset=$size --data-blocks=$((size / 4096)) \
	--salt="$salt" "$TMP/verity.raucb" "$TMP/verity.raucb" "$hash" >"$TMP/v.out" 2>&1
ok $? "veritysetup verifies RAUC's hash tree over the image (salt and root hash from rauc info)"

# --mksquashfs-args go to the drop-in.
bundle plain args --mksquashfs-args="-comp gzip -Xcompression-level 3 -b 64K"
ok $? "rauc bundle --mksquashfs-args='-comp gzip -Xcompression-level 3 -b 64K'"
"$SQUASHKIT" inspect --json "$TMP/args.raucb" >"$TMP/i.json"
is "$("$JSONQ" "$TMP/i.json" /compression /block_size /compressor_options/compression_level |
	tr '\n' ' ')" "gzip 65536 3 " "  the image is gzip, level 3, of 64 KiB blocks"

done_testing
