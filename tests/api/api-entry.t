#!/bin/sh
# api-entry.t: the entry callback of sqk_extract_list and sqk_extract_dir
# (tests/api/api-entry.c), built against the installed library. A listing
# tells every entry the kernel's mount shows ("/a/b"), each made, each directory
# ended after what is below it; a skipped directory's entries are never
# told nor made; a hard link whose first name is skipped is made whole from
# the next name, the later one linked to it; a negative answer stops the
# run with that code. "fill" fills an existing destination (an entry in
# the way ends the run), "pass-over" leaves out what is in the way (told,
# with the destination's words) and what is below a directory it could not
# make.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount

api_cc "$SQK_SRCDIR/tests/api/api-entry.c"
e() { api_run api-entry "$@" 2>"$TMP/err"; }

s=$TMP/tree
mkdir -p "$s/a/deep" "$s/b" "$s/c" "$s/d"
echo one >"$s/a/first"
echo deep >"$s/a/deep/x"
echo link >"$s/a/hl"
ln "$s/a/hl" "$s/b/hl2"
ln "$s/a/hl" "$s/c/hl3"
echo dd >"$s/d/f"
ln -s ../a/first "$s/sym"
mksquashfs "$s" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs a tree with hard links"
mount -t squashfs -o loop,ro "$TMP/img" "$MNT" || {
	echo "Bail out! the kernel does not mount the image"
	exit 1
}
(cd "$MNT" && find . | sed 's|^\.||; s|^$|/|' | LC_ALL=C sort) >"$TMP/kernel"
umount "$MNT"

# ---- a listing ----
e list "$TMP/img" >"$TMP/list"
ok $? "sqk_extract_list walks the image"
sed -n 's/^begin \([^ ]*\) .*/\1/p' "$TMP/list" | LC_ALL=C sort >"$TMP/begun"
same_file "$TMP/kernel" "$TMP/begun" "every entry the kernel shows is told, once"
sed -n 's/^made \([^ ]*\).*/\1/p' "$TMP/list" | LC_ALL=C sort >"$TMP/made"
same_file "$TMP/kernel" "$TMP/made" "and each is told as made"
is "$(grep -c '^end ' "$TMP/list")" "$(cd "$s" && find . -type d | wc -l)" \
	"each directory is ended"
is "$(grep -n '' "$TMP/list" | grep -E ' (/a/deep/x|/a/deep)( |$)' | cut -d: -f2 | tr '\n' ';')" \
	"begin /a/deep 40755;made /a/deep;begin /a/deep/x 100644;made /a/deep/x;end /a/deep;" \
	"a directory before what is below it, ended after it"
is "$(grep '^made /c/hl3' "$TMP/list")" "made /c/hl3 /a/hl" "a hard link is told with its first name"

# ---- skipping ----
e list "$TMP/img" skip=/a >"$TMP/skip"
is "$(grep -c ' /a/' "$TMP/skip")" 0 "nothing below a skipped directory is told"
is "$(grep -c '^made /a$' "$TMP/skip")" 0 "nor is the directory made"
is "$(grep -E '^(begin|made) /(b|c)/' "$TMP/skip" | tr '\n' ';')" \
	"begin /b/hl2 100644;made /b/hl2;begin /c/hl3 100644 /b/hl2;made /c/hl3 /b/hl2;" \
	"the first name skipped: the next is made whole, the later ones link to it"

e dir "$TMP/img" "$TMP/out" skip=/a skip=/d/f >"$TMP/dir"
ok $? "sqk_extract_dir extracts with entries skipped"
(cd "$TMP/out" && find . | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ') >"$TMP/got"
is "$(cat "$TMP/got")" ". b b/hl2 c c/hl3 d sym " "only what was not skipped is made"
is "$(cat "$TMP/out/b/hl2")" "link" "the stand-in has the data"
is "$(stat -c %i "$TMP/out/b/hl2")" "$(stat -c %i "$TMP/out/c/hl3")" "and the later name is its link"

# ---- stopping ----
rm -rf "$TMP/out"
e dir "$TMP/img" "$TMP/out" stop=/b/hl2 >"$TMP/stop"
is "$(tail -2 "$TMP/stop" | tr '\n' ';')" "error -100 3 /b/hl2;return -100;" \
	"a negative answer stops the run with it, told as the entry's failure"
test ! -e "$TMP/out"
ok $? "and what the run made is gone (no keep-made)"
e list "$TMP/img" stop=/a/deep >"$TMP/stop"
is "$(tail -1 "$TMP/stop")" "return -100" "the same for a listing"

# ---- an existing destination ----
# in_the_way: the destination anew, with "d" a file and "sym" a directory.
in_the_way() {
	rm -rf "$TMP/ex" && mkdir -p "$TMP/ex/sym" && : >"$TMP/ex/d"
}
in_the_way
e dir "$TMP/img" "$TMP/ex" >"$TMP/x1"
is "$(tail -1 "$TMP/x1")" "return -11" "an existing destination is refused without fill (SQK_ERR_EXIST)"
e dir "$TMP/img" "$TMP/ex" fill >"$TMP/x2"
is "$(tail -2 "$TMP/x2" | cut -d' ' -f1-3 | tr '\n' ';')" "error -11 3;return -11;" \
	"fill: the first entry in the way ends the run"
in_the_way
e dir "$TMP/img" "$TMP/ex" fill pass-over >"$TMP/x3"
ok $? "fill and pass-over: the run goes through"
grep '^passed' "$TMP/x3" | cut -d' ' -f1-3 >"$TMP/passed"
is "$(tr '\n' ';' <"$TMP/passed")" "passed /d 1;passed /sym 1;" \
	"each entry in the way is passed over, told as the destination's"
is "$(grep -c '^begin /d/' "$TMP/x3")" 0 "nothing below a directory passed over is told"
is "$(cat "$TMP/ex/b/hl2")" "link" "the rest is extracted"
test -d "$TMP/ex/sym" && test -f "$TMP/ex/d" && test ! -s "$TMP/ex/d"
ok $? "what was in the way is untouched"

done_testing
