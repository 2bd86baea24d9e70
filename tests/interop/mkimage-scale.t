#!/bin/sh
# mkimage at scale and under trouble, read back by the kernel and unsquashfs:
# sparse maps (a 1 GiB file of 1000 extents, a 5 GiB file past the 32-bit
# size), SIGINT mid-build, a full disk, 100,000 entries and directories of
# 999 entries and of 140 KB, the id limit. On tmpfs. Under the sanitizers
# (SQK_SANITIZED=1) 10,000 entries stand for 100,000: the same directory
# index and metadata paths, at a tenth of the cost.
SCRATCH=shm
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_root
need_cmd unsquashfs

SQK=$SQUASHKIT
MNT=$TMP/mnt
mkdir -p "$MNT"
at_exit "umount '$MNT' 2>/dev/null; umount '$TMP/full' 2>/dev/null"

# A 1 GiB sparse file with 1000 data extents: one sweep, holes never read.
mkdir "$TMP/sp"
truncate -s 1G "$TMP/sp/big"
i=0
while [ $i -lt 1000 ]; do
	echo "extent $i" | dd of="$TMP/sp/big" bs=4096 seek=$((i * 256 + 7)) conv=notrunc status=none
	i=$((i + 1))
done
extents=$(filefrag "$TMP/sp/big" 2>/dev/null | awk '{print $2}')
json=$("$SQK" mkimage -q --stats --json "$TMP/sp" "$TMP/sp.sqfs")
lseeks=$(echo "$json" | sed 's/.*"lseeks":\([0-9]*\).*/\1/')
sparse=$(echo "$json" | sed 's/.*"sparse":{"blocks":\([0-9]*\).*/\1/')
echo "# lseeks=$lseeks sparse_blocks=$sparse filefrag=$extents"
[ -n "$lseeks" ] && [ "$lseeks" -le $((2 * 1000 + 2)) ]
ok $? "sparse map: at most 2 x extents + 2 lseeks ($lseeks)"
[ -n "$sparse" ] && [ "$sparse" -ge 7000 ]
ok $? "sparse file stored with sparse blocks ($sparse)"
if mount -t squashfs -o loop,ro "$TMP/sp.sqfs" "$MNT"; then
	cmp -s "$MNT/big" "$TMP/sp/big"
	ok $? "sparse file reads back the same"
	umount "$MNT"
else
	ok 1 "sparse image mounts"
fi
rm -rf "$TMP/sp" "$TMP/sp.sqfs"

# Past 4 GiB: a 5 GiB sparse file needs the extended inode's 64-bit size.
mkdir "$TMP/huge"
truncate -s 5G "$TMP/huge/f"
echo "data past four gibibytes" | dd of="$TMP/huge/f" bs=1M seek=4700 conv=notrunc status=none
"$SQK" mkimage -q "$TMP/huge" "$TMP/huge.sqfs"
if mount -t squashfs -o loop,ro "$TMP/huge.sqfs" "$MNT"; then
	is "$(stat -c %s "$MNT/f")" 5368709120 "a 5 GiB file keeps its size"
	is "$(dd if="$MNT/f" bs=1M skip=4700 count=1 status=none | head -c 24)" \
		"data past four gibibytes" "data past 4 GiB reads back"
	umount "$MNT"
else
	ok 1 "the 5 GiB image mounts"
fi
rm -rf "$TMP/huge" "$TMP/huge.sqfs"

# SIGINT mid-build leaves neither IMAGE nor the temporary file.
mkdir "$TMP/slow"
head -c 200M /dev/urandom >"$TMP/slow/noise"
mkdir -p "$TMP/out"
$SIGNALABLE "$SQK" mkimage -q -c xz -j 1 "$TMP/slow" "$TMP/out/slow.sqfs" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
[ $st -ne 0 ]
ok $? "SIGINT stops the build with a failure status ($st)"
is "$(ls -A "$TMP/out")" "" "SIGINT leaves no IMAGE and no temporary file"
rm -rf "$TMP/slow"

# A full filesystem: a clear error, nothing left behind.
mkdir "$TMP/full"
if mount -t tmpfs -o size=1M tmpfs "$TMP/full"; then
	mkdir "$TMP/tree"
	head -c 3M /dev/urandom >"$TMP/tree/noise"
	expect_status 1 "a full disk fails the build" "$SQK" mkimage -q "$TMP/tree" "$TMP/full/img.sqfs"
	grep -qx "squashkit mkimage: $TMP/full/img.sqfs: No space left on device" "$TMP/.err"
	ok $? "a full disk is reported as such, naming the image"
	is "$(ls -A "$TMP/full")" "" "a full disk leaves no IMAGE and no temporary file"
	umount "$TMP/full"
else
	skip "cannot mount a tmpfs"
fi

# Scale: N entries (100,000, or 10,000 under the sanitizers) in directories of 999.
mkentries() { # DIR N: N empty files in N/1000 directories
	mkdir "$1"
	d=0
	while [ $d -lt $(($2 / 1000)) ]; do
		mkdir "$1/d$d"
		(cd "$1/d$d" && seq -f 'f%g' 1 999 | xargs touch)
		d=$((d + 1))
	done
}
N=100000
[ -z "${SQK_SANITIZED:-}" ] || N=10000
mkentries "$TMP/s100k" $N
j100=$("$SQK" mkimage -q --stats --json "$TMP/s100k" "$TMP/s100k.sqfs")
is "$(echo "$j100" | sed 's/.*"inodes":\([0-9]*\).*/\1/')" $((N + 1)) "$N entries: every inode written"
is "$(unsquashfs -l "$TMP/s100k.sqfs" | grep -c squashfs-root/)" $N \
	"$N entries: unsquashfs lists them all"
# 999 entries a directory span several metadata blocks: lookups go through the index.
if mount -t squashfs -o loop,ro "$TMP/s100k.sqfs" "$MNT"; then
	found=0
	last=$((N / 1000 - 1)) mid=$((N / 2000))
	for p in d0/f1 d0/f999 d$mid/f500 d$last/f2 d$last/f998 d$((mid + 1))/f123; do
		[ -f "$MNT/$p" ] && found=$((found + 1))
	done
	is "$found" 6 "$N entries: the kernel finds names through the directory index"
	is "$(ls "$MNT/d$mid" | wc -l)" 999 "$N entries: the kernel lists a large directory"
	[ ! -e "$MNT/d0/f1000" ] && [ ! -e "$MNT/d0/f0" ] && [ ! -e "$MNT/d0/f9990" ]
	ok $? "$N entries: names that are not there are not found"
	umount "$MNT"
else
	ok 1 "the $N entries image mounts"
fi
rm -rf "$TMP/s100k" "$TMP/s100k.sqfs"

# A listing past 64 KiB needs the extended directory inode and its index.
mkdir -p "$TMP/wide/d"
(cd "$TMP/wide/d" && seq -f 'file-with-a-long-name-%06g' 1 5000 | xargs touch)
"$SQK" mkimage -q "$TMP/wide" "$TMP/wide.sqfs"
if mount -t squashfs -o loop,ro "$TMP/wide.sqfs" "$MNT"; then
	is "$(ls "$MNT/d" | wc -l)" 5000 "a 140 KB listing: the kernel lists every entry"
	[ -e "$MNT/d/file-with-a-long-name-000001" ] && [ -e "$MNT/d/file-with-a-long-name-002500" ] &&
		[ -e "$MNT/d/file-with-a-long-name-005000" ] && [ ! -e "$MNT/d/file-with-a-long-name-005001" ]
	ok $? "a 140 KB listing: lookups through the index find what is there and only that"
	umount "$MNT"
else
	ok 1 "the wide directory image mounts"
fi
rm -rf "$TMP/wide" "$TMP/wide.sqfs"

# 65535 distinct ids work; one more is a clear error.
awk 'BEGIN { for (i = 1; i < 65535; i++) printf "pipe /p%d 0600 %d 0\n", i, i }' >"$TMP/ids.list"
expect_success "65535 distinct ids build" "$SQK" mkimage -q --listing "$TMP/ids.list" "$TMP/ids.sqfs"
is "$(od -An -tu2 -j26 -N2 "$TMP/ids.sqfs" | tr -d ' ')" 65535 "id_count is 65535"
is "$(unsquashfs -lln "$TMP/ids.sqfs" | awk '$2 ~ /^65534\// {print $6}')" squashfs-root/p65534 \
	"the last id reads back"
echo "pipe /extra 0600 70000 0" >>"$TMP/ids.list"
expect_status 1 "65536 distinct ids fail" "$SQK" mkimage -q --listing "$TMP/ids.list" "$TMP/ids2.sqfs"
grep -q '65535' "$TMP/.err"
ok $? "the id error says what the limit is"
rm -f "$TMP"/ids*

done_testing
