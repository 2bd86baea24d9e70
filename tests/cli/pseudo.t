#!/bin/sh
# mkimage --pseudo and --pseudo-file (mksquashfs's pseudo definitions) and
# unimage --describe. Every definition type is built and read back by
# unsquashfs, whose own pseudo output (-pf) gives exact times, modes,
# owners and device numbers; every bad definition is a usage error that
# names FILE:LINE and writes nothing; a description rebuilds the image.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd unsquashfs
unset SOURCE_DATE_EPOCH

SQK=$SQUASHKIT
O=$TMP/out
mkdir -p "$O"

# defs IMG: the definitions unsquashfs -pf writes for IMG (its data left out).
defs() {
	rm -f "$TMP/u.pf"
	unsquashfs -pf "$TMP/u.pf" "$1" >/dev/null 2>&1 || echo "unsquashfs -pf failed on $1"
	sed '/^#$/,$d' "$TMP/u.pf"
}
# nothing_written: the output directory is empty (no image, no temporary file).
nothing_written() {
	[ -z "$(ls -A "$O")" ]
	ok $? "$1: nothing written"
	rm -rf "$O" && mkdir -p "$O"
}

expect_status 0 "--help" "$SQK" mkimage --help
for o in --pseudo --pseudo-file; do
	grep -q -- "$o " "$TMP/.out"
	ok $? "mkimage --help lists $o"
done
"$SQK" unimage --help >"$TMP/.out" 2>&1
grep -q -- "--describe" "$TMP/.out"
ok $? "unimage --help lists --describe"

# Every definition type, lower case (no time) and upper case (with one).
printf 'host data\n' >"$TMP/host.txt"
chmod 604 "$TMP/host.txt"
touch -d @1234567 "$TMP/host.txt"
ln -s 'some/where' "$TMP/host.sym"
touch -h -d @7654321 "$TMP/host.sym"
cat >"$TMP/all.pf" <<EOF
# every type of mksquashfs 4.5
/ D 1000 755 0 0
dir d 750 1 2
dir/blk b 660 0 6 8 1
dir/chr c 600 0 0 5 1
fifo i 644 3 4 f
sock i 600 3 4 s
sym s 0 5 6 target with spaces
file f 640 7 8 printf 'hello\\n'
link L file
host l $TMP/host.txt
hostlink L host
hostsym l $TMP/host.sym
tdir D 2000 700 9 9
tdir/tblk B 3000 600 0 0 1 2
tdir/tchr C 4000 600 0 0 4095 255
tdir/tfile F 5000 644 10 11 printf \\
  abc
tdir/tsym S 6000 0 0 0 tgt
tdir/tfifo I 7000 600 0 0 f
tdir/tsock I 7001 600 0 0 s
named d 711 root root
"with space" D 8000 755 0 0
with\\ space/q\\"uote F 8001 600 0 0 printf q
\\#hash F 8002 600 0 0 printf h
data R 9000 644 1 1 5 0
data2 R 9001 644 1 1 3 2
moved M 9002 700 12 13
#
# START OF DATA - DO NOT MODIFY
#
abcde
EOF
# m and M modify what a source gave; / d leaves the root a source gave.
mkdir -p "$TMP/src/moved"
touch -d @42 "$TMP/src/moved"
chmod 755 "$TMP/src"
touch -d @1000 "$TMP/src"
expect_success "every definition type" "$SQK" mkimage -q --pseudo-file "$TMP/all.pf" "$TMP/src" \
	"$O/all.sqfs"
defs "$O/all.sqfs" >"$TMP/all.defs"
cat >"$TMP/all.want" <<EOF
/ D 1000 755 $(id -u) $(id -g)
#hash R 8002 600 0 0 1 0
data R 9000 644 1 1 5 1
data2 R 9001 644 1 1 3 6
dir D 0 750 1 2
dir/blk B 0 660 0 6 8 1
dir/chr C 0 600 0 0 5 1
fifo I 0 644 3 4 f
file R 0 640 7 8 6 9
host R 1234567 604 $(id -u) $(id -g) 10 15
hostlink L host
hostsym S 7654321 777 $(id -u) $(id -g) some/where
link L file
moved D 9002 700 12 13
named D 0 711 0 0
sock I 0 600 3 4 s
sym S 0 777 5 6 target with spaces
tdir D 2000 700 9 9
tdir/tblk B 3000 600 0 0 1 2
tdir/tchr C 4000 600 0 0 4095 255
tdir/tfifo I 7000 600 0 0 f
tdir/tfile R 5000 644 10 11 3 25
tdir/tsock I 7001 600 0 0 s
tdir/tsym S 6000 777 0 0 tgt
with\\ space D 8000 755 0 0
with\\ space/q\\"uote R 8001 600 0 0 1 28
EOF
same_file "$TMP/all.defs" "$TMP/all.want" "unsquashfs reads back every entry as defined"
for f in file:hello tdir/tfile:abc data:abcde data2:cde host:"host data"; do
	is "$(unsquashfs -cat "$O/all.sqfs" "${f%%:*}" 2>/dev/null)" "${f#*:}" "the contents of ${f%%:*}"
done

# --pseudo: one definition an argument, in order with --pseudo-file.
expect_success "--pseudo" "$SQK" mkimage -q --pseudo 'dev d 755 0 0' \
	--pseudo 'dev/console c 600 0 0 5 1' --pseudo 'dev/null c 666 0 0 1 3' \
	--pseudo 'dev/tty L dev/console' "$O/p.sqfs"
defs "$O/p.sqfs" | grep -v '^/ ' >"$TMP/p.defs"
printf '%s\n' 'dev D 0 755 0 0' 'dev/console C 0 600 0 0 5 1' 'dev/null C 0 666 0 0 1 3' \
	'dev/tty L dev/console' >"$TMP/p.want"
same_file "$TMP/p.defs" "$TMP/p.want" "--pseudo definitions, and L to one of them"
SOURCE_DATE_EPOCH=5000 "$SQK" mkimage -q --pseudo 'a d 755 0 0' --pseudo 'b D 4000 755 0 0' \
	--pseudo 'c D 6000 755 0 0' "$O/e.sqfs"
is "$(defs "$O/e.sqfs" | grep -v '^/ ' | tr '\n' ' ')" \
	"a D 5000 755 0 0 b D 4000 755 0 0 c D 5000 755 0 0 " \
	"no time is SOURCE_DATE_EPOCH; later times are clamped to it"
printf 'x D "1 jan 1990 UTC" 755 0 0\ny D 1\\ jan\\ 1991\\ UTC 755 0 0\n' >"$TMP/date.pf"
expect_success "a date string, quoted or escaped" "$SQK" mkimage -q --pseudo-file "$TMP/date.pf" \
	"$O/d.sqfs"
is "$(defs "$O/d.sqfs" | grep -v '^/ ' | awk '{print $3}' | tr '\n' ' ')" "631152000 662688000 " \
	"date strings are read by date -d"
printf '/ d 700 0 0\nf R 0 644 0 0 3 0\n#\n# START OF DATA - DO NOT MODIFY\n#\nxyz' |
	"$SQK" mkimage -q --pseudo-file - "$O/stdin.sqfs" 2>"$TMP/.err"
is "$(unsquashfs -cat "$O/stdin.sqfs" f 2>&1)" "xyz" "--pseudo-file - reads definitions and data from stdin"

# On top of a source: d keeps the source's directory, adds to it; l of a source file links it.
mkdir -p "$TMP/s/etc"
printf 'x\n' >"$TMP/s/etc/passwd"
touch -d @77 "$TMP/s/etc"
expect_success "definitions on top of a directory source" "$SQK" mkimage -q "$TMP/s" \
	--pseudo 'etc d 700 9 9' --pseudo 'etc/new c 600 0 0 1 1' --pseudo 'etc/passwd m 600 5 5' \
	--pseudo "again l $TMP/s/etc/passwd" "$O/s.sqfs"
defs "$O/s.sqfs" | grep -v '^/ ' >"$TMP/s.defs"
printf '%s\n' 'again R '"$(stat -c %Y "$TMP/s/etc/passwd")"' 600 5 5 2 0' \
	"etc D 77 $(stat -c %a "$TMP/s/etc") $(id -u) $(id -g)" 'etc/new C 0 600 0 0 1 1' \
	'etc/passwd L again' >"$TMP/s.want"
same_file "$TMP/s.defs" "$TMP/s.want" "d keeps a source's directory, m changes, l links a source file"

# Bad definitions: a usage error that names where and why, and writes nothing.
rm -rf "$O" && mkdir -p "$O"
bad() {
	b_desc=$1 b_want=$3
	printf '# line 1\n\n%s\n' "$2" >"$TMP/bad.pf"
	expect_status 2 "$b_desc" "$SQK" mkimage -q --pseudo-file "$TMP/bad.pf" "$TMP/s" "$O/b.sqfs"
	grep -qF "squashkit mkimage: $TMP/bad.pf:3: " "$TMP/.err" && grep -qF -- "$b_want" "$TMP/.err"
	ok $? "$b_desc: the error names the line and says: $b_want"
	grep -q "^Try 'squashkit mkimage --help'" "$TMP/.err"
	ok $? "$b_desc: says how to get help"
	nothing_written "$b_desc"
}
bad "an unknown type" 'x q 644 0 0' "unknown type 'q'"
bad "no type" 'x' "missing the type"
bad "a mode that is not octal" 'x d 0758 0 0' "bad mode '0758'"
bad "a mode above 7777" 'x d 10000 0 0' "bad mode '10000'"
bad "a missing gid" 'x d 755 0' "missing the gid"
bad "an unknown user" 'x d 755 no-such-user-here 0' "bad uid 'no-such-user-here'"
bad "an unknown group" 'x d 755 0 no-such-group-here' "bad gid 'no-such-group-here'"
bad "a uid above 32 bits" 'x d 755 4294967296 0' "bad uid '4294967296'"
bad "a major above 4095" 'x c 600 0 0 4096 0' "bad major number '4096'"
bad "a minor above 1048575" 'x b 600 0 0 1 1048576' "bad minor number '1048576'"
bad "a missing minor" 'x c 600 0 0 1' "missing the minor number"
bad "text after a definition" 'x c 600 0 0 1 2 3' "unexpected text at the end: '3'"
bad "an i that is neither s nor f" 'x i 600 0 0 p' "s (socket) or f (fifo)"
bad "an f without a command" 'x f 600 0 0' "missing the command"
bad "an s without a target" 'x S 1 777 0 0' "missing the target"
bad "a time out of range" 'x D 4294967296 755 0 0' "time 4294967296 out of range"
bad "a date date -d does not take" 'x D not-a-date 755 0 0' "bad time 'not-a-date'"
bad "L to nothing" 'x L nothing' "no such pseudo definition"
bad "l to a missing host file" "x l $TMP/nonexistent" "No such file or directory"
bad "l to a host directory" "x l $TMP" "a directory cannot be linked to"
bad "a '..' in a name" 'a/../b d 755 0 0' "'.' and '..' cannot be names"
bad "the root as a file" '/ f 644 0 0 true' "the root can only be a d or D"
bad "R data without the marker" 'x R 0 644 0 0 1 0' "R data without the line"
bad "m with nothing to modify" 'nothing m 644 0 0' "nothing at /nothing to modify"
bad "a definition where a source has the path" 'etc/passwd f 644 0 0 true' \
	"/etc/passwd is already in a source"
bad "entries below an undefined directory" 'no/such/x d 755 0 0' "no directory /no"
bad "entries below a source's file" 'etc/passwd/x d 755 0 0' "/etc/passwd is not a directory"
printf 'x d 755 0 0\n\\\n  x c 600 0 0 1 1\n' >"$TMP/twice.pf"
expect_status 2 "a path defined twice" "$SQK" mkimage -q --pseudo-file "$TMP/twice.pf" "$O/b.sqfs"
grep -q "$TMP/twice.pf:2: /x is defined twice (first at $TMP/twice.pf:1)" "$TMP/.err"
ok $? "a path defined twice: both places named (a continued line by its first line)"
nothing_written "a path defined twice"
printf 'x d 755 0 0\nx/y f 644 0 0 true\nz L x\n' >"$TMP/ldir.pf"
expect_status 2 "L to a directory" "$SQK" mkimage -q --pseudo-file "$TMP/ldir.pf" "$O/b.sqfs"
grep -q "ldir.pf:3: x: cannot hard-link a directory" "$TMP/.err"
ok $? "L to a directory: the error says why"
nothing_written "L to a directory"
printf 'x R 0 644 0 0 4 0\n#\n# START OF DATA - DO NOT MODIFY\n#\nabc' >"$TMP/short.pf"
expect_status 2 "R data past the end" "$SQK" mkimage -q --pseudo-file "$TMP/short.pf" "$O/b.sqfs"
grep -q "short.pf:1: the data (4 bytes at 0) runs past the end" "$TMP/.err"
ok $? "R data past the end: the error says so"
nothing_written "R data past the end"
expect_status 2 "R in --pseudo" "$SQK" mkimage -q --pseudo 'x R 0 644 0 0 0 0' "$O/b.sqfs"
grep -q "^squashkit mkimage: --pseudo 'x R 0 644 0 0 0 0': R definitions can only be in a pseudo file" \
	"$TMP/.err"
ok $? "a bad --pseudo is named by its text"
nothing_written "R in --pseudo"
expect_status 1 "a missing pseudo file" "$SQK" mkimage -q --pseudo-file "$TMP/nonexistent" "$O/b.sqfs"
grep -q "^squashkit mkimage: $TMP/nonexistent: No such file or directory" "$TMP/.err"
ok $? "a missing pseudo file is named"
nothing_written "a missing pseudo file"
expect_status 1 "a failing f command" "$SQK" mkimage -q --pseudo 'x f 644 0 0 echo partial; exit 3' \
	"$O/b.sqfs"
grep -q "the command failed (exit status 3)" "$TMP/.err"
ok $? "a failing f command: the error gives its status"
nothing_written "a failing f command"

# --describe: a pseudo file that rebuilds the same tree, with no other source.
mkdir -p "$TMP/d/sub" "$TMP/d/white space"
head -c 300000 /dev/urandom >"$TMP/d/rnd"
truncate -s 1M "$TMP/d/sparse"
printf 'tail' >>"$TMP/d/sparse"
printf '' >"$TMP/d/empty"
printf 'one\n' >"$TMP/d/sub/one"
ln "$TMP/d/sub/one" "$TMP/d/hard"
ln -s 'sub/one' "$TMP/d/white space/sym"
printf 'q' >"$TMP/d/white space/a\"b\\c"
printf 'h' >"$TMP/d/#src"
mkdir "$TMP/d/moved"
chmod 755 "$TMP/d"
touch -d @1000 "$TMP/d"
"$SQK" mkimage -q "$TMP/d" --pseudo-file "$TMP/all.pf" "$O/orig.sqfs"
expect_success "--describe=FILE" "$SQK" unimage -q --describe="$TMP/desc.pf" "$O/orig.sqfs"
expect_success "the description builds an image" "$SQK" mkimage -q --pseudo-file "$TMP/desc.pf" \
	"$O/back.sqfs"
defs "$O/orig.sqfs" >"$TMP/orig.defs"
defs "$O/back.sqfs" >"$TMP/back.defs"
same_file "$TMP/back.defs" "$TMP/orig.defs" "the rebuilt image has the same tree"
grep -q '^hard L sub/one$\|^sub/one L hard$' "$TMP/back.defs" && grep -q '^sparse R ' "$TMP/back.defs"
ok $? "with its hard links and files"
# unsquashfs's pseudo output holds every file's data too.
unsquashfs -pf "$TMP/orig.full" "$O/orig.sqfs" >/dev/null 2>&1
unsquashfs -pf "$TMP/back.full" "$O/back.sqfs" >/dev/null 2>&1
cmp -s "$TMP/orig.full" "$TMP/back.full"
ok $? "and the same contents"
"$SQK" unimage -q --describe "$O/orig.sqfs" | "$SQK" mkimage -q --pseudo-file - "$O/pipe.sqfs"
cmp -s "$O/pipe.sqfs" "$O/back.sqfs"
ok $? "--describe to stdout through a pipe gives the same image"
"$SQK" unimage -q --describe=- "$O/orig.sqfs" tdir | sed '/^#$/,$d' >"$TMP/sel.pf"
printf '%s\n' "/ D 1000 755 $(id -u) $(id -g)" 'tdir D 2000 700 9 9' 'tdir/tblk B 3000 600 0 0 1 2' \
	'tdir/tchr C 4000 600 0 0 4095 255' 'tdir/tfifo I 7000 600 0 0 f' \
	'tdir/tfile R 5000 644 10 11 3 0' 'tdir/tsock I 7001 600 0 0 s' \
	'tdir/tsym S 6000 777 0 0 tgt' >"$TMP/sel.want"
same_file "$TMP/sel.pf" "$TMP/sel.want" "--describe of a PATH: it and its parents"
grep -q '^white\\ space/a\\"b\\\\c R ' "$TMP/desc.pf" && grep -q '^\\#src R ' "$TMP/desc.pf"
ok $? "names are escaped as the syntax wants"
expect_status 1 "--describe to an existing file" "$SQK" unimage -q --describe="$TMP/desc.pf" \
	"$O/orig.sqfs"
expect_success "--describe --force replaces it" "$SQK" unimage -q -f --describe="$TMP/desc.pf" \
	"$O/orig.sqfs"
expect_status 2 "--describe with --tar" "$SQK" unimage --describe="$TMP/x.pf" -o "$TMP/x.tar" \
	"$O/orig.sqfs"
expect_status 2 "--describe with --dest" "$SQK" unimage --describe="$TMP/x.pf" -d "$TMP/xd" \
	"$O/orig.sqfs"
[ ! -e "$TMP/x.pf" ] && [ ! -e "$TMP/x.tar" ] && [ ! -e "$TMP/xd" ]
ok $? "those usage errors write nothing"
mkdir -p "$TMP/nl"
printf 'x' >"$TMP/nl/new
line"
"$SQK" mkimage -q "$TMP/nl" "$O/nl.sqfs"
expect_status 1 "a name with a newline cannot be described" "$SQK" unimage -q \
	--describe="$TMP/nl.pf" "$O/nl.sqfs"
grep -q "a name with a newline cannot be written in a pseudo file" "$TMP/.err"
ok $? "the error says why"
[ -z "$(ls "$TMP" | grep '^nl\.pf')" ]
ok $? "and leaves no file behind"
mkdir -p "$TMP/xa"
printf 'x' >"$TMP/xa/f"
if setfattr -n user.sqk -v 1 "$TMP/xa/f" 2>/dev/null; then
	"$SQK" mkimage -q "$TMP/xa" "$O/xa.sqfs"
	expect_status 1 "extended attributes cannot be described" "$SQK" unimage -q \
		--describe="$TMP/xa.pf" "$O/xa.sqfs"
	grep -q "extended attributes of 1 entries" "$TMP/.err"
	ok $? "the error says so"
	expect_success "--no-xattrs describes without them" "$SQK" unimage -q --no-xattrs \
		--describe="$TMP/xa.pf" "$O/xa.sqfs"
else
	skip "no user xattrs here"
	skip "no user xattrs here"
	skip "no user xattrs here"
fi

done_testing
