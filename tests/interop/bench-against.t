#!/bin/sh
# bench --against: the model's workloads beside the kernel's squashfs on a
# loop mount and beside squashkit mount, in one report. The JSON is valid,
# every cell says where it ran, the kernel's cells have no cache counters
# (null) and the mount's have the daemon's; the slow device's reads reach the
# device once per read in the kernel and almost never in the model with a
# compressed-block cache that holds the file; and after every run, a SIGINT
# in the middle of one and a SIGKILL, no loop device, mount, daemon, cgroup or
# scratch directory of bench's is left. Counts and contents only: no timings.
. "$SQK_SRCDIR/tests/lib.sh"

need_root
grep -qw squashfs /proc/filesystems || skip_all "the kernel has no squashfs"
[ -c /dev/loop-control ] || skip_all "no loop devices (/dev/loop-control)"
need_cmd losetup pgrep
JSONQ=$SQK_TOOLS/jsonq

# A small image: small files in a few directories, and one large file.
mkdir -p "$TMP/src/large"
for d in 0 1 2; do
	mkdir "$TMP/src/d$d"
	for f in 0 1 2 3 4 5 6 7 8 9; do
		seq "$d$f" 3 $((d * 900 + f * 50 + 200)) >"$TMP/src/d$d/f$f"
	done
done
seq 1 120000 >"$TMP/src/large/big"
img=$TMP/small.img
"$SQUASHKIT" mkimage -q "$TMP/src" "$img" || {
	echo "Bail out! mkimage failed"
	exit 1
}
# bench makes its scratch directories here, so that what it leaves is easy to see.
SCR=$TMP/scratch
mkdir "$SCR"

# left PID: what bench PID left: loop devices over the image, mounts, cgroups,
# daemons, scratch directories (one line each; nothing when all is gone).
left() {
	losetup -j "$img" | sed 's/^/loop device: /'
	grep "$SQK_LAB_TAG.$1[./]" /proc/self/mountinfo | sed 's/^/mount: /'
	ls -d /sys/fs/cgroup/*/"$SQK_LAB_TAG.$1" /sys/fs/cgroup/"$SQK_LAB_TAG.$1" 2>/dev/null |
		sed 's/^/cgroup: /'
	ls -A "$SCR" | sed 's/^/scratch: /'
	pgrep -f -- "$SCR/$SQK_LAB_TAG\.$1\." | sed 's/^/daemon: /'
}
SQK_LAB_TAG=squashkit-bench

# nothing_left PID DESC: a test that bench PID left nothing.
nothing_left() {
	_n=0
	# An autoclear loop device lets go a moment after its last user.
	while [ -n "$(left "$1")" ] && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	_left=$(left "$1")
	if [ -z "$_left" ]; then ok 0 "$2"; else
		ok 1 "$2"
		echo "$_left" | sed 's/^/#   /'
	fi
}

# bench_bg ARGS...: bench in the background; $bench_pid is bench itself.
bench_bg() {
	TMPDIR=$SCR "$SQUASHKIT" bench "$@" >"$TMP/bg.out" 2>"$TMP/bg.err" &
	bench_pid=$!
	at_exit "kill -9 $bench_pid 2>/dev/null"
}

# 1. Model and kernel, two workloads, two thread counts.
TMPDIR=$SCR "$SQUASHKIT" bench -q -f json -w stat,mixed -t 1,2 -p herd,keyed -d 100ms -r 1 \
	--against kernel "$img" >"$TMP/k.json" 2>"$TMP/k.err" &
pid=$!
wait $pid
ok $? "bench --against kernel: exit 0"
sed 's/^/#   /' "$TMP/k.err" | head -5
"$JSONQ" "$TMP/k.json" >/dev/null
ok $? "the report is valid JSON"
is "$("$JSONQ" "$TMP/k.json" '/cells/#')" 12 "12 cells: 2 workloads x 2 thread counts x (2 policies + the kernel)"
is "$("$JSONQ" "$TMP/k.json" '/cells/*/where' | sort | uniq -c | tr -s ' ' | sed 's/^ //' | tr '\n' ,)" \
	"4 kernel,8 model," "every cell says where it ran: 8 in the model, 4 in the kernel"
kcells=$("$JSONQ" "$TMP/k.json" '/cells/*/where' | grep -n kernel | cut -d: -f1)
bad=0
for i in $kcells; do
	i=$((i - 1))
	for k in policy decomp cache wakeups_per_release hit_ratio; do
		[ "$("$JSONQ" "$TMP/k.json" "/cells/$i/$k")" = null ] || bad=$((bad + 1))
	done
	ops=$("$JSONQ" "$TMP/k.json" "/cells/$i/ops_per_s")
	awk -v v="$ops" 'BEGIN { exit !(v > 0) }' || bad=$((bad + 1))
	[ "$("$JSONQ" "$TMP/k.json" "/cells/$i/errors")" = 0 ] || bad=$((bad + 1))
	reads=$("$JSONQ" "$TMP/k.json" "/cells/$i/device_reads_per_op")
	[ "$reads" != null ] || bad=$((bad + 1))
done
is "$bad" 0 "kernel cells: no policy, decompressor or cache counters (null), operations without errors, device reads counted"
is "$("$JSONQ" "$TMP/k.json" '/cells/*/errors' | sort -u)" 0 "no operation failed anywhere"
# The step at 2 threads is 2 threads' throughput over 1 thread's; for the model, also over the kernel's.
is "$("$JSONQ" "$TMP/k.json" '/cells/*/step' | grep -vc null)" 6 \
	"every cell at 2 threads has its step (over 1 thread)"
is "$("$JSONQ" "$TMP/k.json" '/cells/*/step_vs_kernel' | grep -vc null)" 4 \
	"and every model cell at 2 threads its step over the kernel's"
nothing_left $pid "after the run: no loop device, mount, cgroup or scratch left"

# 2. The table and the CSV carry the place too.
TMPDIR=$SCR "$SQUASHKIT" bench -q -f csv -w stat -t 1 -p keyed -d 50ms -r 1 --against kernel \
	"$img" >"$TMP/k.csv" &
pid=$!
wait $pid
ok $? "bench --against kernel -f csv: exit 0"
is "$(cut -d, -f1,2,3 "$TMP/k.csv" | tr '\n' ' ')" "where,workload,policy model,stat,keyed kernel,stat, " \
	"CSV: a model row and a kernel row, the kernel's policy empty"
TMPDIR=$SCR "$SQUASHKIT" bench -q -w stat -t 1,2 -p keyed -d 50ms -r 1 --against kernel \
	--plot "$TMP/k.svg" "$img" >"$TMP/k.txt" &
pid=$!
wait $pid
ok $? "bench --against kernel, table and plot: exit 0"
is "$(awk '$1 == "model" || $1 == "kernel" { print $1 }' "$TMP/k.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ,)" \
	" 2 kernel, 2 model," "the table's rows say model and kernel"
grep -q '^shape of stat at 2 threads .*: kernel [0-9.]*; model keyed [0-9.]* (' "$TMP/k.txt"
ok $? "the table ends with the shape of each workload against the kernel's"
grep -q '^warm: without --cold .* the kernel.s and the mount.s figures rise run after run' \
	"$TMP/k.txt"
ok $? "without --cold, the table says the kernel's and the mount's rows rise as caches fill"
TMPDIR=$SCR "$SQUASHKIT" bench -q -w stat -t 1 -p keyed -d 50ms -r 1 --cold --against kernel \
	"$img" >"$TMP/cold.txt" &
pid=$!
wait $pid
ok $? "bench --cold --against kernel: exit 0"
! grep -q '^warm:' "$TMP/cold.txt"
ok $? "with --cold, no such warning"
grep -q "stroke='#222222'" "$TMP/k.svg" && grep -q '>kernel</text>' "$TMP/k.svg"
ok $? "the plot has the kernel's line and legend"
nothing_left $pid "after the table and the plot: nothing left"

# 3. squashkit mount beside them: its cells carry the daemon's counters.
TMPDIR=$SCR "$SQUASHKIT" bench -q -f json -w mixed -t 2 -p herd,keyed -d 100ms -r 1 \
	--against kernel,mount "$img" >"$TMP/m.json" 2>"$TMP/m.err" &
pid=$!
wait $pid
ok $? "bench --against kernel,mount: exit 0"
sed 's/^/#   /' "$TMP/m.err" | head -5
is "$("$JSONQ" "$TMP/m.json" '/cells/*/where' | tr '\n' ' ')" "model model kernel mount mount " \
	"cells: the model's two policies, the kernel, the mount's two policies"
is "$("$JSONQ" "$TMP/m.json" '/cells/3/policy' '/cells/4/policy' | tr '\n' ' ')" "herd keyed " \
	"the mount's cells are one per policy"
bad=0
for i in 3 4; do
	fills=$("$JSONQ" "$TMP/m.json" "/cells/$i/fills")
	hit=$("$JSONQ" "$TMP/m.json" "/cells/$i/hit_ratio")
	awk -v f="$fills" -v h="$hit" 'BEGIN { exit !(f > 0 && h >= 0 && h <= 1) }' || bad=$((bad + 1))
	[ "$("$JSONQ" "$TMP/m.json" "/cells/$i/wakeups_per_release")" != null ] || bad=$((bad + 1))
	[ "$("$JSONQ" "$TMP/m.json" "/cells/$i/device_reads_per_op")" = null ] || bad=$((bad + 1))
done
is "$bad" 0 "mount cells: the daemon's fills, hit ratio and wakeups; no device reads (null)"
nothing_left $pid "after the mount's runs: no daemon, mount or loop device left"

# 4. A SIGINT in the middle of a run: bench stops, takes everything down, dies of it.
# Runs of a minute and more: the signal cannot come after the last one.
bench_bg -q -w mixed -t 2 -p keyed -d 1s -r 20 --against kernel,mount "$img"
n=0
while ! grep -q "$SQK_LAB_TAG.$bench_pid[./].*/\(kernel\|mount\) " /proc/self/mountinfo && [ $n -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
[ $n -lt 600 ]
ok $? "a kernel or squashkit mount is up while bench runs"
n=0
while ! grep -q "$SQK_LAB_TAG.$bench_pid[./].*/mount " /proc/self/mountinfo && [ $n -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
# The daemon: the process of squashkit's binary whose command line names the
# scratch directory (not fusermount or another helper the mount runs).
exe=$(readlink -f "$SQUASHKIT")
daemon=
n=0
while [ -z "$daemon" ] && [ $n -lt 600 ]; do
	for p in $(pgrep -f -- "$SCR/$SQK_LAB_TAG\.$bench_pid\."); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$exe" ] && daemon=$p && break
	done
	[ -n "$daemon" ] || sleep 0.05
	n=$((n + 1))
done
is "$(cat "/proc/$daemon/comm" 2>/dev/null)" squashkit "the mount daemon bench starts is squashkit in ps"
kill -INT $bench_pid
wait $bench_pid
is $? 130 "SIGINT: bench ends by it"
nothing_left $bench_pid "after SIGINT in the middle: nothing left"

# 5. SIGKILL leaves a mount and a loop device; the next run sweeps them.
bench_bg -q -w mixed -t 2 -p keyed -d 1s -r 40 --against kernel "$img"
n=0
while ! grep -q "$SQK_LAB_TAG.$bench_pid[./].*/kernel " /proc/self/mountinfo && [ $n -lt 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
kill -KILL $bench_pid
wait $bench_pid 2>/dev/null
killed=$bench_pid
[ -n "$(left $killed)" ]
ok $? "SIGKILL in the middle leaves something behind (it cannot be caught)"
TMPDIR=$SCR "$SQUASHKIT" bench -q -w stat -t 1 -p keyed -d 20ms -r 1 "$img" >/dev/null &
pid=$!
wait $pid
ok $? "the next bench runs"
nothing_left $killed "and takes down what the killed one left"
nothing_left $pid "and leaves nothing of its own"

# 6. The slow device: randread with a compressed-block cache that holds the
# large file. The kernel (no such cache) reads the device for every block;
# the model, once warm, almost never. Counted by the loop device itself.
TMPDIR=$SCR "$SQUASHKIT" bench -q -f json -w randread -t 1 -p herd -d 300ms -r 1 --cache comp=64 \
	--slow-device 4000,200M --against kernel "$img" >"$TMP/s.json" 2>"$TMP/s.err" &
pid=$!
wait $pid
rc=$?
if grep -q "no cgroup hierarchy with the io controller" "$TMP/s.err"; then
	skip "the slow device: $(head -1 "$TMP/s.err")"
	skip "the slow device: no throttle here"
	skip "the slow device: no throttle here"
else
	ok $rc "bench --slow-device --against kernel, randread: exit 0"
	sed 's/^/#   /' "$TMP/s.err" | head -5
	is "$("$JSONQ" "$TMP/s.json" '/device/read_iops')" 4000 "the report names the device's limits"
	model=$("$JSONQ" "$TMP/s.json" '/cells/0/device_reads_per_op')
	kernel=$("$JSONQ" "$TMP/s.json" '/cells/1/device_reads_per_op')
	held=$("$JSONQ" "$TMP/s.json" '/cells/0/comp_cache_kib')
	awk -v m="$model" -v k="$kernel" -v h="$held" 'BEGIN { exit !(m < 0.5 && k >= 0.9 && h > 0) }'
	ok $? "device reads per block read: model with the cache $model, kernel $kernel; the cache holds $held KiB"
fi
nothing_left $pid "after the slow device: no loop device, cgroup or scratch left"

echo "1..$test_count"
