# Shared helpers for the bench scripts: a source tree, timing, medians, peak RSS.

: "${SQUASHKIT:=$(cd "$(dirname "$0")/.." && pwd)/build/squashkit}"
: "${RUNS:=5}"
: "${THREADS:=$(nproc)}"
: "${WORK:=/dev/shm/sqk-bench}"

# make_source DIR: a few hundred MB of mixed files copied from this machine.
make_source() {
	[ -d "$1" ] && return 0
	mkdir -p "$1"
	for d in /usr/include /usr/share/doc /usr/share/perl /usr/lib/python3 /usr/share/man \
		/usr/share/locale /usr/lib/x86_64-linux-gnu/perl; do
		[ -d "$d" ] && cp -a "$d" "$1/" 2>/dev/null
	done
	return 0
}

# measure OUTVAR_TIME OUTVAR_RSS CMD...: wall seconds and peak RSS (KiB) of one run.
measure() {
	_tv=$1
	_rv=$2
	shift 2
	_out=$(/usr/bin/env time -f '%e %M' "$@" 2>&1 >/dev/null | tail -n 1)
	eval "$_tv=\${_out%% *}"
	eval "$_rv=\${_out##* }"
}

# median of the numbers given
median() {
	printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}
