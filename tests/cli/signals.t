#!/bin/sh
# signals.t: SIGINT and SIGTERM at every moment of a build, an append and an
# extraction to a directory and to an archive leave nothing behind.
#
# At every call of every class the fault library counts (see faults.t), a
# run has the signal sent to itself there: it must die of the signal, with
# no image, temporary file or tree left, and the appended image byte for
# byte as it was, unless the signal came after the new superblock was
# written: then it is the whole new image. Then the same at timed moments,
# on a tree large enough to be caught mid-way: either the run finished (and
# its output is whole) or it died of the signal and left nothing (or, the
# signal coming after the end, the whole output).
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"
. "$SQK_SRCDIR/tests/cli/faults.sh"

total=0
for sc in build append dir tar; do
	signal_sweep $sc
done
echo "# $total signalled calls"

# Timed: a larger tree, the signal after a delay.
mkdir -p "$W/large"
i=0
while [ $i -lt 40 ]; do
	mkdir "$W/large/d$i"
	awk -v d=$i 'BEGIN { for (j = 0; j < 3000; j++) printf "%d line %d of a file\n", d, j }' \
		>"$W/large/d$i/f"
	for k in 1 2 3 4 5 6 7 8 9; do cp "$W/large/d$i/f" "$W/large/d$i/f$k"; done
	i=$((i + 1))
done
"$SQUASHKIT" mkimage -q -b 4K -c gzip --no-dedup "$W/large" "$W/large.img"
"$SQUASHKIT" unimage -q -d "$W/large-tree" "$W/large.img"
"$SQUASHKIT" unimage -q -o "$W/large.tar" "$W/large.img"
cp "$W/ref.img" "$W/lapp-ref.img"
"$SQUASHKIT" mkimage -q --append "$W/large" "$W/lapp-ref.img"

# timed SCENARIO SIGNAL DELAY: the command in the background, the signal
# after DELAY; prints "died", "done" or what went wrong.
timed() {
	case $1 in
	build)
		rm -rf "$W/out" && mkdir "$W/out"
		set -- "$@" mkimage -q -b 4K -c gzip --no-dedup "$W/large" "$W/out/img"
		;;
	append)
		cp "$W/ref.img" "$W/app.img"
		set -- "$@" mkimage -q --append "$W/large" "$W/app.img"
		;;
	dir)
		rm -rf "$W/x"
		set -- "$@" unimage -q -d "$W/x" "$W/large.img"
		;;
	tar)
		rm -rf "$W/t" && mkdir "$W/t"
		set -- "$@" unimage -q -o "$W/t/a.tar" "$W/large.img"
		;;
	esac
	sc=$1
	sig=$2
	delay=$3
	shift 3
	$SIGNALABLE "$SQUASHKIT" "$@" >/dev/null 2>"$W/err" &
	pid=$!
	sleep "$delay"
	kill -s "$sig" $pid 2>/dev/null
	wait $pid 2>/dev/null
	st=$?
	if [ $st -eq 0 ]; then
		whole "$sc" && echo done || echo "finished, but its output is not whole"
		return
	fi
	[ "$sig" = INT ] && want=130 || want=143
	if [ $st -ne $want ]; then
		echo "exit $st: $(head -1 "$W/err")"
		return
	fi
	# Nothing left, or all of it when the signal came after the end.
	if "left_$sc" || whole "$sc"; then
		echo died
	else
		echo "died, and left something behind"
	fi
}

# whole SCENARIO: the timed run's output is what a run to the end gives.
whole() {
	case $1 in
	build) cmp -s "$W/out/img" "$W/large-ref.img" ;;
	append) cmp -s "$W/app.img" "$W/lapp-ref.img" ;;
	dir) "$MANIFEST" "$W/x" | sed "s|$W/x|$W/large-tree|g" | cmp -s - "$W/large-tree.m" ;;
	tar) cmp -s "$W/t/a.tar" "$W/large.tar" ;;
	esac
}
cp "$W/large.img" "$W/large-ref.img"
"$MANIFEST" "$W/large-tree" >"$W/large-tree.m"
for sc in build append dir tar; do
	for sig in INT TERM; do
		died=0
		done_=0
		bad=0
		for delay in 0.02 0.05 0.1 0.2 0.4; do
			r=$(timed $sc $sig $delay)
			case $r in
			died) died=$((died + 1)) ;;
			done) done_=$((done_ + 1)) ;;
			*)
				bad=$((bad + 1))
				echo "#   $sc SIG$sig after ${delay}s: $r"
				;;
			esac
		done
		echo "#   $sc SIG$sig: $died runs interrupted, $done_ finished first"
		is $bad 0 "$sc: SIG$sig at timed moments: each run died of it leaving nothing, or finished whole"
	done
done

done_testing
