#!/bin/sh
# The command lines the build tools that run mksquashfs from PATH give it,
# word for word (from their sources), through squashkit mksquashfs and
# through Debian's mksquashfs: the same exit status (0), and images that
# unsquashfs lists and extracts alike, with the same compressor, filters
# and block size. None of these tools reads mksquashfs's output: RAUC
# silences its stdout, repart, live-build and kiwi look at the exit status
# (kiwi then at the image's size). (Where the tree has no xattrs the two
# set the superblock's flag for them differently; no reader cares.)
#
#   RAUC 1.8, src/bundle.c: DIR BUNDLE -all-root -noappend -no-progress
#     -no-xattrs [--mksquashfs-args] (rauc.t runs rauc itself)
#   systemd-repart 252, src/shared/mkfs-util.c: ROOT NODE -quiet -noappend
#     (repart.t runs repart itself)
#   live-build 20230502, scripts/build/binary_rootfs: chroot
#     binary/live/filesystem.squashfs, its MKSQUASHFS_OPTIONS each put in
#     front of the last: -no-progress (no terminal), -info (--verbose),
#     -sort squashfs.sort, -comp xz (or the type configured),
#     -Xcompression-level N (configured), -wildcards -ef excludes. Running
#     lb needs debootstrap and a mirror: its command lines are run here.
#   kiwi (OSInside/kiwi, kiwi/filesystem/squashfs.py): ROOT/ FILE -noappend
#     -b 1M, then -comp xz -Xbcj x86 (xz, the default, on x86), -comp TYPE,
#     or -noI -noD -noF -noX (uncompressed), then -wildcards -e and the
#     excludes of Defaults.get_exclude_list_for_root_data_sync: image
#     .kconfig run/* tmp/* .buildenv var/cache/kiwi.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd mksquashfs unsquashfs
SQK=$SQUASHKIT

# A root file system as these tools see one: kiwi's own files among it.
R=$TMP/root
mkdir -p "$R/etc" "$R/usr/bin" "$R/usr/lib" "$R/var/cache/kiwi" "$R/var/cache/apt" "$R/run" \
	"$R/tmp/t" "$R/image" "$R/boot"
echo "NAME=test" >"$R/etc/os-release"
head -c 400000 /dev/urandom >"$R/usr/bin/tool"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "line %d of a library\n", i }' >"$R/usr/lib/libx.so"
ln -s ../lib/libx.so "$R/usr/bin/libx"
ln "$R/etc/os-release" "$R/usr/lib/os-release"
echo cache >"$R/var/cache/kiwi/c"
echo pkgcache >"$R/var/cache/apt/pkgcache.bin"
echo pid >"$R/run/pid"
echo tmp >"$R/tmp/t/x"
echo desc >"$R/image/config.xml"
echo k >"$R/.kconfig"
echo env >"$R/.buildenv"
echo vmlinuz >"$R/boot/vmlinuz"
printf 'boot/vmlinuz 100\nusr/lib/libx.so 50\n' >"$TMP/squashfs.sort"
printf 'var/cache/apt/*.bin\ntmp/*\nrun/*\n' >"$TMP/excludes"

# both DESC ARGS...: the same command line through both, in $TMP, with @OUT@
# the image (p.img, o.img), @ROOT@ the root; compares what they made.
both() {
	desc=$1
	shift
	rm -rf "$TMP/p.img" "$TMP/o.img" "$TMP/p.x" "$TMP/o.x"
	for who in p o; do
		args=
		for a; do
			case $a in
			@OUT@) a=$TMP/$who.img ;;
			@ROOT@) a=$R ;;
			@ROOT/@) a=$R/ ;;
			esac
			args="$args '$a'"
		done
		if [ $who = p ]; then
			eval "(cd '$TMP' && mksquashfs $args)" >"$TMP/p.out" 2>"$TMP/p.err"
		else
			eval "(cd '$TMP' && '$SQK' mksquashfs $args)" >"$TMP/o.out" 2>"$TMP/o.err"
		fi
		eval "${who}rc=\$?"
	done
	is "$orc $prc" "0 0" "$desc: both succeed"
	[ "$orc" -eq 0 ] || sed 's/^/#   /' "$TMP/o.err"
	unsquashfs -lln -UTC "$TMP/p.img" 2>&1 | sed '/^Parallel/d; s|^\(d[^ ]* [^ ]*\) *[0-9]* |\1 |' \
		>"$TMP/p.list"
	unsquashfs -lln -UTC "$TMP/o.img" 2>&1 | sed '/^Parallel/d; s|^\(d[^ ]* [^ ]*\) *[0-9]* |\1 |' \
		>"$TMP/o.list"
	same_file "$TMP/o.list" "$TMP/p.list" "  unsquashfs lists the same tree"
	unsquashfs -q -d "$TMP/p.x" "$TMP/p.img" >/dev/null 2>&1
	unsquashfs -q -d "$TMP/o.x" "$TMP/o.img" >/dev/null 2>&1
	diff -r "$TMP/p.x" "$TMP/o.x" >"$TMP/diff" 2>&1
	ok $? "  the same files, byte for byte"
	for who in p o; do
		unsquashfs -s "$TMP/$who.img" 2>&1 |
			grep -E '^(Compression|Block size|Filters selected|	x86|Fragments are|Data is|Inodes are)' \
				>"$TMP/$who.s"
	done
	same_file "$TMP/o.s" "$TMP/p.s" "  the same compressor, filters, block size and compressed parts"
}

both "RAUC 1.8" @ROOT@ @OUT@ -all-root -noappend -no-progress -no-xattrs
both "systemd-repart 252" @ROOT@ @OUT@ -quiet -noappend
is "$(cat "$TMP/o.out")" "" "  -quiet: nothing on stdout"
both "live-build, defaults" @ROOT@ @OUT@ -comp xz -no-progress
both "live-build, every option" @ROOT@ @OUT@ -wildcards -ef excludes -Xcompression-level 19 \
	-comp zstd -sort squashfs.sort -info -no-progress
! grep -q 'pkgcache.bin\|tmp/t\|run/pid' "$TMP/o.list" && grep -q 'boot/vmlinuz' "$TMP/o.list"
ok $? "  the excludes file's wildcards left out what they match"
both "live-build, gzip at level 9" @ROOT@ @OUT@ -Xcompression-level 9 -comp gzip -no-progress
both "kiwi, xz (the default) on x86" @ROOT/@ @OUT@ -noappend -b 1M -comp xz -Xbcj x86 \
	-wildcards -e image .kconfig 'run/*' 'tmp/*' .buildenv var/cache/kiwi
! grep -q 'image\|\.kconfig\|\.buildenv\|var/cache/kiwi\|run/pid\|tmp/t' "$TMP/o.list" &&
	grep -q 'squashfs-root/run$' "$TMP/o.list" && grep -q 'squashfs-root/var/cache/apt' "$TMP/o.list"
ok $? "  kiwi's own files are left out, run/ and tmp/ kept empty"
both "kiwi, zstd" @ROOT/@ @OUT@ -noappend -b 1M -comp zstd \
	-wildcards -e image .kconfig 'run/*' 'tmp/*' .buildenv var/cache/kiwi
both "kiwi, uncompressed" @ROOT/@ @OUT@ -noappend -b 1M -noI -noD -noF -noX \
	-wildcards -e image .kconfig 'run/*' 'tmp/*' .buildenv var/cache/kiwi

done_testing
