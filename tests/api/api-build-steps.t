#!/bin/sh
# api-build-steps.t: what a front end that words its own messages learns of
# a build (tests/api/api-build-steps.c, against the installed library):
# sqk_build_opts_check (the compressor's level and options, in mkimage's
# words), sqk_build_opts_add_pseudo and _pseudo_file (read with the
# options: a bad one says where, as mkimage says it; the builds made from
# the options apply them), sqk_build_failed_step (which step of create, or
# of the build, failed) and sqk_build_written (the output's bytes so far,
# from another thread too).
SCRATCH=1
. "${SQK_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
need_cmd unsquashfs
. "$SQK_SRCDIR/tests/api/api-lib.sh"

api_cc "$SQK_SRCDIR/tests/api/api-build-steps.c"
run() { api_run api-build-steps "$@" >"$TMP/out" 2>&1; }

S=$TMP/src
mkdir -p "$S/a"
head -c 400000 /dev/urandom >"$S/a/random"
printf 'hello\n' >"$S/plain"

# mkimage's own line for the same command line, without its prefix.
mk_line() {
	"$SQUASHKIT" mkimage -q "$@" "$S" "$TMP/mk.img" 2>&1 | head -1 |
		sed 's/^squashkit mkimage: //'
}

# The compressor's settings, checked before anything is opened.
run "$TMP/x.img" compressor=gzip level=30 check
is "$(head -1 "$TMP/out")" "check -5 $(mk_line -c gzip -L 30)" "a level out of range, in mkimage's words"
run "$TMP/x.img" compressor=xz comp-opt=nosuch=1 check
is "$(head -1 "$TMP/out")" "check -5 $(mk_line -c xz -X nosuch=1)" "an option the codec has not"
run "$TMP/x.img" compressor=xz comp-opt=lc=4 comp-opt=lp=4 check
is "$(head -1 "$TMP/out")" "check -5 $(mk_line -c xz -X lc=4 -X lp=4)" "options that do not go together"
run "$TMP/x.img" compressor=gzip level=9 check
is "$(head -1 "$TMP/out")" "check 0 " "settings in range pass"
test ! -e "$TMP/x.img"
ok $? "checking opens nothing"

# Pseudo definitions read with the options.
run "$TMP/p.img" "pseudo=bad x 0755 0 0"
is "$?:$(cat "$TMP/out")" "1:opts -5 $(mk_line --pseudo 'bad x 0755 0 0')" \
	"a bad definition says where and why, as mkimage does"
printf 'one d 0755 0 0\ntwo q\n' >"$TMP/defs"
run "$TMP/p.img" "pseudo-file=$TMP/defs"
is "$?:$(cat "$TMP/out")" "1:opts -5 $(mk_line --pseudo-file "$TMP/defs")" \
	"a bad line of a file says its file and line"
run "$TMP/p.img" "pseudo-file=$TMP/none"
is "$?:$(cat "$TMP/out")" "1:opts -22 $TMP/none: No such file or directory" \
	"a file that cannot be read says its errno"
run "$TMP/p.img" "pseudo=made d 0700 3 4" "pseudo=made/f f 0644 0 0 echo hi" \
	"pseudo=made/link L made/f" dir="$S"
is "$?:$(grep -c '^finish 0 ' "$TMP/out")" "0:1" "a build applies the options' definitions"
sed 's/^/#   /' "$TMP/out"
unsquashfs -lln "$TMP/p.img" >"$TMP/ls" 2>&1
grep -q '^drwx------ 3/4 .* squashfs-root/made$' "$TMP/ls"
ok $? "the directory defined is there with its mode and owner"
grep -q '^-rw.* squashfs-root/made/link$' "$TMP/ls" && ! grep -q 'squashfs-root/late$' "$TMP/ls"
ok $? "a link names an earlier entry; a definition added after create is not taken"
grep -q "a definition added after create was taken" "$TMP/out"
is $? 1 "and is refused"

# Which step of create failed.
create_step() {
	run "$@"
	sed -n 's/^create -[0-9]* \([a-z-]*\) .*/\1/p' "$TMP/out"
}
is "$(create_step "$TMP/none.img" offset=100)" offset "an offset with no file: the offset step"
grep -q "^create -22 offset 2 " "$TMP/out"
ok $? "with the code and errno of the file that is not there"
head -c 50 /dev/zero >"$TMP/short"
is "$(create_step "$TMP/short" offset=100 force)" offset "fewer bytes than the offset: the offset step"
printf x >"$TMP/exists.img"
is "$(create_step "$TMP/exists.img")" output "an existing image without force: the output step"
grep -q "^create -11 output 0 " "$TMP/out"
ok $? "with SQK_ERR_EXIST"
is "$(create_step "$TMP/x.img" "reuse=$TMP/short")" reuse "an earlier image that is none: the reuse step"
is "$(create_step "$TMP/exists.img" append)" append-not-image \
	"an append to a file too short for an image: the append step, and why"
is "$(create_step "$TMP/none.img" append)" append-open "an append to nothing: append-open"
grep -q "^create -[0-9]* append-open 2 " "$TMP/out"
ok $? "with the errno"
is "$(create_step "$TMP/short" append offset=50)" append-past-end "an append past the end: append-past-end"
mkfifo "$TMP/fifo"
is "$(create_step "$TMP/fifo" append)" append-not-regular "an append to a fifo: append-not-regular"
is "$(create_step "$TMP/x.img" sort="$TMP/none")" "" "a sort file is checked when set, not at create"
is "$(create_step "$TMP/x.img" compressor=xz comp-opt=lc=4 comp-opt=lp=4)" options \
	"codec options that do not go together: the options step"
is "$(create_step "$TMP/x.img" regex "exclude=a(")" driver "an exclude that does not compile: the driver"
grep -q "^failure -5 a(: invalid regular expression" "$TMP/out"
ok $? "its failure in parts with no build: the pattern and what is wrong"
run "$TMP/x.img" offset=100
grep -qx "failure 0 : " "$TMP/out"
ok $? "a create that failed before the driver has no driver's failure"
test ! -e "$TMP/x.img" && [ "$(cat "$TMP/exists.img")" = x ]
ok $? "no failed create leaves a file or changes one"

# Which step of a build failed.
run "$TMP/s.img" dir="$TMP/none"
grep -q "^source -[0-9]* source$" "$TMP/out"
ok $? "a source that is not there: the source step"
run "$TMP/s.img" "pseudo=plain d 0755 0 0" dir="$S"
grep -q "^finish -5 pseudo " "$TMP/out"
ok $? "a definition that clashes with a source: the pseudo step, SQK_ERR_ARG"
sed 's/^/#   /' "$TMP/out"
test ! -e "$TMP/s.img"
ok $? "and no image is left"

# The bytes written so far.
head -c 12345 /dev/urandom >"$TMP/o.img"
run "$TMP/o.img" offset=12345 dir="$S"
is "$(grep '^written' "$TMP/out")" "written 12345" "right after create, the bytes kept in front"
size=$(stat -c %s "$TMP/o.img")
polled=$(sed -n 's/^polled //p' "$TMP/out")
progress=$(sed -n 's/^progress //p' "$TMP/out")
[ "$progress" -ge 12345 ] && [ "$progress" -le "$size" ]
ok $? "in the progress callback, what the file holds, no more than the image ($progress of $size)"
[ "$polled" -ge 12345 ] && [ "$polled" -le "$size" ]
ok $? "from another thread, what the file holds ($polled)"

done_testing
