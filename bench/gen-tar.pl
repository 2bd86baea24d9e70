#!/usr/bin/perl
# gen-tar.pl SHAPE N: a ustar stream of about N entries on stdout, for
# bench/scale-read.sh (nothing is written to disk).
#   flat  N small files in one directory, big/
#   tree  a software-like tree: 50 top directories of 40 subdirectories,
#         N / 2000 small files in each, one file in 100 with a second hard
#         link beside it, and a chain of 30 nested directories
# File contents are a few lines of text that differ from file to file.
use strict;
use warnings;

my ($shape, $n) = @ARGV;
die "usage: gen-tar.pl flat|tree N\n" unless defined $n && $shape =~ /^(flat|tree)$/;
binmode STDOUT;

sub header {
	my ($name, $size, $type, $mode, $link) = @_;
	my $prefix = '';
	if (length($name) > 100) {
		my $i = rindex($name, '/', 155);
		($prefix, $name) = (substr($name, 0, $i), substr($name, $i + 1));
	}
	my $h = pack('a100 a8 a8 a8 a12 a12 A8 a1 a100 a6 a2 a32 a32 a8 a8 a155 a12',
		$name, sprintf('%07o', $mode), '0001750', '0001750', sprintf('%011o', $size),
		sprintf('%011o', 1700000000), '', $type, $link // '', "ustar", '00', '', '', '', '',
		$prefix, '');
	my $sum = unpack('%32C*', $h);
	substr($h, 148, 8) = sprintf("%06o\0 ", $sum);
	return $h;
}

sub file {
	my ($name, $i) = @_;
	my $data = sprintf("%s %d\n", $name, $i * 7919 % 100003) x (1 + $i % 5);
	print header($name, length($data), '0', 0644);
	print $data, "\0" x ((512 - length($data) % 512) % 512);
}

sub dir { print header($_[0], 0, '5', 0755) }

if ($shape eq 'flat') {
	dir('big');
	file(sprintf('big/f%08d', $_), $_) for 0 .. $n - 1;
} else {
	my $per = int($n / 2000) - 2;
	$per = 1 if $per < 1;
	my ($count, $deep) = (0, 'deep');
	dir('deep');
	for my $k (0 .. 29) {
		$deep .= "/l$k";
		dir($deep);
	}
	for my $a (0 .. 49) {
		dir(sprintf('t%02d', $a));
		for my $b (0 .. 39) {
			my $d = sprintf('t%02d/s%03d', $a, $b);
			dir($d);
			for my $i (0 .. $per - 1) {
				my $name = sprintf('%s/file%05d.c', $d, $i);
				file($name, $count);
				print header(sprintf('%s/hl%05d', $d, $i), 0, '1', 0644, $name)
					if $count % 100 == 0;
				$count++;
			}
		}
	}
}
print "\0" x 1024;
