#!/bin/sh
# The options that pipelines pass to mksquashfs, in mkimage and unimage:
# xattr filters and additions, forced modes and the root's owner, and sort
# files. For each: what it does to the image (read back with squashkit stat
# --json and unsquashfs), and its bad values (one line and the hint, exit 2,
# nothing written). The expected modes are worked out by hand from chmod(1).
. "${SQK_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"

need_cmd unsquashfs mkfifo awk od tar
JSONQ=$SQK_TOOLS/jsonq
[ -x "$JSONQ" ] || skip_all "$JSONQ is not built"

SQK=$SQUASHKIT
S=$TMP/src
mkdir -p "$S/dir/sub" "$S/open"
printf 'hello\n' >"$S/plain"
printf '#!/bin/sh\n' >"$S/tool"
printf 'x\n' >"$S/dir/sub/deep"
ln -s plain "$S/link"
mkfifo "$S/dir/fifo"
chmod 0644 "$S/plain"
chmod 0755 "$S/tool" "$S/dir" "$S/dir/sub" "$S"
chmod 0666 "$S/dir/sub/deep"
chmod 0777 "$S/open"

# st IMG PATH POINTER...: fields of squashkit stat --json, one a line.
st() {
	img=$1
	path=$2
	shift 2
	"$SQK" stat --json "$img" "$path" >"$TMP/st.json" 2>"$TMP/st.err" || {
		echo "stat failed: $(cat "$TMP/st.err")"
		return
	}
	"$JSONQ" "$TMP/st.json" "$@"
}
# mode IMG PATH: the permission bits, in octal.
mode() { printf '%o\n' "$(st "$1" "$2" /mode)"; }
owner() { echo "$(st "$1" "$2" /uid)/$(st "$1" "$2" /gid)"; }

# usage_error DESC ARGS...: exit 2, one message line and the hint, no image.
usage_error() {
	desc=$1
	shift
	rm -f "$TMP/never.sqfs"
	expect_status 2 "$desc" "$@"
	lines=$(wc -l <"$TMP/.err")
	if [ "$lines" -eq 2 ] && tail -1 "$TMP/.err" | grep -q "^Try 'squashkit"; then
		ok 0 "$desc: one line and the hint"
	else
		ok 1 "$desc: one line and the hint"
		sed 's/^/#   /' "$TMP/.err"
	fi
	[ ! -e "$TMP/never.sqfs" ]
	ok $? "$desc: nothing written"
}

"$SQK" mkimage --help >"$TMP/help" 2>&1
for o in --xattrs-include --xattrs-exclude --xattrs-add --file-mode --dir-mode --root-mode \
	--root-uid --root-gid --sort; do
	grep -q -- "$o" "$TMP/help"
	ok $? "mkimage --help lists $o"
done
"$SQK" unimage --help >"$TMP/help" 2>&1
for o in --xattrs-include --xattrs-exclude; do
	grep -q -- "$o" "$TMP/help"
	ok $? "unimage --help lists $o"
done

# ---- Bad values ----
for m in 8 0758 10000 017777 '' u u+q 'u=rg' 'u+r,,g+w' 'a=r,' '755,u+x' ' 644'; do
	usage_error "--file-mode '$m' is refused" "$SQK" mkimage --file-mode "$m" "$S" \
		"$TMP/never.sqfs"
done
usage_error "--dir-mode refuses a bad mode" "$SQK" mkimage --dir-mode g+z "$S" "$TMP/never.sqfs"
usage_error "--root-mode refuses a bad mode" "$SQK" mkimage --root-mode 9 "$S" "$TMP/never.sqfs"
grep -q "invalid --root-mode '9'" "$TMP/.err"
ok $? "the error names the option and the value"
for v in -1 4294967296 abc ''; do
	usage_error "--root-uid '$v' is refused" "$SQK" mkimage --root-uid "$v" "$S" "$TMP/never.sqfs"
	usage_error "--root-gid '$v' is refused" "$SQK" mkimage --root-gid "$v" "$S" "$TMP/never.sqfs"
done
usage_error "--xattrs-include refuses a bad regex" "$SQK" mkimage --xattrs-include '(' "$S" \
	"$TMP/never.sqfs"
usage_error "--xattrs-exclude refuses a bad regex" "$SQK" mkimage --xattrs-exclude 'a[' "$S" \
	"$TMP/never.sqfs"
for a in user.a 'user.a=' '=x' 'user.=x' 'system.posix=1' 'other.a=1' 'user.a=0x123' \
	'user.a=0xzz' 'user.a=0s' 'user.a=0s@@@@' 'user.a=0sA' 'user.a=0t\9' 'user.a=0t\400' \
	'user.a=0tab\01'; do
	# The descriptions go through echo, which would read the backslashes.
	desc=$(printf '%s' "$a" | sed 's/\\/\\\\/g')
	usage_error "--xattrs-add '$desc' is refused" "$SQK" mkimage --xattrs-add "$a" "$S" \
		"$TMP/never.sqfs"
done
usage_error "--xattrs-add with the same name twice" "$SQK" mkimage --xattrs-add user.a=1 \
	--xattrs-add user.a=2 "$S" "$TMP/never.sqfs"
usage_error "--xattrs-add with --no-xattrs" "$SQK" mkimage --xattrs-add user.a=1 --no-xattrs \
	"$S" "$TMP/never.sqfs"
usage_error "unimage --xattrs-include refuses a bad regex" "$SQK" unimage --xattrs-include \
	'*(' -d "$TMP/never.sqfs" "$TMP/none.sqfs"
usage_error "unimage --xattrs-exclude refuses a bad regex" "$SQK" unimage --xattrs-exclude \
	'[[:nope:]]' -d "$TMP/never.sqfs" "$TMP/none.sqfs"

n=0
for line in 'plain' 'plain 32768' 'plain -32769' 'plain 99999999999999999999' 'plain 5x' \
	'plain 5 6' 'plain x' 'plain +' 'plain 1.5'; do
	n=$((n + 1))
	printf '# a comment\n\ndir 3\n%s\n' "$line" >"$TMP/bad$n.sort"
	usage_error "a sort line '$line' is refused" "$SQK" mkimage --sort "$TMP/bad$n.sort" "$S" \
		"$TMP/never.sqfs"
	grep -q "^squashkit mkimage: $TMP/bad$n.sort:4: " "$TMP/.err"
	ok $? "sort line '$line': the error names the file and the line"
done
expect_status 1 "a sort file that cannot be read" "$SQK" mkimage --sort "$TMP/nonexistent" \
	"$S" "$TMP/never.sqfs"
grep -q "^squashkit mkimage: $TMP/nonexistent: No such file" "$TMP/.err"
ok $? "the failure names the sort file"

# ---- Modes ----
img=$TMP/m.sqfs
expect_success "--file-mode octal" "$SQK" mkimage -q --file-mode 0640 "$S" "$img"
is "$(mode "$img" /plain) $(mode "$img" /tool) $(mode "$img" /link) $(mode "$img" /dir/fifo)" \
	"640 640 640 640" "--file-mode sets files, symlinks and fifos"
is "$(mode "$img" /) $(mode "$img" /dir) $(mode "$img" /open)" "755 755 777" \
	"--file-mode leaves directories alone"
expect_success "--file-mode symbolic" "$SQK" mkimage -q -f --file-mode 'u+rwX,go-w' "$S" "$img"
is "$(mode "$img" /plain) $(mode "$img" /tool) $(mode "$img" /dir/sub/deep)" "644 755 644" \
	"u+rwX,go-w: X only where some x is set, w taken from group and other"
expect_success "--file-mode with setuid" "$SQK" mkimage -q -f --file-mode 'a=rx,u+ws' "$S" "$img"
is "$(mode "$img" /plain)" 4755 "a=rx,u+ws sets setuid"
expect_success "--dir-mode octal" "$SQK" mkimage -q -f --dir-mode 0700 "$S" "$img"
is "$(mode "$img" /) $(mode "$img" /dir) $(mode "$img" /dir/sub) $(mode "$img" /open)" \
	"700 700 700 700" "--dir-mode sets every directory, the root too"
is "$(mode "$img" /plain)" 644 "--dir-mode leaves files alone"
expect_success "--dir-mode symbolic" "$SQK" mkimage -q -f --dir-mode 'o-rwx,g=u' "$S" "$img"
is "$(mode "$img" /dir) $(mode "$img" /open)" "770 770" "o-rwx,g=u: copies user bits to group"
expect_success "--root-mode with --dir-mode" "$SQK" mkimage -q -f --dir-mode 0700 \
	--root-mode 0751 "$S" "$img"
is "$(mode "$img" /) $(mode "$img" /dir)" "751 700" "--root-mode wins for the root"
expect_success "--root-mode symbolic" "$SQK" mkimage -q -f --root-mode go-rx "$S" "$img"
is "$(mode "$img" /) $(mode "$img" /dir)" "700 755" \
	"symbolic --root-mode applies to the source root's mode only"
printf 'file f 644 0 0\n' >"$TMP/only.list"
expect_success "--root-mode on a root no source describes" "$SQK" mkimage -q -f \
	--root-mode g+w --listing "$TMP/only.list" "$img"
is "$(mode "$img" /)" 775 "the made-up root (0755) gets g+w"
expect_success "--root-mode 01777" "$SQK" mkimage -q -f --root-mode 01777 "$S" "$img"
unsquashfs -lln "$img" | awk '$6 == "squashfs-root" {print $1}' >"$TMP/rootls"
is "$(cat "$TMP/rootls")" drwxrwxrwt "unsquashfs shows the sticky root"

# ---- Owners ----
expect_success "--root-uid and --root-gid" "$SQK" mkimage -q -f --uid 7 --gid 8 --root-uid 5 \
	--root-gid 6 "$S" "$img"
is "$(owner "$img" /) $(owner "$img" /dir) $(owner "$img" /plain)" "5/6 7/8 7/8" \
	"the root gets its own owner, the rest --uid and --gid"
expect_success "--all-root with a root owner" "$SQK" mkimage -q -f --root-uid 1000 --all-root \
	--root-gid 100 "$S" "$img"
is "$(owner "$img" /) $(owner "$img" /dir/sub/deep)" "1000/100 0/0" \
	"--root-uid and --root-gid win over --all-root, in any order"
unsquashfs -lln "$img" | awk '{print $2}' | sort | uniq -c | awk '{print $2 ":" $1}' \
	>"$TMP/owners"
is "$(tr '\n' ' ' <"$TMP/owners")" "0/0:8 1000/100:1 " "unsquashfs: one root-owned root, the rest 0/0"
expect_success "--root-gid alone" "$SQK" mkimage -q -f --root-gid 42 "$S" "$img"
is "$(owner "$img" /)" "$(stat -c %u "$S")/42" "--root-gid alone keeps the root's uid"

# ---- xattrs: adding ----
expect_success "--xattrs-add in each encoding" "$SQK" mkimage -q -f \
	--xattrs-add 'user.plain=hello world' --xattrs-add user.b64=0saGVsbG8gd29ybGQ= \
	--xattrs-add user.hex=0x68656C6c6f20776f726c64 --xattrs-add 'user.text=0thello\040world' \
	--xattrs-add user.bin=0b0x41 --xattrs-add user.one=0 --xattrs-add 'trusted.nul=0ta\000b' \
	--xattrs-add security.label=0Sc2VjcmV0 "$S" "$img"
for x in plain b64 hex text; do
	is "$(st "$img" /plain "/xattrs/user.$x")" "hello world" "--xattrs-add user.$x decodes"
done
is "$(st "$img" /plain /xattrs/user.bin /xattrs/user.one | tr '\n' ' ')" "0x41 0 " \
	"0b takes the rest as it is; a one-byte value has no prefix"
is "$(st "$img" /plain /xattrs/security.label)" "secret" "the prefixes may be upper case"
st "$img" /plain "/xattrs/trusted.nul" | od -An -tx1 | tr -d ' \n' >"$TMP/nul"
is "$(cat "$TMP/nul")" "6100620a" "0t with an octal escape gives a NUL byte"
is "$(st "$img" /dir /xattrs/user.plain)" "hello world" "directories get user. attributes"
is "$(st "$img" / /xattrs/user.plain)" "hello world" "the root gets them too"
is "$(st "$img" /link /xattrs/@ | sort | tr '\n' ' ')" "security.label trusted.nul " \
	"a symlink gets no user. attribute, the others yes"
is "$(st "$img" /dir/fifo /xattrs/@ | sort | tr '\n' ' ')" "security.label trusted.nul " \
	"nor does a fifo"
unsquashfs -s "$img" | grep -q "Number of xattr ids 2"
ok $? "two sets in all: with and without the user. ones"

# ---- xattrs: filters (need xattrs on the source file system) ----
if setfattr -n user.keep -v 1 "$S/plain" 2>/dev/null &&
	setfattr -n user.drop -v 2 "$S/plain" 2>/dev/null &&
	setfattr -n user.keep -v 3 "$S/dir" 2>/dev/null; then
	trusted=0
	setfattr -n trusted.t -v 4 "$S/plain" 2>/dev/null && trusted=1
	expect_success "--xattrs-exclude" "$SQK" mkimage -q -f --xattrs-exclude drop "$S" "$img"
	is "$(st "$img" /plain /xattrs/@ | grep '^user' | tr '\n' ' ')" "user.keep " \
		"--xattrs-exclude drops the matching names"
	expect_success "--xattrs-include" "$SQK" mkimage -q -f --xattrs-include '^user\.' "$S" "$img"
	is "$(st "$img" /plain /xattrs/@ | tr '\n' ' ')" "user.drop user.keep " \
		"--xattrs-include keeps only the matching names"
	expect_success "both filters" "$SQK" mkimage -q -f --xattrs-include '^user\.' \
		--xattrs-exclude '^user\.d' "$S" "$img"
	is "$(st "$img" /plain /xattrs/@ | tr '\n' ' ')" "user.keep " \
		"include, then exclude"
	expect_success "the last --xattrs-include counts" "$SQK" mkimage -q -f \
		--xattrs-include keep --xattrs-include drop "$S" "$img"
	is "$(st "$img" /plain /xattrs/@ | tr '\n' ' ')" "user.drop " "a second pattern replaces the first"
	expect_success "filters leave added attributes alone" "$SQK" mkimage -q -f \
		--xattrs-exclude '^user\.' --xattrs-add user.new=1 "$S" "$img"
	is "$(st "$img" /plain /xattrs/@ | grep '^user' | tr '\n' ' ')" "user.new " \
		"--xattrs-add is not filtered"
	usage_error "--xattrs-add of a name the source has" "$SQK" mkimage \
		--xattrs-add user.keep=9 "$S" "$TMP/never.sqfs"
	grep -q "^squashkit mkimage: /dir: has the attribute user.keep already" "$TMP/.err"
	ok $? "the error names the entry and the attribute"
	expect_success "--xattrs-exclude makes room for the added one" "$SQK" mkimage -q -f \
		--xattrs-exclude '^user\.keep$' --xattrs-add user.keep=9 "$S" "$img"
	is "$(st "$img" /plain /xattrs/user.keep) $(st "$img" /dir /xattrs/user.keep)" "9 9" \
		"the added value replaces the excluded one"
	# Archives: the same filter applies to what tar stored.
	tar --xattrs --xattrs-include='*' -C "$S" -cf "$TMP/src.tar" plain dir
	expect_success "--xattrs-include on an archive" "$SQK" mkimage -q -f --archive \
		--xattrs-include keep "$TMP/src.tar" "$img"
	is "$(st "$img" /plain /xattrs/@ | tr '\n' ' ')" "user.keep " "archive attributes are filtered"

	# unimage: the filters choose what is restored and what goes to an archive.
	"$SQK" mkimage -q -f "$S" "$img"
	expect_success "unimage --xattrs-exclude" "$SQK" unimage -q -d "$TMP/x1" \
		--xattrs-exclude '^user\.d' "$img"
	getfattr -m '^user\.' -d "$TMP/x1/plain" 2>/dev/null | grep '^user' | cut -d= -f1 |
		tr '\n' ' ' >"$TMP/got"
	is "$(cat "$TMP/got")" "user.keep " "unimage --xattrs-exclude leaves out what matches"
	if [ $trusted -eq 1 ]; then
		expect_success "unimage --xattrs-include" "$SQK" unimage -q -d "$TMP/x2" \
			--xattrs-include '^trusted\.' "$img"
		getfattr -m - -d "$TMP/x2/plain" 2>/dev/null | grep '=' | cut -d= -f1 | tr '\n' ' ' \
			>"$TMP/got"
		is "$(cat "$TMP/got")" "trusted.t " "unimage --xattrs-include restores only what matches"
	else
		skip "no trusted xattrs here (needs root)"
		skip "no trusted xattrs here (needs root)"
	fi
	expect_success "unimage --tar with filters" "$SQK" unimage -q -o "$TMP/f.tar" \
		--xattrs-include '^user\.' --xattrs-exclude keep "$img"
	"$SQK" mkimage -q -f --archive "$TMP/f.tar" "$TMP/back.sqfs"
	is "$(st "$TMP/back.sqfs" /plain /xattrs/@ | tr '\n' ' ')" "user.drop " \
		"the archive holds only what the filters pass"
	is "$(st "$TMP/back.sqfs" /dir /xattrs/@)" "" "a directory whose attributes all fail holds none"
else
	skip "no user xattrs on $TMP: the filters are not tried"
fi

# ---- Sort files ----
# Files of whole blocks, each different, so every one has a block of its own.
O=$TMP/order
mkdir -p "$O/d/e" "$O/x" "$O/y"
for f in a b c "s p" d/e/f d/g x/h; do
	head -c 8192 /dev/urandom >"$O/$f"
done
ln "$O/x/h" "$O/y/h2"
# start IMG PATH: where the file's first block is.
start() { st "$1" "$2" /blocks/0/start; }
# order IMG PATH...: the paths, by where their data starts.
order() {
	img=$1
	shift
	for p in "$@"; do echo "$(start "$img" "$p") $p"; done | sort -n | cut -d' ' -f2- |
		tr '\n' ' '
}
cat >"$TMP/ok.sort" <<'EOF'
# the boot reads these first
c 10
  d 5
d/g -1
s\ p	7

y 9
x/* -20
EOF
expect_success "--sort" "$SQK" mkimage -q -b 4K --sort "$TMP/ok.sort" "$O" "$TMP/s.sqfs"
is "$(order "$TMP/s.sqfs" /a /b /c /d/e/f /d/g "/s p" /x/h)" \
	"/c /x/h /s p /d/e/f /a /b /d/g " \
	"data in priority order: links take their highest, directories pass theirs down"
is "$(cat "$TMP/.err")" "" "a sort file that names only what exists: no warning"
expect_success "no --sort" "$SQK" mkimage -q -b 4K "$O" "$TMP/n.sqfs"
is "$(order "$TMP/n.sqfs" /a /b /c /d/e/f /d/g "/s p" /x/h)" \
	"/a /b /c /d/e/f /d/g /s p /x/h " "without --sort: files in the usual order"
printf 'a 0\nd 0\n' >"$TMP/zero.sort"
expect_success "a sort file of zeros" "$SQK" mkimage -q -b 4K --sort "$TMP/zero.sort" "$O" \
	"$TMP/z.sqfs"
cmp -s "$TMP/n.sqfs" "$TMP/z.sqfs"
ok $? "a sort file that changes no priority changes no byte"
printf 'b 1\n' >"$TMP/one.sort"
"$SQK" mkimage -q -b 4K --sort "$TMP/one.sort" "$O" "$TMP/o.sqfs"
cmp -s "$TMP/n.sqfs" "$TMP/o.sqfs"
[ $? -ne 0 ]
ok $? "a sort file that changes one does change the image"
unsquashfs -lln "$TMP/n.sqfs" | awk '{print $1, $2, $3, $6}' >"$TMP/n.list"
unsquashfs -lln "$TMP/s.sqfs" | awk '{print $1, $2, $3, $6}' >"$TMP/s.list"
same_file "$TMP/n.list" "$TMP/s.list" "--sort changes no entry of the tree"
unsquashfs -d "$TMP/sx" "$TMP/s.sqfs" >/dev/null 2>&1
cmp -s "$O/d/g" "$TMP/sx/d/g" && cmp -s "$O/x/h" "$TMP/sx/y/h2"
ok $? "unsquashfs reads the sorted data back"

printf '%s 3\n%s/b 2\n../%s/a 1\n' "$O/c" "$O" "$(basename "$O")" >"$TMP/host.sort"
mkdir -p "$TMP/d0"
expect_success "--sort with host paths" sh -c "cd '$TMP/d0' && '$SQK' mkimage -q -b 4K \
	--sort '$TMP/host.sort' '$O' '$TMP/h.sqfs'"
is "$(order "$TMP/h.sqfs" /a /b /c /d/g)" "/c /b /a /d/g " \
	"absolute and ../ paths are host paths below the source"
printf 'nothing/here 5\nc 1\n%s 4\n' "$TMP/elsewhere" >"$TMP/miss.sort"
expect_success "--sort with paths that name nothing" "$SQK" mkimage -q -b 4K \
	--sort "$TMP/miss.sort" "$O" "$TMP/w.sqfs"
grep -c "^squashkit mkimage: $TMP/miss.sort:[13]: warning: .* is not in the image" \
	"$TMP/.err" >"$TMP/nwarn"
is "$(cat "$TMP/nwarn")" 2 "each line that names nothing is a warning with its line"
is "$(order "$TMP/w.sqfs" /a /c)" "/c /a " "and the other lines still count"
mkdir -p "$TMP/two/inner"
head -c 8192 /dev/urandom >"$TMP/two/inner/z"
printf '%s/inner/z 1\n' "$TMP/two" >"$TMP/amb.sort"
expect_status 1 "a host path below two sources is ambiguous" "$SQK" mkimage -q \
	--sort "$TMP/amb.sort" "$TMP/two" "$TMP/two/inner" "$TMP/amb.sqfs"
grep -q "^squashkit mkimage: $TMP/amb.sort:1: .* is below more than one source directory" \
	"$TMP/.err"
ok $? "the error names the sort file and the line"
[ ! -e "$TMP/amb.sqfs" ]
ok $? "and no image is left"
# ---- --regex: excludes are POSIX regexes, one per path component ----
R=$TMP/rx
mkdir -p "$R/a/b" "$R/c/a/b" "$R/x"
touch "$R/a/b/f" "$R/c/a/b/g" "$R/x/foo.txt" "$R/x/bar.TXT" "$R/top.txt" "$R/a/keep"
# names IMG: every path of the image, sorted, on one line.
names() {
	unsquashfs -lc "$1" 2>/dev/null | sed -n 's|^squashfs-root/||p' | sort | tr '\n' ' '
}
# excluded DESC WANT OPTION...: mkimage with the OPTIONs leaves the names WANT.
excluded() {
	desc=$1
	want=$2
	shift 2
	expect_success "$desc" "$SQK" mkimage -q -f "$@" "$R" "$TMP/ex.sqfs"
	is "$(names "$TMP/ex.sqfs")" "$want" "$desc: what is left"
}
excluded "--regex: a leading / matches from the root only" \
	"a/keep c/a/b/g top.txt x/bar.TXT x/foo.txt " --regex -e '/a/^b$'
excluded "--regex: without it the last components match at any depth" \
	"a/keep c/a top.txt x/bar.TXT x/foo.txt " --regex -e 'a/b'
excluded "--regex: an expression matches anywhere in a name unless ^ or \$ anchor it" \
	"a/b/f c/a/b/g top.txt x/bar.TXT " --regex -e 'o\.t' -e '^k'
excluded "without --regex the same pattern is a glob, and matches nothing here" \
	"a/b/f a/keep c/a/b/g top.txt x/bar.TXT x/foo.txt " -e 'o\.t'
expect_status 1 "--regex refuses a bad expression" "$SQK" mkimage -q --regex -e 'a/[' "$R" \
	"$TMP/r5.sqfs"
grep -q "^squashkit mkimage: a/\[: invalid regular expression" "$TMP/.err"
ok $? "the error names the pattern"
[ ! -e "$TMP/r5.sqfs" ]
ok $? "and no image is left"

# ---- --wildcards: a glob per component, with mksquashfs's fnmatch flags ----
touch "$R/x/.hidden" "$R/x/.dot.txt"
excluded "--wildcards: a wildcard matches no leading dot" \
	"a/b/f a/keep c/a/b/g top.txt x/.dot.txt x/.hidden " --wildcards -e '/x/*'
excluded "--wildcards: without a leading / at any depth, dot files spared" \
	"a/b/f a/keep c/a/b/g x/.dot.txt x/.hidden x/bar.TXT " --wildcards -e '*.txt'
excluded "without --wildcards a glob matches dot files" \
	"a/b/f a/keep c/a/b/g x/.hidden x/bar.TXT " -e '*.txt'
excluded "--wildcards: @(a|b) and +(..) are patterns" \
	"a c/a/b/g top.txt x/.dot.txt x/.hidden " --wildcards -e '/@(a|c)/+(b|keep)' -e '/x/@(f|b)*'
expect_status 2 "--regex with --wildcards is a usage error" "$SQK" mkimage -q --regex \
	--wildcards -e x "$R" "$TMP/w5.sqfs"
grep -q "^squashkit mkimage: --regex and --wildcards exclude each other" "$TMP/.err"
ok $? "the error names both"

# ---- --no-pad: the image ends at its last byte ----
size() { stat -c %s "$1"; }
expect_success "--no-pad" "$SQK" mkimage -q --no-pad "$S" "$TMP/np.sqfs"
"$SQK" inspect --json "$TMP/np.sqfs" >"$TMP/np.json"
is "$(size "$TMP/np.sqfs")" "$("$JSONQ" "$TMP/np.json" /bytes_used)" \
	"--no-pad: the file is bytes_used long"
[ $(($(size "$TMP/np.sqfs") % 4096)) -ne 0 ]
ok $? "--no-pad: which is no multiple of 4096 here"
unsquashfs -lc "$TMP/np.sqfs" >/dev/null 2>&1
ok $? "--no-pad: unsquashfs reads it"
"$SQK" mkimage -q "$S" "$TMP/pd.sqfs"
is "$(($(size "$TMP/pd.sqfs") % 4096))" 0 "without it the image is padded to 4 KiB"

# ---- --pseudo-warn: a definition that cannot be placed is left out ----
expect_status 2 "a pseudo definition over a source's path is an error" "$SQK" mkimage -q \
	--pseudo 'plain f 644 0 0 echo new' "$S" "$TMP/pw1.sqfs"
expect_success "--pseudo-warn: it is a warning" "$SQK" mkimage -q --pseudo-warn \
	--pseudo 'plain f 644 0 0 echo new' --pseudo 'nothing m 600 0 0' \
	--pseudo 'nodir/f f 644 0 0 echo new' --pseudo 'added f 644 0 0 echo new' \
	"$S" "$TMP/pw2.sqfs"
is "$(grep -c "^squashkit mkimage: --pseudo '.*': warning: .*; left out\$" "$TMP/.err")" 3 \
	"--pseudo-warn: one warning line for each definition left out"
grep -q "'plain f 644 0 0 echo new': warning: /plain is already in a source" "$TMP/.err"
ok $? "--pseudo-warn: the line names the definition and why"
is "$("$SQK" cat "$TMP/pw2.sqfs" plain added 2>&1)" "hello
new" "--pseudo-warn: the source's file is kept, the other definitions applied"
"$SQK" ls "$TMP/pw2.sqfs" >"$TMP/pw2.ls"
! grep -q -e nothing -e nodir "$TMP/pw2.ls"
ok $? "--pseudo-warn: nothing made for what was left out"

# ---- --one-file-system: a mount point becomes an empty directory ----
if [ "$(id -u)" = 0 ] && mkdir -p "$TMP/fs/mnt" "$TMP/fs/d" &&
	mount -t tmpfs -o mode=0710 tmpfs "$TMP/fs/mnt" 2>/dev/null; then
	at_exit "umount '$TMP/fs/mnt' 2>/dev/null"
	echo in >"$TMP/fs/mnt/inside"
	echo out >"$TMP/fs/d/f"
	expect_success "--one-file-system" "$SQK" mkimage -q --one-file-system "$TMP/fs" \
		"$TMP/o1.sqfs"
	is "$(names "$TMP/o1.sqfs")" "d/f mnt " "the mount point is there, its contents are not"
	unsquashfs -lln "$TMP/o1.sqfs" 2>/dev/null | awk '$NF == "squashfs-root/mnt" { print $1 }' \
		>"$TMP/o1.mode"
	is "$(cat "$TMP/o1.mode")" "drwx--x---" "with the mounted root's mode"
	expect_success "without it" "$SQK" mkimage -q "$TMP/fs" "$TMP/o2.sqfs"
	is "$(names "$TMP/o2.sqfs")" "d/f mnt/inside " "the walk goes into the mount"
	expect_success "--one-file-system with a source on the other file system" "$SQK" mkimage \
		-q --one-file-system --named-sources "$TMP/fs/mnt" "$TMP/fs/d" "$TMP/o3.sqfs"
	is "$(names "$TMP/o3.sqfs")" "d/f mnt/inside " "each source is walked on its own file system"
	umount "$TMP/fs/mnt"
else
	skip "--one-file-system: needs root to mount a tmpfs"
fi
done_testing
