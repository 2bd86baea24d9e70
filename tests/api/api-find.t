#!/bin/sh
# api-find.t: sqk_image_find_path, _fd and _io (tests/api/api-find.c,
# against the installed library) on files made here with images at known
# offsets: each image is found where it was put and opens there, a limit
# leaves out those that start at or after it, a file with none finds none,
# and a missing file is an error with its errno (and the words strerror(3)
# gives ENOENT in the C locale).
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-find.c"

mkdir -p "$TMP/src"
printf 'one\n' >"$TMP/src/a"
mksquashfs "$TMP/src" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree"
size=$(stat -c %s "$TMP/img")

api_run api-find "$TMP/img" >"$TMP/out" 2>"$TMP/err"
ok $? "an image alone: the searches agree"
sed 's/^/#   /' "$TMP/err"
is "$(cat "$TMP/out")" "found 1 at 0" "it starts at byte 0"

# 777 bytes of noise, the image, 5000 bytes of noise, the image again, 3 bytes.
{
	head -c 777 /dev/urandom
	cat "$TMP/img"
	head -c 5000 /dev/urandom
	cat "$TMP/img"
	head -c 3 /dev/urandom
} >"$TMP/blob"
second=$((777 + size + 5000))
api_run api-find "$TMP/blob" >"$TMP/out" 2>"$TMP/err"
ok $? "two images in a blob: the searches agree, each opens where it was found"
sed 's/^/#   /' "$TMP/err"
is "$(cat "$TMP/out")" "found 2 at 777 $second" "both, where they were put"

api_run api-find "$TMP/blob" "$second" >"$TMP/out" 2>"$TMP/err"
ok $? "a search that stops at the second image"
is "$(cat "$TMP/out")" "found 1 at 777" "finds the first alone"

head -c 100000 /dev/zero >"$TMP/zeros"
api_run api-find "$TMP/zeros" >"$TMP/out" 2>"$TMP/err"
ok $? "a file without an image"
is "$(cat "$TMP/out")" "found 0 at" "finds none"

api_run api-find "$TMP/missing" >"$TMP/out" 2>"$TMP/err"
is "$(cat "$TMP/out")" "error SQK_ERR_NOFILE errno ENOENT message $TMP/missing: No such file or directory" \
	"a missing file: an error, with its path and errno"

done_testing
