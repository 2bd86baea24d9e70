#!/bin/sh
# mkimage-scale.sh: time mkimage on 10k and on 100k entries (empty files in
# directories of 1000) and print the ratio; linear work gives about 10, and
# anything under 15 is fine. Environment: SQUASHKIT, RUNS (default 3).
set -eu

HERE=$(cd "$(dirname "$0")/.." && pwd)
SQK=${SQUASHKIT:-$HERE/build/squashkit}
RUNS=${RUNS:-3}
WORK=$(mktemp -d /dev/shm/sqk-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT INT TERM

mkentries() { # DIR N
	mkdir "$1"
	d=0
	while [ $d -lt $(($2 / 1000)) ]; do
		mkdir "$1/d$d"
		(cd "$1/d$d" && seq -f 'f%g' 1 999 | xargs touch)
		d=$((d + 1))
	done
}

best() { # DIR: the fastest of RUNS builds, in seconds
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$WORK/img"
		s=$(date +%s.%N)
		"$SQK" mkimage -q "$1" "$WORK/img"
		e=$(date +%s.%N)
		echo "$s $e" | awk '{ print $2 - $1 }'
		i=$((i + 1))
	done | sort -n | head -1
}

mkentries "$WORK/10k" 10000
mkentries "$WORK/100k" 100000
t10=$(best "$WORK/10k")
t100=$(best "$WORK/100k")
echo "10k entries: ${t10}s  100k entries: ${t100}s  ratio: $(echo "$t10 $t100" | awk '{ printf "%.1f", $2 / $1 }')"
