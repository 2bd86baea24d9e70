#!/bin/sh
# mkimage --uncompressed and --named-sources against mksquashfs 4.5.1
# (-noI, -noD, -noF, -noX, -noId; several sources), read back by the kernel
# and by unsquashfs. The superblock lines of `unsquashfs -s` that say what is
# compressed must be the same for both images; the stored blocks must really
# be raw (stat --json shows every data block with compressed false).
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setfattr
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
SQK=$SQUASHKIT
scratch_mount

T=$TMP/tree
mkdir -p "$T/d/e"
seq 1 60000 >"$T/big"
seq 1 300 >"$T/d/small"
echo tail >"$T/d/e/t"
chown 1000:100 "$T/d/small"
setfattr -n user.a -v 1 "$T/big" && setfattr -n user.b -v 2 "$T/d"
ok $? "the source takes attributes"
"$MAN" "$T" >"$TMP/src.m"

# The lines of unsquashfs -s that say what is stored how.
flags() { unsquashfs -s "$1" | grep -E 'compressed|Compression|^Block size|exportable'; }

# check DESC PEER-OPTIONS -- OUR-LIST
check() {
	desc=$1
	peer=$2
	list=$3
	rm -f "$TMP/p.img" "$TMP/o.img"
	# shellcheck disable=SC2086
	mksquashfs "$T" "$TMP/p.img" -comp gzip $peer -noappend -quiet -no-progress >/dev/null 2>&1
	ok $? "$desc: mksquashfs packs the tree"
	expect_success "$desc: mkimage packs the tree" "$SQK" mkimage -q -c gzip \
		--uncompressed "$list" "$T" "$TMP/o.img"
	flags "$TMP/p.img" >"$TMP/p.f"
	flags "$TMP/o.img" >"$TMP/o.f"
	same_file "$TMP/p.f" "$TMP/o.f" "$desc: unsquashfs -s says the same of both"
	kernel_view "$TMP/o.img" "$TMP/o.k"
	same_file "$TMP/src.m" "$TMP/o.k" "$desc: the kernel reads the tree back"
	rm -rf "$TMP/u"
	unsquashfs -q -n -d "$TMP/u" "$TMP/o.img" >/dev/null 2>&1 && "$MAN" "$TMP/u" >"$TMP/o.u"
	sed '1d' "$TMP/src.m" >"$TMP/src.m1"
	sed '1d' "$TMP/o.u" >"$TMP/o.u1"
	same_file "$TMP/src.m1" "$TMP/o.u1" "$desc: unsquashfs extracts the tree"
	expect_success "$desc: fsck finds it clean" "$SQK" fsck "$TMP/o.img"
}

check "inodes" "-noI" inodes
check "data" "-noD" data
check "fragments" "-noF" fragments
check "xattrs" "-noX" xattrs
check "ids" "-noId" ids
check "inodes and ids" "-noI -noId" inodes,ids
check "everything" "-noI -noD -noF -noX" inodes,data,fragments,xattrs

# The data blocks of big really are raw, and bigger than compressed ones.
"$SQK" mkimage -q -c gzip --uncompressed data "$T" "$TMP/raw.img" &&
	"$SQK" stat --json "$TMP/raw.img" big >"$TMP/raw.json"
grep -q '"compressed":false' "$TMP/raw.json" && ! grep -q '"compressed":true' "$TMP/raw.json"
ok $? "--uncompressed data: every block of big is stored raw"
"$SQK" mkimage -q -c gzip "$T" "$TMP/cmp.img"
[ "$(stat -c %s "$TMP/raw.img")" -gt "$(stat -c %s "$TMP/cmp.img")" ]
ok $? "--uncompressed data: the image is bigger than a compressed one"

expect_status 2 "--uncompressed with an unknown part is a usage error" "$SQK" mkimage -q \
	--uncompressed inodes,tables "$T" "$TMP/bad.img"
[ ! -e "$TMP/bad.img" ]
ok $? "nothing written after the usage error"

# ---- --named-sources: several sources as mksquashfs puts them ----
echo lone >"$TMP/lone"
mkdir -p "$TMP/other/x"
echo y >"$TMP/other/x/y"
mksquashfs "$T/d" "$TMP/other" "$TMP/lone" "$TMP/p2.img" -noappend -quiet -no-progress \
	-root-mode 0755 >/dev/null 2>&1
ok $? "mksquashfs packs three sources"
expect_success "mkimage --named-sources packs three sources" "$SQK" mkimage -q --named-sources \
	"$T/d" "$TMP/other/" "$TMP/lone" "$TMP/o2.img"
kernel_view "$TMP/p2.img" "$TMP/p2.k"
kernel_view "$TMP/o2.img" "$TMP/o2.k"
# The peer's root takes the time of the run; ours the newest entry's.
sed -i '1s/ mtime=[0-9]*//' "$TMP/p2.k" "$TMP/o2.k"
same_file "$TMP/p2.k" "$TMP/o2.k" "--named-sources: the kernel shows the same tree"
grep -q '^d dir ' "$TMP/o2.k" && grep -q '^other/x/y file ' "$TMP/o2.k" &&
	grep -q '^lone file ' "$TMP/o2.k"
ok $? "--named-sources: each source is an entry named after it"
expect_status 2 "--named-sources with --archive is a usage error" "$SQK" mkimage -q \
	--named-sources --archive "$TMP/lone" "$TMP/bad.img"

done_testing
