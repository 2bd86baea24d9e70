#!/bin/sh
# writer-rules.t: mkimage never writes an image its reader refuses. What a
# source hands in beyond the format's limits (a symlink target over 4096
# bytes, a device number over 12 and 20 bits, an xattr value over 64 KiB)
# is refused: exit 1 or 2, one line that names the path and the rule, and
# nothing written, not even over an image that -f would replace. The same
# values at the limit build an image fsck calls clean and ls gives back.
# (The seeded property test over random definitions is
# tests/unit/writer_rules.c.)
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SQK=$SQUASHKIT
O=$TMP/out
mkdir -p "$O"

# A target of N bytes, letters only.
target() { head -c "$1" /dev/zero | tr '\0' t; }

# refused STATUS RULE DESC MKIMAGE-ARGS...: exits STATUS with one error line
# naming RULE (and the usage hint when STATUS is 2), and leaves $O as it was.
refused() {
	want=$1 rule=$2 desc=$3
	shift 3
	ls -A "$O" >"$TMP/before"
	"$SQK" mkimage -q "$@" >"$TMP/.out" 2>"$TMP/.err"
	got=$?
	lines=$(grep -c '^squashkit mkimage: ' "$TMP/.err")
	others=$(grep -vc -e '^squashkit mkimage: ' -e "^Try 'squashkit mkimage --help'" "$TMP/.err")
	[ "$got" -eq "$want" ] && [ "$lines" -eq 1 ] && [ "$others" -eq 0 ] &&
		grep -q -- "$rule" "$TMP/.err"
	ok $? "$desc: refused (exit $want), one line naming the rule"
	[ "$got" -eq "$want" ] || echo "#   exit $got"
	sed 's/^/#   /' "$TMP/.err" | cut -c1-200 | head -5
	ls -A "$O" | cmp -s - "$TMP/before"
	ok $? "$desc: nothing written"
	rm -f "$O/new" # what a failing case left, so that the next starts clean
}

# built DESC MKIMAGE-ARGS...: exits 0, and fsck calls the image clean.
built() {
	desc=$1
	shift
	rm -f "$O/img"
	"$SQK" mkimage -q "$@" "$O/img" >"$TMP/.out" 2>"$TMP/.err" &&
		"$SQK" fsck "$O/img" >"$TMP/.fsck" 2>&1
	ok $? "$desc: built, and fsck calls it clean"
	sed 's/^/#   /' "$TMP/.err" "$TMP/.fsck" | cut -c1-200 | head -5
}

# Symlink targets: 4096 bytes (PATH_MAX) is the most the kernel reads.
printf 'l s 0777 0 0 %s\n' "$(target 5000)" >"$TMP/pseudo-5000"
refused 2 "longer than 4096" "a --pseudo-file symlink of 5000 bytes" \
	--pseudo-file "$TMP/pseudo-5000" "$O/new"
printf 'slink /d/l 0777 0 0 %s\n' "$(target 4097)" >"$TMP/listing-4097"
refused 1 "d/l: symlink target_len 4097 is more than 4096" "a --listing symlink of 4097 bytes" \
	--listing "$TMP/listing-4097" "$O/new"
printf 'slink /d/l 0777 0 0 %s\n' "$(target 4096)" >"$TMP/listing-4096"
built "a --listing symlink of 4096 bytes" --listing "$TMP/listing-4096"
n=$("$SQK" ls -l "$O/img" d 2>/dev/null | awk '$NF != "" { print length($NF) }')
is "$n" 4096 "the 4096-byte target reads back whole"

# Device numbers: a 12-bit major, a 20-bit minor.
printf 'nod /c 0600 0 0 c 4096 0\n' >"$TMP/listing-major"
refused 1 "bad major number" "a --listing device of major 4096" \
	--listing "$TMP/listing-major" "$O/new"
refused 2 "bad minor number" "a --pseudo device of minor 1048576" \
	--pseudo 'c c 0600 0 0 1 1048576' "$O/new"
built "a --pseudo device 4095,1048575" --pseudo 'c c 0600 0 0 4095 1048575'
is "$("$SQK" ls -l "$O/img" c | awk '{ print $5 $6 }')" "4095,1048575" \
	"the device numbers read back as given"

# An xattr value over 64 KiB, on every inode by --xattrs-add.
mkdir -p "$TMP/src"
refused 1 "value_size 65537 is more than 64 KiB" "an --xattrs-add value of 65537 bytes" \
	--xattrs-add "user.big=$(head -c 65537 /dev/zero | tr '\0' v)" "$TMP/src" "$O/new"
built "an --xattrs-add value of 65536 bytes" \
	--xattrs-add "user.big=$(head -c 65536 /dev/zero | tr '\0' v)" "$TMP/src"

# A refusal leaves the image -f would have replaced as it was.
cp "$O/img" "$TMP/kept"
refused 1 "target_len 4097" "a refusal over an existing image with -f" \
	-f --listing "$TMP/listing-4097" "$O/img"
cmp -s "$O/img" "$TMP/kept"
ok $? "the existing image is untouched"

done_testing
