#!/bin/sh
# api-verity.t: dm-verity through the public API (squashkit/verity.h),
# built against the installed library: a build with "verity" and a
# signature gives the tree mkimage --verity gives (its root hash, salt,
# offset, uuid); an image opened with its root hash reads whole, one with
# a root hash off by a digit does not open, naming dm-verity; the tree
# alone and the signature check clean, the signature refuses another root;
# sqk_verity_add gives mkimage's root hash on an image without a tree; a
# flipped byte of /big fails its read with EIO, names the block, and
# sqk_check_path names /big under the check "verity".
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd openssl
. "$SQK_SRCDIR/tests/api/api-lib.sh"
J=$SQK_TOOLS/jsonq

api_cc "$SQK_SRCDIR/tests/api/api-verity.c"
S=$TMP/src
mkdir -p "$S/d"
head -c 500000 /dev/urandom >"$S/big"
echo small >"$S/d/small"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/k.pem" -out "$TMP/c.pem" -days 3650 \
	-subj /CN=api >/dev/null 2>&1
ok $? "a key and its certificate"

api_run api-verity build "$S" "$TMP/api.img" "$TMP/k.pem" "$TMP/c.pem" >"$TMP/out" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "the API builds with a tree and a signature, and reads it back"
sed 's/^/#   /' "$TMP/out"
"$SQUASHKIT" mkimage -q --verity --verity-salt 00112233 --json "$S" "$TMP/mk.img" >"$TMP/mk.json"
cmp -s "$TMP/api.img" "$TMP/mk.img"
ok $? "the image and its tree are mkimage --verity's, to the byte"
for k in root_hash:root salt:salt hash_offset:offset data_blocks:blocks uuid:uuid; do
	is "$(sed -n "s/^${k#*:} //p" "$TMP/out")" "$("$J" "$TMP/mk.json" "/verity/${k%%:*}")" \
		"sqk_build_verity's ${k%%:*} is mkimage's"
done
is "$(sed -n 's/^read //p' "$TMP/out")" 500000 "opened with its root hash, /big reads whole"
grep -q "^wrong: -2 .*api.img: dm-verity: .*does not match the root hash" "$TMP/out"
ok $? "a root hash off by a digit: SQK_ERR_IO, the message naming dm-verity"
grep -qx "check: clean" "$TMP/out"
ok $? "sqk_verity_check_path with the signature: clean"
grep -qx "sig ok" "$TMP/out" && grep -qx "sig other: -3" "$TMP/out"
ok $? "sqk_verity_signature_check: yes for the root, SQK_ERR_CORRUPT for another"
[ -f "$TMP/api.img.roothash.p7s" ]
ok $? "the signature is written beside the image"

"$SQUASHKIT" mkimage -q "$S" "$TMP/plain.img"
api_run api-verity add "$TMP/plain.img" >"$TMP/add" 2>"$TMP/err"
is "$(cat "$TMP/add")" "root $("$J" "$TMP/mk.json" /verity/root_hash)" \
	"sqk_verity_add: mkimage's root hash on the same image"
cmp -s "$TMP/plain.img" "$TMP/mk.img"
ok $? "and the same bytes"

root=$("$J" "$TMP/mk.json" /verity/root_hash)
set -- $("$SQK_TOOLS/locate" "$TMP/mk.img" data /big 1)
printf '\125' | dd of="$TMP/mk.img" bs=1 seek=$(($1 + 10)) conv=notrunc status=none
api_run api-verity damaged "$TMP/mk.img" "$root" >"$TMP/dmg" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "the damaged image opens (its first block is sound)"
sed 's/^/#   /' "$TMP/dmg"
grep -qx "read: -2 5" "$TMP/dmg"
ok $? "reading /big: SQK_ERR_IO, errno EIO"
grep -q "^first: data block $((($1 + 10) / 4096)) (bytes" "$TMP/dmg"
ok $? "sqk_image_verity_failures names the block"
grep -qx "problem /big verity" "$TMP/dmg"
ok $? "sqk_check_path names /big under the check verity"

done_testing
