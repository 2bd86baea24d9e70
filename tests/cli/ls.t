#!/bin/sh
# squashkit ls: names, -l fields, -R sections and --json objects equal what
# GNU ls and stat say about the source tree (devices, sockets and odd names,
# which need root or would upset the comparison, come from mksquashfs pseudo
# definitions and are checked against those definitions).
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs ls stat touch seq xargs awk paste sed sort
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

export LC_ALL=C TZ=UTC

src=$TMP/src
mkdir -p "$src/dir/sub/deeper" "$src/empty-dir" "$src/big" "$src/sticky" "$src/sgid-dir"
printf 'hello\n' >"$src/small"
head -c 300000 /dev/urandom >"$src/large"
: >"$src/.hidden"
: >"$src/-dash"
: >"$src/with space"
: >"$src/caf$(printf '\303\251')"
: >"$src/UPPER"
printf 'x\n' >"$src/dir/sub/file"
printf 'y\n' >"$src/dir/sub/deeper/leaf"
ln "$src/small" "$src/hardlink"
ln -s small "$src/link"
ln -s dir/sub "$src/linkdir"
mkfifo "$src/fifo"
: >"$src/suid" && chmod 4755 "$src/suid"
: >"$src/suid-noexec" && chmod 4644 "$src/suid-noexec"
: >"$src/sgid" && chmod 2750 "$src/sgid"
: >"$src/nothing" && chmod 000 "$src/nothing"
chmod 1777 "$src/sticky"
chmod 2755 "$src/sgid-dir"
: >"$src/sticky-noexec" && chmod 1666 "$src/sticky-noexec"
(cd "$src/big" && seq 0 2999 | sed 's/^/name_/' | xargs touch)
# Times last: making entries moves their directories' times.
(cd "$src" && find . -mindepth 1 ! -path './big/*' | sort) | {
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		touch -h -d "@$((1000000000 + i * 86461))" "$src/$f"
	done
}
touch -d "@4294967295" "$src/small"
touch -d "@978307200" "$src"

img=$TMP/img.sq
mksquashfs "$src" "$img" -quiet -no-progress -noappend -comp gzip >/dev/null 2>&1 ||
	{ echo "Bail out! mksquashfs failed"; exit 1; }

# Names: every entry, dot files too, in byte order.
"$SQUASHKIT" ls "$img" >"$TMP/got"
is "$?" 0 "ls: exit 0"
ls -A "$src" >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls: the root's names, as ls -A"
"$SQUASHKIT" ls "$img" /dir/sub >"$TMP/got"
ls -A "$src/dir/sub" >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls PATH: a subdirectory"
"$SQUASHKIT" ls "$img" dir//sub/ >"$TMP/got"
same_file "$TMP/got" "$TMP/want" "ls PATH: repeated and trailing slashes"
"$SQUASHKIT" ls "$img" empty-dir >"$TMP/got"
is "$(wc -c <"$TMP/got")" 0 "ls: an empty directory lists nothing"
is "$("$SQUASHKIT" ls "$img" dir/sub/file)" "dir/sub/file" "ls FILE: the path itself"
is "$("$SQUASHKIT" ls "$img" linkdir)" "linkdir" "ls SYMLINK: the link itself"
"$SQUASHKIT" ls "$img" linkdir/ >"$TMP/got"
ls -A "$src/linkdir/" >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls SYMLINK/: the directory it points to"
"$SQUASHKIT" ls "$img" big >"$TMP/got"
ls -A "$src/big" >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls: 3000 entries"

# -l: compared field by field with GNU ls -ln, spaces squeezed. A directory's
# size is its listing's (the kernel's too), never the host's, so it is left out.
norm_long() {
	grep -v '^total ' | tr -s ' ' | awk '/^d/ { $5 = "-" } { print }'
}
"$SQUASHKIT" ls -l "$img" | norm_long >"$TMP/got"
ls -lAn --time-style='+%Y-%m-%d %H:%M' "$src" | norm_long >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -l: mode, links, owner, size, mtime, name, target"
"$SQUASHKIT" ls -l "$img" dir/sub | norm_long >"$TMP/got"
ls -lAn --time-style='+%Y-%m-%d %H:%M' "$src/dir/sub" | norm_long >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -l PATH"
"$SQUASHKIT" ls -l "$img" link | tr -s ' ' >"$TMP/got"
(cd "$src" && ls -ln --time-style='+%Y-%m-%d %H:%M' link) | tr -s ' ' >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -l SYMLINK: one line with its target"

# -R: sections like GNU ls -R, headed by the image path.
"$SQUASHKIT" ls -R "$img" >"$TMP/got"
(cd "$src" && ls -RA1 .) | sed 's|^\.:$|/:|; s|^\./\(.*\):$|/\1:|' >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -R: every directory, as ls -RA"
"$SQUASHKIT" ls -R "$img" dir >"$TMP/got"
(cd "$src" && ls -RA1 dir) | sed 's|^\(.*\):$|/\1:|' >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -R PATH"
"$SQUASHKIT" ls -lR "$img" dir | norm_long >"$TMP/got"
(cd "$src" && ls -lRAn --time-style='+%Y-%m-%d %H:%M' dir) | sed 's|^\(.*\):$|/\1:|' |
	norm_long >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -lR PATH"

# --json: valid, and every field equal to GNU stat of the source.
type_of() {
	case $1 in
	"regular file" | "regular empty file") echo file ;;
	directory) echo directory ;;
	"symbolic link") echo symlink ;;
	fifo) echo fifo ;;
	socket) echo socket ;;
	"character special file") echo char_device ;;
	"block special file") echo block_device ;;
	*) echo "?$1" ;;
	esac
}
# json_rows FILE: "name|mode|uid|gid|mtime|nlink|type|size" per object.
json_rows() {
	for k in name mode uid gid mtime nlink type size; do
		"$JSONQ" "$1" "/*/$k" >"$TMP/col.$k" || return 1
	done
	paste -d '|' "$TMP/col.name" "$TMP/col.mode" "$TMP/col.uid" "$TMP/col.gid" \
		"$TMP/col.mtime" "$TMP/col.nlink" "$TMP/col.type" "$TMP/col.size"
}
# stat_rows DIR: the same rows from GNU stat (a directory's size as "-").
stat_rows() {
	ls -A "$1" | while IFS= read -r n; do
		stat -c '%a|%u|%g|%Y|%h|%F|%s' "$1/$n" | {
			IFS='|' read -r a u g y h f s
			t=$(type_of "$f")
			[ "$t" = directory ] && s=-
			printf '%s|%d|%s|%s|%s|%s|%s|%s\n' "$n" "0$a" "$u" "$g" "$y" "$h" "$t" "$s"
		}
	done
}
"$SQUASHKIT" ls --json "$img" >"$TMP/json"
is "$?" 0 "ls --json: exit 0"
expect_success "ls --json: valid JSON" "$JSONQ" "$TMP/json"
json_rows "$TMP/json" | awk -F'|' 'BEGIN { OFS = "|" } $7 == "directory" { $8 = "-" } { print }' >"$TMP/got"
stat_rows "$src" >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls --json: name, mode, uid, gid, mtime, nlink, type, size"
is "$("$JSONQ" "$TMP/json" '/*/path' | head -1)" "/$(ls -A "$src" | head -1)" "ls --json: path"
is "$("$JSONQ" "$TMP/json" "/$(ls -A "$src" | grep -n '^link$' | cut -d: -f1 | awk '{ print $1 - 1 }')/target")" \
	"$(readlink "$src/link")" "ls --json: a symlink's target"
"$SQUASHKIT" ls --json "$img" dir/sub/file >"$TMP/json"
is "$("$JSONQ" "$TMP/json" '/#' '/0/name' '/0/path' '/0/size' | tr '\n' ' ')" \
	"1 file /dir/sub/file 2 " "ls --json FILE: one object"
"$SQUASHKIT" ls -R --json "$img" >"$TMP/json"
expect_success "ls -R --json: valid JSON" "$JSONQ" "$TMP/json"
"$JSONQ" "$TMP/json" '/*/path' | sort >"$TMP/got"
(cd "$src" && find . -mindepth 1 | sed 's|^\.||' | sort) >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls -R --json: every entry's path"
"$SQUASHKIT" ls --json "$img" empty-dir >"$TMP/json"
expect_success "ls --json on an empty directory: valid JSON" "$JSONQ" "$TMP/json"
is "$("$JSONQ" "$TMP/json" '/#')" 0 "ls --json on an empty directory: an empty array"

# Devices, sockets and odd names, from pseudo definitions (no root needed).
mkdir "$TMP/src2"
nl=$(printf 'new\nline')
tab=$(printf 'a\tb')
: >"$TMP/src2/$nl"
: >"$TMP/src2/$tab"
: >"$TMP/src2/back\\slash"
img2=$TMP/img2.sq
mksquashfs "$TMP/src2" "$img2" -quiet -no-progress -noappend \
	-p "cdev C 1000000000 640 12 34 4 5" -p "bdev B 1000000000 600 0 0 259 70000" \
	-p "sock I 1000000000 755 7 8 s" -p "pipe I 1000000000 644 0 0 f" >/dev/null 2>&1 ||
	{ echo "Bail out! mksquashfs with pseudo definitions failed"; exit 1; }
"$SQUASHKIT" ls -l "$img2" | tr -s ' ' | awk '{ $2 = ""; print }' | tr -s ' ' >"$TMP/got"
cat >"$TMP/want" <<'EOF'
-rw-r--r-- U G 0 - - a\tb
-rw-r--r-- U G 0 - - back\\slash
brw------- 0 0 259, 70000 2001-09-09 01:46 bdev
crw-r----- 12 34 4, 5 2001-09-09 01:46 cdev
-rw-r--r-- U G 0 - - new\nline
prw-r--r-- 0 0 0 2001-09-09 01:46 pipe
srwxr-xr-x 7 8 0 2001-09-09 01:46 sock
EOF
# The plain files' owners and times are the test runner's: mask the times.
awk -v u="$(id -u)" -v g="$(id -g)" '/^-/ { $2 = u; $3 = g } { print }' "$TMP/want" >"$TMP/want2"
awk '/^-/ { $5 = "-"; $6 = "-" } { print }' "$TMP/got" | tr -s ' ' >"$TMP/got2"
same_file "$TMP/got2" "$TMP/want2" "ls -l: devices, socket, fifo and escaped names"
"$SQUASHKIT" ls --json "$img2" >"$TMP/json"
expect_success "ls --json with odd names: valid JSON" "$JSONQ" "$TMP/json"
"$JSONQ" "$TMP/json" '/*/name' >"$TMP/got"
printf 'a\tb\nback\\slash\nbdev\ncdev\nnew\nline\npipe\nsock\n' >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "ls --json: names decode to the exact bytes"
is "$("$JSONQ" "$TMP/json" /2/type /2/major /2/minor /3/type /3/major /3/minor /5/type /6/type | tr '\n' ' ')" \
	"block_device 259 70000 char_device 4 5 fifo socket " "ls --json: device numbers and types"

# Errors.
expect_status 1 "a missing path" "$SQUASHKIT" ls "$img" nope
is "$(cat "$TMP/.err")" "squashkit ls: $img: /nope: no such file or directory in the image" \
	"a missing path: the message"
expect_status 1 "a path under a file" "$SQUASHKIT" ls "$img" small/x
is "$(wc -l <"$TMP/.err")" 1 "a path under a file: one line"
expect_status 2 "an unknown option" "$SQUASHKIT" ls -Z "$img"
is "$(tail -1 "$TMP/.err")" "Try 'squashkit ls --help'." "an unknown option: the hint"
expect_status 2 "no operands" "$SQUASHKIT" ls

# Several PATHs, as ls(1) takes them: files first, then each directory under
# a header (ours names it from the root), in byte order.
header_from_root() { sed 's|^\(.*\):$|/\1:|'; }
"$SQUASHKIT" ls "$img" small dir/sub .hidden dir >"$TMP/got"
is "$?" 0 "several PATHs: exit 0"
(cd "$src" && ls -A small dir/sub .hidden dir) | header_from_root >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "several PATHs: as ls -A lists them"
"$SQUASHKIT" ls "$img" nope small dir/sub >"$TMP/got" 2>"$TMP/err"
is "$?" 1 "several PATHs, one missing: exit 1"
(cd "$src" && ls -A small dir/sub) | header_from_root >"$TMP/want"
same_file "$TMP/got" "$TMP/want" "several PATHs, one missing: the others are listed"
is "$(cat "$TMP/err")" "squashkit ls: $img: /nope: no such file or directory in the image" \
	"several PATHs, one missing: it is named"
"$SQUASHKIT" ls --json "$img" dir/sub small >"$TMP/json"
is "$("$JSONQ" "$TMP/json" '/*/path' | tr '\n' ' ')" "/small /dir/sub/deeper /dir/sub/file " \
	"several PATHs with --json: one array, files first"
expect_status 0 "options after operands" "$SQUASHKIT" ls "$img" dir -l -R
expect_status 0 "--help" "$SQUASHKIT" ls --help
case "$(head -1 "$TMP/.out")" in Usage:*) ok 0 "--help prints usage on stdout" ;; *) ok 1 "--help prints usage on stdout" ;; esac
printf 'not an image at all, just text that is long enough\n' >"$TMP/notimg"
expect_status 1 "not an image" "$SQUASHKIT" ls "$TMP/notimg"
is "$(wc -l <"$TMP/.err")" 1 "not an image: one line"
expect_status 1 "a missing image" "$SQUASHKIT" ls "$TMP/none.sq"

done_testing
