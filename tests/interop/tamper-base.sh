# The image tests/tools/tamper changes, shared by fsck-crafted.t and
# mount-hostile.t. Source it after tests/lib.sh.

# tamper_base DIR IMAGE: build in DIR the tree whose entries each kind of
# damage needs by name (see tamper.c), and pack it into IMAGE with mksquashfs,
# metadata uncompressed so that tamper can walk the tables. Fails when
# mksquashfs does.
tamper_base() {
	mkdir -p "$1/sub" "$1/big"
	printf 'hello\n' >"$1/hello"
	awk 'BEGIN { for (i = 0; i < 1000; i++) printf "data line %d\n", i }' >"$1/data"
	truncate -s 20000 "$1/holes"
	printf 'x\n' >>"$1/holes"
	ln -s hello "$1/link"
	printf 'shared\n' >"$1/shared"
	ln "$1/shared" "$1/shared2"
	printf 'in\n' >"$1/sub/inner"
	printf 'other\n' >"$1/sub/other"
	mkdir "$1/sub/deep"
	printf 'back\n' >"$1/sub/deep/back"
	# Long names: big's listing spans two metadata blocks, so it has an index.
	pad=$(printf '%0200d' 0)
	i=0
	while [ $i -lt 40 ]; do
		: >"$1/big/entry-$(printf '%02d' $i)-$pad"
		i=$((i + 1))
	done
	setfattr -n user.k -v v "$1/shared" 2>/dev/null || true
	mksquashfs "$1" "$2" -noappend -quiet -no-progress -b 4K -noI -noD -noF -noX \
		-all-time 1600000000 -mkfs-time 1600000000 >/dev/null 2>&1
}
