#!/bin/sh
# public-api.t: the line between the library and its front ends is held
# by the compiler. cmd/ is compiled with the public headers (include/) and
# the front ends' private library (fe/) alone: an internal header of
# core/ included by any file of cmd/, an old one, a header, or a new one,
# fails the build. A copy of the tree is probed, never the tree itself.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd make

cd "$SQK_SRCDIR" || {
	echo "Bail out! no source tree at $SQK_SRCDIR"
	exit 1
}

# The front ends' flags, as the Makefile gives them: the public headers and
# fe/, nothing of core/ and not the top of the tree ("core/read/image.h").
flags=$(make -s -n BUILD="$TMP/flags" "$TMP/flags/cmd/cat.o" 2>/dev/null | grep ' -c cmd/cat.c')
case " $flags " in
*" -Iinclude -Ife "*) ok 0 "cmd/ is compiled with include/ and fe/" ;;
*) ok 1 "cmd/ is compiled with include/ and fe/ (flags: $flags)" ;;
esac
case " $flags " in
*" -Icore "* | *" -I. "* | *" -I./"* | *" -Icore/"*) ok 1 "cmd/ sees no part of core/ ($flags)" ;;
*) ok 0 "cmd/ sees no part of core/ nor the top of the tree" ;;
esac

# No file of cmd/ reaches past its folder by a relative path.
grep -n '^#[[:space:]]*include[[:space:]]*"[^"]*\.\./' cmd/*.[ch] >"$TMP/rel"
test ! -s "$TMP/rel"
ok $? "no include of cmd/ reaches out of it by a relative path"
sed 's/^/#   /' "$TMP/rel"

# fe.h names a few headers of core/util: each includes nothing of the
# library in turn, so that they are all of core/ a front end sees.
for h in $(sed -n 's|^#include "\.\./core/\(.*\)"|\1|p' fe/*.h); do
	case $h in
	util/*) grep -l '^#include "' "core/$h" ;;
	*) echo "core/$h (not core/util)" ;;
	esac
done >"$TMP/deep"
test ! -s "$TMP/deep"
ok $? "the utilities fe.h names include no header of the library"
sed 's/^/#   /' "$TMP/deep"

# The copy: what compiling a front end needs.
tree=$TMP/tree
mkdir -p "$tree"
cp -r Makefile include fe cmd core compressors "$tree"/
build() { make -s -C "$tree" BUILD=b "b/cmd/$1.o" >"$TMP/build.out" 2>&1; }

build cat
ok $? "the copy builds a front end as it is"
sed 's/^/#   /' "$TMP/build.out" | head -5

# probe FILE HEADER TARGET: FILE of cmd/ gains an include of HEADER; TARGET fails.
probe() {
	cp "$tree/cmd/$1" "$TMP/keep"
	sed -i "0,/^#include/s||#include \"$2\"\n#include|" "$tree/cmd/$1"
	grep -q "^#include \"$2\"" "$tree/cmd/$1" || echo "# the probe was not placed in $1"
	build "$3"
	rc=$?
	cp "$TMP/keep" "$tree/cmd/$1"
	test "$rc" -ne 0 && grep -q "$2" "$TMP/build.out"
}

probe cat.c read/image.h cat
ok $? "cmd/cat.c including read/image.h fails the build, naming the header"
sed 's/^/#   /' "$TMP/build.out" | head -3
probe mkimage.c util/file.h mkimage
ok $? "cmd/mkimage.c including util/file.h fails"
probe unimage.c format/format.h unimage
ok $? "cmd/unimage.c including format/format.h fails"
probe show.h walk/walk.h ls
ok $? "a header of cmd/ including walk/walk.h fails the files that include it"
probe imageopt.h core/read/image.h imageopt
ok $? "an internal header named from the top of the tree fails too"

# A file new to cmd/ is held the same, with no list to add it to.
printf '#include "util/json.h"\nint cli_probe(void);\nint cli_probe(void) { return 0; }\n' \
	>"$tree/cmd/probe_new.c"
build probe_new
rc=$?
test "$rc" -ne 0 && grep -q 'util/json.h' "$TMP/build.out"
ok $? "a new file of cmd/ including util/json.h fails"
printf '#include "fe.h"\n#include <squashkit/squashkit.h>\nint cli_probe(void);\n' \
	>"$tree/cmd/probe_new.c"
printf 'int cli_probe(void) { return sqk_type_name(0) != 0; }\n' >>"$tree/cmd/probe_new.c"
build probe_new
ok $? "the same file on the public headers and fe.h builds"
sed 's/^/#   /' "$TMP/build.out" | head -5

done_testing
