#!/bin/sh
# Times the format cannot hold (an inode's mtime is 32 bits: 1970-01-01 to
# 2106-02-07 06:28:15 UTC) are clamped to the nearer end, and mkimage says so
# once per build, through the build's warning callback: how many, and the
# first entry's path. From a directory, an archive and a pseudo definition
# of a host file; not with --mtime (it replaces every time); with
# SOURCE_DATE_EPOCH only those before 1970 (every newer time comes down to
# it anyway).
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd touch tar
export LC_ALL=C

src=$TMP/src
mkdir -p "$src/d"
: >"$src/now"
: >"$src/old"
: >"$src/d/older"
: >"$src/future"
if ! touch -d '1960-01-01 00:00:00 UTC' "$src/old" 2>/dev/null ||
	! touch -d '1950-06-01 00:00:00 UTC' "$src/d/older" 2>/dev/null ||
	! touch -d '2200-01-01 00:00:00 UTC' "$src/future" 2>/dev/null ||
	[ "$(stat -c %Y "$src/old")" -ge 0 ]; then
	skip_all "this file system does not keep times before 1970 or after 2106"
fi
range="outside what the format holds, 1970-01-01 to 2106-02-07 UTC: clamped"

# warned DESC WANT CMD...: CMD succeeds and its stderr is exactly WANT.
warned() {
	_desc=$1
	_want=$2
	shift 2
	"$@" 2>"$TMP/err"
	_rc=$?
	if [ $_rc -eq 0 ] && [ "$(cat "$TMP/err")" = "$_want" ]; then ok 0 "$_desc"; else
		ok 1 "$_desc"
		echo "#   exit $_rc"
		sed 's/^/#   got: /' "$TMP/err"
		echo "#   want: $_want"
	fi
}

warned "a directory: one warning, the first path and how many" \
	"squashkit mkimage: /d/older: warning: its time (before 1970) and those of 2 more entries are $range" \
	"$SQUASHKIT" mkimage -q "$src" "$TMP/dir.sq"
is "$("$SQUASHKIT" stat --json "$TMP/dir.sq" old | "$SQK_TOOLS/jsonq" - /mtime)" 0 \
	"before 1970: clamped to 0"
is "$("$SQUASHKIT" stat --json "$TMP/dir.sq" future | "$SQK_TOOLS/jsonq" - /mtime)" 4294967295 \
	"after 2106: clamped to 2^32 - 1"
is "$("$SQUASHKIT" stat --json "$TMP/dir.sq" now | "$SQK_TOOLS/jsonq" - /mtime)" \
	"$(stat -c %Y "$src/now")" "a time in range is kept"

warned "SOURCE_DATE_EPOCH: only those before 1970 count" \
	"squashkit mkimage: /d/older: warning: its time (before 1970) and that of one more entry are $range" \
	env SOURCE_DATE_EPOCH=1000 "$SQUASHKIT" mkimage -q "$src" "$TMP/epoch.sq"
warned "--mtime: no warning, every time is replaced" "" \
	"$SQUASHKIT" mkimage -q --mtime 5 "$src" "$TMP/mtime.sq"

mkdir "$TMP/fut"
: >"$TMP/fut/a"
touch -d '2150-01-01 00:00:00 UTC' "$TMP/fut/a"
warned "one entry after 2106: said of it alone" \
	"squashkit mkimage: /a: warning: its time (after 2106) is $range" \
	"$SQUASHKIT" mkimage -q "$TMP/fut" "$TMP/fut.sq"
warned "... not under SOURCE_DATE_EPOCH, which brings it down anyway" "" \
	env SOURCE_DATE_EPOCH=1000 "$SQUASHKIT" mkimage -q "$TMP/fut" "$TMP/fut2.sq"

# An archive: pax keeps times before 1970.
(cd "$src" && tar --format=pax -cf "$TMP/src.tar" old d now) || {
	echo "Bail out! tar cannot write the archive"
	exit 1
}
warned "an archive: one warning, the first path and how many" \
	"squashkit mkimage: /old: warning: its time (before 1970) and that of one more entry are $range" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/src.tar" "$TMP/tar.sq"
is "$("$SQUASHKIT" stat --json "$TMP/tar.sq" d/older | "$SQK_TOOLS/jsonq" - /mtime)" 0 \
	"the archive's entry clamped to 0"

# A pseudo definition of a host file.
mkdir "$TMP/empty"
warned "a pseudo definition of a host file (l)" \
	"squashkit mkimage: /x: warning: its time (before 1970) is $range" \
	"$SQUASHKIT" mkimage -q --pseudo "x l $src/old" "$TMP/empty" "$TMP/pseudo.sq"

done_testing
