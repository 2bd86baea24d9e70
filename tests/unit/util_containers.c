// SPDX-License-Identifier: BSD-2-Clause
/* The growing array and the hash table of core/util. */
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hash.h"

static void test_array(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, i, grows = 0, last;
	int err = 0;
	void *p;

	for (i = 0; i < 100000 && !err; i++) {
		last = cap;
		err = SQK_ARRAY_GROW(v, cap, i + 1);
		if (cap != last)
			grows++;
		if (!err)
			v[i] = (uint32_t)(i * 2654435761u);
	}
	is_int(err, 0, "array: 100000 appends");
	ok(cap >= 100000, "array: capacity covers every element");
	/* Doubling from 16: 100000 elements take 13 grows, one at a time would take 100000. */
	ok(grows <= 14, "array: capacity grows geometrically (%zu grows)", grows);
	for (i = 0; i < 100000; i++)
		if (v[i] != (uint32_t)(i * 2654435761u))
			break;
	is_int(i, 100000, "array: contents survive every grow");

	last = cap;
	p = v;
	is_int(SQK_ARRAY_GROW(v, cap, cap), 0, "array: room already there");
	ok(cap == last && (void *)v == p, "array: no reallocation when there is room");

	is_int(SQK_ARRAY_GROW(v, cap, SIZE_MAX / sizeof(*v) + 1), SQK_ERR_NOMEM,
	       "array: a byte size past SIZE_MAX is refused");
	ok(cap == last && (void *)v == p, "array: refused grow leaves array and capacity");
	is_int(SQK_ARRAY_GROW(v, cap, SIZE_MAX), SQK_ERR_NOMEM, "array: SIZE_MAX elements refused");
	ok(cap == last && v[99999] == (uint32_t)(99999 * 2654435761u),
	   "array: contents intact after refusals");
	free(v);

	{
		char *s = NULL;
		size_t c = 0;

		is_int(SQK_ARRAY_GROW(s, c, 3), 0, "array: first grow of a byte buffer");
		ok(c >= 16, "array: small arrays start at 16 elements (%zu)", c);
		is_int(SQK_ARRAY_GROW(s, c, 1000), 0, "array: a large jump");
		ok(c >= 1000, "array: a jump past double gets exactly enough or more");
		free(s);
	}
	{
		void *q = NULL;
		size_t c = 0;

		is_int(sqk_array_reserve(&q, &c, 4, 0), SQK_ERR_ARG, "array: zero element size");
		ok(!q && !c, "array: nothing allocated on a bad argument");
	}
}

/* Keys whose home slot is the same in a table of mask + 1 slots. */
static size_t same_home(const struct sqk_hash *h, uint64_t *keys, size_t n)
{
	size_t home = sqk_hash_home(h, 12345), got = 0;
	uint64_t k;

	for (k = 1; got < n; k++)
		if (sqk_hash_home(h, k) == home)
			keys[got++] = k;
	return home;
}

static void test_hash_basic(void)
{
	struct sqk_hash h;
	struct sqk_hash_iter it;
	uint64_t v, seen = 0;
	int n = 0;

	sqk_hash_init(&h);
	is_int(sqk_hash_get(&h, 7), 0, "hash: empty table finds nothing");
	is_int(sqk_hash_remove(&h, 7, 1), SQK_ERR_NOENT, "hash: empty table removes nothing");
	is_int(sqk_hash_add(&h, 7, 0), SQK_ERR_ARG, "hash: value 0 refused");
	is_int(h.count, 0, "hash: a refused add adds nothing");
	is_int(sqk_hash_add(&h, 7, 70), 0, "hash: add");
	is_int(sqk_hash_get(&h, 7), 70, "hash: find");
	is_int(sqk_hash_get(&h, 8), 0, "hash: another key is absent");
	is_int(sqk_hash_add(&h, 7, 71), 0, "hash: a second value for the key");
	is_int(sqk_hash_add(&h, 7, 72), 0, "hash: a third value for the key");
	for (v = sqk_hash_first(&h, 7, &it); v; v = sqk_hash_next(&it)) {
		n++;
		seen |= 1ull << (v - 70);
	}
	ok(n == 3 && seen == 7, "hash: a key's values are each walked once (%d)", n);
	is_int(sqk_hash_remove(&h, 7, 71), 0, "hash: remove one value of three");
	is_int(sqk_hash_remove(&h, 7, 71), SQK_ERR_NOENT, "hash: removed once only");
	n = 0;
	seen = 0;
	for (v = sqk_hash_first(&h, 7, &it); v; v = sqk_hash_next(&it)) {
		n++;
		seen |= 1ull << (v - 70);
	}
	ok(n == 2 && seen == 5, "hash: the other two values stay");
	is_int(sqk_hash_remove(&h, 8, 70), SQK_ERR_NOENT, "hash: a value under another key");
	is_int(sqk_hash_remove(&h, 7, 0), SQK_ERR_NOENT, "hash: value 0 is never there");
	is_int(h.count, 2, "hash: count");
	sqk_hash_release(&h);
	ok(!h.slot && !h.count, "hash: release empties the table");
}

static void test_hash_collisions(void)
{
	struct sqk_hash h;
	uint64_t keys[12];
	size_t i, home, k;
	int bad = 0;

	sqk_hash_init(&h);
	is_int(sqk_hash_reserve(&h, 16), 0, "collisions: reserve 16");
	home = same_home(&h, keys, 12);
	for (i = 0; i < 12; i++)
		sqk_hash_add(&h, keys[i], i + 1);
	/* A run of 12 from one home, wrapping when the home is near the end. */
	for (i = 0; i < 12; i++)
		if (h.slot[(home + i) & h.mask].val == 0)
			bad++;
	is_int(bad, 0, "collisions: twelve keys of one home fill a run");
	for (i = 0; i < 12; i++)
		if (sqk_hash_get(&h, keys[i]) != i + 1)
			bad++;
	is_int(bad, 0, "collisions: every colliding key is found");
	/* Remove from the front, middle and end of the run; the rest stay reachable. */
	is_int(sqk_hash_remove(&h, keys[0], 1), 0, "collisions: remove the run's first");
	is_int(sqk_hash_remove(&h, keys[6], 7), 0, "collisions: remove from the middle");
	is_int(sqk_hash_remove(&h, keys[11], 12), 0, "collisions: remove the last");
	for (i = 0; i < 12; i++) {
		uint64_t want = (i == 0 || i == 6 || i == 11) ? 0 : i + 1;

		if (sqk_hash_get(&h, keys[i]) != want)
			bad++;
	}
	is_int(bad, 0, "collisions: removals leave the others findable, no holes in the run");
	for (k = 0, i = 0; i <= h.mask; i++)
		k += h.slot[i].val != 0;
	is_int(k, 9, "collisions: nine slots in use");
	sqk_hash_release(&h);
}

static void test_hash_many(void)
{
	enum { N = 200000 };
	struct sqk_hash h;
	struct sqk_hash_slot *before;
	size_t i, bad = 0;
	int err = 0;

	sqk_hash_init(&h);
	/* Keys with equal low bits: the table must spread them itself. */
	for (i = 0; i < N && !err; i++)
		err = sqk_hash_add(&h, (uint64_t)i << 20, i + 1);
	is_int(err, 0, "many: 200000 adds");
	is_int(h.count, N, "many: count");
	ok(h.mask + 1 >= 2 * N, "many: at most half full (%zu slots)", h.mask + 1);
	for (i = 0; i < N; i++)
		if (sqk_hash_get(&h, (uint64_t)i << 20) != i + 1)
			bad++;
	is_int(bad, 0, "many: every key found with its value");
	for (i = 0; i < N; i++)
		if (sqk_hash_get(&h, ((uint64_t)i << 20) | 1))
			bad++;
	is_int(bad, 0, "many: absent keys are absent");
	for (i = 0; i < N; i += 2)
		if (sqk_hash_remove(&h, (uint64_t)i << 20, i + 1))
			bad++;
	is_int(bad, 0, "many: remove every other key");
	for (i = 0; i < N; i++)
		if (sqk_hash_get(&h, (uint64_t)i << 20) != (i % 2 ? i + 1 : 0))
			bad++;
	is_int(bad, 0, "many: the odd keys remain, the even are gone");
	sqk_hash_release(&h);

	sqk_hash_init(&h);
	is_int(sqk_hash_reserve(&h, 1000), 0, "reserve: room for 1000");
	before = h.slot;
	for (i = 0; i < 1000 && !err; i++)
		err = sqk_hash_add(&h, i * 7919, i + 1);
	ok(!err && h.slot == before, "reserve: 1000 adds without reallocating");
	for (i = 1000; i < 5000 && !err; i++)
		err = sqk_hash_add(&h, i * 7919, i + 1);
	ok(!err && h.slot != before && h.count == 5000, "reserve: the table grows past it");
	for (i = 0; i < 5000; i++)
		if (sqk_hash_get(&h, i * 7919) != i + 1)
			bad++;
	is_int(bad, 0, "reserve: growing keeps the entries");
	is_int(sqk_hash_reserve(&h, SIZE_MAX / 2), SQK_ERR_NOMEM, "reserve: an impossible size");
	ok(sqk_hash_get(&h, 5 * 7919) == 6, "reserve: a refused reserve keeps the table");
	sqk_hash_release(&h);
}

/* Random adds and removes against a plain list. */
static void test_hash_model(void)
{
	enum { OPS = 50000, KEYS = 300 };
	struct sqk_hash h;
	static uint64_t mk[OPS], mv[OPS];
	size_t n = 0, i, j, bad = 0;
	uint64_t s = 88172645463325252ull, nextval = 1;

	sqk_hash_init(&h);
	for (i = 0; i < OPS; i++) {
		uint64_t r, key;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		r = s;
		key = (r >> 8) % KEYS;
		if (n && r % 3 == 0) {
			j = (r >> 20) % n;
			if (sqk_hash_remove(&h, mk[j], mv[j]))
				bad++;
			mk[j] = mk[n - 1];
			mv[j] = mv[n - 1];
			n--;
		} else {
			if (sqk_hash_add(&h, key, nextval))
				bad++;
			mk[n] = key;
			mv[n++] = nextval++;
		}
	}
	is_int(bad, 0, "model: every operation succeeded");
	is_int(h.count, n, "model: count matches");
	for (i = 0; i < KEYS; i++) {
		struct sqk_hash_iter it;
		size_t in_model = 0, in_table = 0;
		uint64_t v;

		for (j = 0; j < n; j++)
			in_model += mk[j] == i;
		for (v = sqk_hash_first(&h, i, &it); v; v = sqk_hash_next(&it)) {
			in_table++;
			for (j = 0; j < n; j++)
				if (mk[j] == i && mv[j] == v)
					break;
			if (j == n)
				bad++;
		}
		if (in_model != in_table)
			bad++;
	}
	is_int(bad, 0, "model: each key holds exactly the model's values");
	sqk_hash_release(&h);
}

int main(void)
{
	test_array();
	test_hash_basic();
	test_hash_collisions();
	test_hash_many();
	test_hash_model();
	return tap_done();
}
