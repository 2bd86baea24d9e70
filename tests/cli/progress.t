#!/bin/sh
# Progress: mkimage, unimage and fsck draw a bar on stderr when it is a
# terminal (here a pseudo-terminal made by script(1)), none when stderr is a
# file or with --quiet; bench prints a line per cell.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd script

# A tree large enough for a few redraws, small enough to be quick.
mkdir "$TMP/src" "$TMP/src/d"
head -c 8388608 /dev/urandom >"$TMP/src/big"
i=0
while [ $i -lt 50 ]; do
	head -c 20000 /dev/urandom >"$TMP/src/d/f$i"
	i=$((i + 1))
done

# pty CMD: run CMD (a shell command line) with stdin, stdout and stderr on
# a pseudo-terminal; what the terminal showed goes to $TMP/pty.
pty() {
	script -q -e -c "$1" /dev/null </dev/null >"$TMP/pty" 2>&1
}

# The bar: "[====>   ]  45%  12.3 MiB  4.5 MiB/s  ETA 0:02", redrawn with \r;
# the final line says "100%" and "in M:SS".
bar_re='\[=*>? *\] +[0-9]+%  [0-9.]+ (B|KiB|MiB|GiB)  [0-9.]+ (B|KiB|MiB|GiB)/s  (ETA [0-9:-]+|in [0-9:]+)'
has_bar() {
	tr '\r' '\n' <"$1" | grep -Eq "$bar_re"
}
has_final() {
	tr '\r' '\n' <"$1" | grep -Eq '\] 100%  .*  in [0-9]+:[0-9][0-9]'
}

# mkimage
pty "$SQUASHKIT mkimage -c gzip $TMP/src $TMP/a.sqfs"
ok $? "mkimage on a terminal succeeds"
has_bar "$TMP/pty"
ok $? "mkimage draws the progress bar on a terminal"
has_final "$TMP/pty"
ok $? "and ends it with a 100% line and the time taken"
if ! has_bar "$TMP/pty"; then
	od -c "$TMP/pty" | head -10 | sed 's/^/#   /'
fi

pty "$SQUASHKIT mkimage -c gzip $TMP/src $TMP/b.sqfs 2>$TMP/b.err"
ok $? "mkimage with stderr to a file succeeds"
is "$(wc -c <"$TMP/b.err")" 0 "stderr to a file: no bar, nothing at all"
has_bar "$TMP/pty"
ok $((!$?)) "and nothing drawn on the terminal either"
same_file "$TMP/a.sqfs" "$TMP/b.sqfs" "the image does not depend on the bar"

# A tar stream: no total is known, so bytes written and the rate, no ETA.
pty "tar -C $TMP/src -cf - . | $SQUASHKIT mkimage -c gzip --archive - $TMP/t.sqfs"
ok $? "mkimage --archive - on a terminal succeeds"
tr '\r' '\n' <"$TMP/pty" | grep -Eq '^[0-9.]+ (B|KiB|MiB)  [0-9.]+ (B|KiB|MiB)/s  in [0-9]+:[0-9][0-9]'
ok $? "a tar stream: the image bytes written and the rate, and the time taken at the end"

pty "$SQUASHKIT mkimage -q -c gzip $TMP/src $TMP/c.sqfs"
ok $? "mkimage --quiet on a terminal succeeds"
is "$(wc -c <"$TMP/pty")" 0 "--quiet: no bar on a terminal"

pty "$SQUASHKIT mkimage -c gzip $TMP/nonexistent $TMP/d.sqfs"
ok $((!$?)) "a failing mkimage on a terminal fails"
tr '\r' '\n' <"$TMP/pty" | grep -v '^ *$' >"$TMP/lines"
has_final "$TMP/pty"
ok $((!$?)) "and draws no 100% line"
grep -q "^squashkit mkimage: .*nonexistent" "$TMP/lines"
ok $? "its error line stands on its own"

# unimage: the image's bytes read against its size.
pty "$SQUASHKIT unimage -d $TMP/out $TMP/a.sqfs"
ok $? "unimage on a terminal succeeds"
has_bar "$TMP/pty" && has_final "$TMP/pty"
ok $? "unimage draws the bar and its final line"
pty "$SQUASHKIT unimage -d $TMP/out2 $TMP/a.sqfs 2>$TMP/u.err"
is "$(wc -c <"$TMP/u.err")" 0 "unimage, stderr to a file: no bar"
pty "$SQUASHKIT unimage --quiet -d $TMP/out3 $TMP/a.sqfs"
is "$(wc -c <"$TMP/pty")" 0 "unimage --quiet: no bar"
pty "$SQUASHKIT unimage -o - $TMP/a.sqfs 2>&1 >$TMP/a.tar"
has_bar "$TMP/pty"
ok $? "unimage -o - with the archive on stdout still draws on stderr"
tar -tf "$TMP/a.tar" >/dev/null 2>&1
ok $? "and the archive is intact"

# fsck draws it too, and only on a terminal.
pty "$SQUASHKIT fsck $TMP/a.sqfs"
ok $? "fsck on a terminal finds the image clean"
has_bar "$TMP/pty"
ok $? "fsck draws the progress bar on a terminal"
"$SQUASHKIT" fsck "$TMP/a.sqfs" 2>"$TMP/f.err" >/dev/null
tr '\r' '\n' <"$TMP/f.err" | grep -Eq "$bar_re"
ok $((!$?)) "fsck with stderr to a file draws no bar"

# bench: one progress line per cell on stderr, none with --quiet.
"$SQUASHKIT" bench -w stat -t 1,2 -p keyed -d 20ms -r 1 "$TMP/a.sqfs" >"$TMP/bench.out" 2>"$TMP/bench.err"
ok $? "bench runs two cells"
is "$(grep -c '^bench: \[[0-9]/2\]' "$TMP/bench.err")" 2 "bench prints a progress line per cell"
"$SQUASHKIT" bench -q -w stat -t 1 -p keyed -d 20ms -r 1 "$TMP/a.sqfs" >/dev/null 2>"$TMP/bench.err"
is "$(wc -c <"$TMP/bench.err")" 0 "bench --quiet prints none"

done_testing
