#!/bin/sh
# squashkit mount against the kernel: the reference tree (mktree.sh), packed by
# mksquashfs with each compressor and with the options that change the layout,
# mounted by squashkit (FUSE) and by the kernel, must look the same through the
# VFS: contents, types, modes, owners, mtimes, xattrs, devices, hard-link
# groups (the manifest), and every stat field the kernel fills in: st_ino (the
# image's inode numbers), st_blocks, st_size, st_nlink, st_rdev, times; and
# statfs. Then what a mount must do besides: offsets that survive other
# readers, kernel-sized caches under many parallel readers, the daemon, --offset,
# --stats, and squashkit umount.
#
# The kernel has no lzma: that image is compared with unsquashfs's extraction,
# and its inode numbers with the kernel's view of the gzip image (mksquashfs
# numbers inodes in the order it scans the tree, whatever the compressor).
#
# Every wait is bounded by timeout(1) or a counted loop; every mount is undone
# by a trap. The daemon's exit status and stderr are checked, so that under
# the sanitizers a report (a leak at unmount included) fails the test.

SCRATCH=shm-xattrs
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setfattr timeout mountpoint perl fusermount3
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
MANIFEST=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

tree=$TMP/tree
ref_tree "$tree"

. "$SQK_SRCDIR/tests/interop/mount-lib.sh"

# The kernel mount used as the reference, undone at exit.
kmount() {
	mkdir -p "$2" && mount -t squashfs -o loop,ro "$1" "$2" 2>/dev/null &&
		at_exit "umount '$2' 2>/dev/null"
}

# stats_of DIR: every stat field the kernel fills in, one line per entry.
stats_of() {
	(cd "$1" && find . -exec stat -c '%n ino=%i blocks=%b size=%s nlink=%h mode=%f rdev=%t:%T atime=%X mtime=%Y ctime=%Z uid=%u gid=%g blksize=%o' {} + | sort)
}

inodes_of() {
	(cd "$1" && find . -printf '%i %p\n' | sort)
}

statfs_of() {
	stat -f -c 'blocks=%b free=%f avail=%a files=%c ffree=%d namemax=%l bsize=%s frsize=%S' "$1"
}

# --- each compressor and layout: squashkit's view equals the kernel's ---

if [ -n "${SQK_SANITIZED:-}" ]; then
	sets="gzip|
lzma|
lz4|-no-exports -b 4K"
else
	sets="gzip|
lzma|
lzo|
xz|
zstd|
lz4|-no-exports -b 4K
gzip|-noI -noD -noF -noX -b 1M"
fi

ref_inodes=""
while IFS='|' read -r comp opts; do
	name=$comp$(echo " $opts" | tr ' ' '_' | sed 's/_$//')
	img=$TMP/$name.img
	# shellcheck disable=SC2086 # the options are meant to split
	if ! peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress \
		-comp "$comp" $opts >"$TMP/.mk" 2>&1; then
		ok 1 "$name: mksquashfs packs the tree"
		sed 's/^/#   /' "$TMP/.mk" | head -5
		continue
	fi
	if [ "$comp" = lzma ]; then
		unsquashfs -q -n -d "$TMP/ref" "$img" >/dev/null 2>&1
		ref=$TMP/ref
		refname=unsquashfs
	elif kmount "$img" "$TMP/k"; then
		ref=$TMP/k
		refname=kernel
	else
		skip "$name: the kernel cannot mount squashfs here"
		rm -f "$img"
		continue
	fi
	"$MANIFEST" --no-holes "$ref" >"$TMP/want.m" 2>&1
	[ "$ref" = "$TMP/k" ] && stats_of "$ref" >"$TMP/want.s" && statfs_of "$ref" >"$TMP/want.f"
	[ "$ref" = "$TMP/k" ] && [ -z "$ref_inodes" ] && inodes_of "$ref" >"$TMP/ref.i" &&
		ref_inodes=$TMP/ref.i

	if mount_start "$img" "$TMP/f"; then
		ok 0 "$name: squashkit mount serves the image"
		"$MANIFEST" --no-holes "$TMP/f" >"$TMP/got.m" 2>&1
		same_file "$TMP/want.m" "$TMP/got.m" \
			"$name: the tree equals the $refname tree"
		if [ "$ref" = "$TMP/k" ]; then
			stats_of "$TMP/f" >"$TMP/got.s"
			same_file "$TMP/want.s" "$TMP/got.s" "$name: every stat field equals the kernel's"
			statfs_of "$TMP/f" >"$TMP/got.f"
			same_file "$TMP/want.f" "$TMP/got.f" "$name: statfs equals the kernel's"
		elif [ -n "$ref_inodes" ]; then
			inodes_of "$TMP/f" >"$TMP/got.i"
			same_file "$ref_inodes" "$TMP/got.i" \
				"$name: inode numbers equal the kernel's for the same tree"
		fi
		mount_stop "$TMP/f" "$name"
	fi
	[ "$ref" = "$TMP/k" ] && umount "$TMP/k"
	rm -rf "$img" "$TMP/ref"
done <<EOF
$sets
EOF

# --- one image for the rest ---

img=$TMP/main.img
peer_image "$img" "$tree" mksquashfs "$tree" "$img" -noappend -quiet -no-progress -comp zstd \
	>/dev/null 2>&1
kmount "$img" "$TMP/k" || echo "Bail out! the kernel cannot mount the image"
(cd "$TMP/k" && find . -type f -exec sha256sum {} + | sort -k2) >"$TMP/want.sums"

# Offsets stay valid while others read: half of bigdir, then every other
# directory is read, then the rest; telldir/seekdir return to the same entry.
mount_start "$img" "$TMP/f"
cat >"$TMP/offsets.pl" <<'EOF'
my ($dir, $other) = @ARGV;
opendir(my $d, $dir) or die "$dir: $!";
my @first;
push @first, scalar readdir($d) for 1 .. 1500;
my $pos = telldir($d);
my @rest = readdir($d);
system("find '$other' -type d -exec ls -f {} + >/dev/null") == 0 or die "find";
seekdir($d, $pos);
my @again = readdir($d);
print join("\n", @rest) eq join("\n", @again) ? "same\n" : "differ\n";
print scalar(@first) + scalar(@rest), "\n";
EOF
out=$(timeout 60 perl "$TMP/offsets.pl" "$TMP/f/bigdir" "$TMP/f" 2>/dev/null | tr '\n' ' ')
is "$out" "same 3104 " "telldir/seekdir in a 3100-entry directory survive other readers"
# Eight listings of the same directory at once, each from its own handle.
i=0
pids=""
while [ $i -lt 8 ]; do
	(timeout 60 ls -f "$TMP/f/bigdir" | wc -l >"$TMP/ls.$i") &
	pids="$pids $!"
	i=$((i + 1))
done
wait $pids
is "$(cat "$TMP"/ls.? | sort -u | tr '\n' ' ')" "3104 " "eight parallel listings all see 3104 entries"
# Names that are not there are cached as such, and still not there.
ok "$(test ! -e "$TMP/f/no-such" && test ! -e "$TMP/f/no-such"; echo $?)" "a missing name stays missing"
mount_stop "$TMP/f" "offsets"

# Kernel-sized caches (8 metadata, 3 fragment, 1 data block), one
# decompressor, each wait policy, 16 readers of every file at once: the
# contents are right and nothing deadlocks. --stats=FILE writes the counters.
for policy in herd keyed; do
	if mount_start "$img" "$TMP/f" --cache meta=8,frag=3,data=1 --decomp single \
		--cache-policy $policy -j 8 --stats="$TMP/stats.json" --json; then
		i=0
		pids=""
		while [ $i -lt 16 ]; do
			(cd "$TMP/f" && timeout 120 find . -type f -exec sha256sum {} + |
				sort -k2 >"$TMP/sums.$i") &
			pids="$pids $!"
			i=$((i + 1))
		done
		wait $pids
		bad=0
		for f in "$TMP"/sums.*; do
			cmp -s "$TMP/want.sums" "$f" || bad=$((bad + 1))
		done
		is "$bad" 0 "$policy, kernel-sized caches: 16 parallel readers read every file right"
		rm -f "$TMP"/sums.*
		mount_stop "$TMP/f" "$policy"
		is "$("$JSONQ" "$TMP/stats.json" /caches/data/entries)" 1 \
			"$policy: --stats --json writes the counters at unmount"
		w=$("$JSONQ" "$TMP/stats.json" /caches/metadata/waits 2>&1)
		case $w in
		'' | *[!0-9]*) ok 1 "$policy: the metadata cache counts its waits ($w)" ;;
		*) ok 0 "$policy: the metadata cache counts its waits ($w)" ;;
		esac
	fi
done

# --- the daemon ---

mkdir -p "$TMP/d"
rm -f "$TMP/stats.txt"
expect_success "mount without -f returns once mounted" \
	timeout 30 "$SQUASHKIT" mount --stats="$TMP/stats.txt" "$img" "$TMP/d"
at_exit "umount -l '$TMP/d' 2>/dev/null"
ok "$(mountpoint -q "$TMP/d"; echo $?)" "the daemon serves the mount point"
same_file "$TMP/k/blocks/several" "$TMP/d/blocks/several" "the daemon reads a file"
# A file held open makes a plain unmount fail; -l detaches and the daemon
# serves the open file until it is closed.
exec 3<"$TMP/d/one"
expect_status 1 "umount of a busy mount point fails" timeout 30 "$SQUASHKIT" umount "$TMP/d"
ok "$(mountpoint -q "$TMP/d"; echo $?)" "... and leaves it mounted"
expect_success "umount -l detaches it" timeout 30 "$SQUASHKIT" umount -l "$TMP/d"
ok "$(! mountpoint -q "$TMP/d"; echo $?)" "... at once"
is "$(cat <&3)" "x" "the open file is still served"
exec 3<&-
wait_for "the daemon ends and writes its counters" test -s "$TMP/stats.txt"
grep -q '^decompressions: ' "$TMP/stats.txt"
ok $? "the counters are text without --json"

# SIGTERM ends a foreground mount, unmounted, with its counters.
mount_start "$img" "$TMP/f" --stats="$TMP/term.txt"
kill -TERM "$mount_pid"
wait_for "SIGTERM unmounts and ends the daemon" sh -c "! kill -0 $mount_pid 2>/dev/null"
wait "$mount_pid"
is "$?" 0 "... with exit status 0"
ok "$(! mountpoint -q "$TMP/f"; echo $?)" "... and the mount point is free"
ok "$(test -s "$TMP/term.txt"; echo $?)" "... and the counters written"

# --- --offset ---

cat /bin/true "$img" >"$TMP/app"
at=$(stat -c %s /bin/true)
"$MANIFEST" --no-holes "$TMP/k" >"$TMP/want.m"
if mount_start "$TMP/app" "$TMP/f" --offset auto; then
	grep -q "image found at offset $at" "$TMP/f.err"
	ok $? "--offset auto says where it found the image ($at)"
	: >"$TMP/f.err"
	"$MANIFEST" --no-holes "$TMP/f" >"$TMP/got.m" 2>&1
	same_file "$TMP/want.m" "$TMP/got.m" "--offset auto: the image behind an ELF file"
	mount_stop "$TMP/f" "offset auto"
fi
if mount_start "$TMP/app" "$TMP/f" --offset "$at"; then
	"$MANIFEST" --no-holes "$TMP/f" >"$TMP/got.m" 2>&1
	same_file "$TMP/want.m" "$TMP/got.m" "--offset N"
	mount_stop "$TMP/f" "offset N"
fi
cat "$img" "$img" >"$TMP/two"
expect_status 1 "--offset auto refuses a file with two images" \
	timeout 30 "$SQUASHKIT" mount -f --offset auto "$TMP/two" "$TMP/f"
grep -q "2 SquashFS superblocks found" "$TMP/.err"
ok $? "... and says so"
expect_status 1 "--offset auto refuses a file without an image" \
	timeout 30 "$SQUASHKIT" mount -f --offset auto /bin/true "$TMP/f"
grep -q "no SquashFS image found" "$TMP/.err"
ok $? "... and says so"
expect_status 1 "--offset past the image's start is not an image" \
	timeout 30 "$SQUASHKIT" mount -f --offset 4096 "$img" "$TMP/f"
ok "$(! mountpoint -q "$TMP/f"; echo $?)" "nothing is mounted after a refusal"

# --- as a user: fusermount3 mounts and unmounts for us ---

if ! command -v setpriv >/dev/null 2>&1; then
	skip "setpriv is not installed: no mount as a user"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -r /dev/fuse -a -w /dev/fuse; then
	# libfuse opens the device before it falls back to fusermount3.
	skip "/dev/fuse is closed to users here: no mount as a user"
else
	u=$TMP/user
	mkdir -p "$u/m"
	cp "$img" "$u/img"
	chown -R 65534:65534 "$u"
	chmod 711 "$TMP"
	as_user() {
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	}
	expect_success "a user mounts an image (through fusermount3)" \
		timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SQUASHKIT" mount "$u/img" "$u/m"
	at_exit "umount -l '$u/m' 2>/dev/null"
	is "$(as_user cat "$u/m/one" 2>&1)" "x" "... and reads it"
	expect_success "... and unmounts it" timeout 30 setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$SQUASHKIT" umount "$u/m"
	ok "$(! mountpoint -q "$u/m"; echo $?)" "... and the mount point is free"
fi

# --- umount refuses what is not squashkit's ---

expect_status 1 "umount refuses a kernel squashfs mount" "$SQUASHKIT" umount "$TMP/k"
grep -q "not a squashkit mount point" "$TMP/.err"
ok $? "... and says so"
ok "$(mountpoint -q "$TMP/k"; echo $?)" "... and leaves it mounted"
expect_status 1 "umount refuses a directory that is no mount point" "$SQUASHKIT" umount "$TMP"
expect_status 1 "mount refuses a mount point that is a file" \
	timeout 30 "$SQUASHKIT" mount -f "$img" "$TMP/app"
expect_status 1 "mount refuses a missing image" \
	timeout 30 "$SQUASHKIT" mount -f "$TMP/none.img" "$TMP/f"
is "$(wc -l <"$TMP/.err" | tr -d ' ')" 1 "... with one line"

done_testing
