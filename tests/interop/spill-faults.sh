# Shared by reader-memory.t and writer-memory.t (source it after tests/lib.sh,
# with W, T, PRELOAD and t_empty set): faults in the temporary files a run
# makes in $T (tests/tools/libfault.so).
#
# A run X is prep_X (a fresh start), run_X (the command, under $PRELOAD)
# and left_X (true when it left nothing behind).

# under SPEC RUN: RUN (a function) with the fault SPEC; st, the stderr in
# $W/err, the path of the call faulted in f.
under() {
	rm -f "$W/log"
	SQK_FAULT="$1" SQK_FAULT_LOG="$W/log" "$2" >/dev/null 2>"$W/err"
	st=$?
	f=
	[ -f "$W/log" ] && read -r _ _ f <"$W/log"
}

# sweep NAME STATUS [PER]: each call of the temporary files of run_NAME
# (open, write, read) fails in turn, up to about PER (default 40) of each
# class, fewer under the sanitizers: a write with ENOSPC or EIO, the others
# with EIO. Each must end with STATUS and one line naming $T and the
# errno's words, nothing in $T, and left_NAME true. runs is how many calls
# were of $T's files, bad how many went wrong (the first three are said).
sweep() {
	name=$1 want=$2 per=${3:-40}
	rm -f "$W/count"
	"prep_$name"
	SQK_FAULT_COUNT="$W/count" "run_$name" >/dev/null 2>&1
	runs=0 bad=0
	for cls in open write read; do
		n=$(awk -v c=$cls '$1 == c { print $2 }' "$W/count")
		step=$(((${n:-0} + per - 1) / per))
		[ -n "${SQK_SANITIZED:-}" ] && step=$((step * 2))
		[ $step -gt 0 ] || step=1
		i=1
		while [ $i -le "${n:-0}" ]; do
			e=EIO
			[ $cls = write ] && [ $((i % 2)) -eq 1 ] && e=ENOSPC
			"prep_$name"
			under "$cls:$i:$e" "run_$name"
			at=$i
			i=$((i + step))
			case $f in
			"$T" | "$T"/*) ;;
			*) continue ;; # the image's, or the output's: tests/cli/faults.t's
			esac
			runs=$((runs + 1))
			[ $e = ENOSPC ] && words="No space left on device" || words="Input/output error"
			line=$(head -1 "$W/err")
			if [ $st -ne "$want" ] || [ "$(wc -l <"$W/err")" -ne 1 ] ||
				! echo "$line" | grep -q "temporary file in $T: $words\$" || ! t_empty ||
				! "left_$name"; then
				bad=$((bad + 1))
				[ $bad -gt 3 ] || echo "#   $name $cls:$at:$e: exit $st: $line"
			fi
		done
	done
}
