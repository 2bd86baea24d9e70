#!/bin/sh
# --offset N|auto on every command that reads an image, and mkimage --offset:
# an image after an ELF binary (as an AppImage) and after arbitrary leading
# bytes reads as the image alone does; bad values are one clear line with the
# documented status. tests/interop/offset.t has the kernel's view.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}

ELF=/bin/true
[ -f "$ELF" ] || skip_all "no $ELF"

mkdir -p "$TMP/src/dir"
printf 'hello\n' >"$TMP/src/a"
seq 1 20000 >"$TMP/src/dir/b"
ln -s a "$TMP/src/link"
sqk mkimage -q "$TMP/src" "$TMP/plain.img" >/dev/null 2>&1
ok $? "the image is built"

cat "$ELF" "$TMP/plain.img" >"$TMP/app"
elf_size=$(wc -c <"$ELF" | tr -d ' ')
# 777 bytes that are not a superblock anywhere, then the image.
head -c 777 /dev/zero | tr '\0' 'x' >"$TMP/lead"
cat "$TMP/lead" "$TMP/plain.img" >"$TMP/junk"

# reads NAME FILE OFFSET: every read command gives what it gives on the image alone.
reads() {
	name=$1 file=$2 off=$3
	expect_success "$name: ls -lR" sqk ls -lR --offset "$off" "$file"
	sqk ls -lR "$TMP/plain.img" >"$TMP/want" 2>/dev/null
	same_file "$TMP/.out" "$TMP/want" "$name: ls shows the image's tree"
	expect_success "$name: cat" sqk cat --offset "$off" "$file" /a /dir/b
	cat "$TMP/src/a" "$TMP/src/dir/b" >"$TMP/want"
	same_file "$TMP/.out" "$TMP/want" "$name: cat gives the files' contents"
	expect_success "$name: stat" sqk stat --offset "$off" "$file" /dir/b
	grep -q '^size: 108894$' "$TMP/.out"
	ok $? "$name: stat gives the file's size"
	expect_success "$name: inspect --json" sqk inspect --json --offset "$off" "$file"
	grep -q '"inodes": *5' "$TMP/.out"
	ok $? "$name: inspect counts the inodes"
	expect_success "$name: fsck" sqk fsck -q --offset "$off" "$file"
	rm -rf "$TMP/out"
	expect_success "$name: unimage" sqk unimage -q --offset "$off" -d "$TMP/out" "$file"
	diff -r "$TMP/src" "$TMP/out" >/dev/null
	ok $? "$name: unimage extracts the source tree"
	expect_success "$name: bench" sqk bench -q -w stat -t 1 -p keyed -d 10ms -r 1 \
		--offset "$off" "$file"
}

reads "ELF + image, auto" "$TMP/app" auto
reads "ELF + image, --offset N" "$TMP/app" "$elf_size"
reads "leading bytes + image, auto" "$TMP/junk" auto
reads "leading bytes + image, --offset 777" "$TMP/junk" 777

expect_success "auto says where it found the image" sqk ls --offset auto "$TMP/app"
is "$(cat "$TMP/.err")" "squashkit ls: $TMP/app: image found at offset $elf_size" \
	"auto: the offset on stderr"
expect_success "auto with -q says nothing" sqk fsck -q --offset auto "$TMP/app"
is "$(cat "$TMP/.err")" "" "auto -q: stderr empty"
expect_success "--offset 0 is the image alone" sqk ls --offset 0 "$TMP/plain.img"
expect_success "auto on an image alone" sqk ls --offset auto "$TMP/plain.img"
is "$(cat "$TMP/.err")" "squashkit ls: $TMP/plain.img: image found at offset 0" \
	"auto on an image alone: offset 0"
# A superblock right at a 1 MiB chunk seam of the search.
head -c $((1048576 - 3)) /dev/zero >"$TMP/seam"
cat "$TMP/plain.img" >>"$TMP/seam"
expect_success "auto: an image across the search's chunk seam" sqk ls --offset auto "$TMP/seam"
is "$(cat "$TMP/.err")" "squashkit ls: $TMP/seam: image found at offset 1048573" \
	"auto: the seam offset"

# --- bad values: one line, the documented status ---

# usage STATUS DESC ARGS...: exit STATUS, "invalid offset" and the hint.
usage() {
	want=$1 desc=$2
	shift 2
	expect_status "$want" "$desc" sqk "$@"
	grep -q "^squashkit $1: invalid offset '" "$TMP/.err"
	ok $? "$desc: says why"
	is "$(tail -1 "$TMP/.err")" "Try 'squashkit $1 --help'." "$desc: the hint"
}
for c in ls cat stat inspect unimage bench; do
	usage 2 "$c --offset -1" "$c" --offset -1 "$TMP/app"
done
usage 2 "ls --offset garbage" ls --offset 12Q "$TMP/app"
usage 2 "ls --offset empty" ls --offset "" "$TMP/app"
usage 16 "fsck --offset x" fsck --offset x "$TMP/app"
expect_status 2 "bench --offset without IMAGE" sqk bench --offset 10
is "$(head -1 "$TMP/.err")" "squashkit bench: --offset needs an IMAGE operand" \
	"bench --offset without IMAGE: says why"

# fails STATUS DESC LINE ARGS...: exit STATUS and exactly LINE on stderr.
fails() {
	want=$1 desc=$2 line=$3
	shift 3
	expect_status "$want" "$desc" sqk "$@"
	is "$(cat "$TMP/.err")" "$line" "$desc: one clear line"
}
fails 1 "past the end" "squashkit ls: $TMP/app: offset 1073741824 is past the end of the file" \
	ls --offset 1G "$TMP/app"
fails 1 "auto on a file without an image" "squashkit cat: $ELF: no SquashFS image found" \
	cat --offset auto "$ELF" /a
fails 8 "fsck auto on a file without an image" "squashkit fsck: $ELF: no SquashFS image found" \
	fsck --offset auto "$ELF"
img_size=$(wc -c <"$TMP/plain.img" | tr -d ' ')
cat "$TMP/app" "$TMP/plain.img" >"$TMP/two"
fails 1 "auto with two images" \
	"squashkit ls: $TMP/two: 2 SquashFS superblocks found (at $elf_size, $((elf_size + img_size))): choose one with --offset" \
	ls --offset auto "$TMP/two"
expect_success "the second of two images by its offset" \
	sqk ls --offset $((elf_size + img_size)) "$TMP/two" /dir
is "$(cat "$TMP/.out")" "b" "the second image lists its tree"
fails 1 "a wrong offset is not an image" "squashkit stat: $TMP/app: not a squashfs image (bad magic)" \
	stat --offset 100 "$TMP/app" /

# --- mkimage --offset ---

cp "$ELF" "$TMP/built"
chmod 755 "$TMP/built"
expect_success "mkimage --offset N after an ELF" sqk mkimage -q --offset "$elf_size" \
	"$TMP/src" "$TMP/built"
cmp -s -n "$elf_size" "$ELF" "$TMP/built"
ok $? "mkimage --offset: the leading bytes are intact"
is "$(stat -c %a "$TMP/built")" 755 "mkimage --offset: the file keeps its mode"
expect_success "mkimage --offset: the image reads at N" sqk fsck -q --offset "$elf_size" "$TMP/built"
expect_success "mkimage --offset: auto finds it" sqk cat --offset auto "$TMP/built" /a
is "$(cat "$TMP/.out")" hello "mkimage --offset: its contents"
cp "$TMP/built" "$TMP/before"
fails 1 "mkimage --offset over bytes after N without --force" \
	"squashkit mkimage: $TMP/built: has bytes after offset $elf_size (use --force to replace them)" \
	mkimage -q --offset "$elf_size" "$TMP/src" "$TMP/built"
same_file "$TMP/built" "$TMP/before" "refused: the file is untouched"
rm "$TMP/src/a"
expect_success "mkimage --offset --force replaces the image after N" \
	sqk mkimage -q -f --offset "$elf_size" "$TMP/src" "$TMP/built"
cmp -s -n "$elf_size" "$ELF" "$TMP/built"
ok $? "mkimage --offset --force: the leading bytes are intact"
expect_success "mkimage --offset --force: the new image" sqk ls --offset auto "$TMP/built"
is "$(cat "$TMP/.out" | tr '\n' ' ')" "dir link " "mkimage --offset --force: the new tree"
fails 1 "mkimage --offset past the end of the file" \
	"squashkit mkimage: $TMP/lead: holds 777 bytes, fewer than the offset 1000" \
	mkimage -q --offset 1000 "$TMP/src" "$TMP/lead"
fails 1 "mkimage --offset on a missing file" \
	"squashkit mkimage: $TMP/none: --offset needs the existing file: No such file or directory" \
	mkimage -q --offset 10 "$TMP/src" "$TMP/none"
[ ! -e "$TMP/none" ]
ok $? "mkimage --offset on a missing file: nothing created"
usage 2 "mkimage --offset auto" mkimage --offset auto "$TMP/src" "$TMP/lead"
usage 2 "mkimage --offset -5" mkimage --offset -5 "$TMP/src" "$TMP/lead"
is "$(wc -c <"$TMP/lead" | tr -d ' ')" 777 "refused offsets: the file is untouched"
expect_success "mkimage --offset equal to the file's size" sqk mkimage -q --offset 777 \
	"$TMP/src" "$TMP/lead"
cmp -s -n 777 "$TMP/junk" "$TMP/lead"
ok $? "the 777 leading bytes are intact"
expect_success "and the image reads at 777" sqk fsck -q --offset 777 "$TMP/lead"

# --- IMAGE '-': the image on stdout ---

rm -rf "$TMP/out"
SOURCE_DATE_EPOCH=1000000000 "$SQUASHKIT" mkimage -q "$TMP/src" - 2>"$TMP/pipe.err" |
	cat >"$TMP/piped.img"
is "$(cat "$TMP/pipe.err")" "" "mkimage to a pipe: nothing on stderr"
expect_success "the piped image is clean" sqk fsck -q "$TMP/piped.img"
expect_success "the piped image extracts" sqk unimage -q -d "$TMP/out" "$TMP/piped.img"
diff -r --no-dereference "$TMP/src" "$TMP/out" >"$TMP/diff" 2>&1
ok $? "the piped image holds the source tree"
sed 's/^/#   /' "$TMP/diff"
SOURCE_DATE_EPOCH=1000000000 "$SQUASHKIT" mkimage -q "$TMP/src" - >"$TMP/redirected.img"
ok $? "mkimage to a redirected stdout"
same_file "$TMP/redirected.img" "$TMP/piped.img" "in place and through a pipe: the same bytes"
SOURCE_DATE_EPOCH=1000000000 "$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/named.img"
same_file "$TMP/named.img" "$TMP/piped.img" "stdout and a named file: the same bytes"
mkdir -p "$TMP/big"
head -c 3000000 /dev/urandom >"$TMP/big/r"
(
	"$SQUASHKIT" mkimage -q "$TMP/big" - 2>"$TMP/gone.err"
	echo $? >"$TMP/gone.rc"
) | head -c 10 >/dev/null
is "$(cat "$TMP/gone.rc")" 1 "a reader that goes away: exit 1"
is "$(cat "$TMP/gone.err")" "squashkit mkimage: stdout: Broken pipe" "a reader that goes away: says so"
for o in --json --stats "--offset 10"; do
	# shellcheck disable=SC2086 # the option and its value split
	expect_status 2 "mkimage $o with IMAGE -" sqk mkimage $o "$TMP/src" -
	is "$(head -1 "$TMP/.err")" "squashkit mkimage: IMAGE '-' (stdout) excludes ${o% *}" \
		"mkimage $o with IMAGE -: says why"
	is "$(wc -c <"$TMP/.out" | tr -d ' ')" 0 "mkimage $o with IMAGE -: nothing written"
done

done_testing
