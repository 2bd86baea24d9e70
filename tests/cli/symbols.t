#!/bin/sh
# Every global symbol that libsquashkit.a defines carries the project's
# prefix (sqk_ or SQK_): the library can be linked beside others (libsquashfs
# uses sqfs_) without a clash, and a name says whose it is. So do the parts
# only the binary links (libsquashkit-bin.a: core/mount, core/lab). The front
# ends' objects (cmd/, bincmd/ and their private library fe/) carry their
# own, cli_, and the library none of those:
# what a front end defines is never mistaken for the library's.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd nm

lib=$(dirname "$SQUASHKIT")/libsquashkit.a
bin_parts=$(dirname "$SQUASHKIT")/libsquashkit-bin.a
test -f "$lib" && test -f "$bin_parts"
ok $? "the library and the binary's own parts are built ($lib, $bin_parts)"

# AddressSanitizer adds a global "__odr_asan.NAME" for each global variable
# NAME; it is the compiler's, so NAME is what must carry the prefix.
nm -g --defined-only "$lib" "$bin_parts" | awk 'NF == 3 { print $3 }' |
	sed 's/^__odr_asan[._]//' | sort -u >"$TMP/globals"
test -s "$TMP/globals"
ok $? "nm lists the library's globals"

grep -v -e '^sqk_' -e '^SQK_' "$TMP/globals" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "no global without the sqk_ prefix"
sed 's/^/#   unprefixed: /' "$TMP/bad" | head -50

grep '^cli_' "$TMP/globals" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "no global of the library with the front ends' cli_ prefix"
sed 's/^/#   a front end'"'"'s: /' "$TMP/bad" | head -50

# The front ends' objects, beside the library in the same build.
set -- "$(dirname "$lib")"/cmd/*.o "$(dirname "$lib")"/bincmd/*.o "$(dirname "$lib")"/fe/*.o
test -f "$1"
ok $? "the front ends' objects are built"
nm -g --defined-only "$@" | awk 'NF == 3 { print $3 }' |
	sed 's/^__odr_asan[._]//' | sort -u >"$TMP/cli"
grep -q '^cli_' "$TMP/cli"
ok $? "nm lists the front ends' globals"
grep -v -e '^cli_' -e '^main$' "$TMP/cli" >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "every global of cmd/, bincmd/ and fe/ but main has the cli_ prefix"
sed 's/^/#   not cli_: /' "$TMP/bad" | head -50

done_testing
