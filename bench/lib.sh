# Shared helpers for the bench scripts: a source tree, timing, medians, peak RSS.

: "${SQUASHKIT:=$(cd "$(dirname "$0")/.." && pwd)/build/squashkit}"
: "${RUNS:=5}"
: "${THREADS:=$(nproc)}"
: "${WORK:=/dev/shm/sqk-bench}"
: "${UNSQUASHFS:=unsquashfs}"

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

# bench_image [IMAGE]: IMAGE, or the gzip image of make_source's tree (built once).
bench_image() {
	if [ -n "$1" ]; then
		echo "$1"
		return 0
	fi
	make_source "$WORK/src"
	[ -f "$WORK/src.gzip.img" ] || mksquashfs "$WORK/src" "$WORK/src.gzip.img" -quiet \
		-noappend -comp gzip -processors "$THREADS" >/dev/null
	echo "$WORK/src.gzip.img"
}

# measure OUTVAR_TIME OUTVAR_RSS OUTVAR_CPU CMD...: wall seconds, peak RSS
# (KiB) and CPU seconds (user + system) of one run. On a busy machine the
# CPU time says more than the wall time: it does not count the waits for a
# CPU that other work holds.
measure() {
	_tv=$1
	_rv=$2
	_cv=$3
	shift 3
	set -- $(/usr/bin/env time -f '%e %M %U %S' "$@" 2>&1 >/dev/null | tail -n 1)
	eval "$_tv=\$1"
	eval "$_rv=\$2"
	eval "$_cv=\$(echo \$3 \$4 | awk '{ printf \"%.2f\", \$1 + \$2 }')"
}

# median of the numbers given
median() {
	printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}
