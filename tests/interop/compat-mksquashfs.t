#!/bin/sh
# squashkit mksquashfs against Debian's mksquashfs (4.5.1): the same command
# line, with the options in several combinations, through both; the kernel
# mount of both images shows the same tree (tests/tools/manifest: contents,
# owners, modes, devices, xattrs, times) and `unsquashfs -s` says the same of
# both superblocks (compressor, block size, flags). Options that 4.5.1 lacks
# (-force-file-mode, -xattrs-*, -repro-time, ...) are compared with their
# native counterparts in tests/interop/mkimage-opts.t; here they only have to
# give the same images as the native options they map to.
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs tar
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
SQK=$SQUASHKIT
scratch_mount

T=$TMP/tree
ref_tree "$T"

# Most cases run on the tree without its 3000-entry directory, to stay quick;
# the real projects' command lines also without the large files (their
# options, not the data, are what is compared; xz over megabytes is slow).
S=$TMP/small
mkdir "$S" && (cd "$T" && tar -cf - --xattrs --xattrs-include='*' --exclude=./bigdir .) |
	(cd "$S" && tar -xpf - --xattrs --xattrs-include='*')
ok $? "a copy of the tree without bigdir"
L=$TMP/light
mkdir "$L" && (cd "$S" && tar -cf - --xattrs --xattrs-include='*' --exclude=./blocks \
	--exclude=./dup .) | (cd "$L" && tar -xpf - --xattrs --xattrs-include='*')
ok $? "a copy without bigdir, blocks and dup"

# view IMG OUT [OFFSET]: the tree as the kernel shows it. A kernel mount
# is kept for a representative subset of the cases (VIEW=kernel, the
# default); the others compare what unsquashfs -lln lists of both images
# (VIEW=list: names, types, modes, owners, sizes, times to the minute,
# link targets, devices), which is all their options can change.
view() {
	if [ "${VIEW:-kernel}" = list ]; then
		# A directory's size depends on where its entries' inodes fell: left out.
		unsquashfs -lln -UTC ${3:+-o "$3"} "$1" 2>&1 |
			sed '/^Parallel unsquashfs/d; s|^\(d[^ ]* [^ ]*\) *[0-9]* |\1 |' >"$2"
		return
	fi
	kernel_view "$@"
}
# What unsquashfs -s says of the compressor, block size and flags.
sb() {
	unsquashfs -s ${2:+-o "$2"} "$1" 2>&1 | grep -Ev '^(Found|Creation|Filesystem size|Number of)' |
		grep -v 'superblock on'
}

# both DESC SOURCES OPTIONS [OFFSET]: one command line through both tools.
both() {
	desc=$1
	rm -f "$TMP/p.img" "$TMP/o.img"
	# Patterns among the options are not globs of the shell.
	set -f
	# shellcheck disable=SC2086
	mksquashfs $2 "$TMP/p.img" $3 >"$TMP/p.out" 2>&1
	ok $? "$desc: mksquashfs builds it"
	# shellcheck disable=SC2086
	"$SQK" mksquashfs $2 "$TMP/o.img" $3 >"$TMP/o.out" 2>"$TMP/o.err"
	rc=$?
	set +f
	ok $rc "$desc: squashkit mksquashfs builds it"
	[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/o.err"
	compare "$desc" "${4:-0}" "${5:-}"
}

compare() {
	off=""
	[ "$2" != 0 ] && off=$2
	view "$TMP/p.img" "$TMP/p.k" "$off"
	view "$TMP/o.img" "$TMP/o.k" "$off"
	# ONLY: an entry of the root that only squashkit's image has (an empty directory).
	if [ -n "${3:-}" ]; then
		grep -q "^$3 dir mode=0710 " "$TMP/o.k" && ! grep -q "^$3/" "$TMP/o.k" &&
			! grep -q "^$3" "$TMP/p.k"
		ok $? "$1: only squashkit's image has $3, empty, with the mounted root's mode"
		sed -i "\|^$3 dir |d" "$TMP/o.k"
	fi
	# The peer's root of several sources takes the time of the run.
	if [ -n "${ROOT_NOW:-}" ]; then
		sed -i '1s/ mtime=[0-9]*//' "$TMP/p.k" "$TMP/o.k"
		sed -i 's|^\(d[^ ]* [^ ]* \)[-0-9]* [0-9:]* squashfs-root$|\1squashfs-root|' \
			"$TMP/p.k" "$TMP/o.k"
	fi
	if [ "${VIEW:-kernel}" = list ]; then
		same_file "$TMP/p.k" "$TMP/o.k" "$1: unsquashfs lists the same tree"
	else
		same_file "$TMP/p.k" "$TMP/o.k" "$1: the kernel shows the same tree"
	fi
	sb "$TMP/p.img" "$off" >"$TMP/p.sb"
	sb "$TMP/o.img" "$off" >"$TMP/o.sb"
	# Known difference: with no attribute in the sources, mkimage sets the
	# "no xattrs" flag and the peer does not; only those cases drop the line.
	if [ -n "${NO_XATTRS_IN_SOURCE:-}" ]; then
		sed -i '/^Xattrs are/d' "$TMP/p.sb" "$TMP/o.sb"
	fi
	same_file "$TMP/p.sb" "$TMP/o.sb" "$1: unsquashfs -s shows the same compressor and flags"
}

printf '%s\n' names symlinks/dangling >"$TMP/ef"
printf 'blocks/b131073 10\nsparse 5\n' >"$TMP/sort"
printf 'console C 1234 600 0 0 5 1\nextra D 1234 700 12 34\n' >"$TMP/pf"

# ---- The option list, in several combinations ----
both "xz, 64K blocks, raw inodes and data, all-root, no exports, times" "$T" \
	"-noappend -comp xz -Xbcj x86 -Xdict-size 32K -b 64K -noI -noD -all-root -no-exports
	 -mkfs-time 1234567 -all-time 1600000000 -processors 2 -mem 64M -quiet"
both "lz4 -Xhc, raw fragments and xattrs, always fragments, owners" "$S" \
	"-noappend -comp lz4 -Xhc -noF -noX -always-use-fragments -no-duplicates -force-uid 1000
	 -force-gid 100 -root-mode 0750 -no-sparse -no-progress -read-queue 64"
both "zstd level, raw ids, no xattrs, root owner, excludes, sort, pseudo file" "$S" \
	"-noappend -comp zstd -Xcompression-level 3 -noIdTableCompression -no-xattrs -root-uid 7
	 -root-gid 8 -sort $TMP/sort -pf $TMP/pf -ef $TMP/ef -e deep dup/a"
VIEW=list
# A definition with spaces, as one argument.
rm -f "$TMP/p.img" "$TMP/o.img"
mksquashfs "$L" "$TMP/p.img" -noappend -quiet -p 'null C 1234 666 0 0 1 3' >/dev/null 2>&1
ok $? "-p: mksquashfs builds it"
expect_success "-p: squashkit mksquashfs builds it" "$SQK" mksquashfs "$L" "$TMP/o.img" \
	-noappend -quiet -p 'null C 1234 666 0 0 1 3'
compare "-p" 0
# -nopad: an unpadded image cannot be loop-mounted; both are listed (sizes:
# tests/interop/compat-mksquashfs-dropin.t).
both "-nopad" "$L" "-noappend -quiet -nopad"
ROOT_NOW=1
both "gzip window and strategy, no fragments, no hardlinks, keep-as-directory" "$S" \
	"-noappend -comp gzip -Xcompression-level 6 -Xwindow-size 12 -Xstrategy default
	 -no-fragments -no-hardlinks -keep-as-directory -exports -xattrs -info"
ROOT_NOW=
# -no-strip/-tarstyle: each source at its own path, from a directory that
# holds only the sources (the root takes its attributes, and nothing is
# written in it while the two tools run).
W=$TMP/nostrip
mkdir -p "$W/a/b" && cp -a "$S/deep" "$W/a/b/" && cp -a "$L/names" "$W/" &&
	chmod 0700 "$W/a/b" && chmod 0750 "$W/a" && touch -d @1000000000 "$W/a" "$W"
ok $? "a tree for -no-strip"
cd "$W" || exit 1
NO_XATTRS_IN_SOURCE=1
both "-no-strip: overlapping paths, a leading ./ and a trailing /" "a/b/deep ./a names/ a/b" \
	"-noappend -no-strip -comp zstd"
both "-tarstyle with -keep-as-directory" "a/b" "-noappend -tarstyle -keep-as-directory"
# Excludes: relative to a source, relative to . (./), and a whole source by its
# absolute path (then not even the directories on its way are made).
both "-no-strip with excludes" "a/b/deep names" \
	"-noappend -no-strip -e level-01/level-02 ./a/b/deep/level-01/level-02 $W/names"
NO_XATTRS_IN_SOURCE=
cd "$TMP" || exit 1
both "lzo algorithm, tail ends, long -no*Compression names, -root-owned" "$S" \
	"-noappend -comp lzo -Xalgorithm lzo1x_999 -Xcompression-level 9 -tailends
	 -noInodeCompression -noDataCompression -noFragmentCompression -noXattrCompression
	 -root-owned -progress -no-recovery"
both "lzma, wildcards" "$L" "-noappend -comp lzma -wildcards -e ... *.txt names/with*"
# -regex: one POSIX regex per component, unanchored within a name; "... "
# matches at any depth.
both "-regex" "$S" "-noappend -regex -e ^na.*/^with blocks/^[0-9]+K$ blocks/minus ... ^dangl"
ROOT_NOW=1
NO_XATTRS_IN_SOURCE=1
both "several sources and a file" "$S/modes $S/owners $S/empty" "-noappend -all-root"
both "several sources with excludes" "$S/modes $S/names" "-noappend -e names/plain"
NO_XATTRS_IN_SOURCE=
ROOT_NOW=
VIEW=

# ---- xz's -Xe, -Xlc, -Xlp, -Xpb (the peer's xz_wrapper_extended.c) ----
# Debian's mksquashfs (4.5.1) is built without them; they go into each
# LZMA2 stream only, and the peer writes the options block without them,
# so the peer's image with the other options has the same tree and the
# same superblock, and the kernel and unsquashfs must decode ours.
rm -f "$TMP/p.img" "$TMP/o.img"
mksquashfs "$L" "$TMP/p.img" -noappend -quiet -comp xz -Xbcj x86 >/dev/null 2>&1
ok $? "xz extended: mksquashfs builds it without them"
expect_success "xz extended: squashkit mksquashfs builds it" "$SQK" mksquashfs "$L" \
	"$TMP/o.img" -noappend -quiet -comp xz -Xbcj x86 -Xe -Xlc 0 -Xlp 4 -Xpb 4
compare "xz -Xe -Xlc 0 -Xlp 4 -Xpb 4" 0
unsquashfs -cat "$TMP/o.img" sparse/hole-middle 2>/dev/null | cmp -s - "$L/sparse/hole-middle"
ok $? "xz extended: unsquashfs reads a file back"

# ---- -one-file-system: a tmpfs mounted inside the source ----
# mksquashfs 4.5.1 leaves the mount point out; 4.6 keeps it as an empty
# directory (its README lists the 4.5 behaviour as a bug fixed) and so does
# squashkit: the trees agree but for that one directory.
OFS=$TMP/ofs
mkdir -p "$OFS/mnt" "$OFS/d"
echo out >"$OFS/d/f"
if mount -t tmpfs -o mode=0710 tmpfs "$OFS/mnt" 2>/dev/null; then
	at_exit "umount '$OFS/mnt' 2>/dev/null"
	echo in >"$OFS/mnt/inside"
	NO_XATTRS_IN_SOURCE=1
	both "-one-file-system" "$OFS" "-noappend -one-file-system" 0 mnt
	NO_XATTRS_IN_SOURCE=
	umount "$OFS/mnt"
else
	skip "-one-file-system: cannot mount a tmpfs"
fi

# ---- -tar: a tar stream on stdin ----
(cd "$S" && tar --format=pax -cf "$TMP/tree.tar" --exclude=./special --exclude=./xattr .)
rm -f "$TMP/p.img" "$TMP/o.img"
mksquashfs - "$TMP/p.img" -tar -noappend -quiet <"$TMP/tree.tar" >/dev/null 2>&1
ok $? "-tar: mksquashfs reads the tar stream"
expect_success "-tar: squashkit mksquashfs reads the tar stream" sh -c \
	"'$SQK' mksquashfs - '$TMP/o.img' -tar -noappend -quiet <'$TMP/tree.tar'"
ROOT_NOW=1
NO_XATTRS_IN_SOURCE=1
compare "-tar" 0
ROOT_NOW=
NO_XATTRS_IN_SOURCE=

# ---- -offset: the image N bytes into a new file ----
both "-offset 8192" "$S" "-noappend -offset 8192 -comp gzip" 8192

# ---- SOURCE_DATE_EPOCH: the superblock time, inode times clamped ----
export SOURCE_DATE_EPOCH=1500000000
VIEW=list
both "SOURCE_DATE_EPOCH" "$L" "-noappend"
VIEW=
is "$(unsquashfs -mkfs-time "$TMP/o.img" 2>/dev/null)" 1500000000 \
	"SOURCE_DATE_EPOCH: the superblock time is the epoch"
expect_status 1 "SOURCE_DATE_EPOCH with -mkfs-time: exit 1, as the peer" "$SQK" mksquashfs \
	"$T" "$TMP/e.img" -noappend -mkfs-time 5
[ "$(wc -l <"$TMP/.err")" -eq 1 ] && [ ! -e "$TMP/e.img" ]
ok $? "SOURCE_DATE_EPOCH with -mkfs-time: one line, nothing written"
unset SOURCE_DATE_EPOCH

# ---- Real projects' command lines, unchanged but for the paths ----
# The kernel reads buildroot's; the others are compared as unsquashfs lists them.
# buildroot fs/squashfs/squashfs.mk (as in REG-Linux/REG-Linux
# custom/fs/squashfs/squashfs.mk): -noappend -processors N [-nopad] -comp lz4 -Xhc -b SIZE.
# (-nopad is added only without BR2_TARGET_ROOTFS_SQUASHFS_PAD; see above for it.)
both "buildroot" "$L" "-noappend -processors 2 -comp lz4 -Xhc -b 128k"
VIEW=list
# plrguez/buildroot-retrofw-2.3 fs/squashfs/squashfs.mk: ARGS -all-root -noappend
# -no-exports -no-xattrs.
both "buildroot (retrofw)" "$L" "-comp lzo -all-root -noappend -no-exports -no-xattrs"
# Yocto image_types.bbclass, as carried by tano-systems/meta-tanowrt
# meta-tanowrt/classes/openwrt-image-types.bbclass: ${EXTRA_IMAGECMD} -noappend -comp xz.
both "Yocto squashfs-xz" "$L" "-noappend -comp xz"
# electron-userland/electron-builder scripts/snap-template.sh (a snap):
# -comp xz -noappend -no-xattrs -no-fragments -all-root.
both "snap" "$L" "-comp xz -noappend -no-xattrs -no-fragments -all-root"
# siderolabs/talos hack/labeled-squashfs.sh: -all-root -noappend -comp zstd
# -Xcompression-level N -no-progress.
both "talos" "$L" "-all-root -noappend -comp zstd -Xcompression-level 19 -no-progress"
# mgord9518/squashfuse-zig test/make_images.sh: -comp C -noappend -root-owned -quiet.
both "squashfuse-zig test images" "$L" "-comp zstd -noappend -root-owned -quiet"
VIEW=

# ---- Appending: the peer appends when DEST exists and -noappend is not given ----
rm -f "$TMP/p.img" "$TMP/o.img"
mksquashfs "$T/modes" "$TMP/p.img" -noappend -quiet >/dev/null 2>&1 &&
	mksquashfs "$T/names" "$TMP/p.img" -quiet >/dev/null 2>&1
ok $? "append: mksquashfs appends to its image"
"$SQK" mksquashfs "$T/modes" "$TMP/o.img" -noappend -quiet &&
	"$SQK" mksquashfs "$T/names" "$TMP/o.img" -quiet
ok $? "append: squashkit mksquashfs appends to its image"
NO_XATTRS_IN_SOURCE=1
compare "append" 0
NO_XATTRS_IN_SOURCE=

done_testing
