// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block pipeline on the worker pool (make check runs it under
 * ThreadSanitizer too, TSAN_UNIT): whole-file and fragment dedup, sparse blocks,
 * fragment packing, raw blocks, and the same bytes for 1, 2 and 5 threads.
 * A toy codec keeps the expected size words easy to derive: a block that
 * starts with 'C' "compresses" to its first 100 bytes, any other is stored.
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "util/le.h"
#include "write/data_writer.h"

#define BS 4096u

static int toy_compress(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
			size_t cap, size_t *outlen)
{
	if (srclen <= 100 || src[0] != 'C')
		return SQK_ERR_OVERFLOW;
	memcpy(dst, src, 100);
	*outlen = 100;
	return 0;
}

static int toy_decompress(struct sqk_compressor *c, const uint8_t *src, size_t srclen, uint8_t *dst,
			  size_t cap, size_t *outlen)
{
	return SQK_ERR_COMPRESSOR; /* fragments are compared while still in memory here */
}

static struct sqk_compressor toy = {.compress = toy_compress, .decompress = toy_decompress};

struct build {
	struct sqk_file *out;
	struct sqk_file_data fd[8];
	struct sqk_data_stats st;
	const uint8_t *frags;
	uint32_t nfrags;
	uint64_t end;
	uint8_t frag_copy[16 * 8];
};

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 31 + seed * 7 + (i >> 8)) ^ seed);
}

/* Hand a file of size bytes to the writer; holes: pieces to hand in as holes. */
static int feed(struct sqk_data_writer *dw, uint64_t *id, const uint8_t *data, uint64_t size,
		int holes)
{
	int err = sqk_data_file_begin(dw, size, id);

	while (!err) {
		uint8_t *buf;
		uint32_t len;
		uint64_t off;
		int r = sqk_data_piece(dw, &buf, &len, &off);

		if (r)
			return r < 0 ? r : 0;
		if (!holes)
			memcpy(buf, data + off, len);
		err = sqk_data_piece_done(dw, holes);
	}
	return err;
}

static int build(unsigned threads, int tail_ends, struct build *b)
{
	static uint8_t a[3 * BS + 500], c[700], z[2 * BS], comp[BS + 10];
	struct sqk_data_opts o = {.block_size = BS, .threads = threads, .tail_ends = tail_ends};
	struct sqk_compressor *comps[8];
	struct sqk_data_writer *dw;
	uint64_t id[8];
	int err = 0;

	pattern(a, sizeof(a), 1);
	pattern(c, sizeof(c), 2);
	memset(z, 0, sizeof(z));
	pattern(comp, sizeof(comp), 3);
	comp[0] = 'C';
	for (unsigned i = 0; i < threads; i++)
		comps[i] = &toy;
	memset(b, 0, sizeof(*b));
	b->out = sqk_file_mem(NULL, 0);
	if (sqk_data_writer_create(&o, comps, &toy, b->out, 96, &dw))
		return -1;
	err = err ? err : feed(dw, &id[0], a, sizeof(a), 0);	   /* 3 blocks and 500 bytes */
	err = err ? err : feed(dw, &id[1], c, sizeof(c), 0);	   /* a small file */
	err = err ? err : feed(dw, &id[2], a, sizeof(a), 0);	   /* a copy of the first */
	err = err ? err : feed(dw, &id[3], c, sizeof(c), 0);	   /* a copy of the small one */
	err = err ? err : feed(dw, &id[4], z, sizeof(z), 0);	   /* zeros: sparse blocks */
	err = err ? err : feed(dw, &id[5], NULL, 3 * BS, 1);	   /* holes, never filled */
	err = err ? err : feed(dw, &id[6], comp, sizeof(comp), 0); /* a block that shrinks */
	err = err ? err : feed(dw, &id[7], NULL, 0, 0);		   /* empty */
	err = err ? err : sqk_data_finish(dw, &b->end);
	if (!err) {
		b->st = *sqk_data_stats(dw);
		b->nfrags = sqk_data_fragments(dw);
		for (uint32_t i = 0; i < b->nfrags && i < 8 && !err; i++)
			err = sqk_data_fragment(dw, i, b->frag_copy + 16 * i);
		b->frags = b->frag_copy;
	}
	for (int i = 0; i < 8 && !err; i++) {
		/* The writer keeps each file's result by its id; copies for the checks. */
		uint32_t *words = NULL;
		size_t cap = 0;

		err = sqk_data_result(dw, id[i], &b->fd[i], &words, &cap);
		b->fd[i].blocks = calloc(b->fd[i].nblocks + 1, 4);
		if (b->fd[i].nblocks)
			memcpy(b->fd[i].blocks, words, b->fd[i].nblocks * 4);
		free(words);
	}
	sqk_data_writer_destroy(dw);
	return err;
}

static void release(struct build *b)
{
	for (int i = 0; i < 8; i++)
		free(b->fd[i].blocks);
	sqk_file_destroy(b->out);
}

int main(void)
{
	struct build one, many, te;
	const uint8_t *d1, *d2;
	size_t l1, l2;
	int same = 1;

	/* Without --tail-ends a large file ends in a short block; small files share fragments. */
	is_int(build(1, 0, &one), 0, "pipeline: one thread builds");
	is_int(one.fd[0].blocks_start, 96, "first file's blocks start where data starts");
	ok(one.fd[0].nblocks == 4 && one.fd[0].blocks[0] == (BS | SQK_BLOCK_UNCOMPRESSED) &&
		   one.fd[0].blocks[3] == (500 | SQK_BLOCK_UNCOMPRESSED),
	   "blocks that do not shrink are stored with bit 24; the last is short");
	is_int(one.fd[0].frag_index, SQK_INVALID_FRAG, "a large file has no fragment by default");
	ok(one.fd[1].frag_index == 0 && one.fd[1].frag_offset == 0,
	   "a small file goes to fragment 0");
	is_int(one.fd[2].blocks_start, 96, "a whole-file copy points at the first file's blocks");
	ok(one.fd[3].frag_index == 0 && one.fd[3].frag_offset == 0,
	   "a small copy shares its fragment");
	ok(one.fd[4].blocks[0] == 0 && one.fd[4].blocks[1] == 0 && one.fd[4].sparse == 2 * BS,
	   "zero blocks are sparse (size word 0) and counted");
	ok(one.fd[5].nblocks == 3 && one.fd[5].blocks[2] == 0 && one.fd[5].sparse == 3 * BS,
	   "holes become sparse blocks without data");
	ok(one.fd[6].blocks[0] == 100 && one.fd[6].blocks[1] == (10 | SQK_BLOCK_UNCOMPRESSED),
	   "a block that shrinks keeps its size without bit 24");
	/* Data: 3 * 4096 + 500 for file 0 (its copy adds nothing), 110 for file 6, then fragment 0.
	 */
	is_int(one.fd[6].blocks_start, 96 + 3 * BS + 500, "blocks follow each other");
	is_int(get_le64(one.frag_copy), 96 + 3 * BS + 500 + 110, "fragment 0 follows the data");
	is_int(get_le32(one.frag_copy + 8), 700 | SQK_BLOCK_UNCOMPRESSED,
	       "fragment 0 holds 700 bytes");
	is_int(one.end, 96 + 3 * BS + 500 + 110 + 700, "data ends after the fragment block");
	is_int(one.st.dedup_files, 1, "one whole file deduplicated");
	is_int(one.st.dedup_tails, 1, "one small file deduplicated");
	is_int(one.st.sparse_blocks, 5, "five sparse blocks");
	is_int(one.nfrags, 1, "one fragment block");
	ok(one.fd[7].nblocks == 0 && one.fd[7].frag_index == SQK_INVALID_FRAG,
	   "an empty file has no data");

	/* With --tail-ends the ends of large files pack into fragments too. */
	is_int(build(1, 1, &te), 0, "pipeline: --tail-ends builds");
	ok(te.fd[0].nblocks == 3 && te.fd[0].frag_index == 0 && te.fd[0].frag_offset == 0,
	   "tail ends: 3 blocks, the 500-byte tail at fragment 0 offset 0");
	ok(te.fd[1].frag_index == 0 && te.fd[1].frag_offset == 500,
	   "tail ends: the small file packs after it");
	ok(te.fd[2].blocks_start == 96 && te.fd[2].frag_index == 0 && te.fd[2].frag_offset == 0,
	   "tail ends: the copy shares blocks and tail");
	ok(te.fd[6].nblocks == 1 && te.fd[6].frag_index == 0 && te.fd[6].frag_offset == 1200,
	   "tail ends: a 10-byte tail packs at 1200");
	is_int(get_le32(te.frag_copy + 8), 1210 | SQK_BLOCK_UNCOMPRESSED,
	       "tail ends: fragment 0 holds 500 + 700 + 10 bytes");
	is_int(te.st.dedup_tails, 2, "tail ends: two tails found again");
	release(&te);

	for (unsigned t = 2; t <= 5; t += 3) {
		if (build(t, 0, &many)) {
			ok(0, "pipeline: %u threads build", t);
			continue;
		}
		d1 = sqk_file_mem_data(one.out, &l1);
		d2 = sqk_file_mem_data(many.out, &l2);
		same = l1 == l2 && memcmp(d1, d2, l1) == 0 && one.end == many.end;
		for (int i = 0; i < 8; i++)
			same &= one.fd[i].blocks_start == many.fd[i].blocks_start &&
				one.fd[i].frag_index == many.fd[i].frag_index &&
				one.fd[i].frag_offset == many.fd[i].frag_offset;
		ok(same, "pipeline: %u threads give the same bytes and places as one", t);
		release(&many);
	}
	release(&one);
	return tap_done();
}
