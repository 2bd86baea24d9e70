#!/bin/sh
# squashkit mount under many readers: 64 processes read random 4 KiB ranges
# of two files at once through a fresh mount and get the source's bytes; the
# daemon's threads rise under the load (the peak in the counters it writes
# on SIGUSR1) and fall back once the load is gone (counted in
# /proc/PID/task); a second load reads what the first pushed into the page
# cache, and gets the source's bytes too; -j bounds the threads. A few
# seconds.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs timeout mountpoint perl
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

. "$SQK_SRCDIR/tests/interop/mount-lib.sh"

# Two 4 MiB files of numbers, no two blocks alike: they compress as text does.
src=$TMP/src
mkdir -p "$src"
seed=1
for f in one two; do
	perl -e 'srand($ARGV[0]); my $n = 0;
		while ($n < 4 << 20) { my $l = join(" ", map { int(rand(1 << rand(20))) } 1 .. 12) . "\n";
			print $l; $n += length $l }' $seed >"$src/$f"
	seed=$((seed + 1))
done
img=$TMP/load.img
mksquashfs "$src" "$img" -quiet -no-progress -comp gzip >/dev/null 2>&1 ||
	echo "Bail out! mksquashfs cannot pack the source"

# readers.pl N READS MNT SRC FILE...: N processes each read READS random 4 KiB
# ranges (any offset, so some span two blocks) through MNT and from SRC, and
# compare. Prints the number of ranges that differ.
cat >"$TMP/readers.pl" <<'EOF'
use strict;
use warnings;
use Fcntl;
my ($n, $reads, $mnt, $src, @files) = @ARGV;
my @pids;
for my $r (1 .. $n) {
	my $pid = fork() // die "fork: $!";
	if ($pid == 0) {
		srand($r * 7919);
		my $bad = 0;
		my (@m, @s, @size);
		for my $f (@files) {
			sysopen(my $a, "$mnt/$f", O_RDONLY) or die "$mnt/$f: $!";
			sysopen(my $b, "$src/$f", O_RDONLY) or die "$src/$f: $!";
			push @m, $a;
			push @s, $b;
			push @size, -s $b;
		}
		for (1 .. $reads) {
			my $i = int(rand(@files));
			my $off = int(rand($size[$i] - 4096));
			my ($x, $y) = ('', '');
			sysseek($m[$i], $off, 0);
			sysseek($s[$i], $off, 0);
			sysread($m[$i], $x, 4096);
			sysread($s[$i], $y, 4096);
			$bad++ if length($x) != 4096 || $x ne $y;
		}
		exit($bad > 255 ? 255 : $bad);
	}
	push @pids, $pid;
}
my $bad = 0;
for (@pids) {
	waitpid($_, 0);
	$bad += $? >> 8;
}
print "$bad\n";
EOF

threads_now() {
	ls "/proc/$mount_pid/task" 2>/dev/null | wc -l
}

# threads_fall_to N: the daemon is down to N threads within 15 s.
threads_fall_to() {
	_n=0
	while [ "$(threads_now)" -gt "$1" ] && [ $_n -lt 150 ]; do
		_n=$((_n + 1))
		sleep 0.1
	done
	[ "$(threads_now)" -le "$1" ]
}

stats=$TMP/stats.json
if mount_start "$img" "$TMP/m" --stats="$stats" --json; then
	ls "$TMP/m" >/dev/null
	idle=$(threads_now)
	ok "$([ "$idle" -ge 2 ] && [ "$idle" -le 8 ]; echo $?)" "an idle daemon has a few threads ($idle)"

	bad=$(timeout 120 perl "$TMP/readers.pl" 64 100 "$TMP/m" "$src" one two)
	is "$bad" 0 "64 readers of random 4 KiB ranges all get the source's bytes"
	kill -USR1 "$mount_pid"
	wait_for "SIGUSR1 writes the counters so far" sh -c "'$JSONQ' '$stats' /threads/peak >/dev/null"
	peak=$("$JSONQ" "$stats" /threads/peak 2>&1)
	ok "$([ "$peak" -ge $((idle + 8)) ] 2>/dev/null; echo $?)" \
		"the threads rose under the load (peak $peak, idle $idle)"
	reads=$("$JSONQ" "$stats" /requests/read 2>&1)
	ok "$([ "$reads" -ge 64 ] 2>/dev/null; echo $?)" "... and the reads were counted ($reads)"

	threads_fall_to "$idle"
	ok $? "the threads fall back to $idle once the load is gone ($(threads_now) now)"

	# Again: most of it comes from the blocks pushed into the page cache.
	bad=$(timeout 120 perl "$TMP/readers.pl" 64 100 "$TMP/m" "$src" one two)
	is "$bad" 0 "a second load reads the right bytes too"
	mount_stop "$TMP/m" "load"
	retired=$("$JSONQ" "$stats" /threads/retired 2>&1)
	started=$("$JSONQ" "$stats" /threads/started 2>&1)
	ok "$([ "$retired" -ge $((peak - idle)) ] 2>/dev/null; echo $?)" \
		"--stats: $retired threads retired of $started started"
	max=$("$JSONQ" "$stats" /threads/max 2>&1)
	is "$max" 64 "--stats: the bound is 64 threads by default"
fi

# -j bounds the threads.
if mount_start "$img" "$TMP/j" -j 5 --stats="$TMP/j.json" --json; then
	bad=$(timeout 120 perl "$TMP/readers.pl" 64 20 "$TMP/j" "$src" one two)
	is "$bad" 0 "-j 5: 64 readers get the right bytes"
	mount_stop "$TMP/j" "-j 5"
	peak=$("$JSONQ" "$TMP/j.json" /threads/peak 2>&1)
	ok "$([ "$peak" -le 5 ] && [ "$peak" -ge 3 ] 2>/dev/null; echo $?)" \
		"-j 5: never more than 5 threads serve ($peak at most)"
fi

done_testing
