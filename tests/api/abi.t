#!/bin/sh
# abi.t: the shared library keeps the ABI recorded in abi/libsquashkit.abi
# (abidw's baseline, made by `make abi-baseline`). abidiff's exit status is
# a set of bits: 1 an error, 2 a usage error, 4 a change of the ABI, 8 a
# change abidiff knows to be incompatible (a function removed). A change
# of a type the caller sees (a field of struct sqk_stat, which callers
# allocate) is only "a change" to abidiff, yet breaks every caller: so with
# added functions left aside (--no-added-syms), any change fails unless the
# soname changed with it. Added functions pass, with a note to record them.
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd abidiff
need_cmd readelf
need_cmd cc

so=$(dirname "$SQUASHKIT")/libsquashkit.so.1
base=$SQK_SRCDIR/abi/libsquashkit.abi
test -f "$so" && test -f "$base"
ok $? "the library and the baseline are there"

soname() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'; }
base_soname=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$base" | head -1)
so_soname=$(soname "$so")

# verdict STATUS OLD_SONAME NEW_SONAME: what the test says of abidiff's status.
verdict() {
	if [ $(($1 & 3)) -ne 0 ]; then
		echo error
	elif [ $(($1 & 12)) -ne 0 ]; then
		if [ "$2" = "$3" ]; then echo incompatible; else echo new-soname; fi
	else
		echo same
	fi
}

abidiff --no-added-syms --headers-dir2 "$SQK_SRCDIR/include/squashkit" "$base" "$so" \
	>"$TMP/abidiff" 2>&1
status=$?
v=$(verdict $status "$base_soname" "$so_soname")
case $v in
same | new-soname) ok 0 "the ABI of $so_soname keeps the baseline's ($v)" ;;
*) ok 1 "the ABI of $so_soname keeps the baseline's ($v, abidiff status $status)" ;;
esac
[ "$v" = new-soname ] && echo "#   soname $base_soname -> $so_soname: record it with make abi-baseline"
[ "$v" = same ] || sed 's/^/#   /' "$TMP/abidiff" | head -40
abidiff --headers-dir2 "$SQK_SRCDIR/include/squashkit" "$base" "$so" >/dev/null 2>&1 ||
	echo "#   functions were added: record them with make abi-baseline"

# The verdict can fail: two builds of a small library whose struct grew, as
# libsquashkit's public structs could; and one without a function.
cat >"$TMP/v1.c" <<'C'
struct info { int a; };
int get(struct info *i) { return i->a; }
C
cat >"$TMP/v2.c" <<'C'
struct info { long a; int b; };
int get(struct info *i) { return (int)i->a + i->b; }
C
for v in v1 v2; do
	cc -g -shared -fPIC -Wl,-soname,libprobe.so.1 -o "$TMP/$v.so" "$TMP/$v.c" || echo "Bail out! cc"
done
abidiff "$TMP/v1.so" "$TMP/v2.so" >/dev/null 2>&1
is "$(verdict $? libprobe.so.1 libprobe.so.1)" incompatible "a grown struct under the same soname fails"
cc -g -shared -fPIC -Wl,-soname,libprobe.so.2 -o "$TMP/v2.so" "$TMP/v2.c"
abidiff "$TMP/v1.so" "$TMP/v2.so" >/dev/null 2>&1
is "$(verdict $? libprobe.so.1 "$(soname "$TMP/v2.so")")" new-soname "under a new soname it passes"
printf 'int other(void) { return 1; }\n' >"$TMP/v3.c"
cc -g -shared -fPIC -Wl,-soname,libprobe.so.1 -o "$TMP/v3.so" "$TMP/v3.c"
abidiff --no-added-syms "$TMP/v1.so" "$TMP/v3.so" >/dev/null 2>&1
is "$(verdict $? libprobe.so.1 libprobe.so.1)" incompatible "a function removed fails"
abidiff --no-added-syms "$TMP/v1.so" "$TMP/v1.so" >/dev/null 2>&1
is "$(verdict $? libprobe.so.1 libprobe.so.1)" same "the same library passes"

done_testing
