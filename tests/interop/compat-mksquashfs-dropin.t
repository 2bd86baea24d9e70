#!/bin/sh
# squashkit mksquashfs where a drop-in is most easily told apart from
# Debian's mksquashfs (4.5.1): -nopad, -wildcards patterns and dot files,
# appending without -comp (and with options the peer ignores when it
# appends), -p over a path a source has, an exclude of a path that is not
# there, and the summary with -no-progress. Each case runs the same command
# line through both and compares what unsquashfs lists of both images, the
# exit statuses and, where the peer warns, that squashkit warns too.
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd mksquashfs unsquashfs
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"
SQK=$SQUASHKIT

S=$TMP/src
mkdir -p "$S/dir/sub" "$S/top"
echo a >"$S/dir/a"
echo hidden >"$S/dir/.hidden"
echo deep >"$S/dir/sub/.x"
echo y >"$S/dir/sub/y"
echo dot >"$S/top/.dot.txt"
echo t >"$S/top/t.txt"
echo plain >"$S/plain"
# Sizes that are no multiple of 4 KiB, whatever the compressor makes of them.
head -c 5000 /dev/urandom >"$S/random"
M=$TMP/more
mkdir -p "$M/one" "$M/two"
echo more >"$M/one/more"
echo other >"$M/two/other"

# list IMG: what unsquashfs -lln says of the tree (a directory's size depends
# on where its entries' inodes fell: left out).
list() {
	unsquashfs -lln -UTC "$1" 2>&1 |
		sed '/^Parallel unsquashfs/d; s|^\(d[^ ]* [^ ]*\) *[0-9]* |\1 |'
}
# both DESC SOURCE OPTION...: one command line through both; the images are
# p.img and o.img, the outputs p.out/p.err and o.out/o.err.
both() {
	desc=$1
	src=$2
	shift 2
	rm -f "$TMP/p.img" "$TMP/o.img"
	mksquashfs "$src" "$TMP/p.img" "$@" >"$TMP/p.out" 2>"$TMP/p.err"
	prc=$?
	"$SQK" mksquashfs "$src" "$TMP/o.img" "$@" >"$TMP/o.out" 2>"$TMP/o.err"
	orc=$?
	is "$orc" "$prc" "$desc: the same exit status as mksquashfs ($prc)"
	[ "$orc" -eq "$prc" ] || sed 's/^/#   /' "$TMP/o.err"
}
same_tree() {
	list "$TMP/p.img" >"$TMP/p.list"
	list "$TMP/o.img" >"$TMP/o.list"
	same_file "$TMP/p.list" "$TMP/o.list" "$1: unsquashfs lists the same tree"
}
size() { stat -c %s "$1"; }
bytes_used() {
	"$SQK" inspect --json "$1" >"$TMP/i.json" 2>&1 && "$JSONQ" "$TMP/i.json" /bytes_used
}

# ---- -nopad: OpenWrt's images end where the image does ----
both "-nopad" "$S" -noappend -quiet -nopad
same_tree "-nopad"
is "$(size "$TMP/p.img")" "$(bytes_used "$TMP/p.img")" "-nopad: mksquashfs's file is bytes_used long"
is "$(size "$TMP/o.img")" "$(bytes_used "$TMP/o.img")" "-nopad: so is squashkit's"
[ $(($(size "$TMP/o.img") % 4096)) -ne 0 ] && [ $(($(size "$TMP/p.img") % 4096)) -ne 0 ]
ok $? "-nopad: neither is a multiple of 4096 (sizes $(size "$TMP/p.img") and $(size "$TMP/o.img"))"
both "without -nopad" "$S" -noappend -quiet
is "$(($(size "$TMP/o.img") % 4096)) $(($(size "$TMP/p.img") % 4096))" "0 0" \
	"without -nopad both are padded to 4 KiB"

# ---- -wildcards: mksquashfs's fnmatch flags (no leading dot for a wildcard) ----
both "-wildcards -e 'dir/*'" "$S" -noappend -quiet -wildcards -e 'dir/*'
same_tree "-wildcards -e 'dir/*'"
grep -q 'squashfs-root/dir/\.hidden$' "$TMP/o.list"
ok $? "-wildcards -e 'dir/*': dir/.hidden is kept"
! grep -q 'squashfs-root/dir/a$' "$TMP/o.list"
ok $? "-wildcards -e 'dir/*': dir/a is not"
both "-wildcards at any depth, explicit dots, extended patterns" "$S" -noappend -quiet \
	-wildcards -e '... *.txt' '... .x' 'top/@(t|u)*' 'dir/+(s)ub/!(z)'
same_tree "-wildcards at any depth, explicit dots, extended patterns"
both "-wildcards with a path" "$S" -noappend -quiet -wildcards -e ./dir
[ ! -e "$TMP/o.img" ] && [ "$(wc -l <"$TMP/o.err")" -eq 1 ]
ok $? "-wildcards with a path: refused in one line, nothing written"

# ---- appending without -comp: the image's compressor ----
rm -f "$TMP/p.img" "$TMP/o.img"
mksquashfs "$S" "$TMP/p.img" -noappend -quiet -comp xz >/dev/null 2>&1
"$SQK" mksquashfs "$S" "$TMP/o.img" -noappend -quiet -comp xz
ok $? "an xz image to append to"
mksquashfs "$M/one" "$TMP/p.img" -quiet >/dev/null 2>&1
prc=$?
"$SQK" mksquashfs "$M/one" "$TMP/o.img" -quiet 2>"$TMP/o.err"
orc=$?
is "$orc $prc" "0 0" "appending without -comp: both append"
[ $orc -eq 0 ] || sed 's/^/#   /' "$TMP/o.err"
same_tree "appending without -comp"
"$SQK" inspect --json "$TMP/o.img" >"$TMP/i.json"
is "$("$JSONQ" "$TMP/i.json" /compression)" xz "appending without -comp: still xz"
mksquashfs "$M/two" "$TMP/p.img" -quiet -comp gzip -b 64K -noI -no-fragments >/dev/null 2>&1
prc=$?
"$SQK" mksquashfs "$M/two" "$TMP/o.img" -quiet -comp gzip -b 64K -noI -no-fragments \
	2>"$TMP/o.err"
orc=$?
is "$orc $prc" "0 0" "appending with -comp gzip -b 64K -noI -no-fragments: ignored by both"
grep -q "warning: .*: appending: .*ignored" "$TMP/o.err"
ok $? "appending with them: squashkit says they are ignored"
same_tree "appending with options the peer ignores"
"$SQK" inspect --json "$TMP/o.img" >"$TMP/i.json"
is "$("$JSONQ" "$TMP/i.json" /compression) $("$JSONQ" "$TMP/i.json" /block_size)" \
	"xz 131072" "appending with them: the image keeps xz and 128K blocks"

# ---- -p over a path a source has: a warning, the source's file kept ----
both "-p over a source's file" "$S" -noappend -quiet -p 'plain f 644 0 0 echo new'
is "$orc" 0 "-p over a source's file: squashkit goes on"
[ -s "$TMP/p.err" ] && grep -q "warning: .*plain.*already in a source" "$TMP/o.err"
ok $? "-p over a source's file: both warn"
same_tree "-p over a source's file"
is "$(unsquashfs -cat "$TMP/o.img" plain 2>/dev/null)" plain \
	"-p over a source's file: the source's file is kept"

# ---- an exclude that names nothing: a warning ----
both "an exclude of ./nothere" "$S" -noappend -quiet -e ./nothere dir/a
[ -s "$TMP/p.err" ] && grep -q "warning: \./nothere: cannot stat" "$TMP/o.err"
ok $? "an exclude of ./nothere: both warn"
same_tree "an exclude of ./nothere"
both "an exclude of a name no source has" "$S" -noappend -quiet -e nothere
[ ! -s "$TMP/p.err" ] && [ ! -s "$TMP/o.err" ]
ok $? "an exclude of a name no source has: neither warns, as mksquashfs"

# ---- the summary at the end (4.5.1 draws its bar on stdout even with -quiet) ----
both "-no-progress" "$S" -noappend -no-progress
grep -q "Squashfs 4.0 filesystem" "$TMP/p.out" && grep -q "^image  *$TMP/o.img$" "$TMP/o.out"
ok $? "-no-progress: both print the summary on stdout"
both "-quiet" "$S" -noappend -quiet
! grep -q "Squashfs 4.0 filesystem" "$TMP/p.out" && [ ! -s "$TMP/o.out" ]
ok $? "-quiet: neither prints it"

done_testing
