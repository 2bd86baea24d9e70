#!/bin/sh
# Mistakes users make get answers that say what went wrong: a refused
# option in one wording on every command, naming what was typed; the
# peers' single-dash spellings on the native commands; operands swapped;
# an image behind an executable (an AppImage); times as people type them;
# binary output to a terminal; mount --stats with no terminal to print on;
# fsck's superblock problems without a doubled label.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd script cmp head
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
SQK=$SQUASHKIT

S=$TMP/src
mkdir -p "$S/dir"
echo hello >"$S/dir/file"
echo top >"$S/top"
IMG=$TMP/img.sqfs
"$SQK" mkimage -q "$S" "$IMG" || { echo "Bail out! mkimage failed"; exit 1; }

# usage CMD WANT-FIRST-LINE ARGS...: the usage error status, exactly that
# line, and the hint after it.
usage() {
	cmd=$1
	want=$2
	shift 2
	"$SQK" "$cmd" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$cmd" = fsck ] && code=16 || code=2
	is "$rc $(sed -n 1p "$TMP/err")" "$code $want" "$cmd $*: exit $code and '$want'"
	is "$(sed -n '2,$p' "$TMP/err")" "Try 'squashkit $cmd --help'." "$cmd $*: then the hint alone"
}

# ---- one wording on every native command ----
for cmd in mkimage unimage inspect ls cat stat fsck diff bench mount umount; do
	usage "$cmd" "squashkit $cmd: unknown option '--bogus'" --bogus "$IMG"
	usage "$cmd" "squashkit $cmd: unknown option '-Z'" -Z "$IMG"
done
usage unimage "squashkit unimage: option '-d' needs a value" "$IMG" -d
usage unimage "squashkit unimage: option '--dest' needs a value" "$IMG" --dest
usage unimage "squashkit unimage: option '--force' takes no value" --force=yes "$IMG"
usage mkimage "squashkit mkimage: unknown option '-Z' in '-qZ'" -qZ "$S" "$TMP/x.sqfs"
usage mkimage "squashkit mkimage: ambiguous option '--comp' (--compressor, --comp-opt)" \
	--comp gzip "$S" "$TMP/x.sqfs"

# ---- the peers' spellings on the native commands ----
usage mkimage "squashkit mkimage: unknown option '-all-root' (squashkit mkimage spells it \
'--all-root'; squashkit mksquashfs takes mksquashfs's spelling)" -all-root "$S" "$TMP/x.sqfs"
usage mkimage "squashkit mkimage: unknown option '-noappend' (mksquashfs's spelling: \
squashkit mksquashfs takes mksquashfs's command line)" "$S" "$TMP/x.sqfs" -noappend
usage mkimage "squashkit mkimage: unknown option '-force' (did you mean '--force'?)" \
	-force "$S" "$TMP/x.sqfs"
[ ! -e "$TMP/x.sqfs" ]
ok $? "nothing is written after any of them"
# getopt alone would take -dest for -d est and extract into ./est.
cd "$TMP" || exit 1
usage unimage "squashkit unimage: unknown option '-dest' (squashkit unimage spells it \
'--dest'; squashkit unsquashfs takes unsquashfs's spelling)" -dest xdir "$IMG"
[ ! -e "$TMP/est" ] && [ ! -e "$TMP/xdir" ] && [ ! -e "$TMP/squashfs-root" ]
ok $? "unimage -dest: nothing extracted anywhere"
cd "$SQK_SRCDIR" || exit 1
usage ls "squashkit ls: unknown option '-lls' (unsquashfs's spelling: squashkit unsquashfs \
takes unsquashfs's command line)" -lls "$IMG"
usage stat "squashkit stat: unknown option '-stat' (unsquashfs's spelling: squashkit \
unsquashfs takes unsquashfs's command line)" -stat "$IMG" /top
# The value of an option is no option, whatever it looks like.
expect_success "mkimage -e -all-root: a pattern, not an option" "$SQK" mkimage -q \
	-e -all-root "$S" "$TMP/e.sqfs"

# ---- operands swapped ----
cp "$IMG" "$TMP/keep.sqfs"
usage mkimage "squashkit mkimage: $S is a directory and $TMP/keep.sqfs a file: the \
operands look swapped (the IMAGE comes last: SOURCE... IMAGE)" "$TMP/keep.sqfs" "$S"
usage mkimage "squashkit mkimage: $S is a directory and $TMP/keep.sqfs a file: the \
operands look swapped (the IMAGE comes last: SOURCE... IMAGE)" -f "$TMP/keep.sqfs" "$S"
cmp -s "$IMG" "$TMP/keep.sqfs" && [ -z "$(ls -A "$S/dir" | grep -v '^file$')" ]
ok $? "swapped operands: the image and the directory are left as they were"
mkdir "$TMP/adir"
expect_status 1 "a directory as IMAGE" "$SQK" mkimage -q -f "$S" "$TMP/adir"
is "$(cat "$TMP/.err")" "squashkit mkimage: $TMP/adir: is a directory" \
	"a directory as IMAGE: said at once, with or without -f"

# ---- an image behind an executable: --offset auto is suggested ----
head -c 1000 "$SQK" >"$TMP/app"
cat "$IMG" >>"$TMP/app"
hint="a SquashFS image starts at byte 1000 (use --offset auto)"
# CMD OPTION... IMAGE PATH...: "cmd|options|paths".
for c in "ls||" "inspect||" "stat||/top" "cat||/top" "unimage|-d $TMP/ax|"; do
	cmd=${c%%|*}
	rest=${c#*|}
	# shellcheck disable=SC2086
	"$SQK" "$cmd" ${rest%%|*} "$TMP/app" ${rest#*|} >/dev/null 2>"$TMP/err"
	rc=$?
	is "$rc $(cat "$TMP/err")" \
		"1 squashkit $cmd: $TMP/app: not a squashfs image (bad magic); $hint" \
		"$cmd on an AppImage: where the image is"
done
expect_status 1 "mount on an AppImage" "$SQK" mount "$TMP/app" "$TMP/adir"
is "$(cat "$TMP/.err")" "squashkit mount: $TMP/app: not a squashfs image (bad magic); $hint" \
	"mount on an AppImage: where the image is"
"$SQK" fsck "$TMP/app" >"$TMP/out" 2>"$TMP/err"
is "$?" 4 "fsck on an AppImage: problems found"
grep -qx "squashkit fsck: $TMP/app: $hint" "$TMP/err"
ok $? "fsck on an AppImage: the same hint"
grep -qx "superblock: magic 0x464c457f is not the squashfs magic" "$TMP/err"
ok $? "fsck: a superblock problem without a doubled label"
"$SQK" fsck --json "$TMP/app" >"$TMP/j" 2>/dev/null
is "$("$JSONQ" "$TMP/j" /errors/0/path /errors/0/check | tr '\n' ' ')" "superblock superblock " \
	"fsck --json: path and check both there"
"$SQK" unsquashfs -l "$TMP/app" >/dev/null 2>"$TMP/err"
grep -q "a SquashFS image starts at byte 1000 (use -offset 1000)$" "$TMP/err"
ok $? "unsquashfs on an AppImage: the hint in unsquashfs's spelling"
expect_success "ls --offset auto on the AppImage" "$SQK" ls --offset auto "$TMP/app"
expect_status 1 "an explicit --offset 0: no search" "$SQK" ls --offset 0 "$TMP/app"
is "$(cat "$TMP/.err")" "squashkit ls: $TMP/app: not a squashfs image (bad magic)" \
	"an explicit --offset 0: only the error"
expect_status 1 "a file that holds no image" "$SQK" ls "$SQK"
is "$(cat "$TMP/.err")" "squashkit ls: $SQK: not a squashfs image (bad magic)" \
	"a file that holds no image: only the error"

# ---- times as people type them ----
mtime() {
	"$SQK" mkimage -q -f --mtime "$1" "$S" "$TMP/t.sqfs" 2>"$TMP/err" &&
		"$SQK" stat --json "$TMP/t.sqfs" /top >"$TMP/t.json" && "$JSONQ" "$TMP/t.json" /mtime
}
is "$(mtime 2024-01-01T00:00:00Z)" 1704067200 "--mtime 2024-01-01T00:00:00Z"
is "$(mtime @1704067200)" 1704067200 "--mtime @1704067200"
is "$(mtime '2024-01-01 12:00+01:00')" 1704106800 "--mtime '2024-01-01 12:00+01:00'"
is "$(TZ=UTC mtime 2024-01-01)" 1704067200 "--mtime 2024-01-01 in TZ=UTC"
is "$(TZ=EST5 mtime 2024-01-01)" 1704085200 "--mtime 2024-01-01 in TZ=EST5: local time"
usage mkimage "squashkit mkimage: invalid --mtime 'yesterday' (seconds since 1970, @SECONDS, \
or a date and time: 2024-01-01, 2024-01-01T12:00[:00], local unless Z or +HH:MM follows)" \
	--mtime yesterday "$S" "$TMP/x.sqfs"
usage mkimage "squashkit mkimage: invalid --fstime '2024-02-30' (seconds since 1970, \
@SECONDS, or a date and time: 2024-01-01, 2024-01-01T12:00[:00], local unless Z or +HH:MM \
follows)" --fstime 2024-02-30 "$S" "$TMP/x.sqfs"

# ---- binary output onto a terminal (script(1) makes one) ----
pty() {
	script -q -e -c "$1" /dev/null </dev/null >"$TMP/pty" 2>&1
}
pty "$SQK mkimage -q $S -"
is "$?" 1 "mkimage IMAGE - onto a terminal: refused"
grep -q "squashkit mkimage: stdout: is a terminal: an image is not written to it" "$TMP/pty" &&
	! grep -q hsqs "$TMP/pty"
ok $? "mkimage onto a terminal: said, and no image bytes on it"
pty "$SQK mkimage -q -f $S - | wc -c"
is "$(tr -d '\r ' <"$TMP/pty")" 4096 "mkimage -f onto a terminal: written"
pty "$SQK unimage -o - $IMG"
is "$?" 1 "unimage -o - onto a terminal: refused"
grep -q "squashkit unimage: stdout: is a terminal: an archive is not written to it" "$TMP/pty"
ok $? "unimage -o - onto a terminal: said"
"$SQK" mkimage -q "$S" - | cmp -s - "$IMG"
ok $? "mkimage IMAGE - into a pipe: the image"

# ---- mount --stats with no terminal to print on ----
usage mount "squashkit mount: --stats without -f needs a FILE (--stats=FILE): the daemon has \
no terminal to print the counters on" --stats "$IMG" "$TMP/adir"

done_testing
