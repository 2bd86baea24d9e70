#!/bin/sh
# verity.t: the dm-verity trees mkimage --verity and squashkit verity make
# are veritysetup's, byte for byte. For each image (tiny, a file of one
# block, bytes_used a multiple of 4 KiB and not, the reference tree, a tree
# of a few thousand files, an image mksquashfs wrote), salt (given, none,
# random, made of the image's bytes), superblock on and off, sha256 and
# sha512, the hash area after the image or in a file of its own:
# `veritysetup format` run on the image alone with the same parameters
# writes the same hash area (cmp) and prints the same root hash, and
# `veritysetup verify` accepts ours. Then single flipped bits, anywhere in
# the data and in the tree: both veritysetup verify and fsck --root-hash
# fail, fsck naming the file or table hit.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
need_cmd veritysetup

J=$SQK_TOOLS/jsonq
W=$TMP

# v IMAGE.json POINTER: a value of the "verity" object of a --json output.
v() { "$J" "$1" "/verity/$2"; }

# same_as_veritysetup NAME IMAGE JSON [HASHFILE]: veritysetup format of the
# image alone, with our parameters, gives our hash area and root hash; its
# verify accepts ours.
same_as_veritysetup() {
	name=$1 img=$2 json=$3 hf=${4:-}
	root=$(v "$json" root_hash) salt=$(v "$json" salt) hash=$(v "$json" hash)
	off=$(v "$json" hash_offset) blocks=$(v "$json" data_blocks)
	set -- --hash="$hash" --salt="${salt:--}" --data-blocks="$blocks"
	if [ "$(v "$json" superblock)" = true ]; then
		set -- "$@" --uuid="$(v "$json" uuid)"
	else
		set -- "$@" --no-superblock
	fi
	if [ -z "$hf" ]; then
		head -c "$off" "$img" >"$W/ref.img"
		out=$(veritysetup format "$W/ref.img" "$W/ref.img" --hash-offset="$off" "$@")
		cmp -s "$W/ref.img" "$img"
		ok $? "$name: veritysetup format writes our image and hash area, byte for byte"
		vargs="$img $img --hash-offset=$off"
	else
		rm -f "$W/ref.hash"
		out=$(veritysetup format "$img" "$W/ref.hash" "$@")
		cmp -s "$W/ref.hash" "$hf"
		ok $? "$name: veritysetup format writes our hash file, byte for byte"
		vargs="$img $hf"
	fi
	is "$(echo "$out" | awk '/^Root hash:/ { print $3 }')" "$root" \
		"$name: veritysetup's root hash is ours"
	if [ "$(v "$json" superblock)" = true ]; then
		# shellcheck disable=SC2086
		veritysetup verify $vargs "$root" >/dev/null 2>"$W/vs.err"
	else
		# shellcheck disable=SC2086
		veritysetup verify $vargs "$root" --no-superblock --hash="$hash" \
			--salt="${salt:--}" --data-blocks="$blocks" >/dev/null 2>"$W/vs.err"
	fi
	ok $? "$name: veritysetup verify accepts ours"
	"$SQUASHKIT" fsck -q --root-hash "$root" ${hf:+--verity-hash-file "$hf"} \
		$([ "$(v "$json" superblock)" = true ] || echo --verity-salt "${salt:--}" --verity-hash "$hash") \
		"$img" >"$W/fsck.out" 2>&1
	ok $? "$name: fsck --root-hash finds it clean"
}

# build NAME OPTIONS... SOURCE: mkimage --json into $W/NAME.img and .json.
build() {
	n=$1
	shift
	"$SQUASHKIT" mkimage -q -f --json "$@" "$W/$n.img" >"$W/$n.json" 2>"$W/$n.err"
	ok $? "$n: mkimage $* builds"
}

mkdir -p "$W/tiny" "$W/oneblock" "$W/small"
echo x >"$W/tiny/f"
head -c 3000 /dev/urandom >"$W/oneblock/f"
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "line %d of a small tree\n", i }' >"$W/small/a"
cp "$W/small/a" "$W/small/dup"
head -c 300000 /dev/urandom >"$W/small/rand"

build tiny --verity --verity-salt 00112233 "$W/tiny"
is "$(v "$W/tiny.json" data_blocks)" 1 "tiny: one data block, hashed into the root"
same_as_veritysetup tiny "$W/tiny.img" "$W/tiny.json"
build oneblock --verity --verity-salt - "$W/oneblock"
same_as_veritysetup "one block, no salt" "$W/oneblock.img" "$W/oneblock.json"

# bytes_used a multiple of 4 KiB: stored as it is, a file sized to land there.
"$SQUASHKIT" mkimage -q -f --uncompressed inodes,data,fragments,xattrs,ids --no-export \
	"$W/tiny" "$W/probe.img"
base=$("$SQUASHKIT" inspect --json "$W/probe.img" | "$J" - /bytes_used)
found=
for d in 0 -1 1 -2 2 -3 3 -4 4 -5 5 -6 6 -8 8; do
	n=$((8192 - base % 4096 + d))
	rm -rf "$W/exact" && mkdir "$W/exact"
	head -c "$n" /dev/urandom >"$W/exact/f"
	"$SQUASHKIT" mkimage -q -f --uncompressed inodes,data,fragments,xattrs,ids --no-export \
		"$W/exact" "$W/probe.img"
	used=$("$SQUASHKIT" inspect --json "$W/probe.img" | "$J" - /bytes_used)
	if [ $((used % 4096)) -eq 0 ]; then
		found=1
		break
	fi
done
if [ -n "$found" ]; then
	build exact --verity --verity-salt 0a0b --uncompressed inodes,data,fragments,xattrs,ids \
		--no-export "$W/exact"
	ho=$(v "$W/exact.json" hash_offset)
	bu=$("$J" "$W/exact.json" /bytes_used)
	is "$((ho - bu))" 0 \
		"bytes_used a multiple of 4 KiB: the area right at its end, no padding"
	same_as_veritysetup "4 KiB multiple" "$W/exact.img" "$W/exact.json"
else
	skip "no image of a 4 KiB multiple found near $base bytes"
fi

build small --verity --verity-salt 00112233 "$W/small"
used=$("$J" "$W/small.json" /bytes_used)
[ $((used % 4096)) -ne 0 ]
ok $? "small: bytes_used $used is no 4 KiB multiple: padded before the area"
same_as_veritysetup "small, padded" "$W/small.img" "$W/small.json"
build small512 --verity --verity-hash sha512 --verity-salt 0102030405060708 "$W/small"
same_as_veritysetup "sha512" "$W/small512.img" "$W/small512.json"
build smallfile --verity="$W/small.hash" --verity-salt ffee "$W/small"
same_as_veritysetup "a hash file of its own" "$W/smallfile.img" "$W/smallfile.json" "$W/small.hash"
build smallnosb --verity --verity-no-superblock --verity-salt 00112233 "$W/small"
same_as_veritysetup "no superblock" "$W/smallnosb.img" "$W/smallnosb.json"
build smallrand --verity "$W/small"
is "$(v "$W/smallrand.json" salt | wc -c)" 65 "a random salt of 32 bytes by default"
same_as_veritysetup "random salt" "$W/smallrand.img" "$W/smallrand.json"
build smallrand2 --verity "$W/small"
[ "$(v "$W/smallrand.json" salt)" != "$(v "$W/smallrand2.json" salt)" ]
ok $? "random salts differ from build to build"

ref_tree "$W/ref"
build ref --verity --verity-hash sha512 --verity-salt 00112233445566778899aabbccddeeff \
	--verity-no-superblock --verity="$W/ref.hashfile" -b 4K "$W/ref"
same_as_veritysetup "reference tree, sha512, no superblock, hash file" "$W/ref.img" \
	"$W/ref.json" "$W/ref.hashfile"

# A few thousand files, the default salt (random).
i=0
while [ $i -lt 30 ]; do
	mkdir -p "$W/many/d$i"
	i=$((i + 1))
done
awk -v d="$W/many" 'BEGIN { srand(7); for (i = 0; i < 3000; i++) {
	f = sprintf("%s/d%d/f%d", d, int(i / 100), i)
	n = int(rand() * 9000)
	s = ""
	for (k = 0; k < n; k += 30) s = s sprintf("%d-%d-%.6f\n", i, k, rand())
	printf "%s", s > f
	close(f)
} }' 
head -c 2000000 /dev/urandom >"$W/many/big"
build many --verity "$W/many"
same_as_veritysetup "3000 files" "$W/many.img" "$W/many.json"

# Reproducible: with SOURCE_DATE_EPOCH and no salt, made of the image's bytes, for any -j.
SOURCE_DATE_EPOCH=1700000000 build sde1 --verity -j1 "$W/small"
SOURCE_DATE_EPOCH=1700000000 build sde2 --verity -j2 "$W/small"
cmp -s "$W/sde1.img" "$W/sde2.img" &&
	[ "$(v "$W/sde1.json" root_hash)" = "$(v "$W/sde2.json" root_hash)" ] &&
	[ "$(v "$W/sde1.json" salt)" = "$(v "$W/sde2.json" salt)" ]
ok $? "SOURCE_DATE_EPOCH: the image, the tree, the salt and the root the same for -j1 and -j2"
same_as_veritysetup "salt made of the image's bytes" "$W/sde1.img" "$W/sde1.json"
build samesalt1 --verity --verity-salt 77 -j1 "$W/many"
build samesalt2 --verity --verity-salt 77 -j2 "$W/many"
cmp -s "$W/samesalt1.img" "$W/samesalt2.img"
ok $? "a given salt: the same bytes for any -j (uuid included)"

# An image of another writer: squashkit verity adds the tree, as veritysetup would.
if command -v mksquashfs >/dev/null 2>&1; then
	mksquashfs "$W/small" "$W/ms.img" -noappend -quiet -comp xz >/dev/null 2>&1
	"$SQUASHKIT" verity --json --salt 1234 "$W/ms.img" >"$W/ms.json"
	ok $? "squashkit verity adds a tree to mksquashfs's image"
	same_as_veritysetup "mksquashfs's image" "$W/ms.img" "$W/ms.json"
	mksquashfs "$W/small" "$W/msnp.img" -noappend -quiet -nopad >/dev/null 2>&1
	"$SQUASHKIT" verity --json --salt - --hash-file "$W/msnp.hash" "$W/msnp.img" >"$W/msnp.json"
	is "$(($(stat -c %s "$W/msnp.img") % 4096))" 0 "an image not padded is padded to 4 KiB"
	same_as_veritysetup "unpadded, a hash file" "$W/msnp.img" "$W/msnp.json" "$W/msnp.hash"
else
	skip "mksquashfs is not installed"
fi

# One flipped bit: both veritysetup verify and fsck --root-hash fail, fsck naming what holds it.
img=$W/small.img json=$W/small.json
root=$(v "$json" root_hash)
off=$(v "$json" hash_offset)
end=$((off + $(v "$json" hash_size)))
flip() { # FILE POS: flip bit (POS % 8) of byte POS
	b=$(od -An -tu1 -j "$1" -N1 "$2" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ (1 << ($1 % 8)))))" |
		dd of="$2" bs=1 seek="$1" conv=notrunc status=none
}
try_flip() { # POS WHAT
	cp "$img" "$W/flip.img"
	flip "$1" "$W/flip.img"
	veritysetup verify "$W/flip.img" "$W/flip.img" "$root" --hash-offset="$off" >/dev/null 2>&1
	vs=$?
	"$SQUASHKIT" fsck --root-hash "$root" "$W/flip.img" >"$W/flip.out" 2>&1
	st=$?
	named=$(grep -c '^[^:][^:]*: verity: ' "$W/flip.out")
	[ $vs -ne 0 ] && [ $st -eq 4 ] && [ "$named" -gt 0 ]
	ok $? "a bit flipped at $1 ($2): veritysetup verify fails ($vs), fsck exits 4 naming $(head -1 "$W/flip.out" | cut -d: -f1)"
}
set -- $("$SQK_TOOLS/locate" "$img" data /rand 1)
try_flip $(($1 + 100)) "data block 1 of /rand"
grep -q '^/rand: verity: its data: ' "$W/flip.out"
ok $? "fsck names /rand for its data block"
set -- $("$SQK_TOOLS/locate" "$img" inode /a)
try_flip $(($1 + 3)) "the inode table"
grep -q '^inode table: verity: ' "$W/flip.out"
ok $? "fsck names the inode table"
try_flip 40 "the superblock"
grep -q '^superblock: verity: ' "$W/flip.out"
ok $? "fsck names the superblock"
seed=1
for k in 1 2 3 4 5 6; do
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	try_flip $((seed % off)) "random, in the data"
done
for k in 1 2 3 4; do
	seed=$(((seed * 1103515245 + 12345) % 2147483648))
	try_flip $((off + 4096 + seed % (end - off - 4096))) "random, in the tree"
	grep -q '^verity hash tree: verity: hash block' "$W/flip.out"
	ok $? "fsck names the hash block"
done
# The salt in the superblock: nothing hashes to the root any more.
try_flip $((off + 90)) "the salt in the verity superblock"

done_testing
