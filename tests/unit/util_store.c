// SPDX-License-Identifier: BSD-2-Clause
/*
 * The store of core/util: pages in memory up to a budget and in an unlinked
 * temporary file beyond it, and the map and the sort built on it. Each is
 * run with a budget that holds everything and with one that holds almost
 * nothing, and must give the same answers as plain memory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "util/error.h"
#include "util/store.h"

static char tmpdir[] = "/tmp/sqk-store-XXXXXX";

/* Entries of the temporary directory: unlinked files never show. */
static int dir_entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static void test_bytes(uint64_t limit, const char *what)
{
	struct sqk_budget b;
	struct sqk_store *s;
	enum { N = 300000 }; /* uint32s: 1.2 MB, about 300 pages */
	uint32_t v, i, bad = 0;
	uint8_t buf[10000];
	int err = 0;

	sqk_budget_init(&b, limit, tmpdir);
	is_int(sqk_store_create(&b, &s), 0, "%s: a store", what);
	for (i = 0; i < N && !err; i++) {
		v = (uint32_t)mix(i);
		err = sqk_store_put(s, i, &v, sizeof(v));
	}
	is_int(err, 0, "%s: 1.2 MB written", what);
	for (i = 0; i < N && !err; i++) {
		uint32_t k = (uint32_t)(mix(i + 7) % N);

		err = sqk_store_get(s, k, &v, sizeof(v));
		bad += v != (uint32_t)mix(k);
	}
	ok(!err && !bad, "%s: read back in random order (%u wrong)", what, bad);
	/* Across pages, and past everything written: zeros. */
	err = sqk_store_read(s, 4000, buf, sizeof(buf));
	ok(!err && memcmp(buf, &(uint32_t){(uint32_t)mix(1000)}, 4) == 0,
	   "%s: a read across three pages", what);
	err = sqk_store_read(s, (uint64_t)N * 4 + 100, buf, sizeof(buf));
	for (i = 0; i < sizeof(buf) && !buf[i]; i++)
		;
	ok(!err && i == sizeof(buf), "%s: bytes never written read as zeros", what);
	is_int(sqk_store_size(s), (uint64_t)N * 4, "%s: its size", what);
	if (limit)
		ok(b.files == 0 && b.spilled == 0, "%s: nothing went to a file", what);
	else
		ok(b.files == 1 && b.spilled > 0 && b.used == 4096,
		   "%s: one file, %llu bytes written to it, %llu in memory", what,
		   (unsigned long long)b.spilled, (unsigned long long)b.used);
	is_int(dir_entries(), 0, "%s: the temporary file has no name", what);
	sqk_store_clear(s);
	is_int(b.used, 0, "%s: cleared: no memory held", what);
	err = sqk_store_get(s, 5, &v, sizeof(v));
	ok(!err && v == 0 && sqk_store_size(s) == 0, "%s: cleared: zeros", what);
	sqk_store_destroy(s);
}

static void test_bits(uint64_t limit, const char *what)
{
	struct sqk_budget b;
	struct sqk_store *s;
	uint64_t i, wrong = 0;
	int r = 0;

	sqk_budget_init(&b, limit, tmpdir);
	sqk_store_create(&b, &s);
	/* Every third bit of 10 million: 1.25 MB of bitmap. */
	for (i = 0; i < 10000000 && r >= 0; i += 3) {
		r = sqk_store_bit(s, i, 1);
		wrong += r != 0;
	}
	ok(r >= 0 && !wrong, "%s: bits set, none was set before", what);
	for (i = 0; i < 10000000 && r >= 0; i += 1 + i % 5) {
		r = sqk_store_bit(s, i, 0);
		wrong += r != (i % 3 == 0);
	}
	ok(r >= 0 && !wrong, "%s: bits read back (%llu wrong)", what, (unsigned long long)wrong);
	is_int(sqk_store_bit(s, 9999999, 1), 1, "%s: setting a set bit says it was", what);
	sqk_store_destroy(s);
	is_int(b.used, 0, "%s: all memory given back", what);
}

static void test_hash(uint64_t limit, const char *what)
{
	struct sqk_budget b;
	struct sqk_store_hash h;
	uint64_t i, v, wrong = 0;
	int r = 0;

	sqk_budget_init(&b, limit, tmpdir);
	sqk_store_hash_init(&h, &b);
	is_int(sqk_store_hash_get(&h, 42, &v), 0, "%s: an empty map has no key", what);
	for (i = 0; i < 200000 && !r; i++)
		r = sqk_store_hash_set(&h, mix(i), i + 1);
	ok(!r && h.count == 200000, "%s: 200000 keys", what);
	for (i = 0; i < 200000 && !r; i += 2)
		r = sqk_store_hash_set(&h, mix(i), i + 1000000);
	ok(!r && h.count == 200000, "%s: half of them given new values", what);
	for (i = 0; i < 400000 && r >= 0; i++) {
		r = sqk_store_hash_get(&h, mix(i), &v);
		if (i >= 200000)
			wrong += r != 0;
		else
			wrong += r != 1 || v != (i % 2 ? i + 1 : i + 1000000);
	}
	ok(r >= 0 && !wrong, "%s: every key's value, no value for others (%llu wrong)", what,
	   (unsigned long long)wrong);
	sqk_store_hash_release(&h);
	is_int(b.used, 0, "%s: all memory given back", what);
}

struct rec {
	uint64_t key;
	uint32_t idx, pad;
};

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void test_sort(uint64_t limit, uint32_t n, const char *what)
{
	struct rec *want = malloc(n * sizeof(*want)), r;
	struct sqk_budget b;
	struct sqk_store *s;
	uint32_t i, wrong = 0;
	int err = 0;

	sqk_budget_init(&b, limit, tmpdir);
	sqk_store_create(&b, &s);
	for (i = 0; i < n && !err; i++) {
		/* Few distinct keys: ties are ordered by idx. */
		want[i] = (struct rec){mix(i) % (n / 3 + 1), i, 0};
		err = sqk_store_put(s, i, &want[i], sizeof(r));
	}
	qsort(want, n, sizeof(*want), by_key);
	if (!err)
		err = sqk_store_sort(&s, n, sizeof(r), by_key);
	is_int(err, 0, "%s: %u records sorted", what, n);
	for (i = 0; i < n && !err; i++) {
		err = sqk_store_get(s, i, &r, sizeof(r));
		wrong += r.key != want[i].key || r.idx != want[i].idx;
	}
	ok(!err && !wrong, "%s: in the order of qsort (%u wrong)", what, wrong);
	sqk_store_destroy(s);
	free(want);
	is_int(dir_entries(), 0, "%s: no file left", what);
}

static void test_failures(void)
{
	struct sqk_budget b;
	struct sqk_store *s;
	uint8_t page[4096] = {1};
	uint64_t i;
	int err = 0;

	sqk_budget_init(&b, 0, "/nonexistent/sqk-store");
	sqk_store_create(&b, &s);
	for (i = 0; i < 64 && !err; i++)
		err = sqk_store_write(s, i * sizeof(page), page, sizeof(page));
	is_int(err, SQK_ERR_IO, "no such directory: an I/O error once pages must leave memory");
	ok(b.errnum == ENOENT && strcmp(b.where, "/nonexistent/sqk-store") == 0,
	   "the budget says why and where (errno %d, '%s')", b.errnum, b.where);
	is_int(i, 2, "the one page a store always holds was written first");
	sqk_store_destroy(s);

	setenv("TMPDIR", tmpdir, 1);
	sqk_budget_init(&b, 0, NULL);
	ok(strcmp(sqk_budget_dir(&b), tmpdir) == 0, "no directory given: $TMPDIR");
	unsetenv("TMPDIR");
	ok(strcmp(sqk_budget_dir(&b), "/tmp") == 0, "no $TMPDIR: /tmp");
	ok(sqk_budget_default() > 0 && sqk_budget_default() <= 256ull << 20,
	   "the default budget: at most 256 MiB");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_bytes(64 << 20, "in memory");
	test_bytes(0, "spilled");
	test_bits(64 << 20, "bits in memory");
	test_bits(0, "bits spilled");
	test_hash(64 << 20, "map in memory");
	test_hash(0, "map spilled");
	test_sort(64 << 20, 100000, "sort in memory");
	test_sort(0, 300000, "sort in runs, two merge passes");
	test_sort(0, 3000, "sort of one run");
	test_failures();
	rmdir(tmpdir);
	return tap_done();
}
