#!/bin/sh
# api-stats.t: the cache counters and rates by name and the fragment
# cache's size in bytes (tests/api/api-stats.c, against the installed
# library), on an image of 4 KiB blocks: 64 KiB of fragment blocks are 16
# entries where 3 were asked for, and the rates are what their counters make.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-stats.c"

mkdir -p "$TMP/src"
head -c 20000 /dev/urandom >"$TMP/src/f"
printf 'tail\n' >"$TMP/src/t"
mksquashfs "$TMP/src" "$TMP/img" -b 4096 -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree in 4 KiB blocks"

api_run api-stats "$TMP/img" /f >"$TMP/out" 2>"$TMP/err"
ok $? "api-stats reads a file and its checks of the counters hold"
sed 's/^/#   /' "$TMP/err"
is "$(grep '^fragment entries [0-9]' "$TMP/out")" "fragment entries 3" "3 fragment entries asked for"
is "$(grep '^fragment entries for' "$TMP/out")" "fragment entries for 64 KiB $((65536 / 4096))" \
	"64 KiB of 4 KiB fragment blocks"

done_testing
