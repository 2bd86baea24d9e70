#!/bin/sh
# verity-sign.t: mkimage --verity-sign writes the detached PKCS#7 signature
# of the root hash the kernel's dm-verity (root_hash_sig_key_desc) and
# systemd check: openssl cms -verify and openssl smime -verify accept it
# over the root hash's hex string with the certificate; a wrong
# certificate, a flipped byte of the signature and another root hash are
# refused by openssl and by fsck --verity-sig alike. --verity-sig-json is
# systemd's verity signature partition: JSON that parses, padded with NULs
# to 4096 bytes, carrying the same root hash, the certificate's SHA-256
# fingerprint and the signature in base64.
. "$SQK_SRCDIR/tests/lib.sh"
need_cmd openssl

J=$SQK_TOOLS/jsonq
W=$TMP
mkdir "$W/src"
echo hello >"$W/src/a"
head -c 100000 /dev/urandom >"$W/src/b"

key() { # NAME: a key and its self-signed certificate
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/$1.key" -out "$W/$1.crt" \
		-days 3650 -subj "/CN=squashkit $1" >/dev/null 2>&1
}
key one
key two
ok $? "keys and certificates made"

expect_success "mkimage --verity-sign writes the image and IMAGE.roothash.p7s (.raw dropped)" \
	"$SQUASHKIT" mkimage -q --verity --verity-sign "$W/one.key" --verity-cert "$W/one.crt" \
	--verity-root-hash-file "$W/rh" --verity-sig-json "$W/sig.json" \
	--verity-sig "$W/img.roothash.p7s" "$W/src" "$W/img.raw"
[ -f "$W/img.raw" ] && [ -f "$W/img.roothash.p7s" ]
ok $? "the image and the signature are there"
root=$(head -1 "$W/rh")
printf %s "$root" >"$W/root"
is "$(wc -c <"$W/root")" 64 "the root hash file holds the hex root hash"

verify_cms() { # SIG CONTENT CERT
	openssl cms -verify -binary -inform DER -in "$1" -content "$2" -certfile "$3" \
		-CAfile "$3" -out /dev/null >/dev/null 2>&1
}
verify_smime() {
	openssl smime -verify -binary -inform DER -in "$1" -content "$2" -certfile "$3" \
		-CAfile "$3" -out /dev/null >/dev/null 2>&1
}
ours() { # SIG CERT [ROOT]: fsck's check of the signature
	"$SQUASHKIT" fsck -q --verity-only --root-hash "${3:-$root}" --verity-sig "$1" \
		--verity-cert "$2" "$W/img.raw" >"$W/fsck.out" 2>&1
}

verify_cms "$W/img.roothash.p7s" "$W/root" "$W/one.crt"
ok $? "openssl cms -verify accepts it over the root hash's hex string"
verify_smime "$W/img.roothash.p7s" "$W/root" "$W/one.crt"
ok $? "openssl smime -verify accepts it"
ours "$W/img.roothash.p7s" "$W/one.crt"
ok $? "fsck --verity-sig accepts it"
openssl cms -cmsout -print -inform DER -in "$W/img.roothash.p7s" >"$W/dump" 2>&1
grep -A1 "signedAttrs:" "$W/dump" | grep -q "<ABSENT>" && grep -q "eContent: <ABSENT>" "$W/dump" &&
	grep -A1 "certificates:" "$W/dump" | grep -q "<ABSENT>"
ok $? "detached, no signed attributes, no certificates, as the kernel's recipe makes them"

# Refusals: each by openssl and by fsck (exit 4, the check verity-signature).
verify_cms "$W/img.roothash.p7s" "$W/root" "$W/two.crt"
a=$?
ours "$W/img.roothash.p7s" "$W/two.crt"
b=$?
[ $a -ne 0 ] && [ $b -eq 4 ] && grep -q ': verity-signature: ' "$W/fsck.out"
ok $? "a wrong certificate: refused by openssl ($a) and fsck ($b)"
cp "$W/img.roothash.p7s" "$W/flip.p7s"
size=$(wc -c <"$W/flip.p7s")
printf '\377' | dd of="$W/flip.p7s" bs=1 seek=$((size - 20)) conv=notrunc status=none
verify_cms "$W/flip.p7s" "$W/root" "$W/one.crt"
a=$?
ours "$W/flip.p7s" "$W/one.crt"
b=$?
[ $a -ne 0 ] && [ $b -eq 4 ]
ok $? "a flipped byte of the signature: refused by openssl ($a) and fsck ($b)"
other=$(echo "$root" | tr 0123456789abcdef 123456789abcdef0)
printf %s "$other" >"$W/other"
verify_cms "$W/img.roothash.p7s" "$W/other" "$W/one.crt"
a=$?
"$SQUASHKIT" mkimage -q --verity --verity-salt 11 --verity-root-hash-file "$W/rh2" "$W/src" \
	"$W/img2.raw"
# The signature of img.raw's root hash, offered for img2.raw's.
"$SQUASHKIT" fsck -q --verity-only --root-hash "$(cat "$W/rh2")" --verity-sig \
	"$W/img.roothash.p7s" --verity-cert "$W/one.crt" "$W/img2.raw" >"$W/fsck2.out" 2>&1
c=$?
[ $a -ne 0 ] && [ $c -eq 4 ] && grep -q ': verity-signature: ' "$W/fsck2.out"
ok $? "another root hash: refused by openssl ($a) and fsck ($c)"
printf '%s\n' "$root" >"$W/root.nl"
verify_cms "$W/img.roothash.p7s" "$W/root.nl" "$W/one.crt"
[ $? -ne 0 ]
ok $? "the signed bytes are the hex string without a newline"

# systemd's verity signature partition.
is "$(($(wc -c <"$W/sig.json") % 4096))" 0 "the JSON is padded to a multiple of 4096 bytes"
tr -d '\000' <"$W/sig.json" >"$W/sig.txt"
"$J" "$W/sig.txt" >/dev/null
ok $? "it parses as JSON (NULs after it)"
is "$("$J" "$W/sig.txt" /rootHash)" "$root" "rootHash is the root hash"
fpr=$(openssl x509 -in "$W/one.crt" -outform DER | openssl dgst -sha256 -r | cut -d' ' -f1)
is "$("$J" "$W/sig.txt" /certificateFingerprint)" "$fpr" \
	"certificateFingerprint is the SHA-256 of the certificate's DER"
"$J" "$W/sig.txt" /signature | openssl base64 -d -A >"$W/sig.der"
cmp -s "$W/sig.der" "$W/img.roothash.p7s"
ok $? "signature is the same signature, in base64"
is "$("$J" "$W/sig.txt" /@ | tr '\n' ' ')" "rootHash certificateFingerprint signature " \
	"the keys, in systemd's order"

# The library's refusals, before anything is written.
expect_status 2 "--verity-sign without --verity-cert: a usage error" \
	"$SQUASHKIT" mkimage -q --verity --verity-sign "$W/one.key" "$W/src" "$W/x.img"
expect_status 1 "a key that is not the certificate's: refused" \
	"$SQUASHKIT" mkimage -q --verity --verity-sign "$W/one.key" --verity-cert "$W/two.crt" \
	"$W/src" "$W/x.img"
grep -q "two.crt: its key is not the one given to sign with" "$W/.err"
ok $? "naming the certificate and why"
[ ! -e "$W/x.img" ] && [ ! -e "$W/x.img.roothash.p7s" ]
ok $? "and nothing is left behind"
echo garbage >"$W/bad.key"
expect_status 1 "a file that holds no key: refused" \
	"$SQUASHKIT" mkimage -q --verity --verity-sign "$W/bad.key" --verity-cert "$W/one.crt" \
	"$W/src" "$W/x.img"
grep -q "bad.key: no PEM private key" "$W/.err"
ok $? "naming the key file"
expect_status 8 "fsck: a signature file that cannot be read is an operational error" \
	"$SQUASHKIT" fsck -q --root-hash "$root" --verity-sig "$W/none.p7s" --verity-cert \
	"$W/one.crt" "$W/img.raw"
grep -q "none.p7s: No such file or directory" "$W/.err"
ok $? "naming it"

done_testing
