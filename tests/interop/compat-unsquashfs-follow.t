#!/bin/sh
# squashkit unsquashfs -follow-symlinks (-L, -follow) and -missing-symlinks
# (-missing) on an image with chains of symlinks: relative, absolute,
# through directories, through "..", above the root, a loop, a dangling one.
#
# unsquashfs 4.5.1's rules (its -h and the comment of its follow_path()):
# an extract name is resolved inside the image, relative symlinks only and
# no ".." above the root; its target, every symlink met and (since the
# peer's fix of its issue 373) every directory left through ".." are
# extracted; -L implies -no-wildcards; a name that cannot be resolved is a
# warning and is extracted as it is, or with -missing-symlinks exit 1 and
# nothing written.
#
# Debian's unsquashfs 4.5.1 fails every symlink it has to follow ("File
# System corrupted: directory loop detected", its issue 214, fixed in 4.6).
# So where no symlink is followed, or where the name cannot be resolved
# anyway, the tree and exit status are compared with it; where symlinks
# resolve, the extracted tree is compared with the list the rules give
# (written out below) and every extracted name must read, through the
# extracted symlinks, what it reads through the kernel's mount of the image.
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
need_unsquashfs_4_5_1

t=$TMP/tree
mkdir -p "$t/dir/sub" "$t/other" "$t/s" "$t/a/b/c"
echo hello >"$t/dir/file"
echo two >"$t/dir/sub/f2"
echo x >"$t/other/x"
echo junk >"$t/a/b/c/junk"
ln -s dir/file "$t/rel"
ln -s /dir/file "$t/abs"
ln -s chain2 "$t/chain1"
ln -s rel "$t/chain2"
ln -s dir "$t/linkdir"
ln -s ../dir/file "$t/s/up"
ln -s ../linkdir/sub "$t/s/viadir"
ln -s ../a/b/c/../../../dir/file "$t/s/back"
ln -s s/viadir "$t/deep"
ln -s ../../../dir/sub "$t/esc"
ln -s /other/x/../x "$t/s/dotdot"
ln -s nothing "$t/dangling"
ln -s loopB "$t/loopA"
ln -s loopA "$t/loopB"
img=$TMP/links.img
mksquashfs "$t" "$img" -quiet -no-progress -comp gzip >/dev/null 2>&1 ||
	{
		echo "Bail out! mksquashfs failed"
		exit 1
	}

sq() {
	"$SQUASHKIT" unsquashfs "$@"
}

tree_of() { # DIR: its manifest, or "no tree"
	if [ -d "$1" ]; then "$MANIFEST" "$1" 2>&1; else echo "no tree"; fi
}

# like_peer DESC ARGS...: the same tree and exit status as Debian's.
like_peer() {
	desc=$1
	shift
	rm -rf "$TMP/A" "$TMP/B"
	unsquashfs -n -d "$TMP/A" "$@" >/dev/null 2>&1
	prc=$?
	sq -n -d "$TMP/B" "$@" >/dev/null 2>"$TMP/s.err"
	is "$?" "$prc" "$desc: the peer's exit status"
	tree_of "$TMP/A" >"$TMP/A.m"
	tree_of "$TMP/B" >"$TMP/B.m"
	same_file "$TMP/A.m" "$TMP/B.m" "$desc: the peer's tree"
}

like_peer "-L a file" -L "$img" dir/file
like_peer "-L a directory" -L "$img" dir/sub
like_peer "-L and no names: everything" -L "$img"
like_peer "-L: no wildcards" -L "$img" 'dir/*' 'l*'
like_peer "-follow an absolute symlink: unresolved, extracted as it is" -follow "$img" abs
like_peer "-follow-symlinks .. above the root: unresolved" -follow-symlinks "$img" esc
like_peer "-L an absolute symlink on the way" -L "$img" s/dotdot
like_peer "-L a dangling symlink" -L "$img" dangling
like_peer "-L a loop" -L "$img" loopA
like_peer "-L a name that is not there" -L "$img" no/such
like_peer "-missing a dangling symlink: exit 1, nothing written" -missing "$img" dir/file dangling
like_peer "-missing a loop" -missing "$img" loopA
like_peer "-missing an absolute symlink" -missing "$img" abs
like_peer "-L -excludes: names are excludes, not followed" -L -excludes "$img" dir linkdir
like_peer "-L -regex: refused" -L -regex "$img" dir

# The peer 4.5.1 does not know -missing-symlinks (it looks for
# "missing-symlinks" without the dash): its -h documents it, so it is taken.
rm -rf "$TMP/B"
sq -n -missing-symlinks -d "$TMP/B" "$img" dangling >"$TMP/s.out" 2>"$TMP/s.err"
is "$?" 1 "-missing-symlinks a dangling symlink: exit 1"
test ! -e "$TMP/B" && test ! -s "$TMP/s.out"
ok $? "-missing-symlinks: nothing written"
grep -q "dangling can't be resolved" "$TMP/s.err"
ok $? "-missing-symlinks: the error names the extract name"

mnt=$TMP/mnt
mkdir "$mnt"
if ! mount -t squashfs -o loop,ro "$img" "$mnt" 2>"$TMP/mount.err"; then
	echo "Bail out! mount failed: $(head -1 "$TMP/mount.err")"
	exit 1
fi
at_exit "umount '$mnt' 2>/dev/null"

contents() { # DIR: its names and its files' bytes
	(cd "$1" && find . | sort && find . -type f | sort | while read -r f; do cat "$f"; done)
}

# resolves DESC NAME WANT...: -L NAME extracts exactly WANT (and "."), and
# NAME reads through the extracted symlinks what it reads in the mount.
resolves() {
	desc=$1
	name=$2
	shift 2
	rm -rf "$TMP/B"
	sq -n -L -d "$TMP/B" "$img" "$name" >/dev/null 2>"$TMP/s.err"
	is "$?" 0 "$desc: exit 0"
	printf '%s\n' . "$@" | sort >"$TMP/want"
	(cd "$TMP/B" && find . | sed 's|^\./||' | sort) >"$TMP/got"
	same_file "$TMP/want" "$TMP/got" "$desc: the target, the symlinks and directories on the way"
	if [ -d "$mnt/$name" ]; then
		contents "$mnt/$name" >"$TMP/m.c"
		contents "$TMP/B/$name" >"$TMP/b.c"
	else
		cat "$mnt/$name" >"$TMP/m.c"
		cat "$TMP/B/$name" >"$TMP/b.c" 2>&1
	fi
	same_file "$TMP/m.c" "$TMP/b.c" "$desc: reads as in the mounted image"
}

resolves "-L a relative symlink" rel rel dir dir/file
resolves "-L a chain of symlinks" chain1 chain1 chain2 rel dir dir/file
resolves "-L a symlink to a directory: all of it" linkdir linkdir dir dir/file dir/sub dir/sub/f2
resolves "-L through a symlinked directory" linkdir/file linkdir dir dir/file
resolves "-L a symlink up with .." s/up s s/up dir dir/file
resolves "-L .. then a symlinked directory" s/viadir/f2 s s/viadir linkdir dir dir/sub dir/sub/f2
resolves "-L a chain through directories" deep/f2 deep s s/viadir linkdir dir dir/sub dir/sub/f2
resolves "-L down and up again: the directories passed, not their contents" s/back \
	s s/back a a/b a/b/c dir dir/file

# Listing follows too: -lls prints what would be extracted.
sq -lls -L "$img" chain1 >"$TMP/s.out"
is "$?" 0 "-lls -L: exit 0"
awk '{print $1, $NF}' "$TMP/s.out" >"$TMP/got"
cat >"$TMP/want" <<'EOF'
drwxr-xr-x squashfs-root
lrwxrwxrwx chain2
lrwxrwxrwx rel
drwxr-xr-x squashfs-root/dir
-rw-r--r-- squashfs-root/dir/file
lrwxrwxrwx dir/file
EOF
same_file "$TMP/want" "$TMP/got" "-lls -L: the chain, the directory and the file"

done_testing
