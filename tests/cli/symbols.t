#!/bin/sh
# Every global symbol that libsquashkit.a defines carries the project's
# prefix (sqk_ or SQK_): the library can be linked beside others (libsquashfs
# uses sqfs_) without a clash, and a name says whose it is.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd nm

lib=$(dirname "$SQUASHKIT")/libsquashkit.a
test -f "$lib"
ok $? "the library is built ($lib)"

# AddressSanitizer adds a global "__odr_asan.NAME" for each global variable
# NAME; it is the compiler's, so NAME is what must carry the prefix.
nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' |
	sed 's/^__odr_asan[._]//' | sort -u >"$TMP/globals"
test -s "$TMP/globals"
ok $? "nm lists the library's globals"

grep -v -e '^sqk_' -e '^SQK_' "$TMP/globals" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "no global without the sqk_ prefix"
sed 's/^/#   unprefixed: /' "$TMP/bad" | head -50

done_testing
