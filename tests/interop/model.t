#!/bin/sh
# The block cache's wait protocol, model-checked: tests/model/cache.pml (a
# Promela model of core/cache/cache.c and core/cache/cache_wait.c) under spin.
# - keyed, 3 threads, 2 entries, 3 blocks: no assertion fails (safety, no
#   lost capacity wake, no lost publication wake, never stuck before the
#   end: nobody sleeps forever), and with weak fairness a thread asleep
#   while an entry is unused wakes up (LTL);
# - with 2 blocks no thread ever waits for capacity, so no policy can
#   stall there (which is why the model uses 3);
# - exclusive (naive wake-one) in the same model: a thread woken for
#   capacity shares its block, nobody else is woken, and a thread sleeps
#   forever beside an unused entry. spin writes the trail; its replay is
#   printed as TAP comments;
# - herd in the same model: spin's verdict (it hangs: a woken thread that
#   finds nothing unused sleeps again without looking for its block);
# - keyed without its publication wake, and (4 threads, where it is
#   reachable) without its hand-off: spin finds the failure each prevents.
SCRATCH=shm
. "$SQK_SRCDIR/tests/lib.sh"

# The model runs no squashkit code: the Makefile leaves it out of the sanitizer pass.
need_cmd spin
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler ($CC)"
MODEL=$SQK_SRCDIR/tests/model/cache.pml
[ -f "$MODEL" ] || skip_all "$MODEL is missing"

# build NAME CFLAGS SPIN-DEFINES...: generate and compile a verifier in
# $TMP/NAME, in the background (await NAME waits for it: the verifiers
# compile while the big search runs). The defines are the model's (spin
# runs cpp on it); the verifier's own mode is -DSAFETY, except for a
# -DLTL model, whose search is for acceptance cycles of its ltl formula.
build() {
	name=$1
	cflags=$2
	shift 2
	mkdir -p "$TMP/$name"
	cp "$MODEL" "$TMP/$name/cache.pml"
	echo "$*" >"$TMP/$name/defs"
	case " $* " in
	*" -DLTL "*) ;;
	*) cflags="$cflags -DSAFETY" ;;
	esac
	(
		cd "$TMP/$name" || exit 1
		spin -a "$@" cache.pml >spin.out 2>&1 &&
			$CC -w $cflags -o pan pan.c >cc.out 2>&1
	) &
	eval "pid_$name=\$!"
}

# await NAME: 0 once NAME's verifier is built; says why not otherwise.
await() {
	if eval "wait \$pid_$1"; then
		return 0
	fi
	ok 1 "$1: spin and cc build the verifier ($(cat "$TMP/$1/defs"))"
	cat "$TMP/$1/spin.out" "$TMP/$1/cc.out" 2>/dev/null | head -20 | sed 's/^/#   /'
	return 1
}

# verify NAME [PAN-ARGS...]: run the verifier; its report is $TMP/NAME/out.
verify() {
	rm -f "$TMP/$1/cache.pml.trail"
	(
		cd "$TMP/$1" || exit 1
		shift
		./pan "$@" >out 2>&1
	)
}

errors() { sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' "$TMP/$1/out" | head -1; }
has() { grep -q -F -- "$2" "$TMP/$1/out"; }
stats() {
	st=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$TMP/$1/out" | head -1)
	tm=$(sed -n 's/^pan: elapsed time \([0-9.e+]*\) .*/\1/p' "$TMP/$1/out" | head -1)
	echo "$st states, ${tm}s"
}

# replay NAME: replay the trail (spin -t -p); story prints the model's own
# account of it (its MSC printfs), final the last value of a variable.
replay() {
	(cd "$TMP/$1" && spin -t -p $(cat defs) cache.pml >replay 2>&1)
}
story() { sed -n 's/^ *MSC: //p' "$TMP/$1/replay"; }
final() { sed -n "s/^[[:space:]]*$2 = \([0-9]*\)\$/\1/p" "$TMP/$1/replay" | tail -1; }

# A search that should be clean and is not: show where it goes wrong.
show_failure() {
	[ "$(errors "$1")" = 0 ] && return
	grep '^pan:' "$TMP/$1/out" | head -3 | sed 's/^/#   /'
	replay "$1"
	story "$1" | sed 's/^/#   /'
}

build keyed -O2 -DPOLICY=KEYED -DLTL
build two_blocks -O0 -DPOLICY=EXCLUSIVE -DNBLOCKS=2 -DNO_CAPACITY_WAIT
build exclusive -O0 -DPOLICY=EXCLUSIVE -DNOINV
build herd -O0 -DPOLICY=HERD -DNOINV
build no_publish -O0 -DPOLICY=KEYED -DNO_PUBLISH_WAKE -DNOINV
build four -O2 -DPOLICY=KEYED -DNTHREADS=4 -DNOPS=1 -DNBLOCKS=4 -DNEST_ZERO
build no_handoff -O0 -DPOLICY=KEYED -DNTHREADS=4 -DNOPS=1 -DNBLOCKS=4 -DNEST_ZERO -DNO_HANDOFF

# ---- keyed: the acceptance run ----
# One search does it all: the assertions (safety, the lost-wakeup
# invariants, and "stuck before the end" in place of spin's invalid end
# state check, which a never claim turns off) and the LTL formula, with
# weak fairness.
if await keyed; then
	verify keyed -a -f
	is "$(errors keyed)" 0 "keyed (3 threads, 2 entries, 3 blocks): no error, no deadlock, no lost wakeup ($(stats keyed))"
	show_failure keyed
	has keyed "assertion violations	+" && has keyed "never claim         	+ (wakes)" &&
		has keyed "acceptance   cycles 	+ (fairness enabled)"
	ok $? "keyed: the search checked the assertions and the LTL formula, with fairness"
fi

# ---- 2 blocks: no capacity wait, whatever the policy ----
# Everything before a thread's first capacity wait is the same code under
# the three policies, so one search settles it for all of them.
if await two_blocks; then
	verify two_blocks
	is "$(errors two_blocks)" 0 "2 entries, 2 blocks: no thread ever waits for capacity, under any policy ($(stats two_blocks))"
	show_failure two_blocks
fi

# ---- exclusive: the stall, as a trail ----
if await exclusive; then
	# -E: report only the monitor's "stuck beside an unused entry".
	verify exclusive -E
	n=$(errors exclusive)
	[ "${n:-0}" -gt 0 ]
	ok $? "exclusive: spin finds an error ($n)"
	has exclusive 'assertion violated  !(((unused>0)&&(qlen>0)))'
	ok $? "exclusive: the error is a thread asleep for capacity beside an unused entry, for good"
	[ -s "$TMP/exclusive/cache.pml.trail" ]
	ok $? "exclusive: spin wrote a trail"
	replay exclusive
	story exclusive >"$TMP/exclusive/story"
	grep -q "woken for capacity 1" "$TMP/exclusive/story"
	ok $? "exclusive: in the replay a thread woken for capacity shares its block instead of taking the entry"
	grep -q "^STUCK: [1-9][0-9]* unused, [1-9][0-9]* asleep for capacity" "$TMP/exclusive/story"
	ok $? "exclusive: the replay ends stuck, an entry unused and a thread asleep"
	echo "# exclusive: the trail, replayed (spin -t -p):"
	sed 's/^/#   /' "$TMP/exclusive/story"
	echo "#   at the end: unused=$(final exclusive unused) asleep=$(final exclusive qlen) finished=$(final exclusive done)"
	# Without -E: the first invalid end state of any kind.
	verify exclusive
	has exclusive "invalid end state"
	ok $? "exclusive: spin also finds a plain deadlock (invalid end state)"
fi

# ---- herd: what spin says ----
if await herd; then
	verify herd
	has herd "invalid end state"
	ok $? "herd: spin finds a hang ($(errors herd) error, invalid end state)"
	replay herd
	echo "# herd: the end of the trail (woken, nothing unused: sleeps again without looking for its block):"
	story herd | tail -12 | sed 's/^/#   /'
fi

# ---- keyed minus one of its wakes: each is needed ----
if await no_publish; then
	verify no_publish
	has no_publish "invalid end state"
	ok $? "keyed without the publication wake: spin finds a hang"
fi

# With 3 threads and 2 entries the hand-off never fires (it takes a second
# unused entry and a second sleeper: four threads); with 4 it does.
if await four; then
	verify four
	is "$(errors four)" 0 "keyed, 4 threads, 4 blocks, 1 operation each: spin finds no error ($(stats four))"
	show_failure four
fi
if await no_handoff; then
	verify no_handoff
	has no_handoff "assertion violated ((qlen==0)||(unused<="
	ok $? "keyed without the hand-off, 4 threads: an entry sits unused while a thread sleeps and nobody is woken for it"
fi

done_testing
