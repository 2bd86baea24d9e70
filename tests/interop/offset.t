#!/bin/sh
# The kernel's view of images inside another file: an image appended to an
# ELF binary and one after arbitrary bytes mount with -o offset=N and show
# the same tree as `squashkit unimage --offset auto` extracts (and as
# `squashkit mount --offset auto` serves, when FUSE is there); an image that
# mkimage --offset writes mounts at that offset, its leading bytes intact;
# so does an image that mkimage writes to a pipe (IMAGE '-') through cat.
SCRATCH=shm
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_root
need_cmd timeout mountpoint
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
ELF=/bin/true
[ -f "$ELF" ] || skip_all "no $ELF"
grep -qw squashfs /proc/filesystems || modprobe squashfs 2>/dev/null
grep -qw squashfs /proc/filesystems || skip_all "no squashfs in the kernel"

tree=$TMP/tree
ref_tree "$tree"

# kmount FILE OFFSET DIR: the kernel mounts the image at OFFSET, undone at exit.
kmount() {
	mkdir -p "$3" && mount -t squashfs -o "loop,ro,offset=$2" "$1" "$3" 2>"$TMP/mount.err" &&
		at_exit "umount '$3' 2>/dev/null"
}

"$SQUASHKIT" mkimage -q "$tree" "$TMP/plain.img" >/dev/null 2>&1
ok $? "the tree is packed"
elf_size=$(wc -c <"$ELF" | tr -d ' ')
cat "$ELF" "$TMP/plain.img" >"$TMP/app"
head -c 4099 /dev/urandom | tr -d 'h' >"$TMP/lead"
lead_size=$(wc -c <"$TMP/lead" | tr -d ' ')
cat "$TMP/lead" "$TMP/plain.img" >"$TMP/junk"

# same_tree NAME FILE OFFSET: the kernel at OFFSET and unimage --offset auto agree.
same_tree() {
	name=$1 file=$2 off=$3
	if ! kmount "$file" "$off" "$TMP/k-$name"; then
		ok 1 "$name: the kernel mounts it at offset $off"
		sed 's/^/#   /' "$TMP/mount.err"
		return
	fi
	ok 0 "$name: the kernel mounts it at offset $off"
	"$MANIFEST" --no-holes "$TMP/k-$name" >"$TMP/want.m" 2>&1
	expect_success "$name: unimage --offset auto" \
		"$SQUASHKIT" unimage -d "$TMP/u-$name" --offset auto "$file"
	is "$(cat "$TMP/.err")" "squashkit unimage: $file: image found at offset $off" \
		"$name: auto names the offset"
	"$MANIFEST" --no-holes "$TMP/u-$name" >"$TMP/got.m" 2>&1
	same_file "$TMP/got.m" "$TMP/want.m" "$name: unimage shows the kernel's tree"
	umount "$TMP/k-$name"
}

same_tree elf "$TMP/app" "$elf_size"
same_tree junk "$TMP/junk" "$lead_size"

# --- mkimage --offset: the kernel mounts what it wrote ---
cp "$ELF" "$TMP/built"
expect_success "mkimage --offset N after an ELF" \
	"$SQUASHKIT" mkimage -q --offset "$elf_size" "$tree" "$TMP/built"
cmp -s -n "$elf_size" "$ELF" "$TMP/built"
ok $? "mkimage --offset: the ELF bytes are intact"
"$TMP/built"
ok $? "mkimage --offset: the ELF still runs"
if kmount "$TMP/built" "$elf_size" "$TMP/kb"; then
	ok 0 "mkimage --offset: the kernel mounts it at offset $elf_size"
	"$MANIFEST" --no-holes "$TMP/kb" >"$TMP/got.m" 2>&1
	"$MANIFEST" --no-holes "$TMP/u-elf" >"$TMP/want.m" 2>&1
	same_file "$TMP/got.m" "$TMP/want.m" "mkimage --offset: the kernel shows the same tree"
	umount "$TMP/kb"
else
	ok 1 "mkimage --offset: the kernel mounts it at offset $elf_size"
	sed 's/^/#   /' "$TMP/mount.err"
fi

# --- IMAGE '-': what arrives through a pipe mounts ---
"$SQUASHKIT" mkimage -q "$tree" - | cat >"$TMP/piped.img"
ok $? "mkimage to a pipe"
if kmount "$TMP/piped.img" 0 "$TMP/kp"; then
	ok 0 "the piped image mounts"
	"$MANIFEST" --no-holes "$TMP/kp" >"$TMP/got.m" 2>&1
	"$MANIFEST" --no-holes "$TMP/u-elf" >"$TMP/want.m" 2>&1
	same_file "$TMP/got.m" "$TMP/want.m" "the piped image: the kernel shows the tree"
	umount "$TMP/kp"
else
	ok 1 "the piped image mounts"
	sed 's/^/#   /' "$TMP/mount.err"
fi

done_testing
