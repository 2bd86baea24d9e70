#!/bin/sh
# diff-faults.t: squashkit diff with every read it makes failed in turn.
#
# An image against the tree it was built from, and the image against
# itself: the reads of the image (its blocks, on the workers or not) and
# of the tree's files are counted once, then the Nth is failed with EIO,
# and with EACCES (an errno no other call of the run gives, so that a
# stale one shows): the run exits 2 (trouble) with one line that ends in
# the errno's words and names the operand the read was about (the image,
# or the file in the tree). A short read and EINTR are retried: the run
# then finds the trees the same (exit 0).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/faults.sh"

run_diff() {
	case $1 in
	tree) sqk diff -j2 "$W/ref.img" "$W/src" ;;
	self) sqk diff -j2 "$W/ref.img" "$W/ref.img" ;;
	esac
}

# check PAIR SPEC: "" when the run went as it should, else why not.
check() {
	fault_run "$2" run_diff "$1"
	act=${2##*:}
	if [ -z "$f" ]; then
		echo "the fault was not met"
		return
	fi
	case $act in
	short | EINTR)
		[ $st -eq 0 ] && [ -z "$line" ] || echo "exit $st: $line"
		return
		;;
	EIO) want="Input/output error" ;;
	*) want="Permission denied" ;;
	esac
	if [ $st -ne 2 ] || [ -n "$more" ]; then
		echo "exit $st, not 2, or more than one line: $line|$more"
		return
	fi
	case $line in
	*": $want") ;;
	*)
		echo "not '$want': $line"
		return
		;;
	esac
	# The image as "IMAGE: /path: ...", a file of the tree by its own path.
	case $line in
	"squashkit diff: $f: "*) ;;
	*) echo "does not name '$f': $line" ;;
	esac
}

# read_actions read I: what the Ith read is given. Under the sanitizers
# (SQK_SANITIZED=1), where a run costs several times more, the retries and
# EIO at every other read only.
read_actions() {
	if [ -n "${SQK_SANITIZED:-}" ] && [ $(($2 % 2)) -eq 0 ]; then
		echo EACCES
	else
		echo EIO EACCES short EINTR
	fi
}

expect_status 0 "diff: the image and its tree are the same, under the fault library" \
	run_diff tree
total=0
for pair in tree self; do
	rm -f "$W/count"
	SQK_FAULT_COUNT="$W/count" run_diff $pair >/dev/null 2>&1
	n=$(awk '$1 == "read" { print $2 }' "$W/count")
	sweep "check $pair" read "${n:-0}" read_actions
	total=$((total + runs))
	ok "$([ "${n:-0}" -gt 0 ] && [ $bad -eq 0 ]; echo $?)" \
		"diff $pair: each of ${n:-0} reads failed in turn: $runs runs as they should"
done
echo "# $total injection points covered"
done_testing
