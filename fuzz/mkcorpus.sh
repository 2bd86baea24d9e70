#!/bin/sh
# mkcorpus.sh OUT [CRAFT] [SQUASHKIT] — seed corpora for the fuzz targets.
#
# OUT/corpus-image and OUT/corpus-fsck get small images of a small tree made
# by Debian's mksquashfs (every compressor, and the options that change the
# layout), by gensquashfs when it is there, by squashkit mkimage when it
# works, and the crafted hostile images of tests/tools/craft when it is
# built. Images are cut to bytes_used: the padding only slows the fuzzer.
# OUT/corpus-options gets argument lists, one argument per line;
# OUT/corpus-listing gets mkimage listings, OUT/corpus-pseudo pseudo files;
# OUT/corpus-mount and OUT/corpus-diff are corpus-image; OUT/corpus-gzip gets
# zlib streams (see there).
set -eu

out=$1
craft=${2:-}
squashkit=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sqk-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$out/corpus-image" "$out/corpus-fsck" "$out/corpus-options" "$out/corpus-listing" \
	"$out/corpus-pseudo"

# A small tree with every kind of entry: blocks, tails, a hole, links, xattrs.
t=$tmp/tree
mkdir -p "$t/dir/sub" "$t/empty"
printf 'hello\n' >"$t/hello"
awk 'BEGIN { for (i = 0; i < 900; i++) printf "line %d of a file that spans blocks\n", i }' \
	>"$t/dir/blocks"
head -c 5000 "$t/dir/blocks" >"$t/dir/sub/tail"
ln "$t/hello" "$t/dir/hardlink"
ln -s ../hello "$t/dir/symlink"
mkfifo "$t/fifo"
truncate -s 8192 "$t/sparse"
printf 'end\n' >>"$t/sparse"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do : >"$t/dir/entry-with-a-long-name-$i"; done
setfattr -n user.comment -v "a value" "$t/hello" 2>/dev/null || true

cut_to_used() {
	used=$(od -An -t u8 -j 40 -N 8 "$1" | tr -d ' ')
	[ "$used" -lt "$(wc -c <"$1")" ] && truncate -s "$used" "$1"
	return 0
}

add() { # NAME: copy $tmp/img.sqfs into both image corpora
	if [ -s "$tmp/img.sqfs" ]; then
		cut_to_used "$tmp/img.sqfs"
		cp "$tmp/img.sqfs" "$out/corpus-image/$1"
		cp "$tmp/img.sqfs" "$out/corpus-fsck/$1"
	fi
	rm -f "$tmp/img.sqfs"
}

mks() { # NAME OPTIONS...
	name=$1
	shift
	mksquashfs "$t" "$tmp/img.sqfs" -noappend -quiet -no-progress -b 4K "$@" >/dev/null 2>&1 &&
		add "$name" || echo "mkcorpus: mksquashfs $* failed" >&2
}

for c in gzip lzma lzo xz lz4 zstd; do
	mks "mksquashfs-$c" -comp "$c"
done
mks mksquashfs-raw -noI -noD -noF -noX
mks mksquashfs-nofrag -no-fragments
mks mksquashfs-allfrag -always-use-fragments -no-duplicates
mks mksquashfs-noexport-noxattr -no-exports -no-xattrs
mks mksquashfs-xz-opts -comp xz -b 8K -Xbcj x86,arm -Xdict-size 8K
mks mksquashfs-gzip-opts -comp gzip -Xcompression-level 1 -Xwindow-size 9

if command -v gensquashfs >/dev/null 2>&1; then
	gensquashfs -q -c zstd -b 4096 -D "$t" "$tmp/img.sqfs" >/dev/null 2>&1 && add gensquashfs-zstd
	rm -f "$tmp/img.sqfs"
fi
if [ -n "$squashkit" ] && [ -x "$squashkit" ]; then
	"$squashkit" mkimage -q -b 4K -c gzip "$t" "$tmp/img.sqfs" >/dev/null 2>&1 &&
		add squashkit-gzip || rm -f "$tmp/img.sqfs"
fi
if [ -n "$craft" ] && [ -x "$craft" ]; then
	for k in $("$craft" 2>&1 | awk '/^  [a-z]/ { print $1 }'); do
		"$craft" "$k" "$out/corpus-image/craft-$k" >/dev/null 2>&1 || continue
		cut_to_used "$out/corpus-image/craft-$k"
		cp "$out/corpus-image/craft-$k" "$out/corpus-fsck/craft-$k"
	done
fi

# zlib streams for the gzip target. A 0 byte, then a real block (the stream
# as it is): the compressed data blocks of dir/blocks and the first inode and
# directory table blocks of the gzip images above, found with squashkit. An
# odd byte, then what fuzz/gzip.c compresses and damages: level, window and
# strategies, flips (position, position, bit each), then the data.
g=$out/corpus-gzip
mkdir -p "$g"
cut_block() { # IMAGE POS SIZE NAME
	{ printf '\000'; dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null; } >"$g/$4"
}
if [ -n "$squashkit" ] && [ -x "$squashkit" ]; then
	for img in "$out/corpus-image/mksquashfs-gzip" "$out/corpus-image/mksquashfs-gzip-opts" \
		"$out/corpus-image/squashkit-gzip"; do
		[ -f "$img" ] || continue
		n=$(basename "$img")
		"$squashkit" stat --json "$img" /dir/blocks 2>/dev/null |
			grep -o '"start":[0-9]*,"size":[0-9]*,"compressed":true' |
			sed 's/[^0-9,]//g; s/,,*/ /g' | while read -r pos size _; do
			cut_block "$img" "$pos" "$size" "$n-data-$pos"
		done
		for tbl in inode directory; do
			pos=$("$squashkit" inspect --json "$img" 2>/dev/null |
				sed -n "s/.*\"$tbl\":{\"start\":\([0-9]*\).*/\1/p")
			[ -n "$pos" ] || continue
			hdr=$(od -An -t u2 -j "$pos" -N 2 "$img" | tr -d ' ')
			if [ $((hdr & 0x8000)) -eq 0 ]; then
				cut_block "$img" $((pos + 2)) $((hdr & 0x7fff)) "$n-$tbl"
			fi
		done
	done
fi
{ printf '\021\007\000'; head -c 4096 "$t/dir/blocks"; } >"$g/level9"
{ printf '\001\217\002\020\001\003\100\000\005'; head -c 4096 "$t/dir/blocks"; } >"$g/level1-fixed-2flips"
{ printf '\011\014\001\200\000\007'; tail -c 3000 "$t/dir/blocks"; } >"$g/window12-1flip"

# Argument lists: every command sees every list, so mix their options.
o=$out/corpus-options
printf -- '--help\n' >"$o/help"
printf -- '--version\n' >"$o/version"
printf -- '-c\nzstd\n-L\n3\n-b\n4K\n.\nout.img\n' >"$o/mkimage-basic"
printf -- '-c\nxz\n-X\ndict-size=8K\n-X\nbcj=x86,arm\n--no-fragments\n.\nout.img\n' >"$o/mkimage-xz"
printf -- '--listing\nlist\n--all-root\n--mtime\n5\n-e\n*.o\nout.img\n' >"$o/mkimage-listing"
printf -- '--pseudo\ndev c 600 0 0 5 1\n--pseudo-file\npf\n--pseudo\nx D 7 755 root root\nout.img\n' >"$o/mkimage-pseudo"
printf -- '-d\ndest\n-f\n-j\n2\n--cache-policy\nherd\n--cache\nmeta=4,frag=2,data=2\n' >"$o/unimage-dest"
printf -- '-o\n-\n--format\ncpio\n--no-xattrs\n--stats\n--json\n' >"$o/unimage-tar"
printf -- '-l\n-R\n--json\nimage\npath\n' >"$o/ls"
printf -- '--json\n-j\n3\n--stats\n-q\n' >"$o/fsck"
printf -- '-w\nstat,read\n-t\n1,2\n-p\nkeyed\n-d\n10ms\n-r\n1\n-f\ncsv\n' >"$o/bench"

# Listings for mkimage --listing.
l=$out/corpus-listing
printf 'dir /a 0755 0 0\nfile /a/f 0644 1 2\nslink /a/l 0777 0 0 f\nlink /a/h /a/f\n' >"$l/basic"
printf 'nod /dev 0600 0 0 c 1 3\npipe /p 0644 0 0\nsock /s 0644 0 0\ndir / 0755 0 0\n' >"$l/special"
printf '# comment\n\ndir "/with space" 0700 5 5\nfile /x 4755 0 0 source\n' >"$l/quoted"

# Pseudo files for mkimage --pseudo-file (and --pseudo: the first line).
p=$out/corpus-pseudo
printf '/ d 755 0 0\ndev d 755 0 0\ndev/console c 600 0 0 5 1\ndev/sda b 660 0 6 8 0\nfifo i 644 0 0 f\nsock i 644 0 0 s\nsym s 0 0 0 target\nhl L dev/console\ncmd f 644 0 0 echo hi\n' >"$p/basic"
printf '/ D 100 755 0 0\n"a b" D 5 700 1 2\na\\ b/c\\"d S 6 777 0 0 x y\nt C 7 600 0 0 4095 1048575\nu I 8 600 0 0 f\nv F 9 644 root root printf \\\n  abc\n' >"$p/timed"
printf '/ D 0 755 0 0\nf R 0 644 0 0 3 0\ng R 0 644 0 0 2 3\nh L f\n#\n# START OF DATA - DO NOT MODIFY\n#\nabcde' >"$p/data"
printf 'x m 644 0 0\nx/y M 5 600 0 0\nh l /etc/hostname\n# comment\n\n  \t\nz l /dev/null\n' >"$p/modify"

# The mount and diff targets read images too: the same seeds.
ln -sfn corpus-image "$out/corpus-mount"
ln -sfn corpus-image "$out/corpus-diff"
