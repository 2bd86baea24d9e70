/*
 * A model of the block cache's wait protocol (core/cache/cache.c and
 * core/cache/cache_wait.c), checked by spin. tests/interop/model.t runs it; by
 * hand:
 *
 *   spin -a -DPOLICY=KEYED cache.pml && cc -DSAFETY -o pan pan.c && ./pan
 *
 * What is modelled, and how it maps onto the C code:
 *
 * - The cache lock is the one pthread mutex around every change to the
 *   cache. Every critical section here is an atomic sequence: nothing but
 *   the lock's owner touches the shared state, so "one atomic step" and
 *   "under the mutex" allow the same interleavings of everything that
 *   matters. A sleep inside a critical section is a guard on the
 *   sleeper's own word (word[t] == 1); while it blocks, the atomic sequence
 *   is broken and others run: that is the C code's unlock, sleep, relock.
 *   Once the word is set and the sleeper is scheduled, it continues under
 *   the lock, as waiter_sleep() returning and cache_lock() succeeding do.
 *   Between the wake and that step others may run, as in C, where the
 *   woken thread competes for the lock.
 * - Per-waiter words: a wake sets word[t] under the lock (wake_batch_add);
 *   the futex call that follows only makes the kernel look at the word
 *   again, so it is not modelled. There are no timeouts: the C code's
 *   stall timeout is a safety net, and the model shows when a policy
 *   needs it (it then has an end state where a thread sleeps forever).
 * - Entries: block (NONE when empty), refcount, pending, error, and the
 *   fill-wait list (a set of threads: take_fill_waiters wakes them all, so
 *   its order does not matter). `unused` counts entries with refcount 0.
 * - Lookup: a block is never cached twice (claim only runs after a lookup
 *   failed, under the same lock; the model asserts it), so the scan order
 *   (curr_blk) and the hash chains cannot change which entry is found.
 *   Claim is round-robin from next_blk over entries with refcount 0, as
 *   claim() does.
 * - The capacity queue is the FIFO c->head..c->tail; a waiter carries the
 *   block it wants (keyed wakes by it). Each policy's wait, released,
 *   published and shared actions are the ones in cache_wait.c.
 * - The fill runs outside the lock; with -DFILL_ERRORS it may fail: the
 *   filler then drops its reference, sharers see the error and drop
 *   theirs, and the entry's block is forgotten when the last one goes.
 *
 * Knobs (spin -D...):
 *   POLICY=HERD|EXCLUSIVE|KEYED  the wait policy (default KEYED)
 *   NTHREADS=3|4, NBLOCKS, NOPS=1|2  the workload's size (default 3, 3, 2)
 *   NEST_ZERO     nested operations hold block 0 (default: hold s, get s+1)
 *   FREE_NESTING  nested operations hold any block and get any other
 *   FILL_ERRORS   fills may fail
 *   NO_CAPACITY_WAIT  reaching a capacity wait is an assertion failure
 *   NO_HANDOFF, NO_PUBLISH_WAKE  keyed without one of its two wakes
 *   NOINV         leave out the monitor's invariants (state, INV_CAP, INV_PUB)
 *   NO_INV_CAP, NO_INV_PUB  leave out one lost-wakeup invariant
 *   LTL           the liveness formula below (check with -a -f)
 *
 * Workload. With 2 entries a thread waits for capacity only when both are
 * in use and neither holds its block. With 2 blocks that never happens:
 * two entries in use hold two different blocks, which are all the blocks
 * there are, so every lookup finds its block and the wait policies are
 * never run (-DNBLOCKS=2 -DNO_CAPACITY_WAIT: spin finds no capacity wait).
 * So the default is 3 blocks. Each thread does NOPS operations; an
 * operation is
 *   plain:   get s, put s
 *   nested:  get s, get s2, put s2, put s
 * "nested" is what a reader does while it holds a directory cursor's block
 * and reads an inode, or an xattr cursor's block and reads an out-of-line
 * value (core/read/dir.c, core/read/xattr.c): it holds one entry while it waits for
 * another. That is what lets a lost wakeup turn into a hang: a sleeper
 * that holds an entry cannot free it. The nesting rule must not let two
 * holders fill both entries while each waits for a block neither holds,
 * which deadlocks under any policy and says nothing about wakeups:
 *   default (s2 = s+1 mod NBLOCKS, for 3 blocks): two sleeping holders of
 *     s and s' that want s+1 and s'+1, both outside {s, s'}: impossible
 *     with 3 blocks;
 *   NEST_ZERO (s = 0, any s2): every holder holds the same block, so one
 *     entry at most is held by sleepers.
 * -DFREE_NESTING lifts the rule to show that inherent deadlock.
 *
 * Keyed's hand-off never fires with 3 threads and 2 entries (spin lists
 * it as unreached, and -DNO_HANDOFF changes nothing, with 3 or 4 blocks):
 * it needs a thread woken for capacity that finds its block published
 * after its wake while a second entry is unused and another thread
 * sleeps, which takes two threads woken at once, one asleep and one that
 * freed both entries. With -DNTHREADS=4 -DNOPS=1 -DNBLOCKS=4 -DNEST_ZERO
 * it fires, and -DNO_HANDOFF then breaks INV_CAP.
 *
 * Properties:
 * - safety assertions: a refcount never goes below zero; `unused` is the
 *   number of entries with refcount 0; a block is never cached twice; a
 *   block is filled by one thread at a time; a get that succeeds returns
 *   an entry that holds its block, filled and referenced; at the end every
 *   entry is free and nobody is queued.
 * - no deadlock: spin's invalid end states, and the monitor's timeout
 *   branch (stuck before every thread is done), which stands in for them
 *   under -DLTL (a never claim turns spin's check off). Every run is
 *   finite (the workload is bounded and every wake is paid for by a
 *   release, a publication, a fill or a hand-off; -DNP with ./pan -l
 *   finds no cycle), so no deadlock means every thread finishes in every
 *   run: nobody sleeps forever.
 * - no lost wakeup, as invariants checked in every state:
 *   INV_CAP: while a thread sleeps in the capacity queue, every unused
 *     entry has a thread already woken for capacity (or handed the wake)
 *     on its way to it: unused <= woken-for-capacity-in-flight. A free
 *     entry with sleepers and nobody coming is the stall.
 *   INV_PUB: no thread sleeps in the capacity queue for a block that is
 *     in the cache (it could share it, and nobody would tell it).
 * - stuck with a free entry: if nothing can move, no entry is unused while
 *   a thread sleeps for capacity (the monitor's timeout branch; with ./pan
 *   -E, which ignores other invalid end states, it finds exactly the
 *   DESIGN.md stall turned into a hang).
 * - (LTL, -DLTL) with weak fairness, a thread asleep while an entry is
 *   unused wakes up: [] (asleep(t) && unused > 0 -> <> !asleep(t)) for
 *   each thread t.
 */

#define HERD      0
#define EXCLUSIVE 1
#define KEYED     2
#ifndef POLICY
#define POLICY KEYED
#endif

#ifndef NTHREADS
#define NTHREADS 3
#endif
#define NENTRIES 2
#ifndef NBLOCKS
#define NBLOCKS 3
#endif
#ifndef NOPS
#define NOPS 2
#endif
#define NONE 255

#if NENTRIES != 2 || (NTHREADS != 3 && NTHREADS != 4) || (NOPS != 1 && NOPS != 2)
#error "the macros below spell out 2 entries, 3 or 4 threads, 1 or 2 operations"
#endif

/* why a waiter was woken (enum WAKE_* in cache_internal.h) */
#define WAKE_NONE     0
#define WAKE_CAPACITY 1
#define WAKE_PUBLISH  2
#define WAKE_HANDOFF  3

typedef entry_t {
	byte block = NONE; /* NONE when empty */
	byte refcount;
	bit pending;    /* claimed, fill not finished */
	bit error;      /* the fill failed */
	byte fillw      /* fill waiters: bit t set when thread t waits */
};

entry_t entry[NENTRIES];
byte unused = NENTRIES;
byte next_blk;

/* capacity waiters, FIFO: q[0] is c->head */
byte q[NTHREADS];
byte qlen;

/* each thread's waiter (one at a time: a thread waits in one place) */
bit word[NTHREADS];     /* 0 asleep, 1 woken */
byte reason[NTHREADS];  /* WAKE_* */
bit queued[NTHREADS];   /* on the capacity queue */
byte want[NTHREADS];    /* the block it waits for */
bit capwait[NTHREADS];  /* in a capacity wait, not yet back under the lock */
bit fillwait[NTHREADS]; /* in wait_fill, not yet back under the lock */

/* observers, not part of the cache */
byte filling[NBLOCKS];  /* threads filling each block right now */
byte done;              /* threads finished */

/* ---- invariants ---- */

#define CACHED(b) (entry[0].block == (b) || entry[1].block == (b))
#define FREE(e) (entry[e].refcount == 0)

/* Woken for capacity (or handed such a wake), not yet back under the lock. */
#define INFLIGHT(t) (capwait[t] && word[t] && \
	(reason[t] == WAKE_CAPACITY || reason[t] == WAKE_HANDOFF))
#define SLEEPS_CACHED(t) (queued[t] && CACHED(want[t]))
#define ASLEEP(t) ((capwait[t] || fillwait[t]) && !word[t])

#if NTHREADS == 3
#define NINFLIGHT (INFLIGHT(0) + INFLIGHT(1) + INFLIGHT(2))
#define INV_PUB_OK (!SLEEPS_CACHED(0) && !SLEEPS_CACHED(1) && !SLEEPS_CACHED(2))
#else
#define NINFLIGHT (INFLIGHT(0) + INFLIGHT(1) + INFLIGHT(2) + INFLIGHT(3))
#define INV_PUB_OK (!SLEEPS_CACHED(0) && !SLEEPS_CACHED(1) && !SLEEPS_CACHED(2) && \
	!SLEEPS_CACHED(3))
#endif
#define INV_CAP_OK (qlen == 0 || unused <= NINFLIGHT)
#define INV_STATE_OK (unused == FREE(0) + FREE(1) && \
	(entry[0].block == NONE || entry[0].block != entry[1].block))

/* ---- the capacity queue (enqueue/dequeue in cache_wait.c) ---- */

inline enqueue(w)
{
	assert(!queued[w] && qlen < NTHREADS);
	q[qlen] = w;
	qlen++;
	queued[w] = 1
}

/* Unlink w, keeping the others' order. */
inline dequeue(w)
{
	k = 0;
	do
	:: q[k] == w -> break
	:: else -> k++
	od;
	do
	:: k + 1 < qlen -> q[k] = q[k + 1]; k++
	:: else -> break
	od;
	qlen--;
	q[qlen] = 0;
	queued[w] = 0
}

/* mark_woken: off the queue, reason recorded, word set (under the lock). */
inline mark_woken(w, why)
{
	wk = w; /* w may be q[0], which the dequeue changes */
	dequeue(wk);
	reason[wk] = why;
	word[wk] = 1
}

inline waiter_init(b)
{
	word[t] = 0;
	reason[t] = WAKE_NONE;
	want[t] = b
}

/*
 * Sleep once on the capacity queue: sleep_queued(). Lock held on entry;
 * the guard blocks (lock released) until a wake sets the word, then the
 * thread continues under the lock. No timeouts, so it is always dequeued.
 */
inline sleep_queued(b)
{
#ifdef NO_CAPACITY_WAIT
	assert(0);
#endif
	enqueue(t);
	capwait[t] = 1;
	printf("MSC: T%d sleeps for capacity (wants %d, unused %d)\n", t, b, unused);
	word[t] == 1;
	if
	:: reason[t] == WAKE_CAPACITY -> printf("MSC: T%d wakes (capacity)\n", t)
	:: reason[t] == WAKE_PUBLISH -> printf("MSC: T%d wakes (publish)\n", t)
	:: reason[t] == WAKE_HANDOFF -> printf("MSC: T%d wakes (hand-off)\n", t)
	fi;
	capwait[t] = 0;
	assert(!queued[t])
}

/* ---- the policies (cache_wait.c) ---- */

/* policy->wait: sets wfc to "woken for capacity" */
inline policy_wait(b)
{
#if POLICY == HERD
	/* herd_wait: woken, re-check only "some entry unused"; else sleep again */
	waiter_init(b);
	do
	:: sleep_queued(b);
	   if
	   :: unused > 0 -> break
	   :: else -> waiter_init(b) /* spurious: sleep again, no rescan */
	   fi
	od;
	wfc = (reason[t] == WAKE_CAPACITY);
#else
	/* one_wait: sleep once, the caller looks again */
	waiter_init(b);
	sleep_queued(b);
	wfc = (reason[t] == WAKE_CAPACITY || reason[t] == WAKE_HANDOFF);
#endif
	/* the waiter is gone (it lived on the stack): forget it */
	word[t] = 0;
	reason[t] = WAKE_NONE;
	want[t] = 0
}

/* policy->released: an entry was just freed (lock held) */
inline policy_released()
{
#if POLICY == HERD
	do /* herd_released: wake every waiter */
	:: qlen > 0 -> mark_woken(q[0], WAKE_CAPACITY)
	:: else -> break
	od
#else
	if /* wake_one_released: wake the oldest */
	:: qlen > 0 -> mark_woken(q[0], WAKE_CAPACITY)
	:: else
	fi
#endif
}

/* policy->published: block b was just given to an entry (lock held) */
inline policy_published(b)
{
#if POLICY == KEYED && !defined(NO_PUBLISH_WAKE)
	/* keyed_published: wake every waiter for b, in queue order */
	k2 = 0;
	do
	:: k2 < qlen && want[q[k2]] == b -> mark_woken(q[k2], WAKE_PUBLISH)
	:: k2 < qlen && want[q[k2]] != b -> k2++
	:: else -> break
	od
#else
	skip /* nothing_published */
#endif
}

/* policy->shared: a thread woken for capacity shared its block (lock held) */
inline policy_shared()
{
#if POLICY == KEYED && !defined(NO_HANDOFF)
	if /* keyed_shared: hand the wake on */
	:: unused > 0 && qlen > 0 -> mark_woken(q[0], WAKE_HANDOFF)
	:: else
	fi
#else
	skip /* nothing_shared */
#endif
}

/* ---- the cache (cache.c) ---- */

/* lookup(): the entry that holds b, or NONE */
inline lookup(b)
{
	e = NONE;
	k = 0;
	do
	:: k < NENTRIES ->
		if
		:: entry[k].block == b -> assert(e == NONE); e = k
		:: else
		fi;
		k++
	:: else -> break
	od
}

/* claim(): round-robin from next_blk over entries with refcount 0 */
inline claim(b)
{
	e = next_blk;
	k = 0;
	do
	:: k < NENTRIES && entry[e].refcount != 0 -> e = (e + 1) % NENTRIES; k++
	:: else -> break
	od;
	assert(k < NENTRIES);
	next_blk = (e + 1) % NENTRIES;
	unused--;
	assert(entry[e].fillw == 0);
	entry[e].block = b;
	entry[e].refcount = 1;
	entry[e].pending = 1;
	entry[e].error = 0
}

/*
 * sqk_cache_put(). Lock taken and released by the atomic sequence;
 * policy_released runs under it and the lock is dropped at its end, as
 * released() unlocks.
 */
inline put(x, last)
{
	atomic {
		assert(entry[x].refcount > 0); /* never below zero */
		entry[x].refcount--;
		printf("MSC: T%d put %d (refcount now %d)\n", t, entry[x].block, entry[x].refcount);
		if
		:: entry[x].refcount == 0 ->
			if
			:: entry[x].error -> entry[x].block = NONE /* a failed fill is not found again */
			:: else
			fi;
			unused++;
			printf("MSC:   entry %d unused (unused %d, %d asleep for capacity)\n", x, unused, qlen);
			policy_released()
		:: else
		fi;
		k = 0;
		wk = 0;
		if
		:: last -> next_op()
		:: else
		fi
	}
}

/*
 * sqk_cache_get(): on return e holds block b, or e is NONE (the fill
 * failed) and the thread holds nothing. The first atomic sequence is the
 * locked part up to the unlock before the fill (or the return); a sleep
 * inside it releases the lock (see the top). Temporaries are zeroed at
 * the end of each step so that states differ only in what matters.
 */
inline get(b, holding)
{
	atomic {
		if
		:: holding -> printf("MSC: T%d get %d, holding %d\n", t, b, s)
		:: else -> printf("MSC: T%d get %d\n", t, b)
		fi;
		filler = 0;
		wfc = 0;
		do
		:: lookup(b);
		   if
		   :: e != NONE -> break
		   :: else
		   fi;
		   if
		   :: unused == 0 -> policy_wait(b)
		   :: else ->
			claim(b);
			printf("MSC: T%d claims entry %d for %d, fills it\n", t, e, b);
			policy_published(b);
			filler = 1;
			filling[b]++;
			assert(filling[b] == 1); /* one filler at a time */
			break
		   fi
		od;
		if
		:: filler -> skip
		:: else ->
			/* the block is cached, or being filled: share it */
			if
			:: entry[e].refcount == 0 -> unused--
			:: else
			fi;
			entry[e].refcount++;
			printf("MSC: T%d shares entry %d (block %d, woken for capacity %d)\n", t, e, b, wfc);
			if
			:: wfc -> policy_shared()
			:: else
			fi;
			/* wait_fill(): on the entry's own list, until pending drops */
			if
			:: entry[e].pending ->
				word[t] = 0;
				entry[e].fillw = entry[e].fillw | (1 << t);
				fillwait[t] = 1;
				do
				:: entry[e].pending ->
					word[t] == 1; /* unlock, sleep, relock */
					word[t] = 0
				:: else -> break
				od;
				fillwait[t] = 0
			:: else
			fi;
			err = entry[e].error
		fi;
		wfc = 0;
		k = 0;
		k2 = 0;
		wk = 0
	} /* unlock */
	if
	:: filler ->
		/* the fill, outside the lock: it may fail */
		atomic {
#ifdef FILL_ERRORS
			if
			:: err = 0
			:: err = 1
			fi;
#else
			err = 0;
#endif
			filling[b]--;
			entry[e].pending = 0;
			entry[e].error = err;
			printf("MSC: T%d filled %d (error %d)\n", t, b, err);
			/* take_fill_waiters(): wake them all */
			k = 0;
			do
			:: k < NTHREADS ->
				if
				:: entry[e].fillw & (1 << k) -> word[k] = 1
				:: else
				fi;
				k++
			:: else -> break
			od;
			entry[e].fillw = 0;
			k = 0;
			filler = 0
		}
	:: else
	fi;
	if
	:: err ->
		err = 0;
		put(e, 0);
		e = NONE
	:: else ->
		/* what a successful get returns: its block, filled, referenced */
		assert(entry[e].block == b && entry[e].refcount > 0 &&
		       !entry[e].pending && !entry[e].error)
	fi
}

/* ---- the workload ---- */

/*
 * An operation is a code c = s * NBLOCKS + s2: "get s, put s" when
 * s2 == s, "get s, get s2, put s2, put s" (s held while s2 is got) when
 * not; NOOP (s == NBLOCKS) is no operation: a thread that stops early.
 */
#define NOOP (NBLOCKS * NBLOCKS)

inline choose_op(c, may_stop)
{
	select(s : 0 .. NBLOCKS - 1);
	if
	:: s2 = s
#if defined(FREE_NESTING)
	:: select(s2 : 0 .. NBLOCKS - 1); s2 != s
#elif defined(NEST_ZERO)
	:: s == 0 -> select(s2 : 1 .. NBLOCKS - 1)
#else
	:: s2 = (s + 1) % NBLOCKS
#endif
	:: may_stop -> s = NBLOCKS; s2 = 0
	fi;
	c = s * NBLOCKS + s2;
	s = 0;
	s2 = 0
}

/*
 * The end of an operation, folded into its last put (a step of its own
 * would only add interleavings of a thread with itself): forget the
 * operation and choose the next one here rather than up front, so that
 * runs share their common prefix; or finish.
 */
inline next_op()
{
	e = 0;
	outer = 0;
	op++;
	if
	:: op < NOPS -> choose_op(c, 1)
	:: else -> c = NOOP
	fi;
	s = c / NBLOCKS;
	s2 = c % NBLOCKS;
	c = 0;
	if
	:: s == NBLOCKS -> printf("MSC: T%d done\n", t); op = 0; s2 = 0; done++
	:: else
	fi
}

/* ---- the threads ---- */

/* NOPS operations: the first (s, s2) given by init, the others chosen on the way. */
proctype thread(byte t; byte s; byte s2)
{
	byte op, c, outer;
	/* get()'s locals */
	byte e, k, k2, wk;
	bit wfc, filler, err;

	do
	:: s == NBLOCKS -> break
	:: else ->
		get(s, 0);
		if
		:: e == NONE -> atomic { next_op() } /* the fill failed */
		:: e != NONE && s2 == s -> put(e, 1)
		:: e != NONE && s2 != s -> /* hold s while getting s2 */
			outer = e;
			get(s2, 1);
			if
			:: e != NONE -> put(e, 0)
			:: else
			fi;
			put(outer, 1)
		fi
	od
}

/*
 * Choose the threads' first operations, then start the threads. The
 * threads are interchangeable, so their first operations are taken in
 * order (first[0] <= first[1] <= ...): any run is one of these with the
 * threads renamed. Without NEST_ZERO the blocks are interchangeable under
 * rotation b -> b+1 mod NBLOCKS too (the cache starts empty, claims do not
 * look at block numbers, the nesting rule is rotation-invariant), so the
 * least first operation starts at block 0: rotate any run until it does,
 * then rename its threads.
 */
#ifdef NEST_ZERO
#define ROTATED 1
#else
#define ROTATED (first[0] / NBLOCKS == 0)
#endif
#if NTHREADS == 3
#define SORTED (first[0] <= first[1] && first[1] <= first[2])
#else
#define SORTED (first[0] <= first[1] && first[1] <= first[2] && first[2] <= first[3])
#endif

init {
	byte s, s2, i;
	byte first[NTHREADS];

	atomic {
		for (i : 0 .. NTHREADS - 1) {
			choose_op(first[i], 0)
		}
		if
		:: SORTED && ROTATED ->
			for (i : 0 .. NTHREADS - 1) {
				run thread(i, first[i] / NBLOCKS, first[i] % NBLOCKS)
			}
		:: else -> done = NTHREADS /* the same as a run above, renamed */
		fi;
		i = 0;
		for (s : 0 .. NTHREADS - 1) {
			first[s] = 0
		}
		s = 0
	}
}

/*
 * The invariants, in every state (a guard is tried in every state the
 * search reaches), a stuck system, and the end once every thread is done.
 */
active proctype monitor()
{
end:
	do
#ifndef NOINV
	:: atomic { !INV_STATE_OK -> assert(INV_STATE_OK) }
#ifndef NO_INV_CAP
	:: atomic {
		!INV_CAP_OK ->
		printf("MSC: STALL: %d unused, %d asleep for capacity, none woken for it\n",
		       unused, qlen);
		assert(INV_CAP_OK)
	   }
#endif
#ifndef NO_INV_PUB
	:: atomic {
		!INV_PUB_OK ->
		printf("MSC: STALL: a thread sleeps for capacity for a block that is cached\n");
		assert(INV_PUB_OK)
	   }
#endif
#endif
	/*
	 * Stuck (nothing else can move): not with an entry unused while a
	 * thread sleeps for capacity. With ./pan -E (other invalid end
	 * states not reported) this finds exactly that stall.
	 */
	:: timeout ->
		printf("MSC: STUCK: %d unused, %d asleep for capacity, %d threads finished\n",
		       unused, qlen, done);
		assert(!(unused > 0 && qlen > 0));
#ifdef LTL
		/* a never claim turns off spin's invalid end state check: do it here */
		assert(done == NTHREADS);
#endif
		break
	:: done == NTHREADS ->
		assert(unused == NENTRIES && qlen == 0);
		assert(entry[0].refcount == 0 && entry[1].refcount == 0);
		assert(entry[0].fillw == 0 && entry[1].fillw == 0);
		break
	od
}

#ifdef LTL
/*
 * A thread asleep while an entry is unused wakes up. Check with ./pan -a
 * -f (weak fairness: a thread that can move eventually moves). Finished
 * runs stutter in their end state, so a thread that sleeps forever there
 * violates this too.
 */
#define WAKES(t) [] ((ASLEEP(t) && unused > 0) -> <> !ASLEEP(t))
ltl wakes {
#if NTHREADS == 3
	WAKES(0) && WAKES(1) && WAKES(2)
#else
	WAKES(0) && WAKES(1) && WAKES(2) && WAKES(3)
#endif
}
#endif
