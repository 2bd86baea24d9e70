#!/bin/sh
# squashkit mount on hostile images: every image made by tests/tools/craft and
# tests/tools/tamper (one broken thing each), and single-bit flips of a small
# image (tests/tools/corrupt). For each, mount either refuses with exit 1 and
# one line "squashkit mount: ...", or mounts and serves: a walk that lists,
# stats, reads, reads links and xattrs of everything ends (bounded by a
# timeout; errors are allowed), the mount point still answers afterwards, and
# unmounting ends the daemon with status 0 and nothing on stderr (no crash, no
# sanitizer report, no leak). A bad block is EIO for its file only: the other
# files still read right.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs timeout mountpoint fusermount3 getfattr
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
TAMPER=$SQK_TOOLS/tamper
CRAFT=$SQK_TOOLS/craft
CORRUPT=$SQK_TOOLS/corrupt
for t in "$TAMPER" "$CRAFT" "$CORRUPT"; do
	[ -x "$t" ] || skip_all "$t is not built"
done

. "$SQK_SRCDIR/tests/interop/mount-lib.sh"

# walk DIR: everything a user can do to a read-only tree, bounded.
walk() {
	timeout 30 sh -c '
		ls -laR "$1"
		find "$1" -type f -exec cat {} +
		find "$1" -type l -exec readlink {} +
		getfattr -R -h -d -m - "$1"
		exit 0' sh "$1" >/dev/null 2>&1
}

# hostile NAME IMAGE: refused cleanly, or served, walked and unmounted cleanly.
hostile() {
	_name=$1
	_img=$2
	mkdir -p "$TMP/m"
	"$SQUASHKIT" mount -f "$_img" "$TMP/m" 2>"$TMP/m.err" &
	mount_pid=$!
	at_exit "umount -l '$TMP/m' 2>/dev/null; kill -9 $mount_pid 2>/dev/null"
	_n=0
	while kill -0 $mount_pid 2>/dev/null && ! timeout 5 mountpoint -q "$TMP/m" &&
		[ $_n -lt 1000 ]; do
		_n=$((_n + 1))
		sleep 0.02
	done
	if ! timeout 5 mountpoint -q "$TMP/m"; then
		kill -9 $mount_pid 2>/dev/null
		wait $mount_pid
		_rc=$?
		_lines=$(wc -l <"$TMP/m.err" | tr -d ' ')
		case $_rc:$_lines:$(head -1 "$TMP/m.err") in
		"1:1:squashkit mount: "*) ok 0 "$_name: refused: $(cut -c1-70 "$TMP/m.err")" ;;
		*)
			ok 1 "$_name: refused with exit 1 and one line"
			echo "#   exit $_rc"
			sed 's/^/#   /' "$TMP/m.err" | head -10
			;;
		esac
		return
	fi
	walk "$TMP/m"
	_rc=$?
	[ $_rc -lt 124 ]
	ok $? "$_name: served; a walk of everything ends (exit $_rc)"
	timeout 10 stat "$TMP/m" >/dev/null 2>&1
	ok $? "$_name: the mount point still answers"
	mount_stop "$TMP/m" "$_name"
}

# --- craft's images ---

while read -r k; do
	if "$CRAFT" "$k" "$TMP/$k.img" 2>/dev/null; then
		hostile "craft $k" "$TMP/$k.img"
	else
		skip "craft has no kind $k"
	fi
	rm -f "$TMP/$k.img"
done <<'EOF'
dotdot
dot
slash
nul
dupname
unsorted
loop
truncated
tablepast
badinode
hugefile
EOF

# --- tamper's images: the tree of tests/interop/tamper-base.sh ---

. "$SQK_SRCDIR/tests/interop/tamper-base.sh"
base=$TMP/base.img
t=$TMP/tree
tamper_base "$t" "$base" || skip_all "mksquashfs failed"

for k in magic flags compressor metadata inode inode-number orphan nlink dir-header \
	dir-name dir-order dir-entry dir-type dir-size dir-parent dir-loop dir-cycle dir-index \
	data fragment sparse id xattr export; do
	if what=$("$TAMPER" "$k" "$base" "$TMP/$k.img" 2>&1); then
		hostile "tamper $k ($what)" "$TMP/$k.img"
	else
		ok 1 "tamper $k"
		echo "#   $what"
	fi
done

# A bad block is EIO for its file only.
# eio IMAGE BAD GOOD: reading BAD fails with EIO, GOOD reads as in the tree.
eio() {
	if mount_start "$1" "$TMP/m"; then
		timeout 30 cat "$TMP/m/$2" >/dev/null 2>"$TMP/cat.err"
		grep -q "Input/output error" "$TMP/cat.err"
		ok $? "$(basename "$1" .img): reading $2 fails with EIO"
		timeout 30 cat "$TMP/m/$3" >"$TMP/got" 2>/dev/null
		same_file "$t/$3" "$TMP/got" "$(basename "$1" .img): $3 still reads right"
		mount_stop "$TMP/m" "$(basename "$1" .img)"
	fi
}
eio "$TMP/data.img" data hello
eio "$TMP/fragment.img" hello data

# A hard link's second entry listing another type than its inode's: the inode,
# known already through the first entry, must not be served under it.
if "$TAMPER" dir-link-type "$base" "$TMP/dlt.img" >/dev/null 2>&1 &&
	mount_start "$TMP/dlt.img" "$TMP/m"; then
	stat "$TMP/m/shared" >/dev/null 2>&1
	ok $? "dir-link-type: shared, a file, is looked up first"
	stat "$TMP/m/shared2" >/dev/null 2>"$TMP/st.err"
	grep -q "Input/output error" "$TMP/st.err"
	ok $? "dir-link-type: shared2, listed as a fifo, is EIO"
	mount_stop "$TMP/m" dir-link-type
else
	ok 1 "dir-link-type: the tampered image mounts"
fi

# --- bit flips in a small gzip image ---

FLIPS=24
[ -n "${SQK_SANITIZED:-}" ] && FLIPS=8
# Fixed times: the same bytes on every run, so each flip hits the same field
# (and the test count does not change from run to run).
mksquashfs "$t" "$TMP/flip-base.img" -noappend -quiet -no-progress -comp gzip \
	-all-time 1600000000 -mkfs-time 1600000000 >/dev/null 2>&1
i=0
while [ $i -lt $FLIPS ]; do
	what=$("$CORRUPT" "$TMP/flip-base.img" "$TMP/flip.img" 20250101 $i $FLIPS 2>&1)
	hostile "flip $i ($what)" "$TMP/flip.img"
	i=$((i + 1))
done

done_testing
