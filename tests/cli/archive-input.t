#!/bin/sh
# archive-input.t: mkimage --archive takes tar, cpio and zip, and nothing
# else: a text file (which libarchive would read as an mtree description)
# and an empty input (a tar that failed upstream of a pipe) are errors of
# one line, exit 1, and leave no image.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd tar cpio
mkdir -p "$TMP/src/d" "$TMP/out"
echo one >"$TMP/src/a"
echo two >"$TMP/src/d/b"
(cd "$TMP/src" && tar -cf "$TMP/t.tar" . && tar -czf "$TMP/t.tgz" . &&
	find . | cpio -o -H newc >"$TMP/t.cpio" 2>/dev/null)

# refused DESC PATTERN CMD...: exit 1, one line matching PATTERN, no image left.
refused() {
	desc=$1
	pat=$2
	shift 2
	expect_status 1 "$desc: exit 1" "$@"
	if [ "$(wc -l <"$TMP/.err")" -eq 1 ] && grep -qE "$pat" "$TMP/.err"; then
		ok 0 "$desc: one line, '$pat'"
	else
		ok 1 "$desc: one line, '$pat'"
		sed 's/^/#   /' "$TMP/.err" | head -5
	fi
	is "$(ls -A "$TMP/out")" "" "$desc: no image left"
}

printf 'root:x:0:0:root:/root:/bin/sh\ndaemon:x:1:1::/:/bin/false\n' >"$TMP/passwd"
refused "a text file" "^squashkit mkimage: $TMP/passwd: not a tar, cpio or zip archive\$" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/passwd" "$TMP/out/a.img"
printf '#mtree\n./a type=file size=4\n' >"$TMP/mtree"
refused "an mtree description" "^squashkit mkimage: $TMP/mtree: not a tar, cpio or zip archive\$" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/mtree" "$TMP/out/a.img"
: >"$TMP/empty"
refused "an empty file" "^squashkit mkimage: $TMP/empty: empty input, not an archive\$" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/empty" "$TMP/out/a.img"
refused "an empty stdin" "^squashkit mkimage: stdin: empty input, not an archive\$" \
	sh -c "tar -C '$TMP/nonexistent' -c . 2>/dev/null | '$SQUASHKIT' mkimage -q --archive - '$TMP/out/a.img'"
refused "a missing archive" "^squashkit mkimage: $TMP/nope: No such file or directory\$" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/nope" "$TMP/out/a.img"
refused "a directory" "^squashkit mkimage: $TMP/src: Is a directory\$" \
	"$SQUASHKIT" mkimage -q --archive "$TMP/src" "$TMP/out/a.img"

# The formats the man page lists still go through, from a file and from stdin.
for a in t.tar t.tgz t.cpio; do
	expect_success "$a is taken" "$SQUASHKIT" mkimage -q --archive "$TMP/$a" "$TMP/$a.img"
	is "$("$SQUASHKIT" cat "$TMP/$a.img" /d/b 2>&1)" two "$a: its files are in the image"
done
expect_success "a tar on stdin is taken" \
	sh -c "'$SQUASHKIT' mkimage -q --archive - '$TMP/stdin.img' <'$TMP/t.tgz'"
if command -v zip >/dev/null 2>&1; then
	(cd "$TMP/src" && zip -qr "$TMP/t.zip" .)
	expect_success "a zip is taken" "$SQUASHKIT" mkimage -q --archive "$TMP/t.zip" "$TMP/zip.img"
else
	skip "zip is not installed"
fi

done_testing
