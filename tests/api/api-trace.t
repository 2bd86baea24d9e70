#!/bin/sh
# api-trace.t: sqk_inode_open_trace (tests/api/api-trace.c), built against
# the installed library, on a tree of symlinks mksquashfs packs: each
# symlink followed and each directory left through ".." is told, in order,
# then where the resolution ended, each as "/a/b"; the inode opened is what the kernel's
# mount shows at the same path (stat -L, or stat with nofollow). With
# "relative", absolute targets and ".." in the root are refused, as
# unsquashfs -follow-symlinks refuses them; a loop is SQK_ERR_LOOP.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount

api_cc "$SQK_SRCDIR/tests/api/api-trace.c"
t() { api_run api-trace "$TMP/img" "$@" 2>&1 | tr '\n' ';'; }
# The same, each line's first two words: a failure's code without its message.
t2() { api_run api-trace "$TMP/img" "$@" 2>&1 | cut -d' ' -f1-2 | tr '\n' ';'; }

s=$TMP/tree
mkdir -p "$s/d/real" "$s/d2"
echo f >"$s/d/real/f"
echo x >"$s/d2/x"
ln -s d/real "$s/link1"
ln -s ../d2 "$s/d/up"
ln -s /d/real "$s/abs"
ln -s ../.. "$s/d/top"
ln -s loop2 "$s/loop1"
ln -s loop1 "$s/loop2"
ln -s link1 "$s/chain"
mksquashfs "$s" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree of symlinks"

# The mode the kernel's mount shows at a path (followed, or not).
kmode() { # PATH [nofollow]
	if [ "${2:-}" = nofollow ]; then
		stat -c '%f' "$MNT/$1"
	else
		stat -L -c '%f' "$MNT/$1"
	fi
}
mount -t squashfs -o loop,ro "$TMP/img" "$MNT" || {
	echo "Bail out! the kernel does not mount the image"
	exit 1
}
m_f=$(printf '%o' 0x"$(kmode link1/f)")
m_x=$(printf '%o' 0x"$(kmode d/up/x)")
m_real=$(printf '%o' 0x"$(kmode chain)")
m_link=$(printf '%o' 0x"$(kmode link1 nofollow)")
# abs's target is /d/real inside the image: on the mount, d/real.
m_abs=$(printf '%o' 0x"$(kmode d/real/f)")
umount "$MNT"

is "$(t link1/f)" "link /link1;result /d/real/f;mode $m_f;" "a symlink on the way, then the file"
is "$(t d/up/x)" "link /d/up;parent /d;result /d2/x;mode $m_x;" \
	"a relative target through '..': the symlink, the directory left, the file"
is "$(t chain)" "link /chain;link /link1;result /d/real;mode $m_real;" \
	"a symlink to a symlink: both, in order"
is "$(t link1 nofollow)" "result /link1;mode $m_link;" "nofollow: the last symlink is not followed"
is "$(t abs/f)" "link /abs;result /d/real/f;mode $m_abs;" "an absolute target starts at the root"
is "$(t2 abs/f relative)" "error -4;" \
	"relative: an absolute target is refused"
is "$(t2 d/top relative)" "link /d/top;parent /d;error -4;" \
	"relative: '..' in the root is refused"
is "$(t2 loop1 | tr ';' '\n' | grep -v '^link /loop[12]$')" "error -15" \
	"a loop: the symlinks, then SQK_ERR_LOOP"
is "$(t2 nope)" "error -6;" "a missing path is SQK_ERR_NOENT"

done_testing
