#!/bin/sh
# keep-going.t: unimage --keep-going on images with one damaged block (a
# data block, a fragment block, a directory block, an inode block), and the
# unsquashfs front end on the same images against Debian's unsquashfs.
#
# tests/tools/locate finds the block in the undamaged image; its middle is
# overwritten, so that it no longer decompresses. Then, for each image:
#   - unimage -k -d exits 1; every entry it made is the source's (same type,
#     contents, symlink target); every entry of the source it did not make
#     is named on stderr, or is below a directory named there; every named
#     entry is absent; the entries lost are exactly those the damage hits:
#     the file (and its hard link) owning the data block, the files whose
#     tails are in the fragment, the directories whose listings start in
#     the directory block (with all below them), the entries whose inodes
#     are in the inode block (with all below them), as locate finds them
#     in the undamaged image;
#   - unimage -k -o gives an archive of the same entries, the same bytes;
#   - without -k: exit 1, nothing left;
#   - squashkit unsquashfs -ig extracts the same entries as unsquashfs -ig
#     leaves whole (exit 2, both): unsquashfs may also leave a hard link to
#     the file whose data block is damaged, partly written (when it made
#     the link first), which squashkit removes; on the inode block
#     unsquashfs stops (exit 1, nothing extracted: it reads every inode
#     before it writes), where squashkit goes on with what it can read;
#   - squashkit unsquashfs without -ig stops (exit 1, as unsquashfs), and
#     leaves only whole files.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd unsquashfs tar
need_unsquashfs_4_5_1
LOCATE=$SQK_TOOLS/locate
[ -x "$LOCATE" ] || skip_all "$LOCATE is not built"

# Three directories of 200 files each (over an inode and a directory block
# apiece), a file of many blocks with a hard link, a symlink, a subdirectory.
src=$TMP/src
for d in alpha beta gamma; do
	mkdir -p "$src/$d"
	i=1
	while [ $i -le 200 ]; do
		printf 'file %s %d\n%s\n' $d $i "$(seq 1 $((i % 40)))" \
			>"$src/$d/entry-with-a-longish-name-$i"
		i=$((i + 1))
	done
done
seq 1 20000 >"$src/big"
mkdir "$src/beta/sub"
seq 5 9000 >"$src/beta/sub/big2"
ln "$src/big" "$src/alpha/biglink"
ln -s ../big "$src/gamma/link"
img=$TMP/k.img
"$SQUASHKIT" mkimage -q -c gzip -b 4K "$src" "$img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}
# Every entry of the source, as "TYPE PATH" with no leading "./".
entries() { (cd "$1" && find . -mindepth 1 -printf '%y %P\n' | sort); }
entries "$src" >"$TMP/all"


# The entries the damage of KIND PATH makes unreadable, from the undamaged
# image: those whose block it is (locate users), with all below them.
lost_by() {
	case $1 in
	data) printf 'f big\nf alpha/biglink\n' ;;
	*) "$LOCATE" "$img" users "$1" "/$2" | while read -r p; do
		grep -E "^. $p(/|\$)" "$TMP/all"
	done ;;
	esac | sort -u
}

# check_tree DIR: every entry of DIR is the source's (type, bytes, link
# target): diff finds nothing but what is only in the source.
check_tree() {
	diff -rq --no-dereference "$1" "$src" 2>&1 | grep -v "^Only in $src" | head -1
}

# whole DIR: the entries of DIR that are the source's. unsquashfs -ig may
# leave a hard link to a file whose data it could not read, partly written,
# when it made the link before the data failed; squashkit never does.
whole() {
	diff -rq --no-dereference "$1" "$src" 2>/dev/null |
		sed -n "s|^Files $1/\(.*\) and $src/.* differ\$|f \1|p" >"$TMP/differ"
	entries "$1" | grep -v -x -F -f "$TMP/differ"
}

# named ERRFILE PREFIX: the image paths its lines name, without the leading '/'.
named() {
	sed -n "s|^$2: /\\([^:]*\\): .*|\\1|p" "$1" | sort -u
}

# covered MISSING NAMED: every missing entry is named, or below a named directory.
covered() {
	while read -r t p; do
		hit=0
		while read -r n; do
			case $p in
			"$n" | "$n"/*) hit=1 && break ;;
			esac
		done <"$2"
		[ $hit -eq 1 ] || {
			echo "$p"
			return
		}
	done <"$1"
}

for kind in "data big 3" "frag alpha/entry-with-a-longish-name-5" "dir beta" \
	"inode gamma/entry-with-a-longish-name-150"; do
	# shellcheck disable=SC2086
	set -- $kind
	k=$1
	d=$TMP/$k.img
	cp "$img" "$d"
	smash_block "$d" "$1" "/$2" ${3:-} || {
		ok 1 "$k: the block to damage is found"
		continue
	}
	lost_by "$1" "$2" >"$TMP/$k.lost"
	echo "# $k block: $(wc -l <"$TMP/$k.lost") entries unreadable"

	out=$TMP/$k.out
	expect_status 1 "$k: unimage --keep-going exits 1" "$SQUASHKIT" unimage -q -k -d "$out" "$d"
	cp "$TMP/.err" "$TMP/$k.err"
	is "$(check_tree "$out")" "" "$k: every entry it made is the source's"
	entries "$out" >"$TMP/$k.got"
	comm -23 "$TMP/all" "$TMP/$k.got" >"$TMP/$k.missing"
	same_file "$TMP/$k.missing" "$TMP/$k.lost" "$k: the entries left out are those the damage hits"
	named "$TMP/$k.err" "squashkit unimage: $d" >"$TMP/$k.named"
	is "$(covered "$TMP/$k.missing" "$TMP/$k.named")" "" "$k: each one left out is named (or a directory above it)"
	is "$(grep -c -v "^squashkit unimage: $d: /[^:]*: " "$TMP/$k.err")" 0 \
		"$k: every line is 'squashkit unimage: IMAGE: /path: why'"
	bad=0
	while read -r n; do
		[ ! -e "$out/$n" ] || bad=$((bad + 1))
	done <"$TMP/$k.named"
	is $bad 0 "$k: no entry it named is there"

	# The archive: the same entries, the same bytes.
	expect_status 1 "$k: unimage --keep-going -o exits 1" \
		"$SQUASHKIT" unimage -q -k -o "$TMP/$k.tar" "$d"
	mkdir "$TMP/$k.untar"
	tar -C "$TMP/$k.untar" -xf "$TMP/$k.tar" 2>/dev/null
	diff -r --no-dereference "$TMP/$k.untar" "$out" >/dev/null
	ok $? "$k: the archive holds what the directory holds"

	expect_status 1 "$k: without --keep-going, unimage fails" \
		"$SQUASHKIT" unimage -q -d "$TMP/$k.none" "$d"
	test ! -e "$TMP/$k.none"
	ok $? "$k: and leaves nothing"

	# The front end and the peer, both going on with -ig.
	"$SQUASHKIT" unsquashfs -ig -n -q -d "$TMP/$k.fe" "$d" >/dev/null 2>"$TMP/$k.fe.err"
	fe=$?
	unsquashfs -ig -n -q -d "$TMP/$k.peer" "$d" >/dev/null 2>&1
	peer=$?
	entries "$TMP/$k.fe" >"$TMP/$k.fe.got" 2>/dev/null
	[ -d "$TMP/$k.peer" ] && whole "$TMP/$k.peer" >"$TMP/$k.peer.got" || : >"$TMP/$k.peer.got"
	same_file "$TMP/$k.fe.got" "$TMP/$k.got" "$k: unsquashfs -ig (squashkit) extracts what unimage -k does"
	if [ "$k" = inode ]; then
		is "$fe $peer" "2 1" "$k: exit 2 (squashkit goes on), unsquashfs stops with 1"
		is "$(comm -13 "$TMP/$k.fe.got" "$TMP/$k.peer.got")" "" \
			"$k: unsquashfs -ig extracts no entry squashkit does not"
	else
		is "$fe $peer" "2 2" "$k: unsquashfs -ig exits 2, both"
		same_file "$TMP/$k.fe.got" "$TMP/$k.peer.got" \
			"$k: the same entries as unsquashfs -ig leaves whole"
	fi
	"$SQUASHKIT" unsquashfs -n -q -d "$TMP/$k.fe1" "$d" >/dev/null 2>&1
	fe=$?
	unsquashfs -n -q -d "$TMP/$k.peer1" "$d" >/dev/null 2>&1
	is "$fe $?" "1 1" "$k: without -ig both stop with 1"
	if [ -d "$TMP/$k.fe1" ]; then
		is "$(check_tree "$TMP/$k.fe1")" "" "$k: what squashkit unsquashfs left is whole"
	else
		ok 0 "$k: squashkit unsquashfs left nothing"
	fi
done

done_testing
