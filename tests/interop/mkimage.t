#!/bin/sh
# mkimage against real readers: the kernel, unsquashfs and sqfs2tar must each
# give back exactly the source tree, for every compressor and layout option.
# Also: archives, listings as a non-root user, reproducibility, the epoch.
# (Sparse maps, interruption, a full disk, scale and the id limit are in
# mkimage-scale.t.) Under the sanitizers (SQK_SANITIZED=1) every compressor
# and option still builds, but the peers read back only some of the images:
# the sanitized build writes the same bytes as the plain one, whose images
# the plain pass had every reader check.
SCRATCH=shm-xattrs
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd unsquashfs sqfs2tar tar setpriv

SQK=$SQUASHKIT
MAN=$SQK_TOOLS/manifest
[ -x "$MAN" ] || skip_all "manifest tool not built"
MNT=$TMP/mnt
mkdir -p "$MNT"
at_exit "umount '$MNT' 2>/dev/null; umount '$TMP/full' 2>/dev/null"

TREE=$TMP/tree
ref_tree "$TREE"
ok $? "reference tree built"

# Holes are stored at block granularity; sockets do not survive tar or unsquashfs.
manifest() { "$MAN" --no-holes "$@"; }
manifest "$TREE" >"$TMP/src.man"
manifest --no-sockets "$TREE" >"$TMP/src-nosock.man"
manifest --no-xattrs "$TREE" >"$TMP/src-nox.man"
manifest --no-xattrs --no-sockets "$TREE" >"$TMP/src-nox-nosock.man"

# check IMG DESC [kernel] [noxattr]: compare what each reader gives back.
check() {
	img=$1 desc=$2 kernel=$3 nox=$4
	full=$TMP/src.man nosock=$TMP/src-nosock.man mopt=""
	if [ "$nox" = noxattr ]; then
		full=$TMP/src-nox.man nosock=$TMP/src-nox-nosock.man mopt=--no-xattrs
	fi
	if [ "$kernel" = kernel ]; then
		if mount -t squashfs -o loop,ro "$img" "$MNT" 2>"$TMP/.err"; then
			manifest $mopt "$MNT" >"$TMP/k.man"
			umount "$MNT"
			same_file "$TMP/k.man" "$full" "$desc: kernel mount gives the tree back"
		else
			ok 1 "$desc: kernel mount"
			sed 's/^/#   /' "$TMP/.err"
		fi
	fi
	rm -rf "$TMP/u"
	if unsquashfs -q -n -d "$TMP/u" "$img" >/dev/null 2>"$TMP/.err"; then
		manifest $mopt --no-sockets "$TMP/u" >"$TMP/u.man"
		same_file "$TMP/u.man" "$nosock" "$desc: unsquashfs gives the tree back"
	else
		ok 1 "$desc: unsquashfs"
		sed 's/^/#   /' "$TMP/.err" | head -5
	fi
	rm -rf "$TMP/u"
	rm -rf "$TMP/t" && mkdir "$TMP/t"
	if sqfs2tar "$img" 2>"$TMP/.err" |
		tar -x --xattrs --xattrs-include='*' --numeric-owner -C "$TMP/t" -f - 2>>"$TMP/.err"; then
		manifest $mopt --no-sockets "$TMP/t" >"$TMP/t.man"
		# sqfs2tar puts the entries under the root; the root itself is tar's own directory.
		grep -v '^\. ' "$nosock" >"$TMP/want.man"
		grep -v '^\. ' "$TMP/t.man" >"$TMP/got.man"
		same_file "$TMP/got.man" "$TMP/want.man" "$desc: sqfs2tar gives the tree back"
	else
		ok 1 "$desc: sqfs2tar"
		sed 's/^/#   /' "$TMP/.err" | head -5
	fi
	rm -rf "$TMP/t"
}

for c in gzip lzma lzo xz lz4 zstd; do
	img=$TMP/$c.sqfs
	expect_success "build with $c" "$SQK" mkimage -q -c "$c" "$TREE" "$img"
	k=kernel
	[ "$c" = lzma ] && k="" # the kernel has no lzma (id 2) support
	# Under the sanitizers the peers read back gzip's image only.
	if [ -z "${SQK_SANITIZED:-}" ] || [ "$c" = gzip ]; then
		check "$img" "$c" $k
	fi
	rm -f "$img"
done

for opt in --no-fragments --tail-ends "-b 4K" "-b 1M" --no-dedup --no-xattrs --no-export; do
	img=$TMP/opt.sqfs
	# shellcheck disable=SC2086
	expect_success "build with $opt" "$SQK" mkimage -q -c gzip -L 6 $opt "$TREE" "$img"
	nx=""
	[ "$opt" = --no-xattrs ] && nx=noxattr
	# Under the sanitizers the peers read back the two block sizes only.
	if [ -z "${SQK_SANITIZED:-}" ] || [ "${opt#-b }" != "$opt" ]; then
		check "$img" "$opt" kernel $nx
	fi
	rm -f "$img"
done

# An archive of the tree gives the same tree back through the kernel.
(cd "$TREE" && tar --xattrs --xattrs-include='*' --numeric-owner -cf "$TMP/tree.tar" .) 2>/dev/null
expect_success "build from a tar archive" "$SQK" mkimage -q --archive "$TMP/tree.tar" "$TMP/a.sqfs"
if mount -t squashfs -o loop,ro "$TMP/a.sqfs" "$MNT"; then
	manifest --no-sockets "$MNT" >"$TMP/a.man"
	umount "$MNT"
	same_file "$TMP/a.man" "$TMP/src-nosock.man" "tar archive: kernel mount gives the tree back"
else
	ok 1 "tar archive: kernel mount"
fi
gzip -c "$TMP/tree.tar" >"$TMP/tree.tar.gz"
expect_success "build from a compressed archive on stdin" \
	sh -c "'$SQK' mkimage -q --archive - '$TMP/b.sqfs' <'$TMP/tree.tar.gz'"
cmp -s "$TMP/a.sqfs" "$TMP/b.sqfs"
ok $? "the same archive from a file and from stdin gives the same image"
rm -f "$TMP/a.sqfs" "$TMP/b.sqfs" "$TMP/tree.tar" "$TMP/tree.tar.gz"

# A listing with devices and foreign owners builds without root.
# nobody cannot enter $TMP (0700): use a directory of its own.
NB=$(mktemp -d /tmp/sqk-nobody.XXXXXX)
chmod 0777 "$NB"
at_exit "rm -rf '$NB'"
printf 'data from a listing\n' >"$NB/payload"
chmod 0644 "$NB/payload"
cat >"$NB/list" <<LIST
# a comment
dir /etc 0755 0 0
file /etc/payload 0640 1234 5678 $NB/payload
file /etc/empty 0600 42 42
slink /etc/link 0777 7 7 payload
link /etc/hard /etc/payload
nod /dev/null 0666 0 0 c 1 3
nod /dev/sda 0660 0 6 b 8 0
nod /dev/big 0600 0 0 c 300 70000
pipe /run/fifo 0600 99 99
sock /run/sock 0600 99 99
LIST
expect_success "a listing with devices and foreign owners builds as nobody" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$SQK" mkimage -q --listing "$NB/list" "$NB/l.sqfs"
if mount -t squashfs -o loop,ro "$NB/l.sqfs" "$MNT"; then
	got=$(cd "$MNT" && stat -c '%n %f %u %g %t:%T %h' etc/payload etc/empty etc/link \
		dev/null dev/sda dev/big run/fifo run/sock | tr '\n' ';')
	want="etc/payload 81a0 1234 5678 0:0 2;etc/empty 8180 42 42 0:0 1;etc/link a1ff 7 7 0:0 1;"
	want="${want}dev/null 21b6 0 0 1:3 1;dev/sda 61b0 0 6 8:0 1;dev/big 2180 0 0 12c:11170 1;"
	want="${want}run/fifo 1180 99 99 0:0 1;run/sock c180 99 99 0:0 1;"
	is "$got" "$want" "listing: types, modes, owners, devices and links as listed"
	cmp -s "$MNT/etc/hard" "$NB/payload"
	ok $? "listing: file data comes from SOURCE"
	umount "$MNT"
else
	ok 1 "listing image mounts"
fi
# The field order is gensquashfs's: its pack file, with its spelling of a
# hard link (three fields it does not read), gives the same tree through
# gensquashfs and mkimage (a file without SOURCE is empty here, read from
# PATH there: every file names one).
if command -v gensquashfs >/dev/null 2>&1; then
	: >"$NB/empty"
	sed -e "s|^file /etc/empty 0600 42 42\$|file /etc/empty 0600 42 42 $NB/empty|" \
		-e 's|^link /etc/hard /etc/payload$|link /etc/hard 0 0 0 /etc/payload|' \
		"$NB/list" >"$TMP/gen.list"
	gensquashfs -q -F "$TMP/gen.list" "$TMP/g.sqfs" >/dev/null 2>&1
	ok $? "gensquashfs builds the listing as a pack file"
	expect_success "mkimage builds the same pack file" "$SQK" mkimage -q --listing \
		"$TMP/gen.list" "$TMP/m.sqfs"
	for i in g m; do
		unsquashfs -lln "$TMP/$i.sqfs" 2>&1 | awk '{ print $1, $2, $3, $NF }' >"$TMP/$i.lln"
		unsquashfs -s "$TMP/$i.sqfs" 2>&1 | grep '^Number of inodes' >>"$TMP/$i.lln"
	done
	same_file "$TMP/g.lln" "$TMP/m.lln" "gensquashfs and mkimage: the same tree and inode count"
else
	skip "gensquashfs is not installed"
fi
printf 'dir /a 0755 0 0\nbogus /a/b\n' >"$TMP/bad.list"
expect_status 1 "a listing error fails" "$SQK" mkimage -q --listing "$TMP/bad.list" "$TMP/bad.sqfs"
grep -q 'bad.list:2:' "$TMP/.err"
ok $? "a listing error names the line"
[ ! -e "$TMP/bad.sqfs" ]
ok $? "a failed build leaves no image"

# Byte-identical for every thread count and every run.
"$SQK" mkimage -q -j 1 "$TREE" "$TMP/j1.sqfs"
"$SQK" mkimage -q -j 2 "$TREE" "$TMP/j2.sqfs"
"$SQK" mkimage -q -j 8 "$TREE" "$TMP/j8.sqfs"
"$SQK" mkimage -q -j 8 "$TREE" "$TMP/j8b.sqfs"
cmp -s "$TMP/j1.sqfs" "$TMP/j2.sqfs"
ok $? "-j 1 and -j 2 give the same bytes"
cmp -s "$TMP/j1.sqfs" "$TMP/j8.sqfs"
ok $? "-j 1 and -j 8 give the same bytes"
cmp -s "$TMP/j8.sqfs" "$TMP/j8b.sqfs"
ok $? "two runs give the same bytes"

# Without -f an existing IMAGE is an error and stays untouched.
sum=$(sha256sum <"$TMP/j1.sqfs")
expect_status 1 "an existing IMAGE without --force fails" "$SQK" mkimage -q "$TREE" "$TMP/j1.sqfs"
is "$(sha256sum <"$TMP/j1.sqfs")" "$sum" "the existing IMAGE is untouched"
rm -f "$TMP"/j*.sqfs

# SOURCE_DATE_EPOCH sets the superblock time and clamps newer inode times.
SOURCE_DATE_EPOCH=1500000000 "$SQK" mkimage -q "$TREE" "$TMP/e.sqfs"
is "$(od -An -tu4 -j8 -N4 "$TMP/e.sqfs" | tr -d ' ')" 1500000000 "SOURCE_DATE_EPOCH sets mkfs_time"
if mount -t squashfs -o loop,ro "$TMP/e.sqfs" "$MNT"; then
	newest=$(find "$MNT" -printf '%T@\n' | sort -n | tail -1 | cut -d. -f1)
	umount "$MNT"
	is "$newest" 1500000000 "SOURCE_DATE_EPOCH clamps newer inode times"
else
	ok 1 "epoch image mounts"
fi
"$SQK" mkimage -q --fstime 77 --mtime 66 "$TREE" "$TMP/f.sqfs"
is "$(od -An -tu4 -j8 -N4 "$TMP/f.sqfs" | tr -d ' ')" 77 "--fstime sets mkfs_time"
rm -f "$TMP/e.sqfs" "$TMP/f.sqfs"

done_testing
