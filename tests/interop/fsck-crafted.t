#!/bin/sh
# fsck on crafted images, one broken thing each: every check fsck has is
# triggered by at least one image and reported under its name (kernel-decode
# in kernel-refuses.t). The images
# come from two tools: tests/tools/tamper changes one field of an image
# mksquashfs made with uncompressed metadata (-noI -noD -noF -noX), found by
# walking its tables; tests/tools/craft writes hostile images from scratch.
# Also: the exit status is 4, the problem is on stdout as "PATH: CHECK: what"
# with the path of the entry concerned, --json holds the same, and the
# output does not depend on the number of threads.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd mksquashfs
TAMPER=$SQK_TOOLS/tamper
CRAFT=$SQK_TOOLS/craft
JSONQ=$SQK_TOOLS/jsonq
[ -x "$TAMPER" ] || skip_all "$TAMPER is not built"
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

sqk() {
	timeout 60 "$SQUASHKIT" "$@"
}

. "$SQK_SRCDIR/tests/interop/tamper-base.sh"
base=$TMP/base.img
t=$TMP/tree
tamper_base "$t" "$base" || skip_all "mksquashfs failed"
expect_status 0 "the untouched image is clean" sqk fsck -q "$base"

# reports IMAGE CHECK DESC [PATH]: exit 4, CHECK among the JSON errors (at
# PATH when given), and the text output has a line "PATH: CHECK: ..." (or
# "PATH: ..." when CHECK is named as PATH, as the superblock's own checks).
reports() {
	img=$1
	check=$2
	desc=$3
	path=${4:-}
	sqk fsck -j 2 --json "$img" >"$TMP/json" 2>"$TMP/err"
	rc=$?
	sqk fsck -j 2 -q "$img" 2>"$TMP/text" >/dev/null
	found=$("$JSONQ" "$TMP/json" '/errors/*/check' 2>/dev/null | grep -c -x -- "$check")
	line=1
	if [ -n "$path" ] && [ "$path" = "$check" ]; then
		grep -q -- "^$path: " "$TMP/text" && ! grep -q -F -- "$path: $check: " "$TMP/text" ||
			line=0
	elif [ -n "$path" ]; then
		grep -q -F -- "$path: $check: " "$TMP/text" || line=0
	else
		grep -q -- ": $check: " "$TMP/text" || line=0
	fi
	if [ "$rc" -eq 4 ] && [ "$found" -gt 0 ] && [ "$line" -eq 1 ] &&
		[ "$("$JSONQ" "$TMP/json" /clean)" = false ]; then
		ok 0 "$desc: $check${path:+ at $path}"
	else
		ok 1 "$desc: $check${path:+ at $path}"
		echo "#   exit $rc; reported:"
		sed 's/^/#     /' "$TMP/text" | head -10
	fi
}

# --- tampered images: one per check ---

# reports_kind KIND CHECK [PATH]: tamper with the base image in the way KIND.
reports_kind() {
	if ! what=$("$TAMPER" "$1" "$base" "$TMP/$1.img" 2>&1); then
		ok 1 "tamper $1"
		echo "#   $what"
		return
	fi
	reports "$TMP/$1.img" "$2" "tamper $1 ($what)" "${3:-}"
}

# kind CHECK [PATH]: the kind that breaks what CHECK checks.
kind() {
	reports_kind "$1" "$1" "${2:-}"
}

reports_kind magic superblock superblock
reports_kind flags superblock superblock
reports_kind compressor compressor superblock
if mksquashfs "$t" "$TMP/opts.img" -noappend -quiet -no-progress -b 4K -noI -noD -noF -noX \
	-comp gzip -Xcompression-level 1 >/dev/null 2>&1 &&
	what=$("$TAMPER" comp-options "$TMP/opts.img" "$TMP/comp-options.img" 2>&1); then
	reports "$TMP/comp-options.img" compressor "tamper comp-options ($what)" \
		"compressor options"
else
	skip "no gzip options block to tamper with: $what"
fi
kind metadata "directory table"
kind inode /link
kind inode-number "inode table"
kind orphan "inode table"
kind nlink /link
kind dir-header /big
kind dir-name /
kind dir-order /
kind dir-entry /
kind dir-type /
reports_kind dir-link-type dir-type /
kind dir-size /sub
kind dir-parent /sub
kind dir-loop /sub
reports_kind dir-cycle dir-loop "directory table"
kind dir-index /big
kind data /data
kind fragment /hello
kind sparse /holes
kind id /hello
kind xattr /shared
kind export "export table"

# The unknown flag alone does not stop the check: it is the only problem.
sqk fsck -q "$TMP/flags.img" 2>"$TMP/text" >/dev/null
is "$(wc -l <"$TMP/text" | tr -d ' ')" 1 "an unknown flag is reported once and the rest is checked"

# The same problems in the same order, whatever the number of threads.
for k in data orphan dir-loop; do
	sqk fsck -q -j 1 "$TMP/$k.img" >"$TMP/j1" 2>&1
	sqk fsck -q -j 7 "$TMP/$k.img" >"$TMP/j7" 2>&1
	same_file "$TMP/j1" "$TMP/j7" "$k: the same report with -j 1 and -j 7"
done

# A truncated copy: the superblock's bytes_used is past the end of the file.
head -c 8192 "$base" >"$TMP/short.img"
reports "$TMP/short.img" superblock "a truncated image" superblock

# --- craft's hostile images ---
if [ -x "$CRAFT" ]; then
	"$CRAFT" ok "$TMP/craft-ok.img" 2>/dev/null
	expect_status 0 "craft ok is clean" sqk fsck -q "$TMP/craft-ok.img"
	while read -r k check path; do
		if "$CRAFT" "$k" "$TMP/craft-$k.img" 2>"$TMP/err"; then
			reports "$TMP/craft-$k.img" "$check" "craft $k" "$path"
		else
			skip "craft has no kind $k"
		fi
	done <<'EOF'
dotdot dir-name /
dot dir-name /
slash dir-name /
nul dir-name /
dupname dir-order /
unsorted dir-order /
loop dir-loop /sub
truncated superblock superblock
tablepast superblock id table
badinode inode inode table
hugefile inode /hello
EOF
else
	skip "craft is not built"
fi

done_testing
