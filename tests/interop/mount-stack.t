#!/bin/sh
# squashkit mount onto a directory where squashkit already serves an image
# is refused (one line, exit 1), however the directory is named (a symlink
# to it, DIR/.): a second mount would hide the first, whose daemon then
# serves nobody. Over any other mount (here the kernel's squashfs) it
# mounts as before. One squashkit umount then leaves the directory free.
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mountpoint timeout
[ -c /dev/fuse ] || skip_all "no /dev/fuse"

mkdir -p "$TMP/src" "$TMP/d" "$TMP/k"
echo one >"$TMP/src/one"
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}
echo two >"$TMP/src/two"
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/img2"

# ours DIR: how many squashkit mounts the mount table shows at DIR.
ours() {
	awk -v d="$1" '{ for (i = 7; $i != "-"; i++); if ($5 == d && $(i + 1) == "fuse.squashkit") n++ }
		END { print n + 0 }' /proc/self/mountinfo
}

expect_success "the first mount" timeout 30 "$SQUASHKIT" mount "$TMP/img" "$TMP/d"
# However many a broken build stacked there.
at_exit "while mountpoint -q '$TMP/d' 2>/dev/null; do umount -l '$TMP/d' || break; done"
is "$(cat "$TMP/d/one")" one "it serves the image"

expect_status 1 "a second mount on the same directory is refused" \
	timeout 30 "$SQUASHKIT" mount "$TMP/img2" "$TMP/d"
is "$(cat "$TMP/.err")" \
	"squashkit mount: $TMP/d: already a squashkit mount point (squashkit umount it first)" \
	"... in one line that says why"
is "$(ours "$TMP/d")" 1 "... and one squashkit mount is there, as before"
[ ! -e "$TMP/d/two" ]
ok $? "... the first image still shows"

expect_status 1 "in the foreground too" timeout 10 "$SQUASHKIT" mount -f "$TMP/img2" "$TMP/d"
ln -s "$TMP/d" "$TMP/link"
expect_status 1 "through a symlink to it" timeout 30 "$SQUASHKIT" mount "$TMP/img2" "$TMP/link"
grep -q "^squashkit mount: $TMP/link: already a squashkit mount point" "$TMP/.err"
ok $? "... naming the path as given"
expect_status 1 "as DIR/." timeout 30 "$SQUASHKIT" mount "$TMP/img2" "$TMP/d/."
is "$(ours "$TMP/d")" 1 "still one squashkit mount"

expect_success "one squashkit umount" timeout 30 "$SQUASHKIT" umount "$TMP/d"
ok "$(! mountpoint -q "$TMP/d"; echo $?)" "... leaves the directory free"

# Over a mount that is not squashkit's: mounted, as any mount over another.
if mount -t squashfs -o loop,ro "$TMP/img" "$TMP/k" 2>/dev/null; then
	at_exit "umount '$TMP/k' 2>/dev/null"
	expect_success "a squashkit mount over a kernel squashfs mount" \
		timeout 30 "$SQUASHKIT" mount "$TMP/img2" "$TMP/k"
	at_exit "umount -l '$TMP/k' 2>/dev/null"
	is "$(cat "$TMP/k/two")" two "... shows the new image"
	expect_success "... and squashkit umount takes it off" \
		timeout 30 "$SQUASHKIT" umount "$TMP/k"
	is "$(cat "$TMP/k/one" 2>&1)" one "... the kernel's mount under it is there again"
	umount "$TMP/k"
else
	skip "the kernel cannot mount squashfs here"
	skip "the kernel cannot mount squashfs here"
	skip "the kernel cannot mount squashfs here"
	skip "the kernel cannot mount squashfs here"
fi

done_testing
