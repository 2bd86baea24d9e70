#!/bin/sh
# The manifest tool that the interop tests compare trees with: its lines for
# known entries, its escaping and order, each option, and that every kind of
# difference between two trees shows up in its output.
. "$SQK_SRCDIR/tests/lib.sh"

need_cmd setfattr truncate
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"

root=0
[ "$(id -u)" -eq 0 ] && root=1
me="uid=$(id -u) gid=$(id -g)"

# line DIR PATH [FLAGS...]: the manifest line of PATH (escaped) in DIR.
line() {
	dir=$1
	p=$2
	shift 2
	"$MANIFEST" "$@" "$dir" | awk -v p="$p" '$1 == p'
}

t=$TMP/t
mkdir "$t"
printf abc >"$t/abc"
chmod 0640 "$t/abc"
touch -d @1000000000 "$t/abc"
is "$(line "$t" abc)" \
	"abc file mode=0640 $me mtime=1000000000 size=3 sha256=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad data=0+3" \
	"a file: type, mode, owner, mtime, size, SHA-256 of abc, extents"

: >"$t/empty"
is "$(line "$t" empty | sed 's/.* size=/size=/')" \
	"size=0 sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 data=-" \
	"an empty file has no extents"

# Lengths around the SHA-256 padding boundary (55, 56, 64) and a large file.
for n in 55 56 63 64 65 1000000; do
	head -c $n /dev/urandom >"$t/r$n"
	want=$(sha256sum <"$t/r$n" | cut -d' ' -f1)
	got=$(line "$t" "r$n" | sed 's/.* sha256=\([0-9a-f]*\).*/\1/')
	is "$got" "$want" "SHA-256 of $n bytes agrees with sha256sum"
	rm "$t/r$n"
done

truncate -s 1M "$t/sparse"
head -c 4096 /dev/urandom | dd of="$t/sparse" bs=4096 seek=64 conv=notrunc status=none
is "$(line "$t" sparse | sed 's/.* data=/data=/')" "data=262144+4096" "holes: only the data extent"
is "$(line "$t" sparse --no-holes | grep -c data=)" 0 "--no-holes drops the extents"

ln -s ../target "$t/link"
touch -h -d @2000000000 "$t/link"
is "$(line "$t" link | sed 's/ uid=[0-9]* gid=[0-9]*//')" \
	"link symlink mode=0777 mtime=2000000000 target=../target" "a symlink is not followed"
is "$(line "$t" link --no-mtime-links | grep -c mtime=)" 0 "--no-mtime-links drops a symlink's time"
mkdir "$t/d"
ln -s d "$t/to-d"
printf x >"$t/d/inside"
is "$("$MANIFEST" "$t" | grep -c '^to-d/')" 0 "a symlink to a directory is not descended"
touch -d @1500000000 "$t/d"
is "$(line "$t" d | sed 's/.* mtime=/mtime=/')" "mtime=1500000000" "a directory's time"
is "$(line "$t" d --no-mtime-dirs | grep -c mtime=)" 0 "--no-mtime-dirs drops it"
is "$(line "$t" abc --no-mtime-dirs | grep -c mtime=)" 1 "--no-mtime-dirs keeps a file's time"
is "$(line "$t" abc --no-owner | grep -c 'uid=\|gid=')" 0 "--no-owner drops uid and gid"

is "$("$MANIFEST" "$t" | head -1 | cut -d' ' -f1-2)" ". dir" "the root is '.'"
is "$("$MANIFEST" --no-root "$t" | grep -c '^\. ')" 0 "--no-root drops it"

mkfifo "$t/fifo"
is "$(line "$t" fifo | cut -d' ' -f2)" fifo "a fifo"
if command -v python3 >/dev/null 2>&1 &&
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$t/sock"; then
	is "$(line "$t" sock | cut -d' ' -f2)" sock "a socket"
	is "$("$MANIFEST" --no-sockets "$t" | grep -c '^sock ')" 0 "--no-sockets drops it"
	rm "$t/sock"
else
	skip "no python3 to make a socket"
fi
if [ $root -eq 1 ]; then
	mknod "$t/dev" c 259 65536
	is "$(line "$t" dev | sed 's/.* dev=/dev=/')" "dev=259:65536" "a device's numbers"
	rm "$t/dev"
else
	skip "devices need root"
fi

# xattrs: sorted by name, values in hex, filtered by namespace.
setfattr -n user.zz -v 0x00ff "$t/abc"
setfattr -n user.aa -v "hi" "$t/abc"
setfattr -n user.empty "$t/abc"
is "$(line "$t" abc | sed 's/.* data=0+3 //')" "xattr:user.aa=6869 xattr:user.empty= xattr:user.zz=00ff" \
	"xattrs sorted by name, values as hex"
is "$(line "$t" abc --no-xattrs | grep -c xattr:)" 0 "--no-xattrs drops them"
if [ $root -eq 1 ]; then
	setfattr -n trusted.t -v 1 "$t/abc"
	is "$(line "$t" abc --xattr-ns trusted | sed 's/.* data=0+3 //')" "xattr:trusted.t=31" \
		"--xattr-ns keeps only the namespaces named"
	is "$(line "$t" abc --xattr-ns user,trusted | grep -o xattr: | wc -l | tr -d ' ')" 4 \
		"--xattr-ns takes a list"
	setfattr -x trusted.t "$t/abc"
else
	skip "trusted xattrs need root"
	skip "trusted xattrs need root"
fi

# Hard links: every member names the first path in byte order.
mkdir "$t/h"
printf linked >"$t/h/b"
ln "$t/h/b" "$t/h/a"
ln "$t/h/b" "$t/h/c"
printf alone >"$t/h/single"
is "$("$MANIFEST" "$t/h" | sed -n 's/^\([^ ]*\) .* link=\([^ ]*\)$/\1>\2/p' | tr '\n' ' ')" \
	"a>a b>a c>a " "hard links name the first path of their group"
is "$(line "$t/h" single | grep -c link=)" 0 "a file with one name has no group"

# Escaping and raw byte order.
e=$TMP/e
mkdir "$e"
for n in "a b" "a
b" 'a\b' "$(printf 'a\tb')" "$(printf '\377')" "naïve" B a; do
	: >"$e/$n"
done
"$MANIFEST" --no-root "$e" | cut -d' ' -f1 >"$TMP/names"
cat >"$TMP/want" <<'EOF'
B
a
a\tb
a\nb
a\x20b
a\\b
na\xc3\xafve
\xff
EOF
same_file "$TMP/want" "$TMP/names" "names are escaped to plain ASCII and sorted by raw bytes"
long=$(awk 'BEGIN { for (i = 0; i < 255; i++) printf "n" }')
: >"$e/$long"
is "$(line "$e" "$long" | cut -d' ' -f2)" file "a 255-byte name"

# Every kind of difference between two trees shows.
mkdir "$TMP/base"
printf 'content\n' >"$TMP/base/f"
printf 'content\n' >"$TMP/base/g"
ln -s f "$TMP/base/l"
setfattr -n user.x -v 1 "$TMP/base/f"
touch -d @1000000000 "$TMP/base/f" "$TMP/base/g"
touch -h -d @1000000000 "$TMP/base/l"
# (directory times are left out: every change in a copy touches its directory)
"$MANIFEST" --no-mtime-dirs "$TMP/base" >"$TMP/base.m"
n=0
# differs DESC SHELL-COMMAND: the change, made in a copy, changes the manifest.
differs() {
	n=$((n + 1))
	c=$TMP/copy$n
	cp -a "$TMP/base" "$c"
	(cd "$c" && eval "$2")
	"$MANIFEST" --no-mtime-dirs "$c" >"$TMP/copy.m"
	if cmp -s "$TMP/base.m" "$TMP/copy.m"; then ok 1 "a difference shows: $1"; else
		ok 0 "a difference shows: $1"
	fi
	rm -rf "$c"
}
is "$(cp -a "$TMP/base" "$TMP/same" && "$MANIFEST" --no-mtime-dirs "$TMP/same" |
	cmp - "$TMP/base.m" && echo same)" \
	same "a copy made with cp -a has the same manifest"
differs "one byte of content" 'printf "cOntent\n" >f; touch -d @1000000000 f'
differs "mode" 'chmod 0600 f'
differs "setuid" 'chmod u+s f'
differs "mtime" 'touch -d @1000000001 f'
differs "symlink mtime" 'touch -h -d @1000000001 l'
differs "symlink target" 'rm l; ln -s g l; touch -h -d @1000000000 l'
differs "xattr value" 'setfattr -n user.x -v 2 f'
differs "xattr added" 'setfattr -n user.y -v 1 g'
differs "hard link instead of a copy" 'rm g; ln f g'
differs "a missing file" 'rm g'
differs "file turned into a fifo" 'rm g; mkfifo g'
if [ $root -eq 1 ]; then
	differs "owner" 'chown 1:1 g'
fi
# zeros versus a hole of the same length: only the extents tell them apart
head -c 8192 /dev/zero >"$TMP/base/z"
touch -d @1000000000 "$TMP/base/z"
"$MANIFEST" --no-mtime-dirs "$TMP/base" >"$TMP/base.m"
differs "zeros written versus a hole" 'rm z; truncate -s 8192 z; touch -d @1000000000 z'

# Failures: one line and exit 1; usage errors exit 2.
"$MANIFEST" "$TMP/nonexistent" >/dev/null 2>"$TMP/err"
is "$?" 1 "a missing directory fails with exit 1"
is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "with one line on stderr"
"$MANIFEST" --bogus "$t" >/dev/null 2>&1
is "$?" 2 "an unknown option exits 2"

done_testing
