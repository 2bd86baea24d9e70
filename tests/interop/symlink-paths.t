#!/bin/sh
# A PATH through symlinks resolves, in every command, as the kernel resolves
# it in the mounted image (the reference: the image mounted with -t
# squashfs): symlinks on the way followed, the last one shown as itself by
# stat (as stat(1)), followed by cat, stat -L and a trailing "/"; too many
# is ELOOP. unimage PATH and squashkit unsquashfs NAME make what PATH needs
# so that it resolves the same way in the output; diff PATH resolves PATH
# on each side (an image against the kernel's view of itself is the same).
# Symlinks the kernel would follow out of the mount (absolute targets, ".."
# above the root) stay inside the image: those are checked against what
# they lead to in it.
. "$SQK_SRCDIR/tests/lib.sh"

need_root
need_cmd stat cat
scratch_mount
export LC_ALL=C

src=$TMP/src
mkdir -p "$src/perl/5.36.0/sub"
echo config >"$src/perl/5.36.0/Config.pm"
echo s >"$src/perl/5.36.0/sub/x"
ln -s 5.36.0 "$src/perl/5.36"
ln -s /perl/5.36 "$src/perl/cur"
ln -s perl/5.36.0/Config.pm "$src/lnk"
ln -s c2 "$src/c1"
ln -s perl/5.36 "$src/c2"
ln -s loop "$src/loop"
ln -s ../../.. "$src/up"
img=$TMP/img.sq
"$SQUASHKIT" mkimage -q "$src" "$img" || {
	echo "Bail out! the image cannot be built"
	exit 1
}
mount -t squashfs -o loop,ro "$img" "$MNT" 2>/dev/null || skip_all "the kernel cannot mount squashfs here"

# What stat(1) calls a type, in the words squashkit stat --json uses.
kind() {
	case $1 in
	'regular file' | 'regular empty file') echo file ;;
	directory) echo directory ;;
	'symbolic link') echo symlink ;;
	*) echo "$1" ;;
	esac
}

# The error a failed call printed last, in the words both sides share: the
# errno's, lower-case ("not a directory"; squashkit adds "in the image").
words() {
	sed -n '$s/.*: //p' "$1" | tr 'A-Z' 'a-z' | sed 's/ in the image$//'
}

# kernel_stat OPT P: "INODE TYPE" of the kernel's (l)stat of P, or "error: WORDS".
kernel_stat() {
	if out=$(stat $1 -c '%i|%F' "$MNT/$2" 2>"$TMP/kerr"); then
		echo "${out%%|*} $(kind "${out#*|}")"
	else
		echo "error: $(words "$TMP/kerr")"
	fi
}

# our_stat OPT P: the same from squashkit stat --json.
our_stat() {
	if "$SQUASHKIT" stat $1 --json "$img" "$2" >"$TMP/s.json" 2>"$TMP/serr"; then
		echo "$("$SQK_TOOLS/jsonq" "$TMP/s.json" /inode) $("$SQK_TOOLS/jsonq" "$TMP/s.json" /type)"
	else
		echo "error: $(words "$TMP/serr")"
	fi
}

# Paths the kernel resolves inside the mount: it is the reference.
for p in perl/5.36/Config.pm /perl/5.36/Config.pm c1/Config.pm perl/5.36/sub/../Config.pm \
	lnk perl/5.36 perl/5.36/ perl/5.36/. c1 loop loop/ loop/x perl/5.36/Config.pm/ lnk/x \
	nothere/x perl/5.36/sub/../../5.36/sub/x; do
	is "$(our_stat "" "$p")" "$(kernel_stat "" "$p")" "stat $p: as lstat in the mount"
	is "$(our_stat -L "$p")" "$(kernel_stat -L "$p")" "stat -L $p: as stat in the mount"
	if want=$(cat "$MNT/$p" 2>/dev/null); then
		is "$("$SQUASHKIT" cat "$img" "$p" 2>&1)" "$want" "cat $p: as in the mount"
	else
		"$SQUASHKIT" cat "$img" "$p" >/dev/null 2>&1
		is "$?" 1 "cat $p: fails, as in the mount"
	fi
done
is "$("$SQUASHKIT" cat "$img" loop 2>&1)" \
	"squashkit cat: $img: /loop: Too many levels of symbolic links" "cat: ELOOP in its words"
is "$("$SQUASHKIT" stat "$img" perl/5.36/ | sed -n 1p)" "path: /perl/5.36/" \
	"stat: the path as given, its trailing / kept"

# ls: a symlink PATH is the link; with "/" what it leads to, as in the mount.
is "$("$SQUASHKIT" ls "$img" perl/5.36/ | tr '\n' ' ')" "$(ls "$MNT/perl/5.36/" | tr '\n' ' ')" \
	"ls perl/5.36/: the directory it leads to"
is "$("$SQUASHKIT" ls "$img" c1/sub)" "$(ls "$MNT/c1/sub")" "ls c1/sub: through two symlinks"
is "$("$SQUASHKIT" ls -l "$img" perl/5.36 | sed 's/.* -> //')" "5.36.0" "ls -l perl/5.36: the link"

# unimage PATH: in what it makes, PATH resolves as in the mount.
for p in perl/5.36/Config.pm c1/Config.pm perl/5.36/sub/../Config.pm perl/5.36/ perl/5.36 \
	lnk c1/sub/x; do
	# What PATH names, as lstat sees it, and a file's contents (a last
	# symlink is made as itself: what it leads to is not asked for).
	want="$(stat -c %F "$MNT/$p"):$([ -f "$MNT/$p" ] && [ ! -L "$MNT/$p" ] && cat "$MNT/$p")"
	rm -rf "$TMP/out"
	if "$SQUASHKIT" unimage -q -d "$TMP/out" "$img" "$p" 2>"$TMP/err"; then
		is "$(stat -c %F "$TMP/out/$p"):$([ -f "$TMP/out/$p" ] && [ ! -L "$TMP/out/$p" ] &&
			cat "$TMP/out/$p")" "$want" "unimage $p: resolves in the output as in the mount"
	else
		ok 1 "unimage $p: $(cat "$TMP/err")"
	fi
	rm -rf "$TMP/out"
	if "$SQUASHKIT" unsquashfs -n -d "$TMP/out" "$img" "$p" >/dev/null 2>"$TMP/err"; then
		is "$(stat -c %F "$TMP/out/$p"):$([ -f "$TMP/out/$p" ] && [ ! -L "$TMP/out/$p" ] &&
			cat "$TMP/out/$p")" "$want" \
			"unsquashfs (squashkit) $p: resolves in the output as in the mount"
	else
		ok 1 "unsquashfs (squashkit) $p: $(cat "$TMP/err")"
	fi
done
rm -rf "$TMP/out"
"$SQUASHKIT" unimage -q -d "$TMP/out" "$img" perl/5.36/Config.pm
is "$(cd "$TMP/out" && find . | sort | tr '\n' ' ')" \
	". ./perl ./perl/5.36 ./perl/5.36.0 ./perl/5.36.0/Config.pm " \
	"unimage perl/5.36/Config.pm: the file, its parents and the symlink, nothing else"
rm -rf "$TMP/out"
"$SQUASHKIT" unimage -q -d "$TMP/out" "$img" perl/5.36/sub/../Config.pm
is "$(cd "$TMP/out" && find . | sort | tr '\n' ' ')" \
	". ./perl ./perl/5.36 ./perl/5.36.0 ./perl/5.36.0/Config.pm ./perl/5.36.0/sub " \
	"unimage through ..: the directory left by .. without what it holds"
"$SQUASHKIT" unimage -q -o - "$img" perl/5.36/Config.pm | tar -tf - | sort >"$TMP/tar.list"
is "$(tr '\n' ' ' <"$TMP/tar.list")" "./ ./perl/ ./perl/5.36 ./perl/5.36.0/ ./perl/5.36.0/Config.pm " \
	"unimage -o: the same entries in the archive"
expect_status 1 "unimage loop/: fails" "$SQUASHKIT" unimage -q -d "$TMP/out2" "$img" loop/
is "$(cat "$TMP/.err")" "squashkit unimage: $img: /loop/: Too many levels of symbolic links" \
	"... with ELOOP's words, the path as given"
[ ! -e "$TMP/out2" ]
ok $? "... and makes nothing"

# diff PATH: the image against the kernel's view of itself is the same, through any PATH.
for p in perl/5.36/Config.pm perl/5.36/ c1/ perl/5.36/sub/.. perl/5.36 lnk; do
	expect_status 0 "diff IMAGE MOUNT $p: the same" "$SQUASHKIT" diff "$img" "$MNT" "$p"
done
expect_status 2 "diff loop/: trouble" "$SQUASHKIT" diff "$img" "$MNT" loop/
grep -q ": Too many levels of symbolic links\$" "$TMP/.err"
ok $? "... ELOOP's words"

# Symlinks the kernel follows out of the mount stay inside the image.
want=$(stat -c %i "$MNT/perl/5.36.0/Config.pm")
for p in perl/cur/Config.pm up/perl/5.36/Config.pm up/../c1/Config.pm; do
	is "$(our_stat "" "$p")" "$want file" "stat $p: the image's own Config.pm"
	is "$("$SQUASHKIT" cat "$img" "$p")" config "cat $p: inside the image"
done
rm -rf "$TMP/out"
"$SQUASHKIT" unimage -q -d "$TMP/out" "$img" perl/cur/sub/x
is "$(cd "$TMP/out" && find . | sort | tr '\n' ' ')" \
	". ./perl ./perl/5.36 ./perl/5.36.0 ./perl/5.36.0/sub ./perl/5.36.0/sub/x ./perl/cur " \
	"unimage through an absolute symlink: it and what it leads to inside the image"

# Two images where PATH resolves differently: each side's own target is compared.
src2=$TMP/src2
cp -a "$src" "$src2"
mkdir "$src2/perl/5.38.0"
echo newer >"$src2/perl/5.38.0/Config.pm"
ln -sfn 5.38.0 "$src2/perl/5.36"
"$SQUASHKIT" mkimage -q "$src2" "$TMP/img2.sq"
"$SQUASHKIT" diff "$img" "$TMP/img2.sq" perl/5.36/Config.pm >"$TMP/d.out"
is "$?:$(cat "$TMP/d.out")" "1:S /perl/5.36/Config.pm: size 7 -> 6" \
	"diff perl/5.36/Config.pm: 5.36.0's against 5.38.0's, named as given"
"$SQUASHKIT" diff "$img" "$TMP/img2.sq" perl/5.36 >"$TMP/d.out"
is "$?:$(cat "$TMP/d.out")" "1:L /perl/5.36: target 5.36.0 -> 5.38.0" \
	"diff perl/5.36: the symlinks themselves"
"$SQUASHKIT" diff "$img" "$src2" perl/cur/ >"$TMP/d.out"
is "$?:$(tr '\n' '|' <"$TMP/d.out")" \
	"1:S /perl/cur/Config.pm: size 7 -> 6|- /perl/cur/sub|- /perl/cur/sub/x|" \
	"diff against a directory: its absolute symlink resolved inside it"

done_testing
