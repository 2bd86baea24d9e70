#!/bin/sh
# squashkit stat: the inode fields equal GNU stat of the source; the block
# list, fragment, sparse bytes, inode number and type and the directory
# fields equal what rdsquashfs (squashfs-tools-ng) reads from the same image;
# xattrs equal what the test set; devices equal their pseudo definitions.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs stat truncate seq xargs awk readlink
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
export LC_ALL=C TZ=UTC

src=$TMP/src
mkdir -p "$src/dir/sub1" "$src/dir/sub2" "$src/big"
printf 'hello\n' >"$src/small"
head -c 20000 /dev/urandom >"$src/random"
seq 1 20000 >"$src/text"
# 4K blocks: data, two holes, data: the holes are sparse blocks.
head -c 4096 /dev/urandom >"$src/sparse"
truncate -s 12288 "$src/sparse"
head -c 4096 /dev/urandom >>"$src/sparse"
truncate -s 65536 "$src/hole"
ln -s small "$src/link"
ln "$src/small" "$src/hard"
mkfifo "$src/fifo"
chmod 4751 "$src/random"
touch -d @4294967295 "$src/text"
touch -h -d @1234567890 "$src/link"
(cd "$src/big" && seq 0 2999 | sed 's/^/name_/' | xargs touch)
xattrs=0
if command -v setfattr >/dev/null 2>&1 &&
	setfattr -n user.text -v hello "$src/small" 2>/dev/null; then
	xattrs=1
	setfattr -n user.utf8 -v "caf$(printf '\303\251')" "$src/small"
	setfattr -n user.bin -v 0xff00fe "$src/small"
	setfattr -n user.nl -v "$(printf 'a\nb')" "$src/small"
fi

img=$TMP/img.sq
mksquashfs "$src" "$img" -quiet -no-progress -noappend -b 4096 \
	-p "cdev c 640 12 34 4 5" -p "bdev b 600 0 0 259 70000" -p "sock i 755 7 8 s" \
	>/dev/null 2>&1 || { echo "Bail out! mksquashfs failed"; exit 1; }

type_of() {
	case $1 in
	"regular file" | "regular empty file") echo file ;;
	directory) echo directory ;;
	"symbolic link") echo symlink ;;
	fifo) echo fifo ;;
	*) echo "?$1" ;;
	esac
}

# The inode fields against GNU stat (a directory's size is checked below).
for p in small random text sparse hole link hard fifo dir dir/sub1 big; do
	if ! "$SQUASHKIT" stat --json "$img" "$p" >"$TMP/json" 2>"$TMP/err"; then
		ok 1 "stat $p: exit 0"
		sed 's/^/#   /' "$TMP/err"
		continue
	fi
	"$JSONQ" "$TMP/json" >/dev/null 2>"$TMP/err"
	ok $? "stat $p: valid JSON"
	got=$("$JSONQ" "$TMP/json" /path /type /mode /uid /gid /mtime /nlink | tr '\n' ' ')
	want=$(stat -c '%a|%u|%g|%Y|%h|%F' "$src/$p" | {
		IFS='|' read -r a u g y h f
		printf '/%s %s %d %s %s %s %s ' "$p" "$(type_of "$f")" "0$a" "$u" "$g" "$y" "$h"
	})
	is "$got" "$want" "stat $p: path, type, mode, uid, gid, mtime, nlink"
	if [ ! -d "$src/$p" ]; then
		is "$("$JSONQ" "$TMP/json" /size)" "$(stat -c %s "$src/$p")" "stat $p: size"
	fi
done

"$SQUASHKIT" stat --json "$img" link >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /target)" "$(readlink "$src/link")" "symlink: target"
"$SQUASHKIT" stat --json "$img" small >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /target /blocks/# /fragment/size | tr '\n' ' ')" "null 0 6 " \
	"small file: no target, no blocks, a 6-byte tail in a fragment"
"$SQUASHKIT" stat --json "$img" sparse >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /sparse /blocks/# /blocks/1/size /blocks/1/sparse /blocks/2/sparse /fragment | tr '\n' ' ')" \
	"8192 4 0 true true null " "sparse file: two 4K holes are sparse blocks"
"$SQUASHKIT" stat --json "$img" hole >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /sparse)" 65536 "a file that is all hole: every byte sparse"
"$SQUASHKIT" stat --json "$img" text >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /blocks/0/compressed)" true "text: compressed blocks"
"$SQUASHKIT" stat --json "$img" random >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /blocks/0/compressed /blocks/0/size | tr '\n' ' ')" "false 4096 " \
	"random data: blocks stored uncompressed"

# Devices and a socket from pseudo definitions.
"$SQUASHKIT" stat --json "$img" cdev >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /type /mode /uid /gid /major /minor | tr '\n' ' ')" \
	"char_device 416 12 34 4 5 " "char device: as defined"
"$SQUASHKIT" stat --json "$img" bdev >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /type /mode /major /minor | tr '\n' ' ')" \
	"block_device 384 259 70000 " "block device: a minor above 255 (20-bit encoding)"
"$SQUASHKIT" stat --json "$img" sock >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /type /mode /uid /gid | tr '\n' ' ')" "socket 493 7 8 " \
	"socket: as defined"

# Xattrs: text values as strings, other values as hex.
if [ $xattrs -eq 1 ]; then
	"$SQUASHKIT" stat --json "$img" small >"$TMP/json"
	is "$("$JSONQ" "$TMP/json" /xattrs/@ | sort | tr '\n' ' ')" \
		"user.bin user.nl user.text user.utf8 " "xattrs: every name"
	is "$("$JSONQ" "$TMP/json" /xattrs/user.text)" hello "xattrs: a text value"
	is "$("$JSONQ" "$TMP/json" /xattrs/user.utf8)" "caf$(printf '\303\251')" "xattrs: a UTF-8 value"
	is "$("$JSONQ" "$TMP/json" /xattrs/user.nl)" "$(printf 'a\nb')" "xattrs: a newline survives"
	is "$("$JSONQ" "$TMP/json" /xattrs/user.bin/hex)" ff00fe "xattrs: a binary value as hex"
	"$SQUASHKIT" stat "$img" small >"$TMP/text"
	is "$(grep '^  user.bin: ' "$TMP/text")" "  user.bin: 0xff00fe" "xattrs in text: hex"
	is "$(grep '^  user.nl: ' "$TMP/text")" '  user.nl: "a\nb"' "xattrs in text: escaped"
else
	skip "xattrs: setfattr is missing or the file system refuses user xattrs"
fi
"$SQUASHKIT" stat --json "$img" dir >"$TMP/json"
is "$("$JSONQ" "$TMP/json" /xattrs/# /xattr_index | tr '\n' ' ')" "0 null " "no xattrs: empty"

# What rdsquashfs reads from the same inodes.
if command -v rdsquashfs >/dev/null 2>&1; then
	for p in small random text sparse hole hard; do
		"$SQUASHKIT" stat --json "$img" "$p" >"$TMP/json"
		"$JSONQ" "$TMP/json" /inode /extended /blocks_start /sparse_field >"$TMP/got"
		if [ "$("$JSONQ" "$TMP/json" /blocks/#)" -gt 0 ]; then
			"$JSONQ" "$TMP/json" '/blocks/*/size' '/blocks/*/compressed' '/blocks/*/start' >>"$TMP/got"
		fi
		frag=$("$JSONQ" "$TMP/json" /fragment/index /fragment/offset 2>/dev/null | tr '\n' ' ')
		echo "fragment $frag" >>"$TMP/got"
		rdsquashfs -s "/$p" "$img" | awk '
			function hex(s, v, i) {
				s = tolower(substr(s, 3))
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v
			}
			BEGIN { n = 0 }
			/^Inode number:/ { num = $3 }
			/^Inode type:/ { ext = ($3 == "extended") ? "true" : "false" }
			/^Blocks start:/ { start = $3 }
			/^Sparse:/ { sparse = $2 }
			/^Fragment index:/ { fi = $3 }
			/^Fragment offset:/ { fo = $3 }
			/^\tBlock #/ { size[n] = $4; comp[n] = ($5 == "(compressed)") ? "true" : "false"; n++ }
			END {
				print num; print ext; print start; print sparse == "" ? "null" : sparse
				for (i = 0; i < n; i++) print size[i]
				for (i = 0; i < n; i++) print (size[i] == 0 ? "false" : comp[i])
				pos = start
				for (i = 0; i < n; i++) { print pos; pos += size[i] }
				if (fi == "0xFFFFFFFF") print "fragment <missing> <missing> "
				else printf "fragment %d %d \n", hex(fi), fo
			}' >"$TMP/want"
		same_file "$TMP/got" "$TMP/want" "stat $p: inode number, type, blocks, fragment as rdsquashfs reads them"
	done
	for p in dir big; do
		"$SQUASHKIT" stat --json "$img" "$p" >"$TMP/json"
		"$JSONQ" "$TMP/json" /inode /size /directory/parent /directory/index_count \
			/directory/block /directory/offset >"$TMP/got"
		rdsquashfs -s "/$p" "$img" | awk '
			function hex(s, v, i) {
				s = tolower(substr(s, 3))
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v
			}
			/^Inode number:/ { num = $3 }
			/^Listing size:/ { size = $3 }
			/^Parent inode:/ { parent = $3 }
			/^Directory index entries:/ { idx = $4 }
			/^Start block:/ { blk = $3 }
			/^Offset:/ { off = $2 }
			END { print num; print size; print parent; print idx == "" ? 0 : idx; print blk; print off }' >"$TMP/want"
		same_file "$TMP/got" "$TMP/want" "stat $p: directory fields as rdsquashfs reads them"
	done
else
	skip "rdsquashfs is not installed"
fi

# Text output carries the same facts.
"$SQUASHKIT" stat "$img" random >"$TMP/text"
is "$?" 0 "text output: exit 0"
is "$(grep -E '^(type|mode|size): ' "$TMP/text" | tr '\n' ' ')" \
	"type: file mode: 4751 -rwsr-x--x size: 20000 " "text output: type, mode, size"

# PATH is resolved like lstat: links on the way are followed, the last is not.
is "$("$SQUASHKIT" stat --json "$img" link | "$JSONQ" - /type)" symlink "the last symlink is not followed"
is "$("$SQUASHKIT" stat --json "$img" /dir/../small | "$JSONQ" - /type /size | tr '\n' ' ')" \
	"file 6 " "'..' in a path"

# Errors.
expect_status 1 "a missing path" "$SQUASHKIT" stat "$img" nope
is "$(cat "$TMP/.err")" "squashkit stat: $img: /nope: no such file or directory in the image" \
	"a missing path: the message"
expect_status 2 "no PATH" "$SQUASHKIT" stat "$img"
expect_status 2 "no operands" "$SQUASHKIT" stat
expect_status 2 "too many operands" "$SQUASHKIT" stat "$img" a b
expect_status 2 "an unknown option" "$SQUASHKIT" stat --bogus "$img" small
is "$(tail -1 "$TMP/.err")" "Try 'squashkit stat --help'." "an unknown option: the hint"
expect_status 0 "options after operands" "$SQUASHKIT" stat "$img" small --json
expect_status 0 "--help" "$SQUASHKIT" stat --help
printf 'not an image at all, just text that is long enough\n' >"$TMP/notimg"
expect_status 1 "not an image" "$SQUASHKIT" stat "$TMP/notimg" small
is "$(wc -l <"$TMP/.err")" 1 "not an image: one line"

done_testing
