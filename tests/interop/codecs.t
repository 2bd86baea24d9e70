#!/bin/sh
# The codecs against the real peers, without squashkit's reader or writer:
# - our options blocks are byte for byte what mksquashfs writes for the same
#   settings;
# - our decoders read every data block mksquashfs writes (codec-blocks decode);
# - unsquashfs, rdsquashfs and the kernel read our blocks: an image made with
#   raw inodes and data (-noI -noD) gets its data blocks compressed by our
#   codec in place (codec-blocks recompress), then each peer must give back
#   the file.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs unsquashfs awk cmp
TOOL=$SQK_TOOLS/codec-blocks
[ -x "$TOOL" ] || skip_all "$TOOL is not built"

# One file that gives each codec something to do: text, program code (for
# the BCJ filters) and an incompressible run (stored raw).
mkdir "$TMP/src"
awk 'BEGIN { srand(7); split("squash block inode fragment table the of a export id data cache", w);
	for (i = 0; i < 170000; i++) printf "%s%s", w[int(rand() * 12) + 1], (i % 13 ? " " : "\n") }' \
	>"$TMP/src/data"
cat /bin/sh >>"$TMP/src/data"
awk 'BEGIN { srand(11); for (i = 0; i < 200000; i++) printf "%c", int(rand() * 255) + 1 }' \
	>>"$TMP/src/data"
# Times fixed: the same tree every run, so the peers' images of it are made
# once a suite run (peer_image).
touch -d @1600000000 "$TMP/src/data" "$TMP/src"

# A kernel mount needs root, loop devices and squashfs; probe once.
can_mount=0
if [ "$(id -u)" -eq 0 ] && grep -qw squashfs /proc/filesystems 2>/dev/null; then
	mkdir "$TMP/mnt" "$TMP/probe"
	at_exit 'umount "$TMP/mnt" 2>/dev/null'
	if mksquashfs "$TMP/probe" "$TMP/probe.img" -comp gzip -noappend -quiet >/dev/null 2>&1 &&
		mount -t squashfs -o loop,ro "$TMP/probe.img" "$TMP/mnt" 2>/dev/null; then
		umount "$TMP/mnt"
		can_mount=1
	fi
fi
have_rd=0
command -v rdsquashfs >/dev/null 2>&1 && have_rd=1

# codec|block size|mksquashfs options|our -X options
while IFS='|' read -r codec bs mkopts ours; do
	[ -n "$codec" ] || continue
	name="$codec -b $bs $mkopts"
	img=$TMP/img
	raw=$TMP/raw
	rm -f "$img" "$raw"

	# shellcheck disable=SC2086 # the option lists are meant to split
	if ! peer_image "$img" "$TMP/src" mksquashfs "$TMP/src" "$img" -comp "$codec" -b "$bs" \
		$mkopts -no-fragments -noappend -no-xattrs -quiet >"$TMP/mk.out" 2>&1; then
		ok 1 "$name: mksquashfs"
		sed 's/^/#   /' "$TMP/mk.out" | head -5
		continue
	fi
	# shellcheck disable=SC2086
	want=$("$TOOL" options "$codec" "$bs" $ours 2>&1)
	got=$("$TOOL" decode "$img" "$TMP/src/data" 2>&1)
	status=$?
	is "$(echo "$got" | sed -n 1p)" "$want" "$name: our options block is mksquashfs's"
	ok $status "$name: we decode mksquashfs's blocks ($(echo "$got" | sed -n 2p))"

	# shellcheck disable=SC2086
	peer_image "$raw" "$TMP/src" mksquashfs "$TMP/src" "$raw" -comp "$codec" -b "$bs" $mkopts \
		-no-fragments -noappend -no-xattrs -noI -noD -quiet >/dev/null 2>&1
	got=$("$TOOL" recompress "$raw" 2>&1)
	status=$?
	case $got in
	*"compressed 0"*) status=1 ;;
	esac
	ok $status "$name: our codec compresses the blocks ($(echo "$got" | tail -n 1))"
	unsquashfs -cat "$raw" data 2>"$TMP/err" | cmp -s - "$TMP/src/data"
	ok $? "$name: unsquashfs reads our blocks"
	if [ $have_rd -eq 1 ]; then
		rdsquashfs -c /data "$raw" 2>"$TMP/err" | cmp -s - "$TMP/src/data"
		ok $? "$name: rdsquashfs reads our blocks"
	fi
	# Linux has no lzma (only xz) support.
	if [ $can_mount -eq 1 ] && [ "$codec" != lzma ]; then
		if mount -t squashfs -o loop,ro "$raw" "$TMP/mnt" 2>"$TMP/err"; then
			cmp -s "$TMP/mnt/data" "$TMP/src/data"
			st=$?
			umount "$TMP/mnt"
			ok $st "$name: the kernel reads our blocks"
		else
			ok 1 "$name: the kernel mounts the image"
			sed 's/^/#   /' "$TMP/err" | head -5
		fi
	fi
done <<'EOF_CASES'
gzip|131072||
gzip|131072|-Xcompression-level 1 -Xwindow-size 10|level=1 window=10
gzip|131072|-Xstrategy filtered,run_length_encoded|strategy=filtered,run_length_encoded
gzip|4096|-Xcompression-level 6|level=6
gzip|131072|-Xwindow-size 8 -Xcompression-level 3|window=8 level=3
gzip|1048576|-Xwindow-size 15 -Xstrategy default,huffman_only,fixed|strategy=default,huffman_only,fixed
lzma|131072||
lzma|1048576||
lzo|131072||
lzo|131072|-Xalgorithm lzo1x_1|algorithm=lzo1x_1
lzo|131072|-Xalgorithm lzo1x_1_11|algorithm=lzo1x_1_11
lzo|4096|-Xalgorithm lzo1x_1_12|algorithm=lzo1x_1_12
lzo|131072|-Xalgorithm lzo1x_1_15|algorithm=lzo1x_1_15
lzo|131072|-Xcompression-level 5|level=5
xz|131072||
xz|4096||
xz|131072|-Xbcj x86,arm -Xdict-size 50%|bcj=x86,arm dict-size=50%
xz|131072|-Xbcj powerpc,ia64,armthumb,sparc -Xdict-size 96K|bcj=powerpc,ia64,armthumb,sparc dict-size=96K
xz|1048576|-Xdict-size 256K -Xbcj x86|dict-size=256K bcj=x86
lz4|131072||
lz4|131072|-Xhc|level=9
lz4|4096|-Xhc|level=12
zstd|131072||
zstd|131072|-Xcompression-level 3|level=3
zstd|1048576|-Xcompression-level 19|level=19
EOF_CASES

done_testing
