#!/bin/sh
# squashkit cat: file contents equal the source files, for every layout
# mksquashfs writes (blocks, fragments, tails, sparse and zero blocks,
# duplicates, uncompressed data); symlinks are followed inside the image; a
# lookup in a 3000-entry directory goes through its index; errors follow
# cat(1): report, go on, exit 1.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs head cmp truncate seq xargs awk

src=$TMP/src
mkdir -p "$src/dir/sub" "$src/big"
printf 'hello\n' >"$src/small"
: >"$src/empty"
# Sizes around the 4K block size of the second image, and a large random file.
head -c 4096 /dev/urandom >"$src/one-block"
head -c 10000 /dev/urandom >"$src/blocks-and-tail"
head -c 1500000 /dev/urandom >"$src/large"
cp "$src/large" "$src/large-copy"
seq 1 200000 >"$src/text"
# Holes and zero blocks: mksquashfs stores whole zero blocks as sparse.
truncate -s 1048576 "$src/all-hole"
head -c 5000 /dev/urandom >"$src/holes"
truncate -s 200000 "$src/holes"
printf 'end' >>"$src/holes"
head -c 300000 /dev/zero >"$src/zeros"
printf 'nested\n' >"$src/dir/sub/file"
ln -s small "$src/link"
ln -s link "$src/link2"
ln -s /dir/sub/file "$src/abs"
ln -s ../small "$src/dir/up"
ln -s dir/sub "$src/subdir"
ln -s loop-b "$src/loop-a"
ln -s loop-a "$src/loop-b"
ln -s missing "$src/dangling"
mkfifo "$src/fifo"

# 3000 entries with long names: the listing spans many metadata blocks.
pad=_with_a_long_name_so_that_the_listing_spans_many_metadata_blocks
(cd "$src/big" && seq 0 2999 | sed "s/\$/$pad/; s/^/name_/" | xargs touch)
printf 'last one\n' >"$src/big/name_2999$pad"
printf 'first one\n' >"$src/big/name_0$pad"

files="small empty one-block blocks-and-tail large large-copy text all-hole holes zeros dir/sub/file"

i=0
for opts in "-comp gzip" "-comp gzip -b 4096" "-comp xz -no-fragments" \
	"-comp zstd -always-use-fragments -b 4096" "-comp lz4 -noD -noF" "-comp gzip -no-duplicates"; do
	i=$((i + 1))
	img=$TMP/img$i.sq
	# shellcheck disable=SC2086
	if ! mksquashfs "$src" "$img" -quiet -no-progress -noappend $opts >/dev/null 2>"$TMP/mk.err"; then
		echo "Bail out! mksquashfs $opts failed: $(head -1 "$TMP/mk.err")"
		exit 1
	fi
	for f in $files; do
		"$SQUASHKIT" cat "$img" "$f" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ $rc -eq 0 ] && cmp -s "$TMP/out" "$src/$f"; then ok 0 "$opts: cat $f"; else
			ok 1 "$opts: cat $f"
			echo "#   exit $rc: $(head -1 "$TMP/err")"
		fi
	done
done
img=$TMP/img1.sq

# Several paths: written in order, as one stream.
# shellcheck disable=SC2086
"$SQUASHKIT" cat "$img" small text holes small >"$TMP/out"
is "$?" 0 "several paths: exit 0"
cat "$src/small" "$src/text" "$src/holes" "$src/small" >"$TMP/want"
same_file "$TMP/out" "$TMP/want" "several paths: concatenated in order"

# Symlinks are followed inside the image: relative, chained, absolute, through
# a directory link, and from a subdirectory.
for p in link link2 abs subdir/file dir/up /link; do
	"$SQUASHKIT" cat "$img" "$p" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	# An absolute target is inside the image: on the host it names another file.
	case $p in abs) cat "$src/dir/sub/file" ;; *) cat "$src/$p" ;; esac >"$TMP/want"
	if [ $rc -eq 0 ] && cmp -s "$TMP/out" "$TMP/want"; then ok 0 "symlink $p is followed"; else
		ok 1 "symlink $p is followed"
		echo "#   exit $rc: $(head -1 "$TMP/err")"
	fi
done
"$SQUASHKIT" cat "$img" dir/sub/../../small >"$TMP/out" 2>/dev/null
same_file "$TMP/out" "$src/small" "'..' in a path"

# Errors: each reported on one line naming the path, the others still written.
expect_status 1 "a symlink loop fails" "$SQUASHKIT" cat "$img" loop-a
is "$(wc -l <"$TMP/.err")" 1 "a symlink loop: one line"
expect_status 1 "a dangling symlink fails" "$SQUASHKIT" cat "$img" dangling
expect_status 1 "a directory fails" "$SQUASHKIT" cat "$img" dir
is "$(cat "$TMP/.err")" "squashkit cat: $img: /dir: is a directory" "a directory: the message"
expect_status 1 "a fifo fails" "$SQUASHKIT" cat "$img" fifo
expect_status 1 "a missing path fails" "$SQUASHKIT" cat "$img" nope
is "$(wc -l <"$TMP/.err")" 1 "a missing path: one line"
expect_status 1 "a path under a file fails" "$SQUASHKIT" cat "$img" small/x

"$SQUASHKIT" cat "$img" nope small dir small >"$TMP/out" 2>"$TMP/err"
is "$?" 1 "errors among good paths: exit 1"
cat "$src/small" "$src/small" >"$TMP/want"
same_file "$TMP/out" "$TMP/want" "errors among good paths: the good ones are written"
is "$(wc -l <"$TMP/err")" 2 "errors among good paths: one line each"

# The big directory: found through its index, reading few metadata blocks. A
# scan would read the whole listing: at least (8 + name length) bytes an
# entry, in 8 KiB blocks.
"$SQUASHKIT" cat --stats "$img" "big/name_2999$pad" >"$TMP/out" 2>"$TMP/stats"
is "$(cat "$TMP/out")" "last one" "3000 entries: the last name is found"
"$SQUASHKIT" cat "$img" "big/name_0$pad" "big/name_2999$pad" >"$TMP/out"
printf 'first one\nlast one\n' >"$TMP/want"
same_file "$TMP/out" "$TMP/want" "3000 entries: the first and the last"
fills=$(awk '/^metadata cache:/ { m = 1; next } /cache:$/ { m = 0 } m && $1 == "fills" { print $2 }' "$TMP/stats")
listing_blocks=$(ls -A "$src/big" | awk '{ n += 8 + length($0) } END { print int(n / 8192) }')
if [ -n "$fills" ] && [ "$fills" -lt $((listing_blocks / 2)) ]; then
	ok 0 "3000 entries: the lookup reads few metadata blocks ($fills, listing >= $listing_blocks)"
else
	ok 1 "3000 entries: the lookup reads few metadata blocks"
	echo "#   fills: '$fills', listing blocks: $listing_blocks"
fi
expect_status 1 "3000 entries: a name that sorts between two is missing" \
	"$SQUASHKIT" cat "$img" "big/name_1500"

# A closed pipe is an error, never a signal.
("$SQUASHKIT" cat "$img" large large large 2>/dev/null; echo $? >"$TMP/rc") | head -c 10 >/dev/null
rc=$(cat "$TMP/rc")
if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then ok 0 "a closed pipe: exit $rc, no signal"; else
	ok 1 "a closed pipe: no signal"
	echo "#   exit $rc"
fi

# Usage and image errors.
expect_status 2 "no operands: usage error" "$SQUASHKIT" cat
expect_status 2 "no PATH: usage error" "$SQUASHKIT" cat "$img"
expect_status 2 "unknown option: usage error" "$SQUASHKIT" cat --bogus "$img" small
is "$(tail -1 "$TMP/.err")" "Try 'squashkit cat --help'." "usage error: the hint"
expect_status 0 "options after operands" "$SQUASHKIT" cat "$img" small --stats
expect_status 0 "--help" "$SQUASHKIT" cat --help
case "$(head -1 "$TMP/.out")" in Usage:*) ok 0 "--help prints usage on stdout" ;; *) ok 1 "--help prints usage on stdout" ;; esac
printf 'not an image at all, just text that is long enough\n' >"$TMP/notimg"
expect_status 1 "not an image" "$SQUASHKIT" cat "$TMP/notimg" small
is "$(wc -l <"$TMP/.err")" 1 "not an image: one line"
expect_status 1 "a missing image" "$SQUASHKIT" cat "$TMP/none.sq" small
head -c 200000 "$img" >"$TMP/trunc.sq"
expect_status 1 "a truncated image" "$SQUASHKIT" cat "$TMP/trunc.sq" small

done_testing
