# Shared by the tests that damage images (corrupt.t, agree-damaged.t): the
# tools, the small tree the images are made of, and the parallel run of the
# cases. Source it after tests/lib.sh; set FLIPS, TRUNCS, SEED and WORKERS,
# and define run_cases IMAGE WORKER, which runs the cases WORKER,
# WORKER + WORKERS, ... below FLIPS + TRUNCS (with drive and commands) and
# prints a line each.
#
# The cases run in-process in tests/tools/damage-run, through the library
# calls fsck and unimage make: a process start costs far more than a case
# of an 8 KB image. tests/tools/corrupt makes the same damage one case at a
# time, for the sample that the commands themselves run on.

CORRUPT=$SQK_TOOLS/corrupt
DAMAGE_RUN=$SQK_TOOLS/damage-run
[ -x "$CORRUPT" ] || skip_all "$CORRUPT is not built"
[ -x "$DAMAGE_RUN" ] || skip_all "$DAMAGE_RUN is not built"
# The commands run as themselves on every SAMPLE-th case.
SAMPLE=25

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
	grep -a '^#' "$TMP/res"
}

# drive IMAGE WORKER [damage-run options]: the damage-run lines of the cases
# WORKER, WORKER + WORKERS, ... ("CASE FSCK UNIMAGE WHAT", and notes), with
# the damaged images fsck says clean in $TMP/scr-WORKER. When damage-run
# dies (a signal, its watchdog's 124, a sanitizer's report), the case it
# died in gets the line "CASE crash STATUS PHASE" ("end" for CASE after the
# last case), its stderr becomes notes, and the run goes on from the next
# case.
drive() {
	d_img=$1
	d_next=$2
	shift 2
	d_scr=$TMP/scr-$d_next
	rm -rf "$d_scr"
	mkdir "$d_scr" || return
	while [ "$d_next" -lt $((FLIPS + TRUNCS)) ]; do
		"$DAMAGE_RUN" "$@" "$d_img" $SEED $FLIPS $((FLIPS + TRUNCS)) $d_next $WORKERS \
			"$d_scr" >"$d_scr.out" 2>"$d_scr.err"
		d_st=$?
		cat "$d_scr.out"
		if [ $d_st -eq 0 ] && [ ! -s "$d_scr.err" ]; then
			break
		fi
		d_last=$(awk '!/^#/ { c = $1 } END { print c }' "$d_scr.out")
		d_case=${d_last:-none}
		if [ -n "$d_last" ]; then
			d_case=$((d_last + WORKERS))
		elif [ $d_st -ne 0 ]; then
			d_case=$d_next
		fi
		[ "$d_case" = none ] || [ "$d_case" -lt $((FLIPS + TRUNCS)) ] || d_case=end
		d_phase=$(sed -n 's/^damage-run: case [0-9]* [a-z]* in \([a-z]*\)$/\1/p' "$d_scr.err" |
			head -1)
		echo "#   damage-run exit $d_st, case $d_case:"
		head -40 "$d_scr.err" | sed 's/^/#     /'
		echo "$d_case crash $d_st ${d_phase:-?}"
		# Go on after a case that crashed; not after a failure to start.
		[ $d_st -ge 124 ] || grep -q -E 'Sanitizer|runtime error|^damage-run: case' \
			"$d_scr.err" || break
		[ "$d_case" != end ] || break
		d_next=$((d_case + WORKERS))
	done
	rm -f "$d_scr.out" "$d_scr.err"
}

# commands IMAGE WORKER FSCK_THREADS [PROBLEMS]: run the commands
# themselves, fsck -q and unimage -q -j 1 -d, on the cases of the worker
# that are multiples of SAMPLE (from the driver's lines in $TMP/drv-WORKER),
# each damaged by corrupt; one line each: "CASE cmd FSCK UNIMAGE WHAT",
# where a crash or a hang is a status of 124 or more and a sanitizer's
# report is "report". With PROBLEMS (damage-run -p), fsck must print the
# problems damage-run wrote for the case, or FSCK gets "-problems".
commands() {
	c_x=$TMP/cmd-$2
	awk -v s=$SAMPLE '$2 ~ /^[0-9]+$/ && $1 % s == 0 { print $1 }' "$TMP/drv-$2" |
		while read -r c_i; do
			c_what=$("$CORRUPT" "$1" "$c_x.img" $SEED "$c_i" $FLIPS) || {
				echo "# corrupt failed on case $c_i"
				continue
			}
			timeout 20 "$SQUASHKIT" fsck -q -j "$3" "$c_x.img" >"$c_x.fout" 2>"$c_x.ferr"
			c_f=$?
			if [ -n "${4:-}" ]; then
				grep -a "^$c_i	" "$4" | cut -f2- >"$c_x.prob"
				# fsck's problems go to stderr.
				if ! cmp -s "$c_x.ferr" "$c_x.prob"; then
					echo "#   case $c_i ($c_what): fsck prints other problems than damage-run's:"
					diff "$c_x.ferr" "$c_x.prob" | head -4 | sed 's/^/#     /'
					c_f=${c_f}-problems
				fi
			fi
			timeout 20 "$SQUASHKIT" unimage -q -j 1 -d "$c_x" "$c_x.img" \
				>/dev/null 2>"$c_x.uerr"
			c_u=$?
			rm -rf "$c_x"
			for c_e in "$c_x.ferr" "$c_x.uerr"; do
				if grep -q -E 'Sanitizer|runtime error' "$c_e"; then
					echo "#   case $c_i ($c_what): a sanitizer's report:"
					head -20 "$c_e" | sed 's/^/#     /'
					[ "$c_e" = "$c_x.ferr" ] && c_f=report || c_u=report
				fi
			done
			echo "$c_i cmd $c_f $c_u $c_what"
		done
	rm -f "$c_x".*
}

# compare_commands: the sampled commands against damage-run in $TMP/res:
# sets sampled (cases run both ways) and cmd_diff (cases where a status or
# the damage differs), and prints a note for each difference.
compare_commands() {
	eval "$(awk '/^#/ { next }
	$2 == "cmd" { cf[$1] = $3; cu[$1] = $4; cw[$1] = $5 " " $6 " " $7 " " $8; next }
	$2 ~ /^[0-9]+$/ { f[$1] = $2; u[$1] = $3; w[$1] = $4 " " $5 " " $6 " " $7 }
	END {
		for (c in cf) {
			sampled++
			if (cf[c] != f[c] || cu[c] != u[c] || cw[c] != w[c]) {
				cmd_diff++
				printf "echo \"#   case %s: commands fsck %s, unimage %s (%s);", c, cf[c], cu[c], cw[c]
				printf " damage-run fsck %s, unimage %s (%s)\"\n", f[c], u[c], w[c]
			}
		}
		printf "sampled=%d cmd_diff=%d\n", sampled, cmd_diff
	}' "$TMP/res")"
}
