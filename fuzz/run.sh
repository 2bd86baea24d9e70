#!/bin/sh
# run.sh DIR SECONDS JOBS TARGET... — run each libFuzzer target in DIR for
# SECONDS on its seed corpus (DIR/corpus-TARGET) and its own growing corpus
# (DIR/work-TARGET), JOBS targets at a time (each target is one process on
# one core, so two at a time on two cores give each the same time as one
# after the other); print how long each ran and how fast, in the order
# given; exit 1 when any target found a crash, a leak, a timeout or ran out
# of memory (the input is left in DIR/crashes-TARGET/).
dir=$(cd "$1" && pwd) # absolute: the options target changes directory
secs=$2
jobs=$3
shift 3

# one TARGET: run it; its report goes to DIR/TARGET.report.
one() {
	t=$1
	work=$dir/work-$t
	arts=$dir/crashes-$t
	log=$dir/$t.log
	mkdir -p "$work" "$arts"
	rm -f "$arts"/* "$dir/$t.report"
	start=$(date +%s%N)
	"$dir/$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$arts/" "$work" "$dir/corpus-$t" >"$log" 2>&1
	rc=$?
	end=$(date +%s%N)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	units=$(ls "$work" | wc -l)
	found=$(ls "$arts" | wc -l)
	{
		printf 'fuzz %-8s ran %5.1f s, %9s execs, %7s exec/s, corpus %s; %s\n' "$t" \
			"$(echo "$start $end" | awk '{ printf "%.1f", ($2 - $1) / 1e9 }')" \
			"${execs:-?}" "${rate:-?}" "$units" \
			"$([ "$rc" -eq 0 ] && [ "$found" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")"
		if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
			ls "$arts" | sed 's/^/    found: /'
			grep -m 5 -E 'ERROR|SUMMARY|runtime error|ALARM|out-of-memory' "$log" |
				sed 's/^/    /'
			echo "    log: $log"
		fi
	} >"$dir/$t.report"
}

running=0
for t in "$@"; do
	one "$t" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
fail=0
for t in "$@"; do
	cat "$dir/$t.report"
	grep -q '; ok$' "$dir/$t.report" || fail=1
done
exit $fail
