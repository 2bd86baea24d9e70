#!/bin/sh
# mkimage --append: SOURCEs added to images made by mkimage and by
# mksquashfs. The kernel, unsquashfs and fsck read the result, and the tree
# is the union of the old one (kept as it was: owners, modes, times, xattrs,
# hard links, devices) and the new entries, merged into the old directories.
# New data equal to old data points at the old blocks. A name the image has
# already, another compressor or block size, a corrupt original: a clear
# error, the file unchanged. Killed at any stage (a test hook, and timed
# SIGKILLs), the file still holds the old image, byte for byte where it was
# and mountable; once the new superblock is written, the new image whole.
SCRATCH=shm-user-xattrs
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs awk cmp sort timeout
MANIFEST=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq
[ -x "$MANIFEST" ] && [ -x "$JSONQ" ] || skip_all "the test tools are not built"
grep -qw squashfs /proc/filesystems || modprobe squashfs 2>/dev/null
grep -qw squashfs /proc/filesystems || skip_all "no squashfs in the kernel"

old=$TMP/old
ref_tree "$old"

# The new entries: a top-level directory, files merged into old directories
# (dup/, blocks/), a copy of old data (to be shared) and new data.
new=$TMP/new
mkdir -p "$new/added/sub" "$new/dup" "$new/blocks"
cp "$old/blocks/several" "$new/added/several-again"
cp "$old/dup/small-a" "$new/added/small-again"
head -c 300000 /dev/urandom >"$new/added/fresh"
echo "a new line" >"$new/dup/new-small"
ln "$new/dup/new-small" "$new/added/sub/link-to-new"
ln -s ../dup/new-small "$new/blocks/new-symlink"
mkfifo "$new/added/fifo"
setfattr -n user.appended -v yes "$new/added/fresh" 2>/dev/null
touch -d @1000000000 "$new/added/sub" "$new/dup/new-small"

MOPTS="--no-holes"
# kmanifest IMAGE OUT: the kernel's view of IMAGE.
kmanifest() {
	mkdir -p "$TMP/mnt"
	if ! mount -t squashfs -o loop,ro "$1" "$TMP/mnt" 2>"$TMP/mount.err"; then
		echo "mount failed: $(cat "$TMP/mount.err")" >"$2"
		return 1
	fi
	at_exit "umount '$TMP/mnt' 2>/dev/null"
	"$MANIFEST" $MOPTS "$TMP/mnt" 2>&1 | LC_ALL=C sort >"$2"
	umount "$TMP/mnt"
}

# union OLD.m NEW.m: the old lines, and the new ones for paths the old lacks (sorted).
union() {
	awk 'NR == FNR { have[$1] = 1; print; next } !($1 in have)' "$1" "$2" | LC_ALL=C sort
}

"$MANIFEST" $MOPTS "$new" >"$TMP/new.m" 2>&1

# check NAME IMAGE OLD.m: the kernel, unsquashfs and fsck read the appended image.
check() {
	name=$1 img=$2
	union "$3" "$TMP/new.m" >"$TMP/want.m"
	kmanifest "$img" "$TMP/got.m"
	same_file "$TMP/got.m" "$TMP/want.m" "$name: the kernel shows the union of both trees"
	rm -rf "$TMP/u"
	unsquashfs -q -n -d "$TMP/u" "$img" >/dev/null 2>"$TMP/unsq.err"
	ok $? "$name: unsquashfs extracts it"
	"$MANIFEST" $MOPTS "$TMP/u" 2>&1 | LC_ALL=C sort >"$TMP/got-u.m"
	same_file "$TMP/got-u.m" "$TMP/want.m" "$name: unsquashfs shows the union of both trees"
	expect_success "$name: squashkit fsck says clean" "$SQUASHKIT" fsck "$img"
}

# same_prefix FILE ORIG: ORIG's bytes after the superblock are still at the start of FILE.
same_prefix() {
	size=$(wc -c <"$2" | tr -d ' ')
	cmp -s -i 96 -n $((size - 96)) "$1" "$2"
}

# --- an image made by mkimage ---
"$SQUASHKIT" mkimage -q "$old" "$TMP/a.img" >/dev/null 2>&1
ok $? "mkimage: the old tree is packed"
kmanifest "$TMP/a.img" "$TMP/old-a.m"
cp "$TMP/a.img" "$TMP/a.orig"
expect_success "mkimage image: --append adds the new tree" \
	"$SQUASHKIT" mkimage -q --append "$new" "$TMP/a.img"
same_prefix "$TMP/a.img" "$TMP/a.orig"
ok $? "mkimage image: no byte of the old image was written but the superblock"
check "mkimage image" "$TMP/a.img" "$TMP/old-a.m"

# Dedup: the copy of an old file points at the old blocks; the image grows
# by less than the new data.
start() {
	"$SQUASHKIT" stat --json "$1" "$2" >"$TMP/stat.json" 2>&1 &&
		"$JSONQ" "$TMP/stat.json" /blocks/0/start
}
is "$(start "$TMP/a.img" /added/several-again)" "$(start "$TMP/a.img" /blocks/several)" \
	"dedup: the copy shares the old file's blocks"
grown=$(($(wc -c <"$TMP/a.img") - $(wc -c <"$TMP/a.orig")))
added=$(($(wc -c <"$new/added/several-again") + 300000))
[ "$grown" -lt "$added" ]
ok $? "dedup: the image grew by $grown bytes, less than the $added bytes of file data"

# A second append onto the first.
mkdir -p "$TMP/more"
echo more >"$TMP/more/more-file"
expect_success "a second --append" "$SQUASHKIT" mkimage -q --append "$TMP/more" "$TMP/a.img"
"$SQUASHKIT" cat "$TMP/a.img" /more-file >"$TMP/more.out" 2>&1
same_file "$TMP/more.out" "$TMP/more/more-file" "a second --append: its file reads back"
expect_success "a second --append: fsck says clean" "$SQUASHKIT" fsck "$TMP/a.img"

# Options that force attributes touch the new entries only.
cp "$TMP/a.orig" "$TMP/f.img"
expect_success "--append with --uid, --mtime, --file-mode, --no-xattrs" \
	"$SQUASHKIT" mkimage -q --append --uid 4242 --mtime 7 --file-mode 0600 --no-xattrs \
	"$new" "$TMP/f.img"
kmanifest "$TMP/f.img" "$TMP/got.m"
LC_ALL=C comm -23 "$TMP/old-a.m" "$TMP/got.m" >"$TMP/lost.m"
same_file "$TMP/lost.m" /dev/null "forcing options: every old entry is as it was"
"$SQUASHKIT" stat --json "$TMP/f.img" /added/fresh >"$TMP/stat.json" 2>&1
is "$("$JSONQ" "$TMP/stat.json" /uid /mtime /mode)" "$(printf '4242\n7\n384')" \
	"forcing options: a new file takes them"

# --offset: an image after an ELF runtime is appended to in place.
elf_size=$(wc -c </bin/true | tr -d ' ')
cat /bin/true "$TMP/a.orig" >"$TMP/app"
expect_success "--append --offset N" \
	"$SQUASHKIT" mkimage -q --append --offset "$elf_size" "$new" "$TMP/app"
cmp -s -n "$elf_size" /bin/true "$TMP/app"
ok $? "--append --offset N: the leading bytes are intact"
mkdir -p "$TMP/mnt"
if mount -t squashfs -o "loop,ro,offset=$elf_size" "$TMP/app" "$TMP/mnt" 2>"$TMP/mount.err"; then
	at_exit "umount '$TMP/mnt' 2>/dev/null"
	"$MANIFEST" $MOPTS "$TMP/mnt" 2>&1 | LC_ALL=C sort >"$TMP/got.m"
	umount "$TMP/mnt"
	union "$TMP/old-a.m" "$TMP/new.m" >"$TMP/want.m"
	same_file "$TMP/got.m" "$TMP/want.m" "--append --offset N: the kernel shows the union"
else
	ok 1 "--append --offset N: the kernel mounts it"
fi

# --- an image made by mksquashfs ---
mksquashfs "$old" "$TMP/m.img" -noappend -no-progress -comp gzip -quiet >/dev/null 2>&1
ok $? "mksquashfs: the old tree is packed"
kmanifest "$TMP/m.img" "$TMP/old-m.m"
cp "$TMP/m.img" "$TMP/m.orig"
expect_success "mksquashfs image: --append adds the new tree" \
	"$SQUASHKIT" mkimage -q --append "$new" "$TMP/m.img"
same_prefix "$TMP/m.img" "$TMP/m.orig"
ok $? "mksquashfs image: no byte of the old image was written but the superblock"
check "mksquashfs image" "$TMP/m.img" "$TMP/old-m.m"

# --- refusals: a clear error, the file unchanged ---
cp "$TMP/a.orig" "$TMP/r.img"
# refuse STATUS DESC PATTERN ARGS...: mkimage ARGS exits STATUS, says PATTERN, r.img unchanged.
refuse() {
	want=$1 desc=$2 pat=$3
	shift 3
	expect_status "$want" "$desc: exit $want" "$SQUASHKIT" mkimage -q "$@"
	grep -q -- "$pat" "$TMP/.err"
	ok $? "$desc: the message says '$pat'"
	cmp -s "$TMP/r.img" "$TMP/a.orig"
	ok $? "$desc: the image is unchanged"
}
mkdir -p "$TMP/clash/dup"
echo clash >"$TMP/clash/dup/small-b"
refuse 1 "a name already in the image" "/dup/small-b: already in the image" \
	--append "$TMP/clash" "$TMP/r.img"
mkdir -p "$TMP/clash-ar/dup"
echo clash >"$TMP/clash-ar/dup/small-c"
tar -C "$TMP/clash-ar" -cf "$TMP/clash.tar" dup
refuse 1 "an archive entry already in the image" "/dup/small-c: already in the image" \
	--append --archive "$TMP/clash.tar" "$TMP/r.img"
mkdir -p "$TMP/clash2"
echo clash >"$TMP/clash2/dup"
refuse 1 "a file where the image has a directory" "/dup: already in the image" \
	--append "$TMP/clash2" "$TMP/r.img"
refuse 2 "another compressor" "compressed with zstd" --append -c xz "$new" "$TMP/r.img"
refuse 2 "another block size" "block size of 131072" --append -b 4K "$new" "$TMP/r.img"
refuse 2 "a level" "--level" --append -L 3 "$new" "$TMP/r.img"
refuse 2 "--force" "exclude each other" --append --force "$new" "$TMP/r.img"
refuse 1 "without --append" "file exists" "$new" "$TMP/r.img"
expect_status 1 "a missing image: exit 1" "$SQUASHKIT" mkimage -q --append "$new" "$TMP/none.img"
[ ! -e "$TMP/none.img" ]
ok $? "a missing image: nothing is created"

head -c 100000 /dev/urandom >"$TMP/junk.img"
cp "$TMP/junk.img" "$TMP/junk.orig"
expect_status 1 "not an image: exit 1" "$SQUASHKIT" mkimage -q --append "$new" "$TMP/junk.img"
cmp -s "$TMP/junk.img" "$TMP/junk.orig"
ok $? "not an image: the file is unchanged"

# A directory table made garbage: the old tree cannot be read back.
"$SQUASHKIT" inspect --json "$TMP/a.orig" >"$TMP/insp.json" 2>&1
dirs=$("$JSONQ" "$TMP/insp.json" /tables/directory/start)
cp "$TMP/a.orig" "$TMP/bad.img"
head -c 64 /dev/urandom | dd of="$TMP/bad.img" bs=1 seek="$((dirs + 2))" conv=notrunc \
	status=none
cp "$TMP/bad.img" "$TMP/bad.orig"
expect_status 1 "a corrupt original: exit 1" "$SQUASHKIT" mkimage -q --append "$new" "$TMP/bad.img"
grep -q "bad.img" "$TMP/.err"
ok $? "a corrupt original: the message names the image"
cmp -s "$TMP/bad.img" "$TMP/bad.orig"
ok $? "a corrupt original: the file is unchanged"

# --- killed at each stage ---
# old_intact NAME FILE: FILE still holds the old image, whole and mountable.
old_intact() {
	size=$(wc -c <"$TMP/a.orig" | tr -d ' ')
	cmp -s -n "$size" "$2" "$TMP/a.orig"
	ok $? "$1: the old image's bytes are all as they were"
	kmanifest "$2" "$TMP/got.m"
	same_file "$TMP/got.m" "$TMP/old-a.m" "$1: the kernel shows the old tree"
	expect_success "$1: fsck says clean" "$SQUASHKIT" fsck "$2"
}
# new_whole NAME FILE: FILE holds the new image, whole.
new_whole() {
	union "$TMP/old-a.m" "$TMP/new.m" >"$TMP/want.m"
	kmanifest "$2" "$TMP/got.m"
	same_file "$TMP/got.m" "$TMP/want.m" "$1: the kernel shows the new tree"
	expect_success "$1: fsck says clean" "$SQUASHKIT" fsck "$2"
}
for stage in loaded data tables synced super; do
	cp "$TMP/a.orig" "$TMP/k.img"
	SQK_TEST_APPEND_KILL=$stage "$SQUASHKIT" mkimage -q --append "$new" "$TMP/k.img" \
		>/dev/null 2>&1
	is "$?" 137 "killed at '$stage': SIGKILL ended it"
	if [ "$stage" = super ]; then
		new_whole "killed at '$stage'" "$TMP/k.img"
	else
		old_intact "killed at '$stage'" "$TMP/k.img"
	fi
done

# Timed kills during a larger append: the old image, or the new one whole.
mkdir -p "$TMP/large"
cp -r "$new/." "$TMP/large/"
head -c 24000000 /dev/urandom >"$TMP/large/added/large"
"$MANIFEST" $MOPTS "$TMP/large" >"$TMP/large.m" 2>&1
for t in 0.01 0.05 0.2 0.5; do
	cp "$TMP/a.orig" "$TMP/k.img"
	timeout -s KILL "$t" "$SQUASHKIT" mkimage -q -j 1 --append "$TMP/large" "$TMP/k.img" \
		>/dev/null 2>&1
	rc=$?
	if cmp -s -n 96 "$TMP/k.img" "$TMP/a.orig"; then
		old_intact "killed after ${t}s (exit $rc, old superblock)" "$TMP/k.img"
	else
		union "$TMP/old-a.m" "$TMP/large.m" >"$TMP/want.m"
		kmanifest "$TMP/k.img" "$TMP/got.m"
		same_file "$TMP/got.m" "$TMP/want.m" \
			"killed after ${t}s (exit $rc, new superblock): the kernel shows the new tree"
	fi
done

done_testing
