#!/bin/sh
# symbols.t: libsquashkit.so exports exactly the functions the public
# headers declare (include/squashkit): one declared and not exported, or
# exported and not declared, fails. The export map and the Debian package's
# symbols file say the same.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd nm
need_cmd cc

so=$(dirname "$SQUASHKIT")/libsquashkit.so.1
test -f "$so"
ok $? "the shared library is built ($so)"

# Every function the headers declare, as the compiler lists them (-aux-info).
printf '#include <squashkit/squashkit.h>\n' >"$TMP/all.c"
cc -I"$SQK_SRCDIR/include" -aux-info "$TMP/aux" -c "$TMP/all.c" -o "$TMP/all.o"
ok $? "the compiler lists the headers' declarations"
# Each line is "/* FILE:LINE:NC */ extern TYPE NAME (PARAMETERS);".
grep "/include/squashkit/" "$TMP/aux" | sed 's|^/\*[^*]*\*/ ||; s/ (.*//; s/.*[ *]//' |
	sort -u >"$TMP/declared"
test -s "$TMP/declared"
ok $? "the headers declare functions ($(wc -l <"$TMP/declared"))"

# What the library exports (functions and data; the version node is no symbol).
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$TMP/exported"
diff "$TMP/declared" "$TMP/exported" >"$TMP/diff"
ok $? "nm -D lists exactly the declared functions"
sed -n 's/^< /#   declared, not exported: /p; s/^> /#   exported, not declared: /p' "$TMP/diff"

# Every function the headers declare is described in libsquashkit.3 (.Fn NAME).
: >"$TMP/undocumented"
while read -r n; do
	grep -qE "(^|[ .])Fn $n( |$)" "$SQK_SRCDIR/man/libsquashkit.3" || echo "$n" >>"$TMP/undocumented"
done <"$TMP/declared"
test ! -s "$TMP/undocumented"
ok $? "libsquashkit.3 describes every declared function"
sed 's/^/#   not in libsquashkit.3: /' "$TMP/undocumented"

# Every function the headers and the man page name, as "sqk_x()", is one of them.
grep -oh 'sqk_[a-z_0-9]*()' "$SQK_SRCDIR"/include/squashkit/*.h "$SQK_SRCDIR"/man/libsquashkit.3 |
	sed 's/()$//' | LC_ALL=C sort -u >"$TMP/named"
LC_ALL=C sort "$TMP/declared" | LC_ALL=C comm -23 "$TMP/named" - >"$TMP/unknown"
test -s "$TMP/named" && test ! -s "$TMP/unknown"
ok $? "the headers and libsquashkit.3 name only functions that exist ($(wc -l <"$TMP/named") named)"
sed 's/^/#   named, not declared: /' "$TMP/unknown"

sed -n 's/^\t\(sqk_[a-z_0-9]*\);$/\1/p' "$SQK_SRCDIR/core/api/libsquashkit.map" | sort >"$TMP/map"
same_file "$TMP/declared" "$TMP/map" "the export map names the same functions"

# Every export is under the version node SQUASHKIT_1.
nm -D --defined-only --with-symbol-versions "$so" | awk '$2 != "A" && $3 !~ /@@SQUASHKIT_1$/' >"$TMP/unversioned"
test ! -s "$TMP/unversioned"
ok $? "every export carries the version SQUASHKIT_1"
sed 's/^/#   /' "$TMP/unversioned" | head

# The Debian package's symbols file (debian/libsquashkit1.symbols, what
# dpkg-gensymbols holds the built library to) lists the same functions.
sed -n 's/^ \(sqk_[a-z_0-9]*\)@SQUASHKIT_1 .*/\1/p' "$SQK_SRCDIR/debian/libsquashkit1.symbols" |
	sort >"$TMP/debian"
same_file "$TMP/declared" "$TMP/debian" "debian/libsquashkit1.symbols names the same functions"

done_testing
