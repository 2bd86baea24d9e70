#!/bin/sh
# Hard links in unimage's archives, read back by the archivers people use:
# GNU tar for pax, gnu and ustar (a link names the first path), GNU cpio
# for cpio (names of one file share an inode number and a link count; the
# first carries a regular file's data, the others none), unzip for zip
# (no links: each name carries the data). Every group of names must come
# back as one file with its data, target or device number, also when a
# selection leaves the image's first name of a group out.
SCRATCH=shm
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd tar cpio

mkdir -p "$TMP/src/one" "$TMP/src/two"
printf 'shared data\n' >"$TMP/src/one/a"
ln "$TMP/src/one/a" "$TMP/src/two/b"
ln "$TMP/src/one/a" "$TMP/src/two/c"
head -c 200000 /dev/urandom >"$TMP/src/big"
ln "$TMP/src/big" "$TMP/src/two/big2"
ln -s target "$TMP/src/sl"
ln -P "$TMP/src/sl" "$TMP/src/two/sl2"
mkfifo "$TMP/src/ff"
ln "$TMP/src/ff" "$TMP/src/two/ff2"
if mknod "$TMP/src/dev" c 1 3 2>/dev/null; then
	ln "$TMP/src/dev" "$TMP/src/two/dev2"
	have_dev=1
else
	have_dev=0
fi
printf 'alone\n' >"$TMP/src/alone"
expect_success "an image with hard links of every kind" \
	$SQUASHKIT mkimage -q "$TMP/src" "$TMP/img"

# same_inode A B: A and B are names of one file.
same_inode() {
	[ "$(stat -c %i "$1")" = "$(stat -c %i "$2")" ]
}

# check_tree DIR WHAT: the groups in DIR are whole; WHAT names the reader.
check_tree() {
	d=$1
	same_inode "$d/one/a" "$d/two/b" && same_inode "$d/one/a" "$d/two/c"
	ok $? "$2: one/a, two/b and two/c are one file"
	is "$(cat "$d/two/c")" "shared data" "$2: and it holds the data"
	same_inode "$d/big" "$d/two/big2" && cmp -s "$d/two/big2" "$TMP/src/big"
	ok $? "$2: a multi-block file and its link"
	is "$(readlink "$d/two/sl2")" target "$2: the second name of a symlink keeps the target"
	test -p "$d/two/ff2"
	ok $? "$2: the second name of a fifo is a fifo"
	if [ $have_dev = 1 ]; then
		is "$(stat -c '%t,%T' "$d/two/dev2")" "1,3" "$2: the second name of a device keeps its number"
	else
		skip "mknod is not allowed here"
	fi
	is "$(cat "$d/alone")" alone "$2: a file of one name"
}

for f in pax gnu ustar; do
	expect_success "--format $f" $SQUASHKIT unimage -q --format $f -o "$TMP/t.$f" "$TMP/img"
	mkdir "$TMP/x.$f"
	tar -C "$TMP/x.$f" -xf "$TMP/t.$f"
	ok $? "GNU tar extracts the $f archive"
	check_tree "$TMP/x.$f" "GNU tar, $f"
done

expect_success "--format cpio" $SQUASHKIT unimage -q --format cpio -o "$TMP/t.cpio" "$TMP/img"
mkdir "$TMP/x.cpio"
(cd "$TMP/x.cpio" && cpio -id --quiet <"$TMP/t.cpio") 2>"$TMP/cpio.err"
ok $? "GNU cpio extracts the cpio archive"
is "$(cat "$TMP/cpio.err")" "" "without a complaint"
check_tree "$TMP/x.cpio" "GNU cpio"
# The link counts stated are the image's: 3 for one/a, 1 for a lone file.
cpio -tv --quiet <"$TMP/t.cpio" >"$TMP/cpio.list"
is "$(awk '$NF == "./one/a" { print $2 }' "$TMP/cpio.list")" 3 "the listing gives one/a 3 links"
is "$(awk '$NF == "./alone" { print $2 }' "$TMP/cpio.list")" 1 "and alone 1"

# mkimage reads the cpio archive back as the same tree, links and all.
expect_success "mkimage --archive takes the cpio archive" \
	$SQUASHKIT mkimage -q --archive "$TMP/t.cpio" "$TMP/back.img"
expect_success "and diff finds it the same tree as the image" \
	$SQUASHKIT diff "$TMP/img" "$TMP/back.img"

# A selection without one/a: two/b is the first name in the archive, and
# carries the data.
expect_success "--format cpio of /two alone" \
	$SQUASHKIT unimage -q --format cpio -o "$TMP/sel.cpio" "$TMP/img" /two
mkdir "$TMP/x.sel"
(cd "$TMP/x.sel" && cpio -id --quiet <"$TMP/sel.cpio") 2>"$TMP/sel.err"
ok $? "GNU cpio extracts it"
test ! -e "$TMP/x.sel/one" && same_inode "$TMP/x.sel/two/b" "$TMP/x.sel/two/c"
ok $? "two/b and two/c are one file, one/ is not there"
is "$(cat "$TMP/x.sel/two/c")" "shared data" "and it holds the data"
cmp -s "$TMP/x.sel/two/big2" "$TMP/src/big"
ok $? "a link whose first name was left out carries the data"

if command -v unzip >/dev/null 2>&1; then
	# zip has no device type: the links of a regular file alone.
	expect_success "--format zip" \
		$SQUASHKIT unimage -q --format zip -o "$TMP/t.zip" "$TMP/img" /one /two/b /two/c
	mkdir "$TMP/x.zip"
	(cd "$TMP/x.zip" && unzip -qq "$TMP/t.zip")
	is "$(cat "$TMP/x.zip/one/a" "$TMP/x.zip/two/b" "$TMP/x.zip/two/c" | tr '\n' ' ')" \
		"shared data shared data shared data " "unzip gives every name the data"
else
	skip "unzip is not installed"
fi
done_testing
