#!/bin/sh
# reuse-faults.t: mkimage --reuse with every read it makes failed in turn.
#
# A rebuild of the tree with its own image as the earlier one gives the
# image again, byte for byte. Its reads (the tree's files, the earlier
# image's tables and blocks) are counted once, then the Nth is failed
# with EIO, with a short count and with EINTR:
#   - a short count and EINTR are retried: the same image, nothing said;
#   - a failed read of the tree's file, or of the earlier image before
#     its blocks (its superblock, its tables): exit 1, one line naming the
#     path with the errno's words, nothing left behind;
#   - a failed read of one of its blocks: that block is compressed afresh,
#     so the image is the same still, and one line names the earlier
#     image, how many blocks and the errno's words.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/faults.sh"

run_reuse() { sqk mkimage -q -b 4K -j2 --reuse "$W/ref.img" "$W/src" "$W/out/img"; }

# check SPEC: "" when the run went as it should, else why not.
check() {
	prep_build
	fault_run "$1" run_reuse
	act=${1##*:}
	if [ -z "$f" ]; then
		echo "the fault was not met"
		return
	fi
	case $act in
	short | EINTR)
		[ $st -eq 0 ] && [ -z "$line" ] || echo "exit $st: $line"
		same_build || echo "the image differs from the plain build"
		return
		;;
	esac
	if [ -n "$more" ]; then
		echo "more than one line: $line|$more"
		return
	fi
	if [ $st -eq 0 ]; then
		same_build || echo "the image differs from the plain build"
		case $line in
		"squashkit mkimage: $W/ref.img: "[0-9]*" could not be read back (Input/output error); compressed afresh") ;;
		*) echo "exit 0, but not the note of blocks compressed afresh: $line" ;;
		esac
		[ "$f" = "$W/ref.img" ] || echo "exit 0 with the read of '$f' failed"
		# check runs in a subshell: the sweep's count of these goes through a file.
		echo "$1" >>"$W/afresh"
		return
	fi
	[ $st -eq 1 ] || echo "exit $st, not 1 or 0"
	left_build || echo "something is left behind"
	case $line in
	"squashkit mkimage: $f: "*"Input/output error") ;;
	*) echo "does not name '$f' with its errno: $line" ;;
	esac
}

read_actions() {
	if [ -n "${SQK_SANITIZED:-}" ] && [ $(($2 % 2)) -eq 0 ]; then
		echo EIO
	else
		echo EIO short EINTR
	fi
}

prep_build
run_reuse
same_build
ok $? "reuse: the rebuild under the fault library is the plain build"
rm -f "$W/count" "$W/afresh"
prep_build
SQK_FAULT_COUNT="$W/count" run_reuse >/dev/null 2>&1
n=$(awk '$1 == "read" { print $2 }' "$W/count")
sweep check read "${n:-0}" read_actions
ok "$([ "${n:-0}" -gt 0 ] && [ $bad -eq 0 ]; echo $?)" \
	"reuse: each of ${n:-0} reads failed in turn: $runs runs as they should"
# The sweep met failed reads of the earlier image's blocks, not only runs that fail.
nb=$(sort -u "$W/afresh" 2>/dev/null | grep -c ':EIO$')
ok "$([ "$nb" -gt 0 ]; echo $?)" "reuse: $nb failed reads of the earlier image's blocks, each compressed afresh"
done_testing
