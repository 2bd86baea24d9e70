// SPDX-License-Identifier: BSD-2-Clause
/*
 * The spill module of core/util: what a build or a reader keeps on disk when
 * its memory is short (spill: the budget and its temporaries; store: pages
 * by offset, the bitmap and the map on it; run, extsort, spool, smap), each
 * against a plain copy in memory, under a budget that holds everything and
 * one so small that everything goes to temporaries.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "util/error.h"
#include "util/extsort.h"
#include "util/smap.h"
#include "util/spool.h"
#include "util/store.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char dir[] = "/tmp/sqk-spill-test.XXXXXX";

/* Nothing of a build's temporaries stays in their directory. */
static int dir_empty(void)
{
	char cmd[128];
	FILE *p;
	int c;

	snprintf(cmd, sizeof(cmd), "ls -A %s", dir);
	p = popen(cmd, "r");
	c = p ? fgetc(p) : 0;
	if (p)
		pclose(p);
	return c == EOF;
}

/* Records through a store held to a cap of two pages of its own, as a build's are. */
static void test_store_records(struct sqk_spill *sp)
{
	enum { N = 20000, REC = 24 };
	struct sqk_store *s;
	uint8_t(*shadow)[REC] = calloc(N, REC), buf[REC];
	uint64_t i, bad = 0;
	int err = sqk_store_create(sp, 256, 512, &s);

	for (i = 0; i < 4 * N && !err; i++) {
		uint64_t k = rnd() % N;

		memset(shadow[k], (int)(rnd() & 0xff), REC);
		memcpy(shadow[k], &i, sizeof(i));
		err = sqk_store_put(s, k, shadow[k], REC);
		if (!err && rnd() % 3 == 0) {
			uint64_t j = rnd() % N;

			err = sqk_store_get(s, j, buf, REC);
			if (!err && memcmp(buf, shadow[j], REC))
				bad++;
		}
	}
	for (i = 0; i < N && !err; i++) {
		err = sqk_store_get(s, i, buf, REC);
		if (!err && memcmp(buf, shadow[i], REC))
			bad++;
	}
	is_int(err, 0, "store records: 80000 puts and gets through 2 pages of memory");
	is_int((int)bad, 0, "store records: every record reads back as last put");
	ok(sqk_spill_figure(sp, "bytes") > 0, "store records: pages went to a temporary");
	ok(sqk_store_memory(s) <= 512, "store records: memory stays in its cap");
	sqk_store_destroy(s);

	/* Bytes: appends spanning pages, read back at odd offsets. */
	{
		uint8_t *ref = malloc(100000), out[3000];
		uint64_t off, total = 0;

		err = sqk_store_create(sp, 1000, 1000, &s);
		bad = 0;
		while (total < 90000 && !err) {
			size_t n = 1 + rnd() % 2500;

			for (i = 0; i < n; i++)
				ref[total + i] = (uint8_t)rnd();
			err = sqk_store_append(s, ref + total, n, &off);
			if (!err && off != total)
				bad++;
			total += n;
		}
		for (i = 0; i < 2000 && !err; i++) {
			uint64_t at = rnd() % (total - 3000);
			size_t n = 1 + rnd() % 3000;

			err = sqk_store_read(s, at, out, n);
			if (!err && memcmp(out, ref + at, n))
				bad++;
		}
		is_int(err, 0, "store bytes: appends and reads across one-page memory");
		is_int((int)bad, 0, "store bytes: every range reads back");
		is_int(sqk_store_size(s), total, "store bytes: its size");
		sqk_store_destroy(s);
		free(ref);
	}
	free(shadow);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

static void test_bytes(uint64_t limit, const char *what)
{
	struct sqk_spill b;
	struct sqk_store *s;
	enum { N = 300000 }; /* uint32s: 1.2 MB, about 300 pages */
	uint32_t v, i, bad = 0;
	uint8_t buf[10000];
	int err = 0;

	sqk_spill_init(&b, dir, limit, 0);
	is_int(sqk_store_create(&b, 0, 0, &s), 0, "%s: a store", what);
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
		ok(b.files == 0 && b.bytes == 0, "%s: nothing went to a file", what);
	else
		ok(b.files == 1 && b.bytes > 0 && b.used == 4096,
		   "%s: one file, %llu bytes written to it, %llu in memory", what,
		   (unsigned long long)b.bytes, (unsigned long long)b.used);
	ok(dir_empty(), "%s: the temporary file has no name", what);
	sqk_store_clear(s);
	is_int(b.used, 0, "%s: cleared: no memory held", what);
	err = sqk_store_get(s, 5, &v, sizeof(v));
	ok(!err && v == 0 && sqk_store_size(s) == 0, "%s: cleared: zeros", what);
	sqk_store_destroy(s);
	sqk_spill_release(&b);
}

static void test_bits(uint64_t limit, const char *what)
{
	struct sqk_spill b;
	struct sqk_store *s;
	uint64_t i, wrong = 0;
	int r = 0;

	sqk_spill_init(&b, dir, limit, 0);
	sqk_store_create(&b, 0, 0, &s);
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
	sqk_spill_release(&b);
}

static void test_hash(uint64_t limit, const char *what)
{
	struct sqk_spill b;
	struct sqk_store_hash h;
	uint64_t i, v, wrong = 0;
	int r = 0;

	sqk_spill_init(&b, dir, limit, 0);
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
	sqk_spill_release(&b);
}

static void test_failures(void)
{
	struct sqk_spill b;
	struct sqk_store *s;
	uint8_t page[4096] = {1};
	uint64_t i;
	int err = 0;

	sqk_spill_init(&b, "/nonexistent/sqk-store", 0, 0);
	sqk_store_create(&b, 0, 0, &s);
	for (i = 0; i < 64 && !err; i++)
		err = sqk_store_write(s, i * sizeof(page), page, sizeof(page));
	is_int(err, SQK_ERR_IO, "no such directory: an I/O error once pages must leave memory");
	ok(b.errnum == ENOENT && strcmp(b.path, "/nonexistent/sqk-store") == 0,
	   "the budget says why and where (errno %d, '%s')", b.errnum, b.path);
	is_int(i, 2, "the one page a store always holds was written first");
	sqk_store_destroy(s);
	sqk_spill_release(&b);

	setenv("TMPDIR", dir, 1);
	sqk_spill_init(&b, NULL, 0, 0);
	ok(strcmp(b.dir, dir) == 0, "no directory given: $TMPDIR");
	sqk_spill_release(&b);
	unsetenv("TMPDIR");
	sqk_spill_init(&b, "", 0, 0);
	ok(strcmp(b.dir, "/tmp") == 0, "no $TMPDIR: /tmp");
	sqk_spill_release(&b);
	ok(sqk_spill_default(SQK_SPILL_READ_MOST) > 0 &&
		   sqk_spill_default(SQK_SPILL_READ_MOST) <= SQK_SPILL_READ_MOST,
	   "the default budget: at most what is asked");
}

struct key {
	char k[24];
	uint32_t len;
	uint32_t seq;
};

static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = sqk_run_keycmp((const uint8_t *)a->k, a->len, (const uint8_t *)b->k, b->len);

	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static void random_key(struct key *k, uint32_t seq)
{
	uint32_t i;

	k->len = (uint32_t)(rnd() % 6);
	for (i = 0; i < k->len; i++)
		k->k[i] = "ab\0c"[rnd() % 4];
	k->seq = seq;
}

static void test_sort(struct sqk_spill *sp, uint64_t limit, const char *what)
{
	enum { N = 5000 };
	struct key *keys = malloc(N * sizeof(*keys));
	struct sqk_sorter s;
	struct sqk_rec rec;
	uint32_t i, n = 0, bad = 0;
	int err = 0;

	sqk_sorter_init(&s, sp, limit);
	for (i = 0; i < N && !err; i++) {
		random_key(&keys[i], i);
		err = sqk_sorter_add(&s, keys[i].k, keys[i].len, &keys[i].seq, 4);
	}
	if (!err)
		err = sqk_sorter_done(&s);
	qsort(keys, N, sizeof(*keys), key_cmp);
	while (!err && !(err = sqk_sorter_next(&s, &rec))) {
		uint32_t seq;

		memcpy(&seq, rec.val, 4);
		if (n >= N || seq != keys[n].seq || rec.klen != keys[n].len)
			bad++;
		n++;
	}
	is_int(err, 1, "sort %s: every record comes back", what);
	is_int((int)n, N, "sort %s: as many as went in", what);
	is_int((int)bad, 0, "sort %s: in key order, equal keys as they came", what);
	sqk_sorter_release(&s);
	free(keys);
}

static int collect(void *ctx, const void *val)
{
	uint64_t v, *sum = ctx;

	memcpy(&v, val, 8);
	sum[0] += v;
	sum[1]++;
	return 0;
}

static void test_smap(struct sqk_spill *sp)
{
	enum { N = 30000, KEYS = 9000 };
	uint64_t *sum = calloc(KEYS, 8), *cnt = calloc(KEYS, 8), runs0 = sp->merges;
	struct sqk_smap m;
	uint64_t i, bad = 0;
	int err = 0;

	sqk_smap_init(&m, sp, 8, 4096);
	for (i = 0; i < N && !err; i++) {
		uint64_t k = rnd() % KEYS, v = rnd() >> 20;

		err = sqk_smap_add(&m, k * 0x100000001ull, &v);
		sum[k] += v;
		cnt[k]++;
	}
	for (i = 0; i < KEYS && !err; i++) {
		uint64_t got[2] = {0, 0};

		err = sqk_smap_find(&m, i * 0x100000001ull, collect, got);
		if (got[0] != sum[i] || got[1] != cnt[i])
			bad++;
	}
	is_int(err, 0, "smap: 30000 values under 9000 keys, 4 KiB of memory");
	is_int((int)bad, 0, "smap: every value of every key is found, none twice");
	is_int((int)sqk_smap_count(&m), N, "smap: the count of values");
	ok(m.nruns > 0 && sp->merges > runs0, "smap: runs were written and merged");
	sqk_smap_release(&m);
	free(sum);
	free(cnt);
}

static void test_spool(struct sqk_spill *sp)
{
	struct sqk_spool s;
	uint8_t *ref = malloc(200000), buf[5000];
	size_t total = 0, i;
	uint64_t bad = 0;
	int err = 0;

	sqk_spool_init(&s, sp, 3000);
	while (total < 190000 && !err) {
		size_t n = rnd() % 4000;

		for (i = 0; i < n; i++)
			ref[total + i] = (uint8_t)rnd();
		err = sqk_spool_write(&s, ref + total, n);
		total += n;
	}
	for (i = 0; i + 5000 < total && !err; i += 1 + rnd() % 5000) {
		size_t n = rnd() % 5000;

		err = sqk_spool_read(&s, i, buf, n);
		if (!err && memcmp(buf, ref + i, n))
			bad++;
	}
	is_int(err, 0, "spool: 190000 bytes through 3000 of memory");
	is_int((int)bad, 0, "spool: read back in order, from the temporary and memory");
	is_int(sqk_spool_read(&s, total - 2, buf, 3), SQK_ERR_CORRUPT, "spool: not past the end");
	is_int(sqk_spool_clear(&s), 0, "spool: cleared");
	is_int(sqk_spool_write(&s, "xyz", 3) || sqk_spool_read(&s, 0, buf, 3), 0,
	       "spool: written again after a clear");
	ok(!memcmp(buf, "xyz", 3), "spool: its new bytes");
	sqk_spool_release(&s);
	free(ref);
}

int main(void)
{
	struct sqk_spill sp, bad;
	struct sqk_tmp *t;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	sqk_spill_init(&sp, dir, 0, 1);
	test_store_records(&sp);
	test_bytes(64 << 20, "store in memory");
	test_bytes(0, "store spilled");
	test_bits(64 << 20, "bits in memory");
	test_bits(0, "bits spilled");
	test_hash(64 << 20, "map in memory");
	test_hash(0, "map spilled");
	test_failures();
	test_sort(&sp, 1 << 20, "in memory");
	test_sort(&sp, 600, "through runs and merges");
	test_smap(&sp);
	test_spool(&sp);
	ok(sqk_spill_figure(&sp, "bytes") > 0 && sqk_spill_figure(&sp, "runs") > 0,
	   "spill: bytes and runs counted");
	ok(dir_empty(), "spill: no temporary has a name, even while open");

	sqk_spill_init(&bad, "/nonexistent/dir", 0, 1);
	is_int(sqk_tmp_create(&bad, &t), SQK_ERR_IO, "spill: a missing directory fails");
	ok(bad.errnum == ENOENT && !strcmp(bad.path, "/nonexistent/dir"),
	   "spill: with the errno and the directory's path (%s)", bad.path);
	sqk_spill_release(&bad);
	sqk_spill_release(&sp);
	rmdir(dir);
	return tap_done();
}
