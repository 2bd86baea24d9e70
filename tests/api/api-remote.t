#!/bin/sh
# api-remote.t: the public API of squashkit/remote.h (tests/api/api-remote.c,
# against the installed library): an image served by tests/tools/httpd on
# 127.0.0.1 opens from its URL with the facts and bytes of the same file, as
# read callbacks too (opened, checked clean), its find agrees with the file's,
# its counters count, and the option setters refuse bad values.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$SQK_SRCDIR/tests/api/api-lib.sh"
. "$SQK_SRCDIR/tests/cli/httpd.sh"
[ -x "$SQK_TOOLS/httpd" ] || skip_all "$SQK_TOOLS/httpd is not built"

api_cc "$SQK_SRCDIR/tests/api/api-remote.c"

mkdir -p "$TMP/src" "$TMP/srv"
head -c 500000 /dev/urandom >"$TMP/src/data"
echo small >"$TMP/src/small"
"$SQUASHKIT" mkimage -q "$TMP/src" "$TMP/srv/img"
ok $? "an image is built"
http_start "$TMP/srv" "$TMP/log"

api_run api-remote "$BASE/img" "$TMP/srv/img" /data >"$TMP/out" 2>"$TMP/err"
ok $? "the URL opens, reads, checks and finds as the file does"
sed 's/^/#   /' "$TMP/err"
is "$(cat "$TMP/out")" "ok" "and says so"
is "$(awk '$5 != 206' "$TMP/log" | wc -l | tr -d ' ')" 0 "every request was a range answered 206"

done_testing
