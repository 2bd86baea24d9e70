#!/bin/sh
# gzip blocks the kernel's decoder (zlib's inflate) refuses though their data
# is intact: the stream of tests/tools/lib/zlib_refused.h, whose Adler-32
# still matches. Readers decode gzip with libdeflate, which reads it; fsck
# decodes as the kernel does. tests/tools/tamper puts the stream in two
# images mksquashfs made with uncompressed metadata and data:
#   kernel-block     the one block shared by pattern and copy (-no-fragments)
#   kernel-fragment  the fragment block holding the tails of pattern and part
# For each: unimage and cat read every file intact; fsck exits 4 and names
# every file whose data is in that block, under the check kernel-decode, and
# nothing else; the untouched image is clean; unsquashfs refuses it, and a
# kernel loop mount gives EIO reading those files and reads the others.
# A metadata block too (kernel-xattr: one bit of a fixed-Huffman xattr block
# flipped, found by trying each against both decoders): stat reads the
# xattr, fsck names the xattr table, the kernel gives EIO for the xattr.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs
TAMPER=$SQK_TOOLS/tamper
JSONQ=$SQK_TOOLS/jsonq
[ -x "$TAMPER" ] || skip_all "$TAMPER is not built"
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}
scratch_mount

# The pattern of zlib_refused.h: byte i is i * 7919 % 251.
pattern() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%c", (i * 7919) % 251 }'
}

mk() { # TREE IMAGE OPTIONS...
	_t=$1
	_i=$2
	shift 2
	mksquashfs "$_t" "$_i" -noappend -quiet -no-progress -b 4K -noI -noD -noF -noX \
		-all-time 1600000000 -mkfs-time 1600000000 "$@" >/dev/null 2>&1
}

a=$TMP/a
mkdir -p "$a"
LC_ALL=C pattern 600 >"$a/pattern"
cp "$a/pattern" "$a/copy"
awk 'BEGIN { for (i = 0; i < 600; i++) printf "line %d\n", i }' >"$a/other"
mk "$a" "$TMP/a.img" -no-fragments || skip_all "mksquashfs failed"

b=$TMP/b
mkdir -p "$b"
cp "$a/pattern" "$a/other" "$b/"
dd if="$a/pattern" of="$b/part" bs=1 skip=300 count=100 2>/dev/null
mk "$b" "$TMP/b.img" || skip_all "mksquashfs failed"

is "$(wc -c <"$a/pattern" | tr -d ' ')" 600 "the pattern is 600 bytes"

# one KIND TREE BADFILES...: the image KIND makes of TREE's image.
one() {
	kind=$1
	tree=$2
	shift 2
	src=$TMP/$(basename "$tree").img
	img=$TMP/$kind.img
	expect_status 0 "$kind: the untouched image is clean" sqk fsck -q "$src"
	if ! what=$("$TAMPER" "$kind" "$src" "$img" 2>&1); then
		ok 1 "tamper $kind"
		echo "#   $what"
		return
	fi
	ok 0 "tamper $kind ($what)"

	# Readers recover the data.
	rm -rf "$TMP/x"
	expect_status 0 "$kind: unimage extracts the image" sqk unimage -q -j 2 -d "$TMP/x" "$img"
	for f in "$@" other; do
		same_file "$tree/$f" "$TMP/x/$f" "$kind: unimage extracts $f intact"
	done
	sqk cat "$img" "/$1" >"$TMP/cat.out" 2>"$TMP/cat.err"
	same_file "$tree/$1" "$TMP/cat.out" "$kind: cat reads $1 intact"

	# fsck gives the kernel's verdict, naming each file.
	sqk fsck -j 2 -q --json "$img" >"$TMP/json" 2>/dev/null
	is "$?" 4 "$kind: fsck exits 4"
	want=$(for f in "$@"; do echo "/$f kernel-decode"; done | sort)
	"$JSONQ" "$TMP/json" '/errors/*/path' >"$TMP/json.paths"
	"$JSONQ" "$TMP/json" '/errors/*/check' >"$TMP/json.checks"
	got=$(paste -d ' ' "$TMP/json.paths" "$TMP/json.checks" | sort)
	is "$got" "$want" "$kind: fsck --json names $* under kernel-decode, and nothing else"
	is "$("$JSONQ" "$TMP/json" /clean)" false "$kind: fsck --json: not clean"
	if "$JSONQ" "$TMP/json" '/errors/*/detail' | grep -q "refuses.*intact.*unimage recovers"; then
		ok 0 "$kind: the detail says the kernel refuses the block and unimage recovers it"
	else
		ok 1 "$kind: the detail says the kernel refuses the block and unimage recovers it"
		"$JSONQ" "$TMP/json" '/errors/*/detail' | sed 's/^/#   /'
	fi
	sqk fsck -j 1 -q "$img" 2>"$TMP/text1" >/dev/null
	sqk fsck -j 2 -q "$img" 2>"$TMP/text2" >/dev/null
	same_file "$TMP/text1" "$TMP/text2" "$kind: the same report with 1 and 2 threads"
	for f in "$@"; do
		if grep -q -F "/$f: kernel-decode: " "$TMP/text2"; then
			ok 0 "$kind: fsck prints '/$f: kernel-decode: ...'"
		else
			ok 1 "$kind: fsck prints '/$f: kernel-decode: ...'"
			sed 's/^/#   /' "$TMP/text2"
		fi
	done

	# The kernel's decoder, as unsquashfs and the kernel run it, refuses it.
	if command -v unsquashfs >/dev/null 2>&1; then
		rm -rf "$TMP/y"
		unsquashfs -n -d "$TMP/y" "$img" >/dev/null 2>&1
		ok $((! $?)) "$kind: unsquashfs refuses the image"
	else
		skip "$kind: unsquashfs is not installed"
	fi
	if [ "$(id -u)" -ne 0 ]; then
		skip "$kind: a loop mount needs root"
		return
	fi
	if ! mount -t squashfs -o loop,ro "$img" "$MNT" 2>"$TMP/mount.err"; then
		skip "$kind: no kernel loop mount ($(head -1 "$TMP/mount.err"))"
		return
	fi
	for f in "$@"; do
		cat "$MNT/$f" >/dev/null 2>"$TMP/kcat.err"
		rc=$?
		if [ $rc -ne 0 ] && grep -q "Input/output error" "$TMP/kcat.err"; then
			ok 0 "$kind: the kernel gives EIO reading $f"
		else
			ok 1 "$kind: the kernel gives EIO reading $f"
			echo "#   exit $rc: $(cat "$TMP/kcat.err")"
		fi
	done
	same_file "$tree/other" "$MNT/other" "$kind: the kernel reads other"
	umount "$MNT"
}

one kernel-block "$a" pattern copy

# mkimage --reuse proves a block by decoding it as the kernel does: a
# compressed image (the block mksquashfs compressed, the stream written in
# its place) gives the refused block as the candidate for pattern's, which
# is compressed afresh, never copied into the new image.
mksquashfs "$a" "$TMP/ac.img" -noappend -quiet -no-progress -b 4K -noI -noF -noX -no-fragments \
	-all-time 1600000000 -mkfs-time 1600000000 >/dev/null 2>&1
if what=$("$TAMPER" kernel-block "$TMP/ac.img" "$TMP/kc.img" 2>&1); then
	ok 0 "tamper kernel-block on a compressed image ($what)"
	sqk mkimage -q -c gzip -b 4K --no-fragments --reuse "$TMP/kc.img" --stats --json \
		"$a" "$TMP/reused.img" >"$TMP/reuse.json" 2>"$TMP/reuse.err"
	is "$?" 0 "--reuse of it: the build succeeds"
	is "$("$JSONQ" "$TMP/reuse.json" /reuse/bytes)" "$(wc -c <"$a/other" | tr -d ' ')" \
		"--reuse of it: other's blocks are copied, pattern's is not"
	expect_status 0 "--reuse of it: the result is clean in fsck's (the kernel's) eyes" \
		sqk fsck -q "$TMP/reused.img"
else
	ok 1 "tamper kernel-block on a compressed image"
	echo "#   $what"
fi

one kernel-fragment "$b" pattern part

# --- a metadata block: the xattr table's ---
c=$TMP/c
mkdir -p "$c"
printf 'hello\n' >"$c/noted"
value=$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "a" }')
sqk mkimage -q -c gzip -b 4K -X strategy=fixed --uncompressed inodes,data,fragments \
	--xattrs-add "user.note=$value" "$c" "$TMP/c.img" >/dev/null 2>&1
expect_status 0 "kernel-xattr: the untouched image is clean" sqk fsck -q "$TMP/c.img"
if what=$("$TAMPER" kernel-xattr "$TMP/c.img" "$TMP/kernel-xattr.img" 2>&1); then
	ok 0 "tamper kernel-xattr ($what)"
	img=$TMP/kernel-xattr.img
	sqk stat --json "$img" /noted >"$TMP/stat.json" 2>/dev/null
	is "$("$JSONQ" "$TMP/stat.json" /xattrs/user.note)" "$value" \
		"kernel-xattr: stat reads the xattr intact"
	rm -rf "$TMP/x"
	expect_status 0 "kernel-xattr: unimage extracts the image" \
		sqk unimage -q --no-xattrs -d "$TMP/x" "$img"
	sqk fsck -q --json "$img" >"$TMP/json" 2>/dev/null
	is "$?" 4 "kernel-xattr: fsck exits 4"
	is "$("$JSONQ" "$TMP/json" '/errors/*/path' '/errors/*/check' | tr '\n' ' ')" \
		"xattr table kernel-decode " "kernel-xattr: fsck names the xattr table, and nothing else"
	if ! command -v getfattr >/dev/null 2>&1; then
		skip "kernel-xattr: getfattr is not installed"
	elif [ "$(id -u)" -ne 0 ] || ! mount -t squashfs -o loop,ro "$img" "$MNT" 2>/dev/null; then
		skip "kernel-xattr: no kernel loop mount"
	else
		getfattr -n user.note "$MNT/noted" >/dev/null 2>"$TMP/kx.err"
		if grep -q "Input/output error" "$TMP/kx.err"; then
			ok 0 "kernel-xattr: the kernel gives EIO reading the xattr"
		else
			ok 1 "kernel-xattr: the kernel gives EIO reading the xattr"
			sed 's/^/#   /' "$TMP/kx.err"
		fi
		umount "$MNT"
	fi
else
	ok 1 "tamper kernel-xattr"
	echo "#   $what"
fi

done_testing
