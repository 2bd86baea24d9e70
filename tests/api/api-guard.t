#!/bin/sh
# api-guard.t: struct sqk_dir_guard (tests/api/api-guard.c, against the
# installed library) says a directory entered twice is a loop and a depth
# of 4096 too deep, and a fresh guard has seen nothing; `squashkit ls -R`,
# which goes down a tree with it, stops at a crafted image whose
# sub/again is the root directory with one line naming the loop.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-guard.c"

api_run api-guard 5:0 6:1 5:2 7:4095 8:4096 new 5:0 4294967296:1 >"$TMP/out"
ok $? "the guard runs"
is "$(tr '\n' ';' <"$TMP/out")" \
	"5 0 ok;6 1 ok;5 2 loop;7 4095 ok;8 4096 depth;5 0 ok;4294967296 1 arg;" \
	"a second entry is a loop, depth 4096 too deep, a new guard starts afresh"

"$SQK_TOOLS/craft" loop "$TMP/loop.img" 2>"$TMP/craft.err"
ok $? "craft writes an image whose sub/again is the root"
expect_status 1 "ls -R of it fails" $SQUASHKIT ls -R "$TMP/loop.img"
is "$(wc -l <"$TMP/.err" | tr -d ' ')" 1 "in one line"
grep -q "loop" "$TMP/.err"
ok $? "naming the loop"
sed 's/^/#   /' "$TMP/.err"
done_testing
