#!/bin/sh
# Extracting as root into a directory another user can write to: that user
# (nobody, through tests/tools/racer) watches the directory with inotify and
# renames something of theirs over each entry the moment it is made, before
# its owner, mode, xattrs and times are set: a symlink to a root-only file
# outside the destination, or a hard link of a file of their own. Whatever
# the extraction makes of it, the root-only file keeps its mode and owner,
# the racer's own file is never chowned, chmodded or linked into a
# directory only root can write to, and a run that met a swap fails with
# one line that says so. For unimage -f -d and squashkit unsquashfs -f -d.
. "$SQK_SRCDIR/tests/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip_all "no user nobody to race as"
NOBODY=$(id -u nobody):$(id -g nobody)
# The racer must reach the scratch directory.
chmod 755 "$TMP"

# The image: many setuid fifos, devices, sockets and symlinks at the top,
# where the other user can get at them, and a file hard-linked from a
# directory only root can write to.
echo data >"$TMP/data"
{
	echo "file /a 0644 0 0 $TMP/data"
	echo "dir /sub 0755 0 0"
	echo "link /sub/b /a"
	i=0
	while [ $i -lt 150 ]; do
		n=$(printf %03d $i)
		echo "pipe /p$n 4777 0 0"
		echo "nod /c$n 4777 0 0 c 1 3"
		echo "sock /s$n 4777 0 0"
		echo "slink /l$n 0777 0 0 somewhere"
		i=$((i + 1))
	done
} >"$TMP/listing"
expect_success "the image builds" "$SQUASHKIT" mkimage -q --listing "$TMP/listing" "$TMP/img"
# And one with the hard links alone, for the swap of a link's first name.
{
	echo "file /a 0644 0 0 $TMP/data"
	echo "dir /sub 0755 0 0"
	echo "link /sub/b /a"
	echo "link /sub/c /a"
} >"$TMP/links"
expect_success "the image of links builds" "$SQUASHKIT" mkimage -q --listing "$TMP/links" "$TMP/links.img"

# The file nobody may touch, outside the destination, and the racer's own.
printf 'secret\n' >"$TMP/rootonly"
chmod 600 "$TMP/rootonly"
printf 'mine\n' >"$TMP/bait"
chown "$NOBODY" "$TMP/bait"
chmod 644 "$TMP/bait"

# round MODE CMD...: one extraction into a fresh shared $TMP/out with the
# racer at work; appends the extraction's exit status and stderr to
# $TMP/rounds.
round() {
	_mode=$1
	shift
	rm -rf "$TMP/out"
	mkdir "$TMP/out"
	chmod 777 "$TMP/out"
	if [ "$_mode" = -l ]; then _subst=$TMP/rootonly; else _subst=$TMP/bait; fi
	rm -f "$TMP/racer.out"
	"$SQK_TOOLS/racer" -u "$NOBODY" "$_mode" "$TMP/out" "$_subst" 10 >"$TMP/racer.out" 2>&1 &
	_pid=$!
	_n=0
	until grep -q ready "$TMP/racer.out" 2>/dev/null || [ $_n -ge 100 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
	"$@" >/dev/null 2>"$TMP/round.err"
	echo "exit $?: $(head -1 "$TMP/round.err")" >>"$TMP/rounds"
	kill "$_pid" 2>/dev/null
	wait "$_pid" 2>/dev/null
}

# race LABEL MODE CMD...: rounds for about two seconds, then the checks.
race() {
	_label=$1
	shift
	: >"$TMP/rounds"
	_end=$(($(date +%s) + 2))
	while [ "$(date +%s)" -lt $_end ]; do
		round "$@"
		# A win already shows; the rest of the rounds add nothing.
		[ "$(stat -c %a:%U "$TMP/rootonly")" = 600:root ] || break
		[ "$(stat -c %a:%U "$TMP/bait")" = 644:nobody ] || break
		[ -z "$(find "$TMP/out/sub" -user nobody 2>/dev/null)" ] || break
	done
	is "$(stat -c %a:%U:%G "$TMP/rootonly")" 600:root:root \
		"$_label: the root-only file outside keeps its mode and owner ($(wc -l <"$TMP/rounds") rounds)"
	is "$(stat -c %a:%U:%G "$TMP/bait")" 644:nobody:nogroup \
		"$_label: the racer's own file is neither chowned, chmodded nor linked"
	is "$(find "$TMP/out/sub" -user nobody 2>/dev/null)" "" \
		"$_label: no file of the racer's in a directory only root writes to"
	# Every run ends as a plain one does or with the one line about the swap.
	_odd=$(grep -v -e '^exit 0: $' -e 'replaced by another file while being extracted' \
		"$TMP/rounds" | head -1)
	is "$_odd" "" "$_label: each run succeeded or named the entry swapped under it"
	sed 's/^/#   /' "$TMP/rounds" | sort | uniq -c | head -5
	# Put the files back for the next race if one was won.
	chown root:root "$TMP/rootonly"
	chmod 600 "$TMP/rootonly"
	rm -rf "$TMP/out"
	rm -f "$TMP/bait"
	printf 'mine\n' >"$TMP/bait"
	chown "$NOBODY" "$TMP/bait"
	chmod 644 "$TMP/bait"
}

race "unimage, symlinks" -l "$SQUASHKIT" unimage -q -f -d "$TMP/out" "$TMP/img"
race "unimage, own files" -h "$SQUASHKIT" unimage -q -f -d "$TMP/out" "$TMP/img"
race "unsquashfs, symlinks" -l "$SQUASHKIT" unsquashfs -f -d "$TMP/out" "$TMP/img"
race "unsquashfs, own files" -h "$SQUASHKIT" unsquashfs -f -d "$TMP/out" "$TMP/img"
race "unimage, links" -h "$SQUASHKIT" unimage -q -f -d "$TMP/out" "$TMP/links.img"
race "unsquashfs, links" -h "$SQUASHKIT" unsquashfs -f -d "$TMP/out" "$TMP/links.img"

done_testing
