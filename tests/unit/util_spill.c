// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a build keeps on disk when its memory is short (core/util: spill,
 * parray, run, extsort, spool, smap), each against a plain copy in memory,
 * under a budget so small that everything goes to temporaries.
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
#include "util/parray.h"
#include "util/smap.h"
#include "util/spool.h"

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

static void test_parray(struct sqk_spill *sp)
{
	enum { N = 20000, REC = 24 };
	struct sqk_parray pa;
	uint8_t(*shadow)[REC] = calloc(N, REC), buf[REC];
	uint64_t i, bad = 0;
	int err = 0;

	sqk_parray_init(&pa, sp, REC, 256, 512);
	for (i = 0; i < 4 * N && !err; i++) {
		uint64_t k = rnd() % N;

		memset(shadow[k], (int)(rnd() & 0xff), REC);
		memcpy(shadow[k], &i, sizeof(i));
		err = sqk_parray_put(&pa, k, shadow[k]);
		if (!err && rnd() % 3 == 0) {
			uint64_t j = rnd() % N;

			err = sqk_parray_get(&pa, j, buf);
			if (!err && memcmp(buf, shadow[j], REC))
				bad++;
		}
	}
	for (i = 0; i < N && !err; i++) {
		err = sqk_parray_get(&pa, i, buf);
		if (!err && memcmp(buf, shadow[i], REC))
			bad++;
	}
	is_int(err, 0, "parray: 80000 puts and gets through 2 pages of memory");
	is_int((int)bad, 0, "parray: every record reads back as last put");
	ok(pa.tmp && pa.tmp->size > 0, "parray: pages went to a temporary");
	ok(sqk_parray_memory(&pa) <= 512, "parray: memory stays in its share");
	sqk_parray_release(&pa);

	/* Bytes: appends spanning pages, read back at odd offsets. */
	{
		uint8_t *ref = malloc(100000), out[3000];
		uint64_t off, total = 0;

		sqk_parray_init(&pa, sp, 1, 1000, 1000);
		err = 0;
		bad = 0;
		while (total < 90000 && !err) {
			size_t n = 1 + rnd() % 2500;

			for (i = 0; i < n; i++)
				ref[total + i] = (uint8_t)rnd();
			err = sqk_parray_append(&pa, ref + total, n, &off);
			if (!err && off != total)
				bad++;
			total += n;
		}
		for (i = 0; i < 2000 && !err; i++) {
			uint64_t at = rnd() % (total - 3000);
			size_t n = 1 + rnd() % 3000;

			err = sqk_parray_read(&pa, at, out, n);
			if (!err && memcmp(out, ref + at, n))
				bad++;
		}
		is_int(err, 0, "parray bytes: appends and reads across one-page memory");
		is_int((int)bad, 0, "parray bytes: every range reads back");
		is_int(sqk_parray_read(&pa, total - 1, out, 2), SQK_ERR_CORRUPT,
		       "parray bytes: a read past the end is refused");
		sqk_parray_release(&pa);
		free(ref);
	}
	free(shadow);
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
	test_parray(&sp);
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
