#!/bin/sh
# api-grow.t: the structs a caller allocates grow at their end without a
# new soname (tests/api/api-grow.c). A program built against an older
# header (tests/api/api-grow-old.h: struct sqk_image_info without
# version_major and version_minor, struct sqk_stat without parent) runs
# against the installed library: what it reads matches the kernel's mount
# of the image, nothing is written past its structs, its struct sqk_io and
# struct sqk_attr are taken; the same program built against the installed
# headers reads the added fields. A struct smaller than any version, and a
# newer one with a field the library does not know set, are refused.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd mksquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount

# The old program: the installed library, but the structs of the old header.
cp "$SQK_SRCDIR/tests/api/api-grow.c" "$SQK_SRCDIR/tests/api/api-grow-old.h" "$TMP/"
api_cc "$TMP/api-grow.c"
mv "$TMP/bin/api-grow" "$TMP/bin/api-grow-old"
sed -i '1i #define NEW_HEADER 1' "$TMP/api-grow.c"
api_cc "$TMP/api-grow.c"
mv "$TMP/bin/api-grow" "$TMP/bin/api-grow-new"

S=$TMP/src
mkdir -p "$S/d/e" "$S/f"
printf 'x\n' >"$S/d/x"
chmod 0710 "$S/d"
chown 12:34 "$S/d"
touch -d @1500000000 "$S/d"
mksquashfs "$S" "$TMP/img" -noappend -quiet -no-progress >/dev/null 2>&1
ok $? "mksquashfs packs the tree"

mount -t squashfs -o loop,ro "$TMP/img" "$MNT"
kernel_d=$(stat -c 'ino %i mode 0x%f nlink %h uid %u gid %g mtime %Y' "$MNT/d")
root_ino=$(stat -c %i "$MNT")
inodes=$(find "$MNT" | wc -l)
umount "$MNT"
# shellcheck disable=SC2086
set -- $kernel_d
kernel_d="$1 $2 $3 $(printf %o "$4") $5 $6 $7 $8 $9 ${10} ${11} ${12}"
test "$4" = 0x41c8
ok $? "the kernel shows /d as made (mode $4)"

for v in old new; do
	api_run "api-grow-$v" "$TMP/img" "$TMP/out-$v.img" >"$TMP/$v" 2>"$TMP/$v.err"
	ok $? "the program built against the $v header runs and its checks hold"
	sed 's/^/#   /' "$TMP/$v.err"
	is "$(sed -n 's/^stat \/d //p' "$TMP/$v")" "$kernel_d" \
		"$v header: struct sqk_stat of /d as the kernel has it"
	is "$(sed -n 's/^info inodes \([0-9]*\) .*/\1/p' "$TMP/$v")" "$inodes" \
		"$v header: struct sqk_image_info counts the kernel's inodes"
	is "$(sed -n 's/^io inodes //p' "$TMP/$v")" "$inodes" \
		"$v header: the image opens through its struct sqk_io"
	is "$(sed -n 's/^io closed //p' "$TMP/$v")" 1 "$v header: its close callback is called once"
	is "$(sed -n 's/^after the image //p' "$TMP/$v")" "$(echo "$kernel_d" | cut -d' ' -f1,2)" \
		"$v header: an inode outlives its image"
	is "$(sed -n 's/^small //p' "$TMP/$v")" -5 "$v header: a struct too small for any version is SQK_ERR_ARG"
	is "$(sed -n 's/^newer set //p' "$TMP/$v")" -4 \
		"$v header: a newer struct with an unknown field set is SQK_ERR_UNSUPPORTED"
	mount -t squashfs -o loop,ro "$TMP/out-$v.img" "$MNT"
	is "$(stat -c '%a %u %g %Y' "$MNT/old" "$MNT/later-zero" | sort -u)" "750 7 8 1600000000" \
		"$v header: its struct sqk_attr gives the directories' attributes"
	test ! -e "$MNT/later-set"
	ok $? "$v header: the refused entry is not in the image"
	umount "$MNT"
done

old_sizes=$(sed -n 's/^sizes //p' "$TMP/old")
new_sizes=$(sed -n 's/^sizes //p' "$TMP/new")
test "$old_sizes" != "$new_sizes"
ok $? "the structs did grow ($old_sizes; now $new_sizes)"
is "$(sed -n 's/^new //p' "$TMP/new")" "version 4.0 parent $root_ino" \
	"the new header reads the added fields: the format's version, /d's parent"

done_testing
