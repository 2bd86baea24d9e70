#!/bin/sh
# mkimage --full-paths: each SOURCE lands at its own path, as tar keeps it;
# the directories on the way take their host directories' attributes, the
# root those of "." (or of "/" for an absolute path); sources that overlap
# give each entry once; '.', '..' and a symlink on the way are refused.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
SQK=$SQUASHKIT

W=$TMP/work
mkdir -p "$W/a/b/c" "$W/x"
printf 'deep\n' >"$W/a/b/c/f"
printf 'g\n' >"$W/x/g"
printf 'top\n' >"$W/a/top"
ln -s a/b "$W/lnk"
chmod 0710 "$W/a"
chmod 0700 "$W/a/b"
chmod 0755 "$W/a/b/c" "$W/x"
chmod 0751 "$W"
touch -d @1000000000 "$W/a"
touch -d @1100000000 "$W/a/b"
touch -d @1200000000 "$W"
IMG=$TMP/img.sqfs

field() { "$SQK" stat --json "$IMG" "$1" >"$TMP/st.json" && "$JSONQ" "$TMP/st.json" "$2"; }
mode() { printf '%o\n' "$(field "$1" /mode)"; }
names() { "$SQK" ls -R "$IMG" | grep -v -e '^$' -e ':$' | tr '\n' ' '; }

# ---- paths kept whole ----
(cd "$W" && "$SQK" mkimage -q --full-paths a/b/c x/g "$IMG") 2>"$TMP/err"
ok $? "two relative paths build an image"
is "$(names)" "a x b c f g " "ls -R: a and x, a/b, a/b/c, a/b/c/f and x/g, nothing else"
is "$("$SQK" cat "$IMG" a/b/c/f)" deep "a/b/c/f holds the host file"
is "$("$SQK" cat "$IMG" x/g)" g "x/g holds the host file"
"$SQK" stat "$IMG" a/top >/dev/null 2>&1
ok $((!$?)) "a/top, beside the path but not on it, stays out"
is "$(mode a)" 710 "a has its host directory's mode"
is "$(mode a/b)" 700 "a/b has its host directory's mode"
is "$(field a /mtime)" 1000000000 "a has its host directory's mtime"
is "$(field a/b /mtime)" 1100000000 "a/b has its host directory's mtime"
is "$(mode /)" 751 "the root has the mode of ."
is "$(field / /mtime)" 1200000000 "the root has the mtime of ."

# ---- overlapping sources, leading ./ and trailing / ----
(cd "$W" && "$SQK" mkimage -q -f --full-paths a/b/c ./a/b x/ x/g a//b/c/f "$IMG") 2>"$TMP/err"
ok $? "overlapping sources build an image"
[ ! -s "$TMP/err" ]
ok $? "and say nothing"
is "$("$SQK" ls "$IMG" a/b/c)" f "a/b/c holds f once"
is "$("$SQK" ls "$IMG")" "a
x" "the root holds a and x"
is "$("$SQK" ls "$IMG" x)" g "x holds g once"

# ---- an absolute path: the root is /, every directory on the way is there ----
"$SQK" mkimage -q -f --full-paths "$W/a/b/c" "$IMG" 2>"$TMP/err"
ok $? "an absolute path builds an image"
rel=${W#/}
is "$("$SQK" cat "$IMG" "$rel/a/b/c/f")" deep "the file sits at its absolute path, without the /"
is "$(mode "$rel")" 751 "the work directory on the way has its host mode"
is "$(mode /)" "$(printf '%o' "$(stat -c '0%a' /)")" "the root has the mode of /"

# ---- excludes match the paths as they are in the image ----
(cd "$W" && "$SQK" mkimage -q -f --full-paths -e a/b/c/f -e x a/b/c x/g "$IMG") 2>"$TMP/err"
ok $? "--full-paths with excludes builds an image"
is "$(names)" "a b c " "a/b/c/f and all of x (the directory on x/g's way too) are left out"

# ---- refused ----
for bad in "a/../x" "./a/./b" "/" "."; do
	rm -f "$IMG"
	(cd "$W" && "$SQK" mkimage -q --full-paths "$bad" "$IMG") 2>"$TMP/err"
	rc=$?
	ok $((rc != 1)) "'$bad' is refused with exit 1 (got $rc)"
	is "$(wc -l <"$TMP/err")" 1 "'$bad': one line"
	[ ! -e "$IMG" ]
	ok $? "'$bad': nothing written"
done
grep -q "'\.' or '\.\.'" "$TMP/err" || grep -q 'no name' "$TMP/err"
ok $? "the message says why"
(cd "$W" && "$SQK" mkimage -q --full-paths lnk/c "$IMG") 2>"$TMP/err"
is $? 1 "a symlink on the way is refused"
grep -q 'lnk: not a directory' "$TMP/err"
ok $? "and named: $(cat "$TMP/err")"
(cd "$W" && "$SQK" mkimage -q --full-paths --named-sources a "$IMG") 2>"$TMP/err"
is $? 2 "--full-paths and --named-sources together are a usage error"

done_testing
