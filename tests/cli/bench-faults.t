#!/bin/sh
# bench-faults.t: bench's errors under injected faults name the true errno
# and the path it was about.
#
# - Every read of a short bench run on an image failed in turn with EACCES
#   (an errno no other call gives): a read that fails while the image is
#   opened or its files listed ends the run with one line, "IMAGE:
#   Permission denied", exit 1; one in the runs themselves is counted there.
# - The default tree (no IMAGE): the Nth file written fails with ENOSPC:
#   one line naming that file with "No space left on device", exit 1, and
#   the scratch directory is gone.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/faults.sh"

bench_img() { sqk bench -q -w stat -t 1 -p herd -r 1 -d 10ms "$W/ref.img"; }

rm -f "$W/count"
SQK_FAULT_COUNT="$W/count" bench_img >/dev/null 2>&1
n=$(awk '$1 == "read" { print $2 }' "$W/count")
bad=0
ended=0
i=1
while [ $i -le "${n:-0}" ]; do
	fault_run "read:$i:EACCES" bench_img
	if [ $st -ne 0 ]; then
		ended=$((ended + 1))
		if [ $st -ne 1 ] || [ -n "$more" ] ||
			[ "$line" != "squashkit bench: $W/ref.img: Permission denied" ]; then
			bad=$((bad + 1))
			[ $bad -gt 5 ] || echo "#   read:$i:EACCES: exit $st: $line|$more"
		fi
	fi
	i=$((i + 1))
done
ok "$([ "${n:-0}" -gt 0 ] && [ $ended -gt 0 ] && [ $bad -eq 0 ]; echo $?)" \
	"bench IMAGE: each of ${n:-0} reads failed in turn: $ended end the run, each with the image's errno"

# The default tree, in a scratch directory of its own.
bench_tree() { TMPDIR="$W/bt" sqk bench -q -d 10ms; }
for i in 1 151; do
	rm -rf "$W/bt" && mkdir "$W/bt"
	fault_run "write:$i:ENOSPC" bench_tree
	is "$st $line$more" \
		"1 squashkit bench: ${f:-?}: cannot generate the default tree: No space left on device" \
		"bench, write $i of the default tree fails: one line names the file and ENOSPC"
	ok "$(is_empty "$W/bt"; echo $?)" "bench, write $i of the default tree fails: nothing left"
done
done_testing
