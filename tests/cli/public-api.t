#!/bin/sh
# public-api.t: the front ends that read and write images through the
# public API alone (include/squashkit) include no internal header about
# images: none of read/, walk/, write/, mkfs/, source/, diff/, fsck/,
# format/, compressors/, cache/, directly or through a header of cmd/.
# Utilities that are not about images (util/json.h, util/parse.h,
# util/error.h, util/pool.h) are theirs to use. An include that cannot go
# yet is listed below with its reason.
. "$SQK_SRCDIR/tests/lib.sh"

cd "$SQK_SRCDIR" || {
	echo "Bail out! no source tree at $SQK_SRCDIR"
	exit 1
}

INTERNAL="read walk write mkfs source diff fsck format compressors cache"

# The files of each front end on the public API.
FILES="cmd/diff.c cmd/diff_out.c cmd/diff_cmd.h
cmd/mkimage.c cmd/mkimage.h cmd/mkimage_append.c cmd/mkimage_args.c cmd/mkimage_json.c
cmd/mkimage_reuse.c"
FILES="$FILES cmd/unimage.c cmd/compat_unsquashfs.c cmd/compat_unsq_follow.c"
FILES="$FILES cmd/inspect.c cmd/show.c cmd/show.h cmd/imageopt.c cmd/imageopt.h"
FILES="$FILES cmd/compat_unsq_extract.c cmd/compat_unsq_out.c cmd/compat_unsq.h"
FILES="$FILES cmd/cat.c cmd/stat.c cmd/ls.c cmd/fsck.c"

# Exceptions, "FILE HEADER": each with the reason it stays.
# cmd/diff.c opens its image operands with cli_open_image_at (imageopt.h;
# see below why imageopt.h is internal).
# mkimage builds through squashkit/build.h. It checks its attribute options
# (--xattrs-*, --*-mode, --root-uid/gid, --sort) with cli_attropt_take
# (attropt.h, which includes write/sort.h, shared with unimage) for the
# usage line a bad value gives ("FILE:LINE: why" for a sort file among
# them), then hands them to the API; mkimage.h holds that struct for the
# command line, and mkimage.c says the build's warnings with
# cli_attropt_warn, as unimage does. mkimage_reuse.c opens each image of
# --reuse with cli_open_image (imageopt.h) before the build, for the lines
# --reuse-offset gives (where auto found the image, "choose one with
# --offset", the hint of an image further into the file), as diff does;
# the library opens them again to reuse.
EXCEPT="cmd/diff.c imageopt.h \
cmd/mkimage.c attropt.h \
cmd/mkimage.c mkimage.h \
cmd/mkimage.h attropt.h \
cmd/mkimage_append.c mkimage.h \
cmd/mkimage_args.c mkimage.h \
cmd/mkimage_json.c mkimage.h \
cmd/mkimage_reuse.c imageopt.h \
cmd/mkimage_reuse.c mkimage.h"
# cmd/unimage.c opens its image with cli_open_image and prints --stats
# with cli_print_stats_as (imageopt.h, the inspectors' image opening),
# giving it the reader's struct sqk_image_opts for --cache and
# --cache-policy. It checks --xattrs-include and --xattrs-exclude with
# cli_attropt_take (attropt.h, which holds mkimage's --sort too) for the
# usage error line a bad pattern gives, then hands them to the API.
# cmd/compat_unsquashfs.c (the unsquashfs front end) opens its image like
# unimage (imageopt.h: cli_open_image, the reader's cache sizes). Its -s
# (cmd/compat_unsq_stat.c: not listed) reads the superblock and the codec's
# settings from the reader: sqk_image_info() has no version, no xattr id
# count and no settings in the words the peer's codecs print.
EXCEPT="$EXCEPT cmd/unimage.c imageopt.h cmd/unimage.c attropt.h"
EXCEPT="$EXCEPT cmd/compat_unsquashfs.c imageopt.h"
# imageopt.h includes read/image.h for struct sqk_image_opts, the reader's
# options its functions take from the front ends that set cache sizes
# (unimage, diff, mkimage --reuse, the unsquashfs front end) and from bench
# and mount, whose settings the public API has not (the cache lookup, the
# block cache limit). cli_open_image and cli_open_image_at open through
# sqk_image_open_path with the public options made from it, --offset auto
# and the hint of an image further in search with sqk_image_find_path, and
# --stats prints from sqk_image_counter and sqk_image_rate. imageopt.c also
# names the wait policies (--cache-policy), reads --stats back into the
# cache's counters for bench, and gives an internal call's I/O error the
# image file's errno (cli_image_err_text). cmd/show.c, the inspectors'
# driver, opens with cli_open_image (imageopt.h, the reader's defaults) and
# prints --stats with cli_print_stats. show_type.c (the type names and the
# size a mount shows, from the codec, for the listings of ls, stat, diff
# and the unsquashfs front end) is not listed: no public call names a type
# yet.
# cmd/fsck.c reads the file cli_open_image_file placed after --offset
# (imageopt.h) with sqk_check_io: fsck checks any file, image or not.
EXCEPT="$EXCEPT cmd/fsck.c imageopt.h"
EXCEPT="$EXCEPT cmd/imageopt.h read/image.h cmd/imageopt.c imageopt.h cmd/show.c imageopt.h"

# internal_of FILE: the internal headers FILE includes, through cmd/'s own headers too.
internal_of() {
	sed -n 's/^#include "\(.*\)"/\1/p' "$1" | while read -r h; do
		case $h in
		*/*)
			for p in $INTERNAL; do
				case $h in "$p"/*) echo "$h" ;; esac
			done
			;;
		*)
			[ -f "cmd/$h" ] && [ "cmd/$h" != "$1" ] &&
				[ -n "$(internal_of "cmd/$h")" ] && echo "$h"
			;;
		esac
	done
}

# breaches FILE...: "FILE: HEADER" for each internal include not excepted.
breaches() {
	for f in "$@"; do
		internal_of "$f" | while read -r h; do
			case " $EXCEPT " in
			*" $f $h "*) ;;
			*) echo "$f: $h" ;;
			esac
		done
	done
}

# shellcheck disable=SC2086
breaches $FILES >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "the front ends on the public API include no internal header about images"
sed 's/^/#   /' "$TMP/bad"

# Every exception still names an include there is (or it goes from the list).
# shellcheck disable=SC2086
set -- $EXCEPT
while [ $# -ge 2 ]; do
	grep -q "^#include \"$2\"" "$1"
	ok $? "the exception $1 $2 is still needed"
	shift 2
done

# The check sees a breach, direct and through a header of cmd/.
printf '#include "diff/diff.h"\n' >"$TMP/direct.c"
printf '#include "imageopt.h"\n' >"$TMP/cmd-probe.c"
is "$(breaches "$TMP/direct.c")" "$TMP/direct.c: diff/diff.h" "a direct include of diff/ is a breach"
is "$(breaches "$TMP/cmd-probe.c")" "$TMP/cmd-probe.c: imageopt.h" \
	"so is a header of cmd/ that includes read/"

done_testing
