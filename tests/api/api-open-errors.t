#!/bin/sh
# api-open-errors.t: what the library tells of where an image lies and why
# it cannot be read (tests/api/api-open-errors.c, against the installed
# library). The image sqk_check_path() lends from a file with the image at
# an offset says that offset, as an open does; an open that fails on a
# corrupt superblock names the field and the rule, as the check's problem
# does; a file that is not there is SQK_ERR_NOFILE with errno's words, for
# the image opened, checked and the sources of a build.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-open-errors.c"

mkdir -p "$TMP/src/d"
printf 'x\n' >"$TMP/src/d/f"
mksquashfs "$TMP/src" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree"
# 12345 bytes of something else in front: the image at an offset.
head -c 12345 /dev/urandom >"$TMP/at"
cat "$TMP/img" >>"$TMP/at"
# The superblock's block_size (bytes 12..15) made 12345: no power of two.
cp "$TMP/img" "$TMP/corrupt"
printf '\071\060\000\000' | dd of="$TMP/corrupt" bs=1 seek=12 conv=notrunc status=none

api_run api-open-errors "$TMP/at" 12345 "$TMP/corrupt" "$TMP/missing" >"$TMP/out" 2>"$TMP/err"
ok $? "api-open-errors runs"
sed 's/^/#   /' "$TMP/err"

is "$(sed -n 's/^open offset //p' "$TMP/out")" 12345 "an image opened at an offset says it"
is "$(sed -n 's/^report offset //p' "$TMP/out")" 12345 "so does the image the check's report lends"

problem=$(sed -n 's/^problem superblock //p' "$TMP/out" | head -1)
test -n "$problem"
ok $? "the check names the superblock's broken rule ($problem)"
opened=$(sed -n 's/^open-corrupt //p' "$TMP/out")
case $opened in
"-3 $TMP/corrupt: corrupt image: $problem") ok 0 "the failed open says the same: $opened" ;;
*) ok 1 "the failed open says the same: $opened" ;;
esac

# A build's messages start with the image's path ("/dev/null: ").
for call in sqk_image_open_path sqk_check_path sqk_build_add_file sqk_build_add_dir; do
	got=$(sed -n "s/^missing $call //p" "$TMP/out")
	case $got in
	"-22 no such file or directory|$TMP/missing: No such file or directory" | \
		"-22 no such file or directory|/dev/null: $TMP/missing: No such file or directory")
		ok 0 "$call: a file that is not there is SQK_ERR_NOFILE, with the path and errno's words"
		;;
	*)
		ok 1 "$call: a file that is not there is SQK_ERR_NOFILE, with the path and errno's words"
		echo "#   got: $got"
		;;
	esac
done

done_testing
