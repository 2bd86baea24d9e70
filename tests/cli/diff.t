#!/bin/sh
# squashkit diff's command line: the options and what each leaves out or
# adds, PATH operands, --exclude, --offset, --json, --stat, --quiet, the
# order of the lines when contents are compared on several threads, the
# comparison by stored bytes, images of other block sizes, codecs and
# layouts, two directories, and the usage errors (exit 2, "Try" line).
# tests/interop/diff-*.t hold the comparisons against sqfsdiff, against the
# source tree and on damaged images.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

# lines FILE: its lines joined with "|".
lines() {
	tr '\n' '|' <"$1" | sed 's/|$//'
}

# diff_is WANT_STATUS WANT_LINES DESC ARGS...: status and output of diff ARGS.
diff_is() {
	want_st=$1 want=$2 desc=$3
	shift 3
	sqk diff "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	got=$(lines "$TMP/out")
	if [ "$st" = "$want_st" ] && [ "$got" = "$want" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "#   exit $st, want $want_st"
		echo "#   got:  $got"
		echo "#   want: $want"
		sed 's/^/#   stderr: /' "$TMP/err"
	fi
}

a=$TMP/a
mkdir -p "$a/etc/ssh" "$a/usr/bin" "$a/var"
printf 'root:x:0:0\n' >"$a/etc/passwd"
printf 'key\n' >"$a/etc/ssh/config"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%08d\n", i }' >"$a/usr/bin/tool"
printf 'log\n' >"$a/var/log.txt"
printf 'o\n' >"$a/var/tmp.o"
cp -a "$a" "$TMP/b"
b=$TMP/b
printf 'kex\n' >"$b/etc/ssh/config"
chmod 600 "$b/etc/passwd"
printf 'p\n' >"$b/var/more.o"
printf 'X' | dd of="$b/usr/bin/tool" bs=1 seek=150000 conv=notrunc 2>/dev/null
sqk mkimage -q -b 4K "$a" "$TMP/a.img" && sqk mkimage -q -b 4K "$b" "$TMP/b.img"
ok $? "the two images are built"
ALL='M /etc/passwd: mode 0644 -> 0600|C /etc/ssh/config: contents differ from byte 2|C /usr/bin/tool: contents differ from byte 150000|+ /var/more.o'

# --- what is compared, and the options that leave things out ---
diff_is 1 "$ALL" "two images: every difference, in the order of the tree" "$TMP/a.img" "$TMP/b.img"
diff_is 1 "$ALL" "two directories: the same lines" "$a" "$b"
diff_is 1 "$ALL" "an image and a directory: the same lines" "$TMP/a.img" "$b"
diff_is 1 "$ALL" "a directory and an image: the same lines" "$a" "$TMP/b.img"
diff_is 1 "$ALL" "one thread: the same lines" -j 1 "$TMP/a.img" "$TMP/b.img"
diff_is 0 "" "an image against itself" "$TMP/a.img" "$TMP/a.img"
diff_is 1 'M /etc/passwd: mode 0644 -> 0600|+ /var/more.o' "-C: contents are not compared" \
	-C "$TMP/a.img" "$TMP/b.img"
diff_is 1 'C /etc/ssh/config: contents differ from byte 2|C /usr/bin/tool: contents differ from byte 150000|+ /var/more.o' \
	"-P: permission bits are not compared" -P "$TMP/a.img" "$TMP/b.img"
diff_is 1 "+ /var/more.o" "PATH operands: only those subtrees" "$TMP/a.img" "$TMP/b.img" /var var/log.txt
diff_is 1 "C /etc/ssh/config: contents differ from byte 2" "a PATH with slashes to spare" \
	"$TMP/a.img" "$TMP/b.img" //etc//ssh/
diff_is 1 "$ALL" "the PATH / is everything" "$TMP/a.img" "$TMP/b.img" /
diff_is 2 "" "a PATH in neither tree is trouble" "$TMP/a.img" "$TMP/b.img" /nothing/here
is "$(cat "$TMP/err")" "squashkit diff: /nothing/here: no such path in A or B" "... said in one line"
diff_is 1 "+ /var/more.o" "a PATH on one side only" "$TMP/a.img" "$TMP/b.img" var/more.o
diff_is 1 'M /etc/passwd: mode 0644 -> 0600|C /usr/bin/tool: contents differ from byte 150000' \
	"--exclude: a base name, and a subtree by its path from the root" \
	-e '*.o' --exclude /etc/ssh "$TMP/a.img" "$TMP/b.img"

# Owners and xattrs: a listing sets them without root.
printf 'file /f 0644 1 2\nfile /g 0644 0 0\n' >"$TMP/l1"
printf 'file /f 0644 1 3\nfile /g 0644 0 0\n' >"$TMP/l2"
sqk mkimage -q --listing "$TMP/l1" "$TMP/o1.img" && sqk mkimage -q --listing "$TMP/l2" \
	--xattrs-add user.x=1 "$TMP/o2.img"
ok $? "images with other owners and an xattr are built"
diff_is 1 'O /f: owner 1:2 -> 1:3|X /f: xattr user.x none -> "1"|X /g: xattr user.x none -> "1"' \
	"owner and xattrs" "$TMP/o1.img" "$TMP/o2.img" f g
diff_is 1 'X /f: xattr user.x none -> "1"|X /g: xattr user.x none -> "1"' "-O: owners are not compared" \
	-O "$TMP/o1.img" "$TMP/o2.img" f g
diff_is 1 'O /f: owner 1:2 -> 1:3' "--no-xattrs: xattrs are not compared" \
	--no-xattrs "$TMP/o1.img" "$TMP/o2.img" f
diff_is 0 "" "-O --no-xattrs: nothing left" -O --no-xattrs "$TMP/o1.img" "$TMP/o2.img"

# --- output forms ---
sqk diff --json "$TMP/a.img" "$TMP/b.img" >"$TMP/out.json"
is "$?" 1 "--json: exit 1"
is "$("$JSONQ" "$TMP/out.json" /same /differences/# /differences/0/change /differences/0/a \
	/differences/0/b /differences/2/offset /differences/3/change /differences/3/size \
	/summary/added /summary/changed /summary/bytes_added | tr '\n' ' ')" \
	"false 4 mode 420 384 150000 added 2 1 3 2 " "--json: the differences and the summary"
sqk diff --json "$TMP/a.img" "$TMP/a.img" >"$TMP/same.json"
is "$("$JSONQ" "$TMP/same.json" /same /differences/# | tr '\n' ' ')" "true 0 " \
	"--json: the same, no differences"
sqk diff --stat "$TMP/a.img" "$TMP/b.img" >"$TMP/stat"
is "$?:$(sed -n 1,3p "$TMP/stat" | tr '\n' '|')" \
	"1:added: 1 (2 bytes)|removed: 0 (0 bytes)|changed: 3 ($(($(wc -c <"$b/usr/bin/tool") + 4)) bytes)|" \
	"--stat: entries and bytes added, removed, changed"
sqk diff --stat --json "$TMP/a.img" "$TMP/b.img" >"$TMP/stat.json"
is "$("$JSONQ" "$TMP/stat.json" /differences /summary/added 2>/dev/null | tr '\n' ' ')" \
	"<missing> 1 " "--stat --json: the summary without the differences"
diff_is 1 "" "-q: nothing printed, exit 1" -q "$TMP/a.img" "$TMP/b.img"
is "$(cat "$TMP/err")" "" "-q: nothing on stderr either"
diff_is 0 "" "-q: exit 0 when the same" -q "$TMP/a.img" "$TMP/a.img"

# --- the comparison by stored bytes ---
# One byte changed in a file of many blocks: the blocks before it compare
# stored, its block is decompressed, and nothing after it is read.
sqk diff --json --stat "$TMP/a.img" "$TMP/b.img" usr >"$TMP/one.json"
is "$("$JSONQ" "$TMP/one.json" /summary/bytes_read /summary/blocks_stored_alike | tr '\n' ' ')" \
	"4096 $((150000 / 4096)) " \
	"a block changed: the blocks before it compare stored, it alone is decompressed"
sqk diff --json --stat "$TMP/a.img" "$TMP/a.img" >"$TMP/none.json"
is "$("$JSONQ" "$TMP/none.json" /summary/bytes_read /summary/files_compared | tr '\n' ' ')" \
	"0 5 " "an image against itself: five files compared, nothing decompressed"
# Another block size, codec or layout: the bytes are compared as they read.
sqk mkimage -q -b 64K -c gzip "$b" "$TMP/b64.img"
sqk mkimage -q -b 4K --no-fragments "$b" "$TMP/bnofrag.img"
diff_is 1 "$ALL" "another block size and codec: the same lines" "$TMP/a.img" "$TMP/b64.img"
diff_is 1 "$ALL" "tails in blocks against tails in fragments: the same lines" \
	"$TMP/a.img" "$TMP/bnofrag.img"
diff_is 0 "" "the same tree in two layouts: the same" "$TMP/b64.img" "$TMP/bnofrag.img"
used() {
	sqk inspect --json "$1" | "$JSONQ" - /bytes_used
}
diff_is 1 "I superblock: compression zstd -> gzip|I superblock: block_size 4096 -> 65536|I superblock: bytes_used $(used "$TMP/b.img") -> $(used "$TMP/b64.img")" \
	"--super: the superblock facts that differ, first" -S -C "$TMP/b.img" "$TMP/b64.img" /etc/passwd

# --- the order of the lines while contents are compared on threads ---
# A large file first, changed at its end, then many entries changed otherwise:
# the lines after it wait for its outcome.
o=$TMP/order
mkdir -p "$o/a" "$o/b"
head -c 3000000 /dev/zero | tr '\0' 'z' >"$o/a/0big"
i=0
while [ $i -lt 300 ]; do
	n=$(printf '%03d' $i)
	printf 'file %s\n' "$n" >"$o/a/f$n"
	i=$((i + 1))
done
cp -a "$o/a/." "$o/b/"
printf 'Y' | dd of="$o/b/0big" bs=1 seek=2999999 conv=notrunc 2>/dev/null
: >"$o/want"
echo "C /0big: contents differ from byte 2999999" >>"$o/want"
i=0
while [ $i -lt 300 ]; do
	n=$(printf '%03d' $i)
	case $((i % 3)) in
	0) printf 'FILE %s\n' "$n" >"$o/b/f$n" && echo "C /f$n: contents differ from byte 0" >>"$o/want" ;;
	1) chmod 640 "$o/b/f$n" && echo "M /f$n: mode 0644 -> 0640" >>"$o/want" ;;
	esac
	i=$((i + 1))
done
sqk mkimage -q -b 4K "$o/a" "$o/a.img" && sqk mkimage -q -b 4K "$o/b" "$o/b.img"
sqk diff -j 4 "$o/a.img" "$o/b.img" >"$o/got" 2>&1
same_file "$o/got" "$o/want" "-j 4: 301 lines in the order of the tree"
sqk diff -j 3 "$o/a.img" "$o/b" >"$o/got" 2>&1
same_file "$o/got" "$o/want" "-j 3, against the directory: the same lines"

# --- --offset ---
head -c 777 /dev/zero | tr '\0' 'x' >"$TMP/lead"
cat "$TMP/lead" "$TMP/a.img" >"$TMP/wrapped"
diff_is 0 "" "--offset auto: an image inside a larger file" -q --offset auto "$TMP/wrapped" "$TMP/a.img"
diff_is 0 "" "--offset-a N: A's own offset" --offset-a 777 "$TMP/wrapped" "$a"
diff_is 2 "" "--offset N on both: B has no image there" --offset 777 "$TMP/wrapped" "$TMP/a.img"
diff_is 0 "" "--offset-b 0 wins over --offset for B" --offset 777 --offset-b 0 "$TMP/wrapped" "$TMP/a.img"

# --- usage errors and trouble: exit 2 ---
usage() {
	desc=$1
	shift
	sqk diff "$@" >/dev/null 2>"$TMP/err"
	st=$?
	if [ $st -eq 2 ] && grep -q "^Try 'squashkit diff --help'.$" "$TMP/err" &&
		[ "$(wc -l <"$TMP/err")" -eq 2 ]; then
		ok 0 "$desc: exit 2, two lines"
	else
		ok 1 "$desc: exit 2, two lines"
		echo "#   exit $st"
		sed 's/^/#   /' "$TMP/err"
	fi
}
usage "no operands"
usage "one operand" "$TMP/a.img"
usage "an unknown option" --nope "$TMP/a.img" "$TMP/b.img"
usage "-j 0" -j 0 "$TMP/a.img" "$TMP/b.img"
usage "a bad offset" --offset 12Q "$TMP/a.img" "$TMP/b.img"
usage "--offset-a on a directory" --offset-a 0 "$a" "$TMP/b.img"
usage "--super with a directory" --super "$TMP/a.img" "$b"
usage "-q with --json (it would print nothing)" -q --json "$TMP/a.img" "$TMP/b.img"
usage "-q with --stat (it would print nothing)" -q --stat "$TMP/a.img" "$TMP/b.img"
usage "--stat --json -q" --stat --json -q "$TMP/a.img" "$TMP/b.img"
diff_is 2 "" "an operand that is not there" "$TMP/a.img" "$TMP/nothing"
is "$(cat "$TMP/err")" "squashkit diff: $TMP/nothing: No such file or directory" "... one line naming it"
printf 'not an image at all' >"$TMP/junk"
diff_is 2 "" "an operand that is no image" "$TMP/junk" "$TMP/a.img"
is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "... one line"
expect_success "--help" sqk diff --help
grep -q '^Usage: squashkit diff' "$TMP/.out"
ok $? "--help prints the usage"

done_testing
