#!/bin/sh
# api-extract-stages.t: what the extraction API tells a front end that
# words its own messages (tests/api/api-extract-stages.c, built against the
# installed library): the failure callback's stage, path, errno and words
# for a destination that exists or cannot be made, an image entry that
# cannot be read, a destination entry that cannot be written, an archive
# path that is a directory and a missing selection; "signals", which holds
# SIGTERM while a directory is extracted and removes it before dying of
# it (without it, the tree a signal interrupts stays); the description
# (sqk_extract_describe, _fd) that mkimage --pseudo-file builds the same tree
# from, refused with its extended attributes counted, and with
# "keep-going"; and sqk_image_bytes_read, which a whole extraction takes
# past every data block.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs getfattr
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest

api_cc "$SQK_SRCDIR/tests/api/api-extract-stages.c"
x() { api_run api-extract-stages "$@" 2>"$TMP/err"; }
failure() { grep '^failure ' "$TMP/err"; }

ref_tree "$TMP/tree"
mksquashfs "$TMP/tree" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the reference tree"

# ---- the stages of a failure ----
x dir "$TMP/img" "$TMP/out"
ok $? "sqk_extract_dir extracts the image"
is "$(grep -c '^failure ' "$TMP/err")" 0 "and tells no failure"
x dir "$TMP/img" "$TMP/out"
is "$?:$(failure)" "1:failure 1 0 -11 0 0 |destination exists (set \"force\")" \
	"an existing destination: stage DEST, SQK_ERR_EXIST"
x dir "$TMP/img" "$TMP/none/out"
is "$?:$(failure)" "1:failure 1 0 -22 2 0 |No such file or directory" \
	"a destination that cannot be made: stage DEST, its errno"
mkdir "$TMP/adir"
x archive "$TMP/img" "$TMP/adir" force
is "$?:$(failure)" "1:failure 1 0 -5 0 0 |is a directory" "an archive path that is a directory"
x dir "$TMP/img" "$TMP/sel" /no/such
is "$?:$(failure)" "1:failure 3 0 -6 0 0 /no/such|no such file or directory in the image" \
	"a missing selection: stage ENTRY, the image's, its path"
mkdir "$TMP/small"
mount -t tmpfs -o size=256k tmpfs "$TMP/small" && at_exit "umount '$TMP/small' 2>/dev/null"
x dir "$TMP/img" "$TMP/small/out"
st=$?
f=$(failure)
is "$st:$(echo "$f" | grep -c '^failure 3 1 -12 28 0 [^|]\+|No space left on device$')" "1:1" \
	"a full destination: stage ENTRY, the output's, ENOSPC and the entry"
p=${f#failure 3 1 -12 28 0 }
p=${p%%|*}
test -n "$p" && test -e "$TMP/tree/$p"
ok $? "which is an entry of the tree ($p)"
is "$(ls -A "$TMP/small")" "" "and what was made is gone"

# A damaged data block: the image's failure at the file.
src=$TMP/k
mkdir -p "$src"
seq 1 20000 >"$src/big"
seq 1 3000 >"$src/other"
"$SQUASHKIT" mkimage -q -c gzip -b 4K "$src" "$TMP/k.img"
smash_block "$TMP/k.img" data /big 3
x dir "$TMP/k.img" "$TMP/k.out"
is "$?:$(failure | cut -d'|' -f1)" "1:failure 3 0 -8 0 0 /big" \
	"a block that cannot be decompressed: stage ENTRY, the image's, at the file"
x dir "$TMP/k.img" "$TMP/k.out" keep-going
is "$?:$(grep -c '^failure ' "$TMP/err"):$(grep -c '^problem /big -8 ' "$TMP/err")" "1:0:1" \
	"keep-going: the lost file goes to the problem callback, no failure is told"

# ---- signals ----
FAULT=$SQK_TOOLS/libfault.so
if [ -f "$FAULT" ]; then
	asan=$(LD_LIBRARY_PATH=$api_lib ldd "$TMP/bin/api-extract-stages" |
		awk '/libasan/ { print $3 }')
	sigrun() { # DEST [OPTION...]: SIGTERM at the third write
		_d=$1
		shift
		env --default-signal=TERM SQK_FAULT=write:3:SIGTERM \
			LD_PRELOAD="${asan:+$asan }$FAULT" LD_LIBRARY_PATH=$api_lib \
			"$TMP/bin/api-extract-stages" dir "$TMP/img" "$_d" threads=1 "$@" 2>"$TMP/err"
	}
	sigrun "$TMP/sig1" signals
	is "$?:$(ls -A "$TMP" | grep -c '^sig1$')" "143:0" \
		"signals: SIGTERM mid-way, the tree removed, death by the signal"
	sigrun "$TMP/sig2"
	is "$?:$(ls -A "$TMP" | grep -c '^sig2$')" "143:1" \
		"without signals: death by the signal, the tree as it was left"
	sigrun "$TMP/sig3" signals keep-going
	is "$?:$(ls -A "$TMP" | grep -c '^sig3$')" "143:1" \
		"signals with keep-going: what was made stays, then death by the signal"
else
	skip "$FAULT is not built" 3
fi

# ---- describe ----
# A tree whose names the syntax holds, some entries with attributes.
p=$TMP/p
mkdir -p "$p/d"
seq 1 5000 >"$p/big"
printf 'one\n' >"$p/d/one"
ln "$p/d/one" "$p/hard"
ln -s d/one "$p/sym"
setfattr -n user.a -v 1 "$p/big" && setfattr -n user.b -v 2 "$p/d"
mksquashfs "$p" "$TMP/p.img" -noappend -quiet -no-progress >/dev/null 2>&1
want=$(getfattr -R -h -m - --absolute-names "$p" 2>/dev/null | grep -c '^# file: ')
x describe "$TMP/p.img" "$TMP/d.pf"
is "$?:$(failure):$(ls -A "$TMP" | grep -c '^d.pf')" \
	"1:failure 5 0 -4 0 $want |the extended attributes of $want entries cannot be held in a pseudo file:0" \
	"a tree with xattrs ($want entries): stage XATTRS, counted, nothing written"
x describe "$TMP/p.img" "$TMP/d.pf" keep-going
is "$?:$(grep -c '^error -5 ' "$TMP/err")" "1:1" "keep-going is refused"
x describe "$TMP/p.img" "$TMP/d.pf" no-xattrs
ok $? "no-xattrs: sqk_extract_describe writes the description"
api_run api-extract-stages describe-fd "$TMP/p.img" - no-xattrs 2>"$TMP/err" | cat >"$TMP/fd.pf"
cmp -s "$TMP/d.pf" "$TMP/fd.pf"
ok $? "sqk_extract_describe_fd to a pipe: the same bytes"
"$SQUASHKIT" unimage -q --no-xattrs --describe="$TMP/cli.pf" "$TMP/p.img" 2>/dev/null
cmp -s "$TMP/d.pf" "$TMP/cli.pf"
ok $? "the same bytes as squashkit unimage --describe"
"$SQUASHKIT" mkimage -q --pseudo-file "$TMP/d.pf" "$TMP/back"
mount -t squashfs -o loop,ro "$TMP/p.img" "$MNT" && "$M" --no-holes --no-xattrs "$MNT" >"$TMP/want" 2>&1
umount "$MNT"
mount -t squashfs -o loop,ro "$TMP/back" "$MNT" && "$M" --no-holes --no-xattrs "$MNT" >"$TMP/back.man" 2>&1
umount "$MNT"
same_file "$TMP/want" "$TMP/back.man" "mkimage --pseudo-file builds from it what the kernel shows of the image"
x describe "$TMP/img" "$TMP/ref.pf" no-xattrs
is "$?:$(failure | cut -d'|' -f1)" "1:failure 3 0 -4 0 0 /names/with" \
	"a name the syntax cannot hold: stage ENTRY, unsupported, at the entry"

# ---- the bytes read ----
x dir "$TMP/img" "$TMP/bytes"
end=$(sed -n 's/^data-end //p' "$TMP/err")
set -- $(sed -n 's/^read //p' "$TMP/err")
[ "$1" -lt "$end" ] && [ "$2" -ge $((end - 96)) ] && [ "$2" -gt "$1" ]
ok $? "bytes read: $1 when opened, $2 after the extraction, past the $end bytes of data"
x dir "$TMP/img" "$TMP/bytes2" /dup/small-a
set -- $(sed -n 's/^read //p' "$TMP/err")
[ "$2" -lt "$end" ]
ok $? "a small selection reads less ($2)"

done_testing
