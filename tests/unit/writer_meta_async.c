// SPDX-License-Identifier: BSD-2-Clause
/*
 * The metadata writer on a pool (meta_async.c): two peer tables whose
 * bytes name where the other's blocks start. Blocks are stored (no
 * compressor), so the stream read back is the bytes written and the
 * fixed bytes can be checked where they land.
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "meta_stream.h"
#include "tap.h"
#include "util/le.h"
#include "util/pool.h"
#include "write/meta_writer.h"

/* The fixed bytes: the peer block's start, plus a tag, as 32 bits. */
static void put_start(const void *data, uint64_t start, uint8_t *out)
{
	uint32_t tag;

	memcpy(&tag, data, sizeof(tag));
	put_le32(out, (uint32_t)start + tag);
}

/*
 * A fixup whose bytes cross a block boundary, answered by the peer while
 * its zeros are still going in: the peer's first block is compressed
 * (not yet placed) when the fixup is written; filling our block places
 * the peer's, which answers the fixup before its last two bytes are in.
 */
static void test_straddle(void)
{
	struct sqk_pool *pool = sqk_pool_create(1, 0);
	struct sqk_meta_writer *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static uint8_t fill[SQK_META_SIZE], out[3 * SQK_META_SIZE];
	uint32_t tag = 0x01020300;
	size_t n;
	int err;

	sqk_mw_init(a, NULL, NULL, 0, 0);
	sqk_mw_init(b, NULL, NULL, 0, 0);
	err = sqk_mw_async(a, pool, NULL) || sqk_mw_async(b, pool, NULL);
	a->peer = b;
	b->peer = a;
	memset(fill, 0x5a, sizeof(fill));
	/* The peer's block 0 sealed and compressed; its block 1 starts after it. */
	err = err || sqk_mw_write(b, fill, sizeof(fill));
	sqk_pool_wait(pool);
	err = err || sqk_mw_write(b, fill, 10);
	err = err || sqk_mw_write(a, fill, SQK_META_SIZE - 2);
	err = err || sqk_mw_write_fixed(a, 1, put_start, &tag, sizeof(tag), 4);
	err = err || sqk_mw_write(a, fill, 6);
	err = err || sqk_mw_flush(b) || sqk_mw_flush(a);
	ok(!err, "straddle: both tables written");
	n = err ? 0 : meta_stream_of(a->mem, a->out_len, out);
	is_int(n, SQK_META_SIZE + 8, "straddle: our stream is every byte written");
	/* Block 1 of the peer starts after its stored block 0: 2 + 8192. */
	is_int(n ? get_le32(out + SQK_META_SIZE - 2) : 0, 2 + SQK_META_SIZE + tag,
	       "straddle: the fixed bytes on both sides of the block boundary");
	ok(n && out[SQK_META_SIZE + 2] == 0x5a && out[SQK_META_SIZE + 7] == 0x5a,
	   "straddle: the bytes after them as written");
	sqk_mw_release(a);
	sqk_mw_release(b);
	free(a);
	free(b);
	sqk_pool_destroy(pool);
}

/*
 * Many fixups both ways, at every offset, on two workers: the same
 * streams as writing with every start known at once.
 */
static int fill_pair(struct sqk_pool *pool, uint8_t *ma, size_t *la, uint8_t *mb, size_t *lb)
{
	struct sqk_meta_writer *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint8_t pad[37];
	unsigned i;
	int err = 0;

	sqk_mw_init(a, NULL, NULL, 0, 0);
	sqk_mw_init(b, NULL, NULL, 0, 0);
	if (pool) {
		err = sqk_mw_async(a, pool, NULL) || sqk_mw_async(b, pool, NULL);
		a->peer = b;
		b->peer = a;
	} else {
		a->keep_starts = b->keep_starts = 1;
	}
	memset(pad, 0x33, sizeof(pad));
	for (i = 0; !err && i < 3000; i++) {
		uint32_t tag = i;
		struct sqk_meta_writer *w = i % 3 ? a : b, *o = w == a ? b : a;
		/* Name the peer's block now filling: known only once its earlier ones are placed.
		 */
		uint64_t ub = pool ? SQK_REF_BLOCK(sqk_mw_ref(o)) : 0;

		if (!pool)
			ub = o->out_len;
		err = sqk_mw_write(w, pad, i % sizeof(pad)) ||
		      sqk_mw_write_fixed(w, ub, put_start, &tag, sizeof(tag), 4);
	}
	err = err || sqk_mw_flush(a) || sqk_mw_flush(b);
	*la = err ? 0 : meta_stream_of(a->mem, a->out_len, ma);
	*lb = err ? 0 : meta_stream_of(b->mem, b->out_len, mb);
	sqk_mw_release(a);
	sqk_mw_release(b);
	free(a);
	free(b);
	return err;
}

static void test_many(void)
{
	static uint8_t a1[1 << 17], b1[1 << 17], a2[1 << 17], b2[1 << 17];
	struct sqk_pool *pool = sqk_pool_create(2, 0);
	size_t la1, lb1, la2, lb2;
	int round, same = 1;

	ok(!fill_pair(NULL, a1, &la1, b1, &lb1), "one thread: both tables written");
	ok(la1 > 4 * SQK_META_SIZE && lb1 > 2 * SQK_META_SIZE, "one thread: several blocks each");
	for (round = 0; round < 20 && same; round++) {
		same = !fill_pair(pool, a2, &la2, b2, &lb2) && la1 == la2 && lb1 == lb2 &&
		       !memcmp(a1, a2, la1) && !memcmp(b1, b2, lb1);
	}
	ok(same, "pool: the streams of one thread, in each of %d rounds", round);
	sqk_pool_destroy(pool);
}

int main(void)
{
	test_straddle();
	test_many();
	return tap_done();
}
