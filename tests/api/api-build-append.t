#!/bin/sh
# api-build-append.t: an append through squashkit/build.h ("append"), a
# reuse ("reuse"), and the figures read back (sqk_build_stat,
# sqk_build_compressor, sqk_build_reuse_stat). The append through the API
# (tests/api/api-build-append.c, against the installed library) gives the
# bytes `squashkit mkimage --append` gives, the kernel and unsquashfs read
# the old entries and the new; each figure is the one mkimage --stats
# --json prints for the same build. The refusals, and an append given up
# (destroyed, or SIGTERM) leaving the image's old bytes.
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_root
need_cmd unsquashfs tar
. "$SQK_SRCDIR/tests/api/api-lib.sh"
scratch_mount
M=$SQK_TOOLS/manifest
JSONQ=$SQK_TOOLS/jsonq

api_cc "$SQK_SRCDIR/tests/api/api-build-append.c"

S=$TMP/src
N=$TMP/new
mkdir -p "$S/a" "$N/added/deep"
seq 1 40000 >"$S/a/big"
printf 'old\n' >"$S/old"
seq 1 9000 >"$N/added/deep/file"
head -c 200000 /dev/urandom >"$N/added/random"
printf 'new\n' >"$N/top"
find "$S" "$N" -exec touch -h -d @1600000000 {} +
export SOURCE_DATE_EPOCH=1650000000

# figures_agree OUT JSON WHAT: each figure the program printed is the one
# mkimage's JSON has under its name, and there are as many as it names.
figures_agree() {
	_n=0
	_bad=
	while read -r _name _value; do
		case $_name in
		compressor) _p=/compression ;;
		dedup_files | dedup_bytes | dedup_tails | dedup_tail_bytes) _p=/dedup/${_name#dedup_} ;;
		sparse_blocks | sparse_bytes) _p=/sparse/${_name#sparse_} ;;
		reused_blocks | reused_bytes) _p=/reuse/${_name#reused_} ;;
		reuse.*.errno) [ "$_value" = 0 ] || _bad="$_bad $_name=$_value"; continue ;;
		reuse.*)
			_i=${_name#reuse.}
			_p=/reuse/images/${_i%%.*}/${_i#*.}
			[ "$_value" = null ] || [ "${_i#*.}" != same_compression ] ||
				_value=$([ "$_value" = 1 ] && echo true || echo false)
			;;
		inodes | files | directories | symlinks | block_devices | char_devices | fifos | \
			sockets | hardlinks | blocks | raw_blocks | compressed_blocks | fragments | ids | xattr_ids)
			_p=/counts/$_name ;;
		*) _p=/$_name ;;
		esac
		_json=$("$JSONQ" "$2" "$_p" 2>&1)
		# Without --reuse mkimage says nothing of it: nothing was reused.
		[ "$_json" = "<missing>" ] && [ "${_p#/reuse/}" != "$_p" ] && _json=0
		[ "$_json" = "$_value" ] || _bad="$_bad $_name=$_value/$_json"
		_n=$((_n + 1))
	done <"$1"
	[ -z "$_bad" ] && [ "$_n" -ge 34 ]
	ok $? "$3: the $_n figures are mkimage's${_bad:+ (differ:$_bad)}"
}

# kernel_has IMAGE WHAT: the kernel mounts IMAGE and reads $S and $N merged.
kernel_has() {
	rm -rf "$TMP/want" "$TMP/unsq"
	mkdir -p "$TMP/want"
	cp -a "$S/." "$N/." "$TMP/want/"
	touch -h -d @1600000000 "$TMP/want"
	"$M" --no-holes "$TMP/want" | grep -v '^\. ' >"$TMP/want.man"
	mount -t squashfs -o loop,ro "$1" "$MNT" 2>/dev/null &&
		"$M" --no-holes "$MNT" | grep -v '^\. ' >"$TMP/kernel.man" 2>&1
	umount "$MNT" 2>/dev/null
	same_file "$TMP/want.man" "$TMP/kernel.man" "$2: the kernel reads the old entries and the new"
	unsquashfs -no-progress -d "$TMP/unsq" "$1" >/dev/null 2>&1
	"$M" --no-holes "$TMP/unsq" | grep -v '^\. ' >"$TMP/unsq.man"
	sed -i 's/ symlink mode=[0-7]*/ symlink/' "$TMP/want.man" "$TMP/unsq.man"
	same_file "$TMP/want.man" "$TMP/unsq.man" "$2: so does unsquashfs"
}

"$SQUASHKIT" mkimage -q -c gzip -b 64K "$S" "$TMP/base.img" || echo "Bail out! no base image"
cp "$TMP/base.img" "$TMP/api.img"
cp "$TMP/base.img" "$TMP/mk.img"

# The append, as mkimage does it.
api_run api-build-append "$TMP/api.img" append source-date-epoch=$SOURCE_DATE_EPOCH \
	dir="$N" >"$TMP/fig" 2>"$TMP/err"
ok $? "the API appends"
sed 's/^/#   /' "$TMP/err" | head -5
"$SQUASHKIT" mkimage -q --append --stats --json "$N" "$TMP/mk.img" >"$TMP/mk.json" 2>"$TMP/err"
ok $? "mkimage --append appends"
cmp "$TMP/api.img" "$TMP/mk.img" >"$TMP/cmp" 2>&1
ok $? "the same bytes as mkimage --append"
sed 's/^/#   /' "$TMP/cmp" | head -3
head -c "$(stat -c %s "$TMP/base.img")" "$TMP/api.img" | cmp -s - "$TMP/base.img"
is $? 1 "the old superblock gave way to the new (the bytes differ at the start)"
kernel_has "$TMP/api.img" "append"
is "$(grep -E '^(compressor|block_size|files) ' "$TMP/fig" | tr '\n' ' ')" \
	"compressor gzip files $(find "$S" "$N" -type f | wc -l) block_size 65536 " \
	"the image's compressor and block size, every file of both trees"
figures_agree "$TMP/fig" "$TMP/mk.json" "append"

# Refusals: nothing changes the image.
cp "$TMP/base.img" "$TMP/r.img"
refused() {
	_want=$1
	shift
	api_run api-build-append "$@" dir="$N" >/dev/null 2>"$TMP/err"
	is "$?:$(cat "$TMP/err")" "1:$_want" "refused: $*"
}
refused "error -5 $TMP/r.img: compressed with gzip; append cannot add zstd blocks" \
	"$TMP/r.img" append compressor=zstd
refused "error -5 $TMP/r.img: block size 65536; append cannot use 131072" \
	"$TMP/r.img" append block-size=128K
refused "error -5 $TMP/r.img: append and force exclude each other" "$TMP/r.img" append force
refused "error -5 $TMP/r.img: append and reuse exclude each other" \
	"$TMP/r.img" append "reuse=$TMP/base.img"
refused "error -5 $TMP/r.img: append keeps the image's compressor settings; level and comp-opt cannot change them" \
	"$TMP/r.img" append level=9
refused "error -22 $TMP/none.img: no such file (append adds to an existing image)" \
	"$TMP/none.img" append
printf 'short\n' >"$TMP/short"
refused "error -17 $TMP/short: not a squashfs image" "$TMP/short" append
refused "error -5 $TMP/r.img: offset 99999999 is past the end of the file" \
	"$TMP/r.img" append offset=99999999
cmp -s "$TMP/r.img" "$TMP/base.img"
ok $? "the image refused is untouched"
api_run api-build-append "$TMP/r.img" append dir="$S" >"$TMP/out" 2>"$TMP/err"
is "$?:$(cut -d' ' -f1-2 "$TMP/err")" "1:error -11" "a source naming what the image holds fails"
is "$(cat "$TMP/out")" "failure -11 path=a/big words=already in the image errnum=0 in_image=1" \
	"its parts: the entry the image holds already"
"$SQUASHKIT" mkimage -q --append "$S" "$TMP/r.img" 2>"$TMP/err"
is "$(cat "$TMP/err")" "squashkit mkimage: $TMP/r.img: /a/big: already in the image" \
	"as mkimage words it"
cmp -s "$TMP/r.img" "$TMP/base.img"
ok $? "and the image is back to its old bytes"
api_run api-build-append "$TMP/r.img" append dir="$TMP/nowhere" >"$TMP/out" 2>"$TMP/err"
is "$(cat "$TMP/out")" "failure -22 path=$TMP/nowhere words=No such file or directory errnum=2 in_image=0" \
	"a source that is not there: its path, its errno and the errno's words"
"$SQUASHKIT" mkimage -q --append "$TMP/nowhere" "$TMP/r.img" 2>"$TMP/err"
is "$(cat "$TMP/err")" "squashkit mkimage: $TMP/nowhere: No such file or directory" \
	"as mkimage words it"

# Given up after an archive's data went in: destroyed, or killed by SIGTERM.
mkdir -p "$TMP/big"
head -c 4000000 /dev/urandom >"$TMP/big/random"
tar -C "$TMP/big" -cf "$TMP/new.tar" .
for how in destroy signal; do
	api_run api-build-append "$TMP/r.img" append archive="$TMP/new.tar" $how >"$TMP/out" 2>&1
	st=$?
	size=$(sed -n 's/^size //p' "$TMP/out")
	[ "${size:-0}" -gt "$(stat -c %s "$TMP/base.img")" ]
	ok $? "$how: the data went in first (${size:-no} bytes)"
	[ $how = destroy ] && want=0 || want=143
	is "$st" "$want" "$how: the program's end"
	cmp -s "$TMP/r.img" "$TMP/base.img"
	ok $? "$how: the image is back to its old bytes"
done

# Reuse: what each earlier image gave, and the build's figures.
"$SQUASHKIT" mkimage -q -b 64K "$S" "$TMP/old.img"
"$SQUASHKIT" mkimage -q -b 64K "$N" "$TMP/old2.img"
cp -a "$N/." "$S/"
api_run api-build-append "$TMP/reused.img" block-size=64K "reuse=$TMP/old.img" \
	"reuse=$TMP/old2.img" source-date-epoch=$SOURCE_DATE_EPOCH dir="$S" >"$TMP/fig" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "the API builds reusing an earlier image"
"$SQUASHKIT" mkimage -q -b 64K --reuse "$TMP/old.img" --reuse "$TMP/old2.img" --stats --json \
	"$S" "$TMP/reused-mk.img" >"$TMP/mk.json" 2>"$TMP/err"
cmp -s "$TMP/reused.img" "$TMP/reused-mk.img"
ok $? "the same bytes as mkimage --reuse"
blocks=$(sed -n 's/^reuse\.0\.blocks //p' "$TMP/fig")
[ "${blocks:-0}" -gt 0 ] && grep -qx 'reuse.0.same_compression 1' "$TMP/fig"
ok $? "the earlier image gave blocks (${blocks:-none}), compressed as this build would"
figures_agree "$TMP/fig" "$TMP/mk.json" "reuse"

# An image that cannot serve: refused, or with "reuse-skip-unfit" left out with why.
"$SQUASHKIT" mkimage -q -b 64K -c gzip "$N" "$TMP/gz.img"
api_run api-build-append "$TMP/unfit.img" block-size=64K "reuse=$TMP/gz.img" dir="$S" \
	>/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "1:error -5 $TMP/gz.img: cannot be reused: compressed with gzip, not zstd" \
	"an image that cannot serve is refused"
api_run api-build-append "$TMP/unfit.img" block-size=64K "reuse=$TMP/gz.img" "reuse=$TMP/old.img" \
	reuse-skip-unfit source-date-epoch=$SOURCE_DATE_EPOCH dir="$S" >"$TMP/fig" 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "with reuse-skip-unfit it is left out"
is "$(grep '^reuse\.0\.' "$TMP/fig")" "reuse.0.why compressed with gzip, not zstd" \
	"why it was left out, and no figure of it"
"$SQUASHKIT" mkimage -q -b 64K --reuse "$TMP/gz.img" --reuse "$TMP/old.img" --stats --json \
	"$S" "$TMP/unfit-mk.img" >"$TMP/mk.json" 2>"$TMP/err"
is "$("$JSONQ" "$TMP/mk.json" /reuse/images/0/why)" "compressed with gzip, not zstd" \
	"mkimage's note says the same"
grep -v '^reuse\.0\.' "$TMP/fig" >"$TMP/fig1"
figures_agree "$TMP/fig1" "$TMP/mk.json" "reuse, one image left out"
cmp -s "$TMP/unfit.img" "$TMP/unfit-mk.img"
ok $? "the same bytes as mkimage with the image it leaves out"

done_testing
