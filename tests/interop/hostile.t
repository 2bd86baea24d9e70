#!/bin/sh
# Hostile images: unimage refuses each broken image made by tests/tools/craft
# with exit 1 and one line that names the problem, never crashes or hangs,
# and never creates anything outside its destination. The valid image that
# craft writes is proved valid by unsquashfs and the kernel first.
. "$SQK_SRCDIR/tests/lib.sh"

CRAFT=$SQK_TOOLS/craft
[ -x "$CRAFT" ] || skip_all "$CRAFT is not built"

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}

# --- the valid image: the peers read it, and so does unimage ---

ok_img=$TMP/ok.img
expect_success "craft writes the valid image" "$CRAFT" ok "$ok_img"

if command -v unsquashfs >/dev/null 2>&1; then
	unsquashfs -q -n -d "$TMP/peer" "$ok_img" >/dev/null 2>&1
	is "$(cat "$TMP/peer/hello" 2>&1)" "hi" "harness: unsquashfs reads hello from the valid image"
	is "$(readlink "$TMP/peer/link")" "hello" "harness: unsquashfs reads the symlink"
	ok "$(test -d "$TMP/peer/sub"; echo $?)" "harness: unsquashfs makes the subdirectory"
	rm -rf "$TMP/peer"
else
	skip "unsquashfs is not installed"
fi
if [ "$(id -u)" -eq 0 ] && mkdir "$TMP/mnt" &&
	mount -t squashfs -o loop,ro "$ok_img" "$TMP/mnt" 2>/dev/null; then
	at_exit "umount '$TMP/mnt' 2>/dev/null"
	is "$(cat "$TMP/mnt/hello" 2>&1)" "hi" "harness: the kernel mounts the valid image"
	umount "$TMP/mnt"
else
	skip "cannot mount squashfs here (needs root and loop devices)"
fi

mkdir "$TMP/ok"
expect_success "unimage extracts the valid image" sqk unimage -d "$TMP/ok/dest" "$ok_img"
printf 'hi\n' >"$TMP/hi"
same_file "$TMP/hi" "$TMP/ok/dest/hello" "hello holds hi"
is "$(readlink "$TMP/ok/dest/link" 2>&1)" "hello" "link points at hello"
ok "$(test -d "$TMP/ok/dest/sub" && ! test -L "$TMP/ok/dest/sub"; echo $?)" "sub is a directory"

# --- the broken ones ---

# refused KIND PATTERN: unimage exits 1 with one line on stderr, starting
# "squashkit unimage: ", that matches PATTERN (an ERE, case-insensitive) once
# the image's own path is taken out of it; nothing appears outside DEST.
refused() {
	kind=$1
	pattern=$2
	img=$TMP/$kind.img
	if ! "$CRAFT" "$kind" "$img" 2>"$TMP/.err"; then
		ok 1 "craft writes $kind"
		sed 's/^/#   /' "$TMP/.err"
		return
	fi
	box=$TMP/box-$kind
	mkdir "$box"

	sqk unimage -d "$box/dest" "$img" >"$TMP/.out" 2>"$TMP/.err"
	is "$?" 1 "$kind: unimage exits 1"
	is "$(wc -l <"$TMP/.err" | tr -d ' ')" 1 "$kind: one line on stderr"
	msg=$(head -1 "$TMP/.err")
	case $msg in
	"squashkit unimage: "*) ok 0 "$kind: the line starts 'squashkit unimage: '" ;;
	*)
		ok 1 "$kind: the line starts 'squashkit unimage: '"
		echo "#   $msg"
		;;
	esac
	rest=$(printf '%s\n' "$msg" | sed "s|$img||g")
	if printf '%s\n' "$rest" | grep -Eiq -- "$pattern"; then
		ok 0 "$kind: the message names the problem"
	else
		ok 1 "$kind: the message names the problem"
		echo "#   message: $msg"
		echo "#   wanted:  /$pattern/"
	fi
	is "$(ls -A "$box")" "$(ls -A "$box" | grep -x dest)" \
		"$kind: nothing is created beside the destination"
	rm -rf "$box"

	sqk unimage --tar "$TMP/$kind.tar" "$img" >"$TMP/.out" 2>"$TMP/.err"
	is "$?" 1 "$kind: unimage --tar exits 1 too"
	rm -f "$TMP/$kind.tar"
}

refused dotdot '\.\.|unsafe|invalid name|corrupt'
refused dot '/\.(:|$| )|unsafe|invalid name|corrupt'
refused slash 'escaped|unsafe|invalid name|corrupt'
refused nul 'hello|nul|unsafe|invalid name|corrupt'
refused dupname 'escape|duplicate|corrupt'
refused unsorted 'unsorted|order|sort|corrupt'
refused loop 'loop'
refused truncated 'truncat|short|end of file'
refused tablepast 'table|past|beyond|outside|bytes_used|truncat|corrupt'
refused badinode 'hello|type|corrupt'
refused hugefile 'hello|size|truncat|corrupt'

# TODO fsck: `squashkit fsck` must exit 4 on each broken image, naming the
#      path and the check in its `PATH: what` lines and in --json, and 0 on ok.
# TODO ls/cat/stat: the same images through `squashkit ls -R`, `cat IMAGE
#      hello` and `stat IMAGE /hello` must fail with exit 1 and one line.

done_testing
