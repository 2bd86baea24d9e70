#!/bin/sh
# squashkit unsquashfs: an extract or exclude file read before the option
# that says how its names match (-ef FILE -regex, -ef FILE -no-wildcards)
# is matched in the style the whole command line chose (unsquashfs 4.5.1
# dies of the first); a name that is no valid regular expression under it
# is refused with one line, nothing extracted.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

SQK=$SQUASHKIT
mkdir -p "$TMP/src/dir" "$TMP/src/other"
echo a >"$TMP/src/dir/abc"
echo b >"$TMP/src/other/xyz"
echo c >"$TMP/src/d*r"
"$SQK" mkimage "$TMP/src" "$TMP/img" >/dev/null 2>&1 || {
	echo "Bail out! mkimage failed"
	exit 1
}

# names DEST: the paths extracted under DEST, sorted, on one line.
names() { (cd "$1" && find . -mindepth 1 | sort | tr '\n' ' '); }

# As a glob this would match nothing; as a regex it matches dir, not d*r.
echo '^d[a-z]r$' >"$TMP/re"
expect_success "-ef then -regex" "$SQK" unsquashfs -ef "$TMP/re" -regex -d "$TMP/o1" "$TMP/img"
is "$(names "$TMP/o1")" "./dir ./dir/abc " "-ef then -regex: the name matched as a regex"

echo 'd*r' >"$TMP/lit"
expect_success "-ef then -no-wildcards" \
	"$SQK" unsquashfs -ef "$TMP/lit" -no-wildcards -d "$TMP/o2" "$TMP/img"
is "$(names "$TMP/o2")" "./d*r " "-ef then -no-wildcards: the name matched as itself"

echo '(' >"$TMP/bad"
"$SQK" unsquashfs -ef "$TMP/bad" -regex -d "$TMP/o3" "$TMP/img" >/dev/null 2>"$TMP/e"
is "$?" 1 "a name that is no regex under a later -regex: exit 1"
is "$(cat "$TMP/e")" "squashkit unsquashfs: invalid name '('" "said in one line"
test ! -e "$TMP/o3"
ok $? "nothing extracted"

done_testing
