# Shared by the tests that damage images with tests/tools/corrupt
# (corrupt.t, agree-damaged.t): the tool, the small tree the images are made
# of, and the parallel run of the cases. Source it after tests/lib.sh; set
# FLIPS, TRUNCS, SEED and WORKERS, and define run_cases IMAGE WORKER, which
# runs the cases WORKER, WORKER + WORKERS, ... below FLIPS + TRUNCS and
# prints a line each.

CORRUPT=$SQK_TOOLS/corrupt
[ -x "$CORRUPT" ] || skip_all "$CORRUPT is not built"

# small_tree DIR ENTRIES: blocks, a tail, a hard link, a symlink, a fifo, a
# hole, and a directory of ENTRIES files with names long enough for an
# index. Each test adds what only it needs.
small_tree() {
	mkdir -p "$1/dir/sub" "$1/empty" "$1/many"
	printf 'hello\n' >"$1/hello"
	awk 'BEGIN { for (i = 0; i < 700; i++) printf "line %d of a file spanning blocks\n", i }' \
		>"$1/dir/blocks"
	head -c 3000 "$1/dir/blocks" >"$1/dir/sub/tail"
	ln "$1/hello" "$1/dir/hardlink"
	ln -s ../hello "$1/dir/symlink"
	mkfifo "$1/fifo"
	truncate -s 12288 "$1/sparse"
	printf 'end\n' >>"$1/sparse"
	i=0
	while [ $i -lt "$2" ]; do
		printf '%d\n' $i >"$1/many/an-entry-with-a-name-long-enough-for-an-index-$i"
		i=$((i + 1))
	done
}

# all_cases IMAGE: run_cases in WORKERS parallel workers; their lines go to
# $TMP/res, and the notes among them (lines starting with #) to stdout.
all_cases() {
	w=0
	while [ $w -lt $WORKERS ]; do
		run_cases "$1" $w >"$TMP/res-$w" 2>&1 &
		w=$((w + 1))
	done
	wait
	cat "$TMP"/res-* >"$TMP/res"
	rm -f "$TMP"/res-*
	grep '^#' "$TMP/res"
}
