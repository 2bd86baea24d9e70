#!/usr/bin/perl
# vfs-load.pl MODE READERS ARG [FILE...]: a load on a file system from
# outside, through the VFS, by READERS processes forked once (no exec per
# file, whose cost would drown the file system's). Each takes every
# READERS-th item of the list, or its share of the reads. PASSES (in the
# environment, 1 by default) runs the whole load that many times, one after
# the other. Prints the seconds from the first fork to the last reader's
# end (perl's own start left out).
#   walk LIST            readdir each directory of LIST (NUL-separated) and
#                        lstat every entry
#   read LIST            read each file of LIST to its end, 128 KiB at a time
#   random TOTAL FILE... TOTAL random 4 KiB reads in the FILEs in all
# Used by bench/mount-vs-peers.sh. Exit 1 if any reader failed.
use strict;
use warnings;
use POSIX ();
use Time::HiRes ();

my ($mode, $n, $arg, @files) = @ARGV;
die "usage: vfs-load.pl walk|read|random READERS LIST|TOTAL [FILE...]\n"
	unless defined $arg && $n =~ /^[1-9][0-9]*$/;
my @items;
if ($mode ne 'random') {
	open(my $l, '<', $arg) or die "$arg: $!";
	local $/ = "\0";
	@items = map { chomp; $_ } <$l>;
}

sub reader {
	my ($r) = @_;
	my $buf;
	if ($mode eq 'walk') {
		for (my $i = $r; $i < @items; $i += $n) {
			opendir(my $d, $items[$i]) or die "$items[$i]: $!";
			lstat("$items[$i]/$_") for readdir($d);
			closedir($d);
		}
	} elsif ($mode eq 'read') {
		# POSIX::open, not open: perl asks every handle it opens whether it
		# is a terminal, which is a request to a FUSE daemon and nothing to
		# the kernel's squashfs.
		for (my $i = $r; $i < @items; $i += $n) {
			my $fd = POSIX::open($items[$i], POSIX::O_RDONLY()) // die "$items[$i]: $!";
			1 while (POSIX::read($fd, $buf, 131072) // 0) > 0;
			POSIX::close($fd);
		}
	} elsif ($mode eq 'random') {
		srand(($r + 1) * 7919);
		# POSIX::open again, for the same reason.
		my @fh;
		for my $f (@files) {
			my $fd = POSIX::open($f, POSIX::O_RDONLY()) // die "$f: $!";
			push @fh, [$fd, -s $f];
		}
		for (1 .. int($arg / $n)) {
			my ($fd, $size) = @{$fh[int(rand(@fh))]};
			POSIX::lseek($fd, int(rand($size / 4096)) * 4096, 0);
			(POSIX::read($fd, $buf, 4096) // 0) == 4096 or die "short read";
		}
		POSIX::close($_->[0]) for @fh;
	} else {
		die "unknown mode $mode\n";
	}
}

my $t0 = Time::HiRes::time();
my $bad = 0;
for (1 .. ($ENV{PASSES} // 1)) {
	my @pids;
	for my $r (0 .. $n - 1) {
		my $pid = fork();
		die "fork: $!" unless defined $pid;
		if ($pid == 0) {
			reader($r);
			exit 0;
		}
		push @pids, $pid;
	}
	for (@pids) {
		waitpid($_, 0);
		$bad++ if $?;
	}
}
printf "%.4f\n", Time::HiRes::time() - $t0;
exit($bad ? 1 : 0);
