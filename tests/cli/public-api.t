#!/bin/sh
# public-api.t: the commands converted to the public API read and write
# images through <squashkit/...> alone: none of their files includes a
# header of the library's parts about images (read/, walk/, write/, mkfs/,
# source/, diff/, fsck/, format/, compressors/, cache/). The utilities that
# are not about images (util/json.h, util/parse.h, util/error.h, ...) and
# the front ends' own helpers (cmd/*.h) stay allowed.
#
# FILES: one line a command's file. EXCEPTIONS: "FILE HEADER why", an
# include that stays until the API covers what it is for.
#
# unimage opens its image and prints --stats through cmd/imageopt.h, the
# inspectors' opening (converted on its own); it still hands unimage the
# library's struct sqk_image_opts for --cache and --cache-policy. The
# unsquashfs front end's extraction and listing (compat_unsq_extract.c,
# compat_unsq_out.c) are not listed: they are a sink of the library's walk
# (filtering, printing and counting each entry, passing over what cannot
# be made), which the API does not offer.
. "$SQK_SRCDIR/tests/lib.sh"

cd "$SQK_SRCDIR" || {
	echo "Bail out! no source tree at $SQK_SRCDIR"
	exit 1
}

FILES='
cmd/unimage.c
cmd/compat_unsq_follow.c
cmd/compat_unsquashfs.c
'
EXCEPTIONS='
'

# breaches FILE...: "FILE: HEADER" for each include about images not excepted.
breaches() {
	for f in "$@"; do
		sed -n 's/^#include "\(\(read\|walk\|write\|mkfs\|source\|diff\|fsck\|format\|compressors\|cache\)\/.*\)"/\1/p' "$f" |
			while read -r h; do
				printf '%s\n' "$EXCEPTIONS" | grep -q "^$f $h " || echo "$f: $h"
			done
	done
}

for f in $FILES; do
	test -f "$f" || echo "Bail out! $f is listed but not in the tree"
done
# shellcheck disable=SC2086
breaches $FILES >"$TMP/bad"
test ! -s "$TMP/bad"
ok $? "the converted commands include no internal header about images"
sed 's/^/#   /' "$TMP/bad"

# The check sees a breach: a file that includes the reader's header.
printf '#include "cmd.h"\n#include "read/image.h"\n#include "util/json.h"\n' >"$TMP/probe.c"
is "$(breaches "$TMP/probe.c")" "$TMP/probe.c: read/image.h" "an include of read/image.h is a breach"

done_testing
