#!/bin/sh
# squashkit unsquashfs's exit statuses on errors during extraction, against
# Debian's unsquashfs 4.5.1, whose -h documents them: 0 ok, 1 fatal (it
# stops), 2 non-fatal (it goes on); -ignore-errors makes the errors of
# writing the output (an entry that cannot be created) non-fatal,
# -strict-errors makes every error fatal, -no-exit-code turns 2 into 0.
# Where neither stops, the extracted tree and the output must be the
# peer's too.
#
# Cases: what is in the way in an existing destination without -f (a file
# where a directory goes, a directory where a file goes), and devices when
# not root (the peer's "not superuser" error, non-fatal).
#
# Deliberately not as the peer (tested for squashkit's behaviour alone):
# with -f, whatever is in the way is replaced (the peer 4.5.1 writes through
# a file where a directory goes and fails, its issue 380; and fails on a
# directory where a file goes); without -f, an existing file is never
# written into (the peer 4.5.1 writes over it without truncating it).
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd mksquashfs unsquashfs setpriv
MANIFEST=$SQK_TOOLS/manifest
[ -x "$MANIFEST" ] || skip_all "$MANIFEST is not built"
need_unsquashfs_4_5_1

# The non-root case runs as nobody: the scratch directory must be reachable.
chmod 755 "$TMP"
t=$TMP/tree
mkdir -p "$t/dir/sub" "$t/d2"
echo a >"$t/dir/f"
echo s >"$t/dir/sub/s"
echo b >"$t/top"
echo c >"$t/d2/g"
ln "$t/d2/g" "$t/d2/g-link"
img=$TMP/err.img
mksquashfs "$t" "$img" -quiet -no-progress -no-xattrs >/dev/null 2>&1 || {
	echo "Bail out! mksquashfs failed"
	exit 1
}
chmod 644 "$img"

tree_of() { # DIR
	if [ -d "$1" ]; then "$MANIFEST" "$1" 2>&1; else echo "no tree"; fi
}

# in_the_way WHAT: make A and B hold WHAT where the image has something else.
in_the_way() {
	rm -rf "$TMP/A" "$TMP/B"
	mkdir "$TMP/A" "$TMP/B"
	for d in A B; do
		case $1 in
		file-for-dir) echo x >"$TMP/$d/dir" ;;
		dir-for-file) mkdir -p "$TMP/$d/top/sub" ;;
		esac
		find "$TMP/$d" -mindepth 1 -exec touch -h -d @1000000000 {} +
	done
}

# like_peer DESC [RUNAS --] ARGS...: same status; same tree and output unless fatal.
like_peer() {
	desc=$1
	shift
	run=
	if [ "$1" = nobody ]; then
		run="setpriv --reuid=65534 --regid=65534 --clear-groups"
		shift 2
	fi
	$run unsquashfs -n -d "$TMP/A" "$@" >"$TMP/p.out" 2>"$TMP/p.err"
	prc=$?
	$run "$SQUASHKIT" unsquashfs -n -d "$TMP/B" "$@" >"$TMP/s.out" 2>"$TMP/s.err"
	src=$?
	is "$src" "$prc" "$desc: the peer's exit status ($prc)"
	[ "$prc" = 1 ] && return
	tree_of "$TMP/A" >"$TMP/A.m"
	tree_of "$TMP/B" >"$TMP/B.m"
	same_file "$TMP/A.m" "$TMP/B.m" "$desc: the peer's tree"
	sed "s|$TMP/A|$TMP/B|g" "$TMP/p.out" >"$TMP/p2.out"
	same_file "$TMP/p2.out" "$TMP/s.out" "$desc: the peer's output"
	test -s "$TMP/s.err"
	ok $? "$desc: the error is reported"
}

for opts in "" -ignore-errors -strict-errors -no-exit-code "-ig -no-exit"; do
	in_the_way file-for-dir
	# shellcheck disable=SC2086 # the options are meant to split
	like_peer "a file where a directory goes [$opts]" $opts "$img"
	in_the_way dir-for-file
	# shellcheck disable=SC2086
	like_peer "a directory where a file goes [$opts]" $opts "$img"
done

# Devices as nobody: the peer cannot make them either.
if ! mksquashfs "$t" "$TMP/dev.img" -quiet -no-progress -no-xattrs -p 'dev d 755 0 0' \
	-p 'dev/null-copy c 666 0 0 1 3' -p 'dev/disk b 640 0 6 8 0' -p 'fifo i 600 0 0 f' \
	>"$TMP/mk.err" 2>&1; then
	echo "Bail out! mksquashfs -p failed: $(head -1 "$TMP/mk.err")"
	exit 1
fi
chmod 644 "$TMP/dev.img"
for opts in "" -strict-errors -no-exit-code -ignore-errors; do
	rm -rf "$TMP/A" "$TMP/B"
	mkdir "$TMP/A" "$TMP/B"
	chown 65534:65534 "$TMP/A" "$TMP/B"
	# shellcheck disable=SC2086
	like_peer "devices as nobody [$opts]" nobody -- $opts "$TMP/dev.img"
done

# squashkit's own: -f replaces what is in the way, and gives the whole tree.
rm -rf "$TMP/A"
unsquashfs -n -d "$TMP/A" "$img" >/dev/null 2>&1
tree_of "$TMP/A" >"$TMP/A.m"
for what in file-for-dir dir-for-file; do
	rm -rf "$TMP/B"
	mkdir "$TMP/B"
	in_the_way "$what"
	"$SQUASHKIT" unsquashfs -n -f -d "$TMP/B" "$img" >/dev/null 2>"$TMP/s.err"
	is "$?" 0 "-f, $what: exit 0"
	tree_of "$TMP/B" >"$TMP/B.m"
	# The destination existed: its own mode and time are not the image's.
	sed 1d "$TMP/A.m" >"$TMP/A1.m"
	sed 1d "$TMP/B.m" >"$TMP/B1.m"
	same_file "$TMP/A1.m" "$TMP/B1.m" "-f, $what: what is in the way replaced"
done
rm -rf "$TMP/B"
mkdir "$TMP/B"
echo old >"$TMP/B/top"
"$SQUASHKIT" unsquashfs -n -d "$TMP/B" "$img" >/dev/null 2>"$TMP/s.err"
is "$?" 1 "a file in the way without -f: exit 1"
is "$(cat "$TMP/B/top")" old "a file in the way without -f: not written into"

# A PATH after the image that starts with a dash is a name, not an option.
mkdir "$TMP/dash" && echo x >"$TMP/dash/-lls"
mksquashfs "$TMP/dash" "$TMP/dash.img" -quiet -no-progress >/dev/null 2>&1
is "$("$SQUASHKIT" unsquashfs -cat "$TMP/dash.img" -lls 2>&1)" \
	"$(unsquashfs -cat "$TMP/dash.img" -lls 2>&1)" "-cat IMAGE -lls: the file named -lls, as unsquashfs"
is "$("$SQUASHKIT" unsquashfs -l "$TMP/dash.img" -lls 2>&1)" \
	"$(unsquashfs -l "$TMP/dash.img" -lls 2>&1)" "-l IMAGE -lls: as unsquashfs lists it"

done_testing
