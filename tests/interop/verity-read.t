#!/bin/sh
# verity-read.t: reading through the tree, with no device-mapper. With
# --root-hash, a sound image reads as without it: mount (FUSE), unimage to a
# directory and to an archive, diff, cat. One flipped byte in a data block:
# on a squashkit mount, exactly the files with data in that 4 KiB block give
# EIO (the set computed apart, from where tests/tools/locate finds each
# file's blocks), the others read right, and the daemon logs the block;
# unimage -d and -o exit 1 leaving nothing behind; unimage -k names exactly
# those files and extracts the rest; diff is trouble (2) naming the block.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

J=$SQK_TOOLS/jsonq
LOCATE=$SQK_TOOLS/locate
MANIFEST=$SQK_TOOLS/manifest
W=$TMP

mkdir -p "$W/src/d"
for i in 1 2 3 4 5 6 7 8; do
	head -c $((i * 3000 + 17)) /dev/urandom >"$W/src/small$i"
done
head -c 700000 /dev/urandom >"$W/src/big"
cp "$W/src/big" "$W/src/d/big-copy"
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "text line %d\n", i }' >"$W/src/d/text"
ln -s big "$W/src/link"
"$SQUASHKIT" mkimage -q --verity --verity-root-hash-file "$W/root" -b 64K "$W/src" "$W/img"
ok $? "an image with a tree"
root=$(cat "$W/root")
"$SQUASHKIT" unimage -q -d "$W/plain" "$W/img"
"$MANIFEST" "$W/plain" | sed "s|$W/plain||" >"$W/plain.m"

# A sound image reads as without the tree.
"$SQUASHKIT" unimage -q --root-hash "$root" -d "$W/checked" "$W/img"
ok $? "unimage --root-hash extracts a sound image"
"$MANIFEST" "$W/checked" | sed "s|$W/checked||" >"$W/checked.m"
same_file "$W/checked.m" "$W/plain.m" "what it extracts is what unimage without it does"
"$SQUASHKIT" unimage -q --root-hash "$root" -o "$W/a.tar" "$W/img"
ok $? "unimage --root-hash -o writes the archive"
expect_status 0 "diff --root-hash-a --root-hash-b: the same" \
	"$SQUASHKIT" diff --root-hash-a "$root" --root-hash-b "$root" "$W/img" "$W/img"
"$SQUASHKIT" cat --root-hash "$root" "$W/img" /big | cmp -s - "$W/src/big"
ok $? "cat --root-hash gives the file"
expect_status 1 "a wrong root hash: the image does not open" \
	"$SQUASHKIT" ls --root-hash "$(echo "$root" | tr 0-9a-f 1-9a-f0)" "$W/img"
grep -q "dm-verity: .* does not match the root hash" "$W/.err"
ok $? "naming the block that does not match the root hash"

# damage NAME KIND PATH [N]: $W/bad is the image with one byte flipped, in the
# middle of PATH's block of KIND (data N, or frag), and $W/expected the files
# with stored bytes in that 4 KiB block.
damage() {
	name=$1
	shift
	set -- $("$LOCATE" "$W/img" "$@")
	at=$(($1 + $2 / 2))
	block=$((at / 4096))
	cp "$W/img" "$W/bad"
	b=$(od -An -tu1 -j "$at" -N1 "$W/bad" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$W/bad" bs=1 seek="$at" conv=notrunc status=none
	: >"$W/expected"
	while read -r f; do
		n=0 hit=
		while at2=$("$LOCATE" "$W/img" data "$f" $n 2>/dev/null); do
			# shellcheck disable=SC2086
			uses $at2 && hit=1
			n=$((n + 1))
		done
		if fr=$("$LOCATE" "$W/img" frag "$f" 2>/dev/null); then
			# shellcheck disable=SC2086
			uses $fr && hit=1
		fi
		[ -n "$hit" ] && echo "$f" >>"$W/expected"
	done <"$W/files"
}
uses() { # START SIZE: does [START, START+SIZE) meet the bad block?
	[ "$1" -lt $(((block + 1) * 4096)) ] && [ $(($1 + $2)) -gt $((block * 4096)) ]
}
(cd "$W/src" && find . -type f | sed 's|^\.||' | sort) >"$W/files"

# read_damaged NAME: unimage, diff and the mount on $W/bad.
read_damaged() {
	name=$1
	expect_status 1 "$name: unimage -d --root-hash fails" \
		"$SQUASHKIT" unimage -q --root-hash "$root" -d "$W/out" "$W/bad"
	[ ! -e "$W/out" ]
	ok $? "$name: and leaves nothing behind"
	grep -q "dm-verity: data block $block (bytes" "$W/.err"
	ok $? "$name: naming the block"
	expect_status 1 "$name: unimage -o --root-hash fails" \
		"$SQUASHKIT" unimage -q --root-hash "$root" -o "$W/out.tar" "$W/bad"
	[ ! -e "$W/out.tar" ] && [ -z "$(ls -A "$W" | grep '^\.out\.tar')" ]
	ok $? "$name: and leaves no archive, nor its temporary file"
	rm -rf "$W/kept"
	expect_status 1 "$name: unimage -k --root-hash extracts what reads and fails" \
		"$SQUASHKIT" unimage -q -k --root-hash "$root" -d "$W/kept" "$W/bad"
	sed -n 's|^squashkit unimage: [^:]*: \(/[^:]*\): Input/output error$|\1|p' "$W/.err" |
		sort >"$W/named"
	same_file "$W/named" "$W/expected" "$name: unimage -k names exactly the files with data in the block"
	ok_rest=0
	while read -r f; do
		grep -qx "$f" "$W/expected" && continue
		cmp -s "$W/kept$f" "$W/src$f" || ok_rest=1
	done <"$W/files"
	ok $ok_rest "$name: the other files are extracted whole"
	expect_status 2 "$name: diff --root-hash-b is trouble" \
		"$SQUASHKIT" diff --root-hash-b "$root" "$W/img" "$W/bad"
	grep -q "dm-verity: " "$W/.err"
	ok $? "$name: naming the block"
	if [ -z "$can_mount" ]; then
		skip "mounting needs root, /dev/fuse, fusermount3 and mountpoint"
		return
	fi
	rm -rf "$W/mnt2" "$W/mnt2.err"
	if mount_start "$W/bad" "$W/mnt2" --root-hash "$root"; then
		: >"$W/eio"
		while read -r f; do
			if ! cat "$W/mnt2$f" >/dev/null 2>"$W/cat.err"; then
				grep -q "Input/output error" "$W/cat.err" && echo "$f" >>"$W/eio"
			elif ! cmp -s "$W/mnt2$f" "$W/src$f"; then
				echo "$f (wrong bytes)" >>"$W/eio"
			fi
		done <"$W/files"
		same_file "$W/eio" "$W/expected" "$name: mounted, EIO on exactly the files with data in the block"
		timeout 30 "$SQUASHKIT" umount "$W/mnt2" >/dev/null 2>&1
		wait $mount_pid
		grep -q "dm-verity: data block $block (bytes" "$W/mnt2.err"
		ok $? "$name: the mount logs the block"
	fi
}

can_mount=
if [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] && command -v fusermount3 >/dev/null &&
	command -v mountpoint >/dev/null; then
	can_mount=1
	. "$SQK_SRCDIR/tests/interop/mount-lib.sh"
	if mount_start "$W/img" "$W/mnt" --root-hash "$root"; then
		"$MANIFEST" "$W/mnt" | sed "s|$W/mnt||" >"$W/mnt.m"
		same_file "$W/mnt.m" "$W/plain.m" "a sound image mounted with --root-hash reads as extracted"
		mount_stop "$W/mnt" "sound"
	fi
fi

damage "data" data /big 0
grep -qx /big "$W/expected" && grep -qx /d/big-copy "$W/expected"
ok $? "a data block: /big's and its duplicate's ($(tr '\n' ' ' <"$W/expected"))"
read_damaged "a data block"
expect_status 0 "diff without the tree sees contents that differ, no trouble" \
	sh -c '"$1" diff "$2" "$3" >/dev/null; [ $? -eq 1 ]' sh "$SQUASHKIT" "$W/img" "$W/bad"
damage "fragment" frag /small3
[ "$(wc -l <"$W/expected")" -ge 2 ]
ok $? "a fragment block: the tails of several files ($(tr '\n' ' ' <"$W/expected"))"
read_damaged "a fragment block"

done_testing
