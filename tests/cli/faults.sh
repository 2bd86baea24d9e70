# Shared by faults.t and signals.t (source it after tests/lib.sh): the
# fault library (tests/tools/libfault.so) and sqk, which runs squashkit
# under it; a tiny tree and the reference outputs of each scenario; and the
# scenarios themselves.
#
# A scenario X is prep_X (a fresh start), run_X (the command, through sqk),
# left_X (true when nothing is left behind after a failure) and same_X
# (true when the output is what a run without faults gives).

FAULT=$SQK_TOOLS/libfault.so
[ -f "$FAULT" ] || skip_all "$FAULT is not built"
# Under AddressSanitizer its runtime comes first (it checks its place).
asan=$(ldd "$SQUASHKIT" | awk '/libasan/ { print $3 }')
PRELOAD="${asan:+$asan }$FAULT"

W=$(cd "$TMP" && pwd -P)
# squashkit with the library; a run that hangs is a failure (status 124),
# not a hung suite. The library reads SQK_FAULT* from the environment.
# SIGINT and SIGQUIT at their defaults, whatever this shell was given.
sqk() {
	timeout 60 env --default-signal=INT,QUIT LD_PRELOAD="$PRELOAD" "$SQUASHKIT" "$@"
}
MANIFEST=$SQK_TOOLS/manifest

# A tiny tree: a file of two blocks, small ones, a directory, a hard link, a symlink.
mkdir -p "$W/src/d"
awk 'BEGIN { for (i = 0; i < 900; i++) printf "line %d of a file of two blocks\n", i }' \
	>"$W/src/big"
echo small >"$W/src/small"
echo inner >"$W/src/d/f"
ln "$W/src/small" "$W/src/d/hard"
ln -s small "$W/src/link"
mkdir -p "$W/more"
echo added >"$W/more/new"

"$SQUASHKIT" mkimage -q -b 4K "$W/src" "$W/ref.img" || {
	echo "Bail out! the reference image cannot be built"
	exit 1
}
cp "$W/ref.img" "$W/app-ref.img"
"$SQUASHKIT" mkimage -q --append "$W/more" "$W/app-ref.img"
"$SQUASHKIT" unimage -q -d "$W/ref-tree" "$W/ref.img"
"$MANIFEST" "$W/ref-tree" >"$W/ref-tree.m"
"$SQUASHKIT" unimage -q -o "$W/ref.tar" "$W/ref.img"

# is_empty DIR: nothing in it, hidden files included (no process started).
is_empty() {
	for e in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		[ -e "$e" ] || [ -L "$e" ] && return 1
	done
	return 0
}

# The scenarios: prep_X makes a fresh start, run_X the command, left_X is
# true when nothing is left behind after a failure, same_X when the output
# is what a run without faults gives.
prep_build() { rm -rf "$W/out" && mkdir "$W/out"; }
run_build() { sqk mkimage -q -b 4K "$W/src" "$W/out/img"; }
left_build() { is_empty "$W/out"; }
same_build() { cmp -s "$W/out/img" "$W/ref.img"; }

prep_append() { cp "$W/ref.img" "$W/app.img"; }
run_append() { sqk mkimage -q --append "$W/more" "$W/app.img"; }
left_append() { cmp -s "$W/app.img" "$W/ref.img"; }
same_append() { cmp -s "$W/app.img" "$W/app-ref.img"; }

prep_dir() { rm -rf "$W/x"; }
run_dir() { sqk unimage -q -d "$W/x" "$W/ref.img"; }
left_dir() { [ ! -e "$W/x" ]; }
same_dir() { "$MANIFEST" "$W/x" 2>&1 | sed "s|$W/x|$W/ref-tree|g" | cmp -s - "$W/ref-tree.m"; }

prep_tar() { rm -rf "$W/t" && mkdir "$W/t"; }
run_tar() { sqk unimage -q -o "$W/t/a.tar" "$W/ref.img"; }
left_tar() { is_empty "$W/t"; }
same_tar() { cmp -s "$W/t/a.tar" "$W/ref.tar"; }

# The front end keeps what it made, as unsquashfs: each file there is whole.
prep_unsq() { rm -rf "$W/u"; }
run_unsq() { sqk unsquashfs -n -q -d "$W/u" "$W/ref.img"; }
left_unsq() {
	[ ! -e "$W/u" ] && return 0
	(cd "$W/u" && find . -type f) | while read -r f; do
		cmp -s "$W/u/$f" "$W/src/$f" || {
			echo "$f"
			break
		}
	done | grep -q . && return 1
	return 0
}
same_unsq() { "$MANIFEST" "$W/u" 2>&1 | sed "s|$W/u|$W/ref-tree|g" | cmp -s - "$W/ref-tree.m"; }

# fault_run SPEC CMD...: CMD (a scenario's run_X, or any command) with the
# fault SPEC. Sets st (its status), f (the path the faulted call was about;
# "" when the fault was not met), line and more (the first two lines it
# wrote on stderr, which is kept in $W/err).
fault_run() {
	rm -f "$W/log"
	export SQK_FAULT="$1" SQK_FAULT_LOG="$W/log"
	shift
	"$@" >/dev/null 2>"$W/err"
	st=$?
	unset SQK_FAULT SQK_FAULT_LOG
	f=
	[ -f "$W/log" ] && read -r _ _ f <"$W/log"
	line=
	more=
	{
		read -r line
		read -r more
	} <"$W/err"
}

# sweep CHECK CLASS N ACTIONS: for each of the N calls of CLASS, each action
# that "ACTIONS CLASS I" prints, "CHECK CLASS:I:ACTION" (CHECK a command and
# its first words: it prints why a run went wrong, or nothing). Sets runs and
# bad, and names the first few that went wrong.
sweep() {
	bad=0
	runs=0
	i=1
	while [ $i -le "$3" ]; do
		for act in $("$4" "$2" $i); do
			# shellcheck disable=SC2086 # CHECK is a command and its words
			why=$($1 "$2:$i:$act")
			runs=$((runs + 1))
			if [ -n "$why" ]; then
				bad=$((bad + 1))
				[ $bad -gt 5 ] || echo "#   $1 $2:$i:$act: $why"
			fi
		done
		i=$((i + 1))
	done
}

# actions CLASS N: what the Nth call of CLASS is given. A failure every
# time (ENOSPC and EIO in turn where a full disk is possible); for reads
# and writes, a short count and EINTR too.
actions() {
	case $1 in
	write | open | make) [ $(($2 % 2)) -eq 1 ] && e=ENOSPC || e=EIO ;;
	*) e=EIO ;;
	esac
	# Under the sanitizers, where a run costs several times more, the
	# retries (the same loops at every call) at every other call only.
	if [ -n "${SQK_SANITIZED:-}" ] && [ $(($2 % 2)) -eq 0 ]; then
		echo "$e"
		return
	fi
	case $1 in
	write | read) echo "$e short EINTR" ;;
	*) echo "$e" ;;
	esac
}

# check SCENARIO SPEC: one run with the fault; "" when it went as it should,
# else why not. Shell builtins only, past the run: it runs hundreds of times.
check() {
	"prep_$1"
	fault_run "$2" "run_$1"
	act=${2##*:}
	if [ -z "$f" ]; then
		echo "the fault was not met"
		return
	fi
	case $act in
	short | EINTR)
		[ $st -eq 0 ] || {
			echo "exit $st: $line"
			return
		}
		"same_$1" || echo "the output differs from a run without faults"
		return
		;;
	esac
	if [ $st -ne 1 ] || [ -n "$more" ]; then
		echo "exit $st, not 1, or more than one line: $line|$more"
		return
	fi
	"left_$1" || {
		echo "something is left behind"
		return
	}
	# The line: "squashkit CMD: P: ERRTEXT", P the path (or its image path after it).
	[ "$act" = ENOSPC ] && want="No space left on device" || want="Input/output error"
	case $line in
	*": $want") ;;
	*)
		echo "not '$want': $line"
		return
		;;
	esac
	p=${line#squashkit }
	p=${p#*: }
	p=${p%": $want"}
	# The path the call was about; a temporary file ".NAME.squashkit-XXXXXX" stands for NAME.
	case ${f##*/} in
	.*.squashkit-??????)
		b=${f##*/}
		b=${b#.}
		f=${f%/*}/${b%.squashkit-??????}
		;;
	esac
	case $p in
	"$f" | "$f: "*) ;;
	*) echo "names '$p', the call was about '$f': $line" ;;
	esac
}

# signalled SCENARIO SPEC SIGNAL: "" when the run went as it should, else why not.
signalled() {
	"prep_$1"
	export SQK_FAULT="$2"
	"run_$1" >/dev/null 2>"$W/err"
	st=$?
	unset SQK_FAULT
	# The shell may say "Terminated" of timeout, which dies of the signal as its child did.
	if [ $st -ne $((128 + $3)) ]; then
		echo "exit $st, not death by signal $3: $(head -1 "$W/err")"
	elif grep -v -x Terminated "$W/err" | grep -q .; then
		echo "it said something: $(head -1 "$W/err")"
	elif ! "left_$1"; then
		# Output the signal found committed (the last rename made) is whole, and that is all.
		"same_$1" && echo committed && return
		echo "something is left behind"
	fi
}

# count_calls SC: scenario SC prepared and run once under the fault library
# without faults, its calls counted by class into $W/count.
count_calls() {
	"prep_$1"
	rm -f "$W/count"
	export SQK_FAULT_COUNT="$W/count"
	"run_$1" >/dev/null 2>&1
	unset SQK_FAULT_COUNT
}

# sweep_scenario SC [SKIP]: count the calls of a run of scenario SC, check
# that it runs as without the library, then fail each call of each class in
# turn (sweep ... actions), one test a class; SKIP is a class left out.
# Adds the runs to total.
sweep_scenario() {
	count_calls "$1"
	"same_$1"
	ok $? "$1: runs as it should under the fault library, without faults"
	while read -r cls n; do
		[ "$n" -gt 0 ] || continue
		[ "$cls" != "${2:-}" ] || continue
		sweep "check $1" "$cls" "$n" actions
		total=$((total + runs))
		is "$bad" 0 "$1: each of $n $cls calls failed in turn: $runs runs as they should"
	done <"$W/count"
}

# signal_scenario SC SIG NUM: SIGSIG at every call the last count of SC
# made (SIGTERM: at writes and syncs only, and none under the sanitizers),
# one test; sets runs, bad and committed (runs that found the output
# complete), and adds the runs to total.
signal_scenario() {
	bad=0
	runs=0
	committed=0
	while read -r cls n; do
		[ "$2" = INT ] || [ -z "${SQK_SANITIZED:-}" ] || continue
		[ "$2" = INT ] || [ "$cls" = write ] || [ "$cls" = sync ] || continue
		i=1
		while [ $i -le "$n" ]; do
			why=$(signalled "$1" "$cls:$i:SIG$2" "$3")
			runs=$((runs + 1))
			if [ "$why" = committed ]; then
				committed=$((committed + 1))
			elif [ -n "$why" ]; then
				bad=$((bad + 1))
				[ $bad -gt 5 ] || echo "#   $1 $cls:$i:SIG$2: $why"
			fi
			i=$((i + 1))
		done
	done <"$W/count"
	total=$((total + runs))
}

# signal_sweep SC: the calls of a run of scenario SC counted, then SIGINT and
# SIGTERM at each (signal_scenario), one test each.
signal_sweep() {
	count_calls "$1"
	for sig in INT TERM; do
		[ $sig = INT ] && num=2 || num=15
		signal_scenario "$1" $sig $num
		[ $committed -eq 0 ] || echo "#   $1 SIG$sig: $committed runs signalled after the commit"
		if [ $runs -eq 0 ] && [ -n "${SQK_SANITIZED:-}" ]; then
			echo "# $1: SIG$sig not at each call under the sanitizers"
			continue
		fi
		ok "$([ $runs -gt 0 ] && [ $bad -eq 0 ]; echo $?)" \
			"$1: SIG$sig at each of $runs calls: death by the signal, nothing left behind"
	done
}
