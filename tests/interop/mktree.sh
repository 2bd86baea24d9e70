#!/bin/sh
# mktree.sh DIR — build the reference test tree in DIR (which must not exist).
#
# Every kind of entry SquashFS can hold, at the sizes where readers and
# writers go wrong: block and fragment boundaries for 4K, 128K and 1M blocks,
# sparse files, duplicates, hard links, long and odd names, every device
# encoding, xattrs in three namespaces, high ids, extreme times. The tree is
# deterministic (pseudo-random data comes from a seeded generator) and small
# (about 4 MB of file data). Without root, devices, owners and trusted/security
# xattrs are left out, and a note says so on stderr.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: mktree.sh DIR" >&2
	exit 2
fi
T=$1
if [ -e "$T" ]; then
	echo "mktree.sh: $T: already exists" >&2
	exit 1
fi

umask 022
export LC_ALL=C
root=0
[ "$(id -u)" -eq 0 ] && root=1

B=131072 # the default block size; the 4K and 1M cases get their own files

. "$(dirname "$0")/gen.sh"

mkdir "$T"
cd "$T"

# --- regular files at block boundaries ---
: >empty
printf x >one
mkdir blocks
rnd 1 $((B - 1)) >blocks/block-minus-1
txt 2 $B >blocks/block
rnd 3 $((B + 1)) >blocks/block-plus-1
# five blocks and a tail: random and text blocks alternate, so one file has
# both compressed and uncompressed blocks.
{
	rnd 4 $B
	txt 4 $B
	rnd 5 $B
	txt 5 $B
	rnd 6 $B
	txt 6 1000
} >blocks/several
head -c $((3 * B)) /dev/zero >blocks/zeros-3-blocks
{
	txt 7 $((1024 * 1024 - 4096))
	rnd 7 4097
} >blocks/1M-plus-1
rnd 8 4095 >blocks/4K-minus-1
rnd 9 4096 >blocks/4K
rnd 10 4097 >blocks/4K-plus-1
{
	rnd 11 8192
	head -c 4096 /dev/zero
	txt 11 5
} >blocks/4K-zero-4K-tail

# --- sparse files: holes at the start, middle and end ---
mkdir sparse
truncate -s $((3 * B)) sparse/hole-start
txt 12 5000 | put sparse/hole-start $((3 * B))
txt 13 100000 >sparse/hole-middle
truncate -s $((8 * B)) sparse/hole-middle
rnd 13 100000 | put sparse/hole-middle $((8 * B))
rnd 14 70000 >sparse/hole-end
truncate -s $((16 * B)) sparse/hole-end
truncate -s $((8 * B)) sparse/all-hole
# data at 4K but not 128K alignment, in a 6 MiB file
truncate -s 6291456 sparse/scattered
txt 15 4096 | put sparse/scattered 1048576
rnd 15 4099 | put sparse/scattered 3149824
txt 16 3 | put sparse/scattered 5767168

# --- duplicates: whole files and fragment-sized ones ---
mkdir dup
rnd 17 $((3 * B + 777)) >dup/big-a
cp dup/big-a dup/big-b
rnd 18 $((3 * B + 777)) >dup/big-same-size
printf 'a duplicated small file\n' >dup/small-a
printf 'a duplicated small file\n' >dup/small-b
printf 'a duplicated small file\n' >dup/small-c
printf 'a duplicated small filE\n' >dup/small-same-size
txt 19 $B >dup/block-a
cp dup/block-a dup/block-b

# --- hard links: a group of three and a group of two with xattrs ---
mkdir hardlinks hardlinks/sub
txt 20 3000 >hardlinks/three-a
ln hardlinks/three-a hardlinks/three-b
ln hardlinks/three-a hardlinks/sub/three-c
rnd 21 $((B + 10)) >hardlinks/two-a
ln hardlinks/two-a hardlinks/sub/two-b
setfattr -n user.linked -v "one inode, two names" hardlinks/two-a

# --- symlinks ---
mkdir symlinks
ln -s ../one symlinks/relative
ln -s /etc/passwd symlinks/absolute
ln -s does/not/exist symlinks/dangling
ln -s ../blocks symlinks/to-dir
ln -s self symlinks/self
ln -s "$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "%s", "component/"; }')" \
	symlinks/long-4000

# --- a directory with 3100 entries (spans many directory headers) ---
mkdir bigdir
i=0
while [ $i -lt 3100 ]; do
	n=$((10000 + i))
	n=${n#1}
	case $i in
	*7) name="entry-$n-with-a-much-longer-name-to-fill-metadata-blocks-faster" ;;
	*) name="entry-$n" ;;
	esac
	case $i in
	*0) : >"bigdir/$name" ;;
	*) printf '%s\n' "$i" >"bigdir/$name" ;;
	esac
	i=$((i + 1))
done
mkdir bigdir/subdir-a bigdir/subdir-z

# --- 40 levels of nesting ---
p=deep
mkdir deep
i=1
while [ $i -le 40 ]; do
	p="$p/level-$(printf '%02d' $i)"
	mkdir "$p"
	i=$((i + 1))
done
printf 'bottom\n' >"$p/leaf"

# --- fifos, devices, sockets ---
mkdir special
mkfifo special/fifo
if [ $root -eq 1 ]; then
	mknod special/null c 1 3
	mknod special/sda1 b 8 1
	mknod special/minor-over-255 c 259 65536
	mknod special/max-major-minor b 4095 1048575
fi
if command -v python3 >/dev/null 2>&1; then
	(cd special && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("socket")') ||
		echo "mktree.sh: could not make a socket; skipped" >&2
else
	echo "mktree.sh: python3 is absent; no socket" >&2
fi

# --- xattrs ---
mkdir xattr xattr/shared xattr/dir
printf 'has xattrs\n' >xattr/many
setfattr -n user.alpha -v "first value" xattr/many
setfattr -n user.zeta -v 0x00ff00ff7f80 xattr/many
setfattr -n user.empty xattr/many
rnd 22 1500 >xattr/big
setfattr -n user.big -v "0x$(od -An -v -tx1 xattr/big | tr -d ' \n')" xattr/big
setfattr -n user.dir -v "on a directory" xattr/dir
setfattr -n user.root -v "on the root" .
i=0
while [ $i -lt 50 ]; do
	n=$(printf '%02d' $i)
	printf '%s\n' "$n" >"xattr/shared/s$n"
	setfattr -n user.shared -v "the same value on fifty files" "xattr/shared/s$n"
	i=$((i + 1))
done
setfattr -n user.own -v "one of its own" xattr/shared/s07
if [ $root -eq 1 ]; then
	setfattr -n trusted.t -v "trusted value" xattr/many
	setfattr -n security.s -v "security value" xattr/many
	ln -s many xattr/symlink
	setfattr -h -n trusted.on-link -v "on a symlink" xattr/symlink
	mkfifo xattr/fifo
	setfattr -n trusted.on-fifo -v "on a fifo" xattr/fifo
fi

# --- names ---
mkdir names
printf 1 >"names/with space"
printf 2 >"names/with
newline"
printf 3 >"names/tab	here"
printf 4 >"names/naïve-日本語"
printf 5 >"names/$(printf '\377\376latin1-\351')"
printf 6 >"names/back\\slash"
printf 7 >"names/-leading-dash"
printf 8 >"names/quote'\"*?[x]"
printf 9 >"names/$(awk 'BEGIN { for (i = 0; i < 255; i++) printf "%c", 97 + i % 26 }')"
mkdir "names/dir with space"
printf 10 >"names/dir with space/inside"

# --- modes ---
mkdir modes
modes="4755 2755 1644 6755 7777 0400 0600"
# mode 0000 keeps everyone but root from reading the file back
[ $root -eq 1 ] && modes="$modes 0000"
for m in $modes; do
	printf '%s\n' "$m" >"modes/file-$m"
done
mkdir modes/dir-sticky modes/dir-setgid modes/dir-readonly modes/dir-closed
printf 'child\n' >modes/dir-readonly/child
printf 'child\n' >modes/dir-closed/child

# --- owners (chown clears setuid and setgid, so it comes before chmod) ---
mkdir owners
for o in 0:0 1000:1000 65534:65534 100000:200000 4294967294:1 12345:0; do
	printf '%s\n' "$o" >"owners/file-$o"
done
ln -s file-0:0 owners/link-1234:5678
mkdir owners/dir-100000:200000
if [ $root -eq 1 ]; then
	for o in 0:0 1000:1000 65534:65534 100000:200000 4294967294:1 12345:0; do
		chown "$o" "owners/file-$o"
	done
	chown -h 1234:5678 owners/link-1234:5678
	chown 100000:200000 owners/dir-100000:200000
	chown 3000:3000 hardlinks/two-a
	chown 4000:4001 special/null
else
	echo "mktree.sh: not root: no devices, owners, trusted or security xattrs" >&2
fi

for m in $modes; do
	chmod "$m" "modes/file-$m"
done
chmod 1777 modes/dir-sticky
chmod 2755 modes/dir-setgid
chmod 0555 modes/dir-readonly
if [ $root -eq 1 ]; then
	chmod 0000 modes/dir-closed
else
	chmod 0500 modes/dir-closed # we could not read it back
fi
chmod 0711 deep/level-01
chmod 0640 blocks/4K
chmod 0600 special/fifo

# --- times: fixed for everything, extremes for a few, directories last ---
mkdir times
printf 'epoch\n' >times/zero
printf 'the last second of u32\n' >times/max
ln -s zero times/link-max
mkdir times/dir-zero times/dir-max
find . ! -type d -exec touch -h -d @1600000000 {} +
touch -d @0 times/zero
touch -d @4294967295 times/max
touch -h -d @4294967295 times/link-max
touch -h -d @1234567890 symlinks/relative
# a directory's time depends on its path only: deterministic, and different
# from its neighbours' so that swapped times show.
find . -depth -type d -exec sh -c '
	for d; do touch -d "@$((1650000000 + ${#d}))" "$d"; done' sh {} +
touch -d @0 times/dir-zero
touch -d @4294967295 times/dir-max
