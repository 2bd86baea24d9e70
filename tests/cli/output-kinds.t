#!/bin/sh
# What an output path holds decides how it is written (CLI.md, --force),
# for mkimage, unimage -o and squashkit mksquashfs: a fifo and a character
# device are written as a stream, as "-" is, and stay what they are; a
# symlink is followed and where it leads replaced whole, the link kept (a
# dangling one gets its target made); a directory stays an error. The drop-in
# refuses a fifo or a character device as mksquashfs does. Block devices:
# tests/interop/output-device.t.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SQK=$SQUASHKIT
S=$TMP/src
O=$TMP/out
mkdir -p "$S/dir" "$O"
printf 'hello\n' >"$S/a.txt"
head -c 200000 /dev/urandom >"$S/dir/rnd"
# What a plain build gives, and its archive.
"$SQK" mkimage -q "$S" "$TMP/ref.img" && "$SQK" unimage -q -o "$TMP/ref.tar" "$TMP/ref.img" || {
	echo "Bail out! the reference image cannot be built"
	exit 1
}

# reader FIFO FILE: copy what comes through FIFO into FILE, in the background
# ($rpid); bounded, for a fifo nobody ever opens to write (replaced by a file).
reader() {
	timeout 20 cat "$1" >"$2" &
	rpid=$!
}

# --- a fifo with a reader
mkfifo "$O/fifo"
expect_status 1 "mkimage: a fifo without --force" "$SQK" mkimage -q "$S" "$O/fifo"
is "$(cat "$TMP/.err")" "squashkit mkimage: $O/fifo: file exists (use --force to overwrite it)" \
	"the refusal is the one for anything there"
reader "$O/fifo" "$TMP/got"
expect_success "mkimage --force onto a fifo" "$SQK" mkimage -q --force "$S" "$O/fifo"
wait $rpid
same_file "$TMP/got" "$TMP/ref.img" "the fifo's reader gets the image, byte for byte"
test -p "$O/fifo"
ok $? "the fifo stays a fifo"
is "$(ls -A "$O")" "fifo" "nothing else is left beside it"

reader "$O/fifo" "$TMP/got"
expect_success "unimage -o --force onto a fifo" "$SQK" unimage -q -f -o "$O/fifo" "$TMP/ref.img"
wait $rpid
same_file "$TMP/got" "$TMP/ref.tar" "the fifo's reader gets the archive"
test -p "$O/fifo"
ok $? "the fifo stays a fifo after unimage"

# A reader that goes early: one line with the true errno, no signal.
(timeout 20 head -c 10 "$O/fifo" >/dev/null) &
rpid=$!
expect_status 1 "a fifo whose reader goes" "$SQK" mkimage -q --force "$S" "$O/fifo"
wait $rpid
is "$(cat "$TMP/.err")" "squashkit mkimage: $O/fifo: Broken pipe" "the line says Broken pipe"

expect_status 1 "squashkit mksquashfs onto a fifo" "$SQK" mksquashfs "$S" "$O/fifo" -noappend -quiet
is "$(cat "$TMP/.err")" \
	"squashkit mksquashfs: $O/fifo: destination not block device or regular file" \
	"the drop-in refuses it as mksquashfs does"
test -p "$O/fifo"
ok $? "and leaves the fifo a fifo"
rm -f "$O/fifo"

# --- every write, read and open on the way to a fifo, failed in turn (the
# fault library): one line with the errno's words, exit 1, the fifo a fifo
# and nothing left beside it; the reader gets nothing but whole images.
FAULT=$SQK_TOOLS/libfault.so
if [ -f "$FAULT" ]; then
	asan=$(ldd "$SQK" | awk '/libasan/ { print $3 }')
	mkfifo "$O/fifo"
	reader "$O/fifo" "$TMP/got"
	SQK_FAULT_COUNT=$TMP/count LD_PRELOAD="${asan:+$asan }$FAULT" \
		"$SQK" mkimage -q --force "$S" "$O/fifo" 2>/dev/null
	wait $rpid
	# fifo_fault SPEC: one run with the fault; why it went wrong, or nothing.
	fifo_fault() {
		reader "$O/fifo" "$TMP/got"
		SQK_FAULT=$1 LD_PRELOAD="${asan:+$asan }$FAULT" \
			"$SQK" mkimage -q --force "$S" "$O/fifo" >/dev/null 2>"$TMP/err"
		st=$?
		# A failed run never opened the fifo, or closed it: the reader ends or is ended.
		[ $st -eq 0 ] || kill $rpid 2>/dev/null
		wait $rpid 2>/dev/null
		if [ $st -ne 1 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
			echo "exit $st: $(head -2 "$TMP/err" | tr '\n' '|')"
		elif ! grep -q ": Input/output error$" "$TMP/err"; then
			echo "not the errno's words: $(cat "$TMP/err")"
		elif [ ! -p "$O/fifo" ] || [ "$(ls -A "$O")" != fifo ]; then
			echo "the fifo is gone or something is left: $(ls -A "$O" | tr '\n' ' ')"
		elif [ -s "$TMP/got" ] && ! cmp -s "$TMP/got" "$TMP/ref.img"; then
			echo "the reader got part of an image"
		fi
	}
	each_fault "$TMP/count" fifo_fault write read open
	is "$bad" 0 "a fifo: each write, read and open failed in turn ($runs runs) as it should"
	rm -f "$O/fifo"
else
	skip "faults: the fault library is not built"
fi

# --- symlinks: followed, the target replaced whole, the link kept
printf 'old\n' >"$O/target"
ln -s target "$O/link"
ino=$(stat -c %i "$O/target")
expect_status 1 "mkimage: a symlink to a file without --force" "$SQK" mkimage -q "$S" "$O/link"
expect_success "mkimage --force through a symlink" "$SQK" mkimage -q --force "$S" "$O/link"
test -L "$O/link" && [ "$(readlink "$O/link")" = target ]
ok $? "the symlink stays as it was"
same_file "$O/target" "$TMP/ref.img" "its target holds the image"
[ "$(stat -c %i "$O/target")" != "$ino" ]
ok $? "the target was replaced by a rename, not written over"
is "$(ls -A "$O")" "$(printf 'link\ntarget')" "no temporary file is left"

ln -s made "$O/dangling"
expect_success "mkimage through a dangling symlink (no --force: nothing is replaced)" \
	"$SQK" mkimage -q "$S" "$O/dangling"
test -L "$O/dangling" && test -f "$O/made"
ok $? "the link stays, its target is made"
same_file "$O/made" "$TMP/ref.img" "the target made holds the image"

rm -f "$O/made"
expect_success "unimage -o through a dangling symlink" "$SQK" unimage -q -o "$O/dangling" "$TMP/ref.img"
same_file "$O/made" "$TMP/ref.tar" "the archive is where the link leads"
expect_success "unimage -o -f through a symlink to a file" \
	"$SQK" unimage -q -f -o "$O/link" "$TMP/ref.img"
same_file "$O/target" "$TMP/ref.tar" "the archive replaced the link's target"
test -L "$O/link"
ok $? "and the link stays"

rm -f "$O/target"
expect_success "squashkit mksquashfs through a dangling symlink" \
	"$SQK" mksquashfs "$S" "$O/link" -quiet
test -L "$O/link" && test -f "$O/target"
ok $? "mksquashfs's way: the link stays, the target is made"
cmp -s "$O/target" "$TMP/ref.img"
[ $? -ne 2 ]
ok $? "the target is an image"
rm -f "$O/link" "$O/target" "$O/dangling" "$O/made"

ln -s "$O/loop2" "$O/loop1"
ln -s "$O/loop1" "$O/loop2"
expect_status 1 "a loop of symlinks" "$SQK" mkimage -q --force "$S" "$O/loop1"
is "$(cat "$TMP/.err")" "squashkit mkimage: $O/loop1: Too many levels of symbolic links" \
	"the line has the true errno"
rm -f "$O/loop1" "$O/loop2"

mkdir "$O/d"
ln -s d "$O/dlink"
expect_status 1 "a symlink to a directory, with --force" "$SQK" mkimage -q --force "$S" "$O/dlink"
is "$(cat "$TMP/.err")" "squashkit mkimage: $O/dlink: is a directory" "a directory stays an error"
rm -rf "$O/d" "$O/dlink"

# --- character devices: a copy of /dev/null and of /dev/full, made with mknod
if [ "$(id -u)" -eq 0 ]; then
	mknod "$O/null" c 1 3
	mknod "$O/full" c 1 7
	expect_status 1 "mkimage onto a character device without --force" "$SQK" mkimage -q "$S" "$O/null"
	expect_success "mkimage --force onto a copy of /dev/null" "$SQK" mkimage -q --force "$S" "$O/null"
	test -c "$O/null" && [ "$(stat -c %t,%T "$O/null")" = 1,3 ]
	ok $? "it stays the character device 1,3"
	# /dev/full takes nothing: its ENOSPC shows the bytes went to the device.
	expect_status 1 "mkimage --force onto a copy of /dev/full" "$SQK" mkimage -q --force "$S" "$O/full"
	is "$(cat "$TMP/.err")" "squashkit mkimage: $O/full: No space left on device" \
		"the device's own error, in one line"
	test -c "$O/full"
	ok $? "/dev/full's copy stays a character device"
	expect_success "unimage -o -f onto a copy of /dev/null" \
		"$SQK" unimage -q -f -o "$O/null" "$TMP/ref.img"
	test -c "$O/null"
	ok $? "it stays a character device after unimage"
	expect_status 1 "squashkit mksquashfs onto a character device" \
		"$SQK" mksquashfs "$S" "$O/null" -noappend -quiet
	is "$(cat "$TMP/.err")" \
		"squashkit mksquashfs: $O/null: destination not block device or regular file" \
		"the drop-in refuses it as mksquashfs does"
	is "$(ls -A "$O")" "$(printf 'full\nnull')" "no temporary file anywhere"
	rm -f "$O/null" "$O/full"
else
	skip "character devices: mknod needs root"
fi

done_testing
