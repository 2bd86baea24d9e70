#!/bin/sh
# verity.t: mkimage --verity and squashkit verity on the command line: the
# usage errors; the root hash alone on stdout, or in --json, or in a file
# (IMAGE '-' needs one); IMAGE '-' through a pipe and a redirect; --offset
# builds (the tree covers the image, the area's offset counts from it);
# --append (the earlier area kept, a new one after the new image, the old
# image and tree whole after a failed append); --reuse; the blocks read
# back; squashkit verity's refusals; inspect's view; and the drop-in
# mksquashfs writes no tree.
. "$SQK_SRCDIR/tests/lib.sh"

J=$SQK_TOOLS/jsonq
W=$TMP
mkdir -p "$W/src/d" "$W/more"
head -c 300000 /dev/urandom >"$W/src/big"
cp "$W/src/big" "$W/src/d/copy"
echo small >"$W/src/small"
echo new >"$W/more/new"

expect_status 2 "--verity-salt without --verity: a usage error" \
	"$SQUASHKIT" mkimage -q --verity-salt 00 "$W/src" "$W/x.img"
expect_status 2 "--verity with --no-pad: a usage error" \
	"$SQUASHKIT" mkimage -q --verity --no-pad "$W/src" "$W/x.img"
expect_status 2 "--verity-sig without --verity-sign: a usage error" \
	"$SQUASHKIT" mkimage -q --verity --verity-sig s.p7s "$W/src" "$W/x.img"
expect_status 2 "a salt that is no hex: a usage error" \
	"$SQUASHKIT" mkimage -q --verity --verity-salt 0g "$W/src" "$W/x.img"
grep -q "invalid verity salt '0g'" "$W/.err"
ok $? "saying which salt"
expect_status 2 "an unknown hash: a usage error" \
	"$SQUASHKIT" mkimage -q --verity --verity-hash md5 "$W/src" "$W/x.img"
expect_status 2 "IMAGE - with --verity needs --verity-root-hash-file" \
	"$SQUASHKIT" mkimage -q --verity "$W/src" -
grep -q "stdout holds the image" "$W/.err"
ok $? "saying why"
[ ! -e "$W/x.img" ]
ok $? "nothing written by the refusals"

# The root hash: alone on stdout, one line.
"$SQUASHKIT" mkimage -q --verity --verity-salt 01 "$W/src" "$W/a.img" >"$W/a.out"
ok $? "mkimage --verity builds"
is "$(wc -l <"$W/a.out")" 1 "stdout is one line"
grep -qx '[0-9a-f]\{64\}' "$W/a.out"
ok $? "the root hash in hex"
"$SQUASHKIT" mkimage -q -f --verity --verity-salt 01 --json "$W/src" "$W/a.img" >"$W/a.json"
is "$("$J" "$W/a.json" /verity/root_hash)" "$(cat "$W/a.out")" "--json carries it, nothing else on stdout"
for k in salt hash hash_offset data_blocks data_block_size hash_block_size uuid; do
	"$J" "$W/a.json" "/verity/$k" >/dev/null || echo "$k"
done >"$W/missing"
same_file "$W/missing" /dev/null "--json's verity object has every key veritysetup needs"
n=$("$J" "$W/a.json" /verity/blocks_read_back)
[ "$n" -ge 1 ] && [ "$n" -le 2 ]
ok $? "a file found again, rewound over: $n block read back, no more"
"$SQUASHKIT" mkimage -q -f --verity --json -b 4K "$W/more" "$W/nodup.img" >"$W/nodup.json"
is "$("$J" "$W/nodup.json" /verity/blocks_read_back)" 0 "no duplicate: no block read back"
"$SQUASHKIT" mkimage -q -f --verity --verity-salt 01 --verity-root-hash-file "$W/a.root" \
	"$W/src" "$W/a.img" >"$W/b.out"
[ ! -s "$W/b.out" ] && [ "$(cat "$W/a.root")" = "$(cat "$W/a.out")" ]
ok $? "--verity-root-hash-file takes it: stdout empty"
"$SQUASHKIT" mkimage -q -f --verity --verity-salt 01 --stats "$W/src" "$W/a.img" >"$W/s.out"
head -1 "$W/s.out" | grep -qx '[0-9a-f]\{64\}' && grep -q '^verity  *sha256, ' "$W/s.out"
ok $? "--stats: the root hash first, then the summary with a verity line"

# IMAGE '-': the image and its area on stdout, the root hash in its file.
"$SQUASHKIT" mkimage -q --verity --verity-salt 01 --verity-root-hash-file "$W/p.root" \
	"$W/src" - | cat >"$W/pipe.img"
cmp -s "$W/pipe.img" "$W/a.img"
ok $? "IMAGE - through a pipe: the same bytes as the file"
"$SQUASHKIT" mkimage -q --verity --verity-salt 01 --verity-root-hash-file "$W/r.root" \
	"$W/src" - >"$W/redir.img"
cmp -s "$W/redir.img" "$W/a.img"
ok $? "IMAGE - onto a redirect (write-only: spooled): the same bytes"
: >"$W/rw.img"
"$SQUASHKIT" mkimage -q --verity --verity-salt 01 --verity-root-hash-file "$W/rw.root" \
	"$W/src" - 1<>"$W/rw.img"
cmp -s "$W/rw.img" "$W/a.img"
ok $? "IMAGE - onto a file open read-write (in place): the same bytes"
expect_status 1 "a root hash file that exists, without --force: refused" \
	"$SQUASHKIT" mkimage -q --verity --verity-root-hash-file "$W/rw.root" "$W/src" "$W/y.img"
grep -q "rw.root: file exists (use --force to overwrite it)" "$W/.err"
ok $? "naming it and --force"
[ ! -e "$W/y.img" ]
ok $? "and writing nothing"

# --offset: the tree covers the image, its offset counts from the image.
head -c 10000 /dev/urandom >"$W/off.img"
cp "$W/off.img" "$W/lead"
"$SQUASHKIT" mkimage -q -f --offset 10000 --verity --verity-salt 01 --json "$W/src" \
	"$W/off.img" >"$W/off.json"
ok $? "mkimage --offset --verity builds"
head -c 10000 "$W/off.img" | cmp -s - "$W/lead"
ok $? "the bytes in front are kept"
tail -c +10001 "$W/off.img" | cmp -s - "$W/a.img"
ok $? "after them, the image and its area, as without --offset"
is "$("$J" "$W/off.json" /verity/hash_offset)" "$("$J" "$W/a.json" /verity/hash_offset)" \
	"hash_offset counts from the image's start"
expect_success "fsck --offset --root-hash of it" \
	"$SQUASHKIT" fsck -q --offset 10000 --root-hash "$(cat "$W/a.out")" "$W/off.img"

# --append: the earlier area stays where it was, a new one after the new image.
cp "$W/a.img" "$W/app.img"
"$SQUASHKIT" mkimage -q --append --verity --verity-salt 02 --json "$W/more" "$W/app.img" \
	>"$W/app.json"
ok $? "mkimage --append --verity"
head -c "$(stat -c %s "$W/a.img")" "$W/app.img" | tail -c +97 >"$W/app.head"
tail -c +97 "$W/a.img" | cmp -s - "$W/app.head"
ok $? "the old image (but its superblock) and its area are untouched before the new bytes"
expect_success "fsck --root-hash of the new image" \
	"$SQUASHKIT" fsck -q --root-hash "$("$J" "$W/app.json" /verity/root_hash)" "$W/app.img"
"$SQUASHKIT" ls "$W/app.img" >"$W/app.ls"
grep -qx new "$W/app.ls" && grep -qx big "$W/app.ls"
ok $? "it holds the old entries and the new"
cp "$W/a.img" "$W/app2.img"
expect_status 1 "an append that fails (a path the image has)" \
	"$SQUASHKIT" mkimage -q --append --verity "$W/src" "$W/app2.img"
cmp -s "$W/app2.img" "$W/a.img"
ok $? "leaves the file as it was, its tree whole"
expect_success "the old root hash still checks it" \
	"$SQUASHKIT" fsck -q --root-hash "$(cat "$W/a.out")" "$W/app2.img"

# --reuse: the same bytes as without it.
"$SQUASHKIT" mkimage -q -f --reuse "$W/a.img" --verity --verity-salt 01 "$W/src" "$W/re.img" \
	>/dev/null
cmp -s "$W/re.img" "$W/a.img"
ok $? "--reuse with --verity: the same image and tree"

# squashkit verity on an image that exists.
"$SQUASHKIT" mkimage -q "$W/src" "$W/plain.img"
cp "$W/plain.img" "$W/p2.img"
"$SQUASHKIT" verity --salt 01 "$W/p2.img" >"$W/p2.root"
ok $? "squashkit verity adds a tree"
cmp -s "$W/p2.img" "$W/a.img" && cmp -s "$W/p2.root" "$W/a.out"
ok $? "the same bytes and root hash as mkimage --verity"
expect_status 1 "a second time, bytes follow the image: refused" \
	"$SQUASHKIT" verity "$W/p2.img"
grep -q "bytes follow the image.*--force" "$W/.err"
ok $? "saying --force replaces them"
expect_success "--force replaces them" "$SQUASHKIT" verity -f --salt 02 "$W/p2.img"
expect_success "the new root checks it" \
	"$SQUASHKIT" fsck -q --root-hash "$(cat "$W/.out")" "$W/p2.img"
echo "not an image" >"$W/notimg"
expect_status 1 "a file that holds no image: refused" "$SQUASHKIT" verity "$W/notimg"
is "$(cat "$W/notimg")" "not an image" "and left as it was"
head -c 5000 /dev/urandom >"$W/o.img"
cat "$W/plain.img" >>"$W/o.img"
"$SQUASHKIT" verity --offset 5000 --salt 01 "$W/o.img" >"$W/o.root"
ok $? "squashkit verity --offset"
tail -c +5001 "$W/o.img" | cmp -s - "$W/a.img"
ok $? "the image after the offset, with the tree mkimage makes"
expect_status 2 "squashkit verity --sig without --sign: a usage error" \
	"$SQUASHKIT" verity --sig x.p7s "$W/plain.img"

# inspect: the area found after the image.
"$SQUASHKIT" inspect --json "$W/a.img" >"$W/i.json"
is "$("$J" "$W/i.json" /verity/hash_offset)" "$("$J" "$W/a.json" /verity/hash_offset)" \
	"inspect --json finds the area after the image"
is "$("$J" "$W/i.json" /verity/root_hash)" null "not knowing the root hash"
"$SQUASHKIT" inspect --json --root-hash "$(cat "$W/a.out")" "$W/a.img" >"$W/i2.json"
is "$("$J" "$W/i2.json" /verity/root_hash)" "$(cat "$W/a.out")" "with --root-hash, it shows it"
"$SQUASHKIT" inspect --json "$W/plain.img" >"$W/i3.json"
is "$("$J" "$W/i3.json" /verity)" null "an image with no area: null"

# The drop-in writes no tree.
"$SQUASHKIT" mksquashfs "$W/src" "$W/ms.img" -noappend -quiet >/dev/null 2>&1
"$SQUASHKIT" inspect --json "$W/ms.img" >"$W/ms.json"
used=$("$J" "$W/ms.json" /bytes_used)
is "$(stat -c %s "$W/ms.img")" "$(((used + 4095) / 4096 * 4096))" \
	"squashkit mksquashfs: the image ends at its padded end"
is "$("$J" "$W/ms.json" /verity)" null "no verity area"

done_testing
