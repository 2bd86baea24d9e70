// SPDX-License-Identifier: BSD-2-Clause
/*
 * The tree made while a file is written (core/verity/verity_build.c):
 * whatever order the writes come in (forward, rewinding over what was
 * written, partial blocks, block 0 last, a cut), the tree is the one of
 * the file's final bytes, computed here from them alone; a write after the
 * end is refused unless it is the head as given; the verifying reader
 * reads the file back through the tree and refuses a changed byte; the
 * whole-image check finds each changed block, data or hash.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "verity/verity_area.h"
#include "verity/verity_build.h"
#include "verity/verity_check.h"
#include "verity/verity_read.h"
#include "verity/verity_tree.h"

#define BS 4096u

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The root of the first size bytes of data, made here from the bytes alone. */
static void expected_root(const struct sqk_verity_params *given, const uint8_t *data, uint64_t size,
			  uint8_t *root)
{
	struct sqk_verity_params p = *given;
	struct sqk_verity_geo g;
	struct sqk_verity_hasher h;
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	uint8_t *leaves;
	uint64_t i;

	p.data_blocks = size / BS;
	p.hash_offset = size;
	sqk_verity_hasher_init(&h, &p);
	sqk_verity_geometry(&p, h.digest, &g);
	leaves = calloc(1, sqk_verity_leaves_bytes(&g));
	for (i = 0; i < p.data_blocks; i++)
		sqk_verity_hash(&h, c, data + i * BS, BS, leaves + i * g.slot);
	sqk_verity_tree_write(&p, &g, &h, leaves, NULL, root);
	free(leaves);
	sqk_verity_ctx_free(c);
}

/* Write [off, off + len) of want through f, in pieces of random sizes. */
static int write_pieces(struct sqk_file *f, const uint8_t *want, uint64_t off, uint64_t len)
{
	while (len) {
		uint64_t n = 1 + next() % 9000;

		if (n > len)
			n = len;
		if (f->write_at(f, off, want + off, (size_t)n))
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * One run: an image of size bytes written as a writer does (head last,
 * rewinds over a stretch that is then written again with other bytes, a
 * cut of bytes past the end), through the build, with threads workers.
 */
static void run(unsigned round, uint64_t size, unsigned threads, int derived)
{
	struct sqk_verity_build_opts o = {.threads = threads};
	struct sqk_file *mem = sqk_file_mem(NULL, 0), *f;
	struct sqk_verity_build *vb;
	const struct sqk_verity_result *r;
	uint8_t *want = malloc(size), *junk = malloc(size), root[64];
	uint64_t pos, i, rewinds = 0;
	int bad = 0;

	for (i = 0; i < size; i++) {
		want[i] = (uint8_t)next();
		junk[i] = (uint8_t)next();
	}
	strcpy(o.p.algorithm, round % 2 ? "sha512" : "sha256");
	o.p.superblock = 1;
	o.salt = derived ? SQK_VERITY_SALT_DERIVED : SQK_VERITY_SALT_GIVEN;
	o.p.salt_size = 4;
	memcpy(o.p.salt, "\x01\x02\x03\x04", 4);
	if (sqk_verity_build_create(mem, &o, &vb)) {
		ok(0, "round %u: the build starts", round);
		return;
	}
	f = sqk_verity_build_file(vb);
	/* Forward from byte 96, rewinding now and then over junk written first. */
	for (pos = 96; pos < size && !bad;) {
		uint64_t n = 1 + next() % 60000, back;

		if (n > size - pos)
			n = size - pos;
		if (next() % 3 == 0) {
			/* A file found again: written, then rewound over and written anew. */
			bad |= write_pieces(f, junk, pos, n);
			back = pos - 96 < 5000 ? pos - 96 : 5000;
			pos -= next() % (back + 1);
			rewinds++;
			continue;
		}
		bad |= write_pieces(f, want, pos, n);
		pos += n;
	}
	/* Junk past the end, cut off, as padding after a rewind leaves it. */
	bad |= f->write_at(f, size, junk, 777) != 0;
	bad |= f->truncate(f, size) != 0;
	bad |= sqk_verity_build_finish(vb, size, want, 96) != 0;
	bad |= f->write_at(f, 0, want, 96) != 0;
	ok(!bad, "round %u: %llu bytes, %llu rewinds, written and finished", round,
	   (unsigned long long)size, (unsigned long long)rewinds);
	r = sqk_verity_build_result(vb);
	if (!derived) {
		expected_root(&r->p, want, size, root);
		ok(r && !memcmp(r->root, root, r->digest),
		   "round %u: the root is the one of the file's final bytes", round);
	} else {
		/* The salt is made of the bytes: the same bytes give the same salt and root. */
		expected_root(&r->p, want, size, root);
		ok(r && r->p.salt_size == 32 && !memcmp(r->root, root, r->digest),
		   "round %u: a derived salt, and the root of the final bytes with it", round);
	}
	is_int(f->write_at(f, 100, want + 100, 4), SQK_ERR_ARG,
	       "round %u: a write after the end, not the head, is refused", round);
	sqk_verity_build_destroy(vb);
	sqk_file_destroy(mem);
	free(want);
	free(junk);
}

/* A file with a tree after it, and the root: for the reader and the check. */
static struct sqk_file *image_with_tree(uint64_t size, uint8_t *root, uint32_t *digest,
					uint64_t *hash_end)
{
	struct sqk_verity_build_opts o = {.threads = 2};
	struct sqk_file *mem = sqk_file_mem(NULL, 0);
	struct sqk_verity_build *vb;
	const struct sqk_verity_result *r;
	uint8_t *data = malloc(size);
	uint64_t i;

	for (i = 0; i < size; i++)
		data[i] = (uint8_t)next();
	strcpy(o.p.algorithm, "sha256");
	o.p.superblock = 1;
	o.salt = SQK_VERITY_SALT_RANDOM;
	sqk_verity_build_create(mem, &o, &vb);
	sqk_verity_build_file(vb)->write_at(sqk_verity_build_file(vb), 0, data, size);
	sqk_verity_build_finish(vb, size, data, 96);
	r = sqk_verity_build_result(vb);
	memcpy(root, r->root, r->digest);
	*digest = r->digest;
	*hash_end = r->p.hash_offset + r->hash_size;
	sqk_verity_build_destroy(vb);
	free(data);
	return mem;
}

static struct sqk_verity_area *area(struct sqk_file *f, uint64_t size, const uint8_t *root,
				    uint32_t digest)
{
	struct sqk_verity_where w = {.offset = SQK_VERITY_AT_END, .root_len = digest};
	struct sqk_verity_area *a = NULL;
	const char *why;

	memcpy(w.root, root, digest);
	sqk_verity_area_open(f, size, &w, &a, &why);
	return a;
}

static void count_bad(void *ctx, const struct sqk_verity_bad *b)
{
	struct sqk_verity_bad *last = ctx;

	*last = *b;
	last->covers++; /* how many were reported, kept in a field of the copy */
}

static void test_read_and_check(void)
{
	uint64_t size = 700 * BS, end, n;
	uint8_t root[64], buf[10000], orig;
	uint32_t digest;
	struct sqk_file *img = image_with_tree(size, root, &digest, &end), *r;
	struct sqk_verity_area *a = area(img, size, root, digest);
	struct sqk_verity_bad last = {0}, first;
	const uint8_t *bytes;
	size_t len;

	ok(a != NULL, "the area after the image opens");
	sqk_verity_check(a, img, 2, count_bad, &last, &n);
	is_int(n, 0, "a sound image: the check finds nothing");
	bytes = sqk_file_mem_data(img, &len);
	/* A byte of data block 300 changed: the check names that block alone. */
	orig = bytes[300 * BS + 17];
	img->write_at(img, 300 * BS + 17, (uint8_t[]){(uint8_t)(orig ^ 1)}, 1);
	sqk_verity_check(a, img, 2, count_bad, &last, &n);
	ok(n == 1 && last.level == -1 && last.block == 300, "a changed data byte: block 300 named");
	/* The reader: reads around it pass, a read covering it fails with EIO. */
	sqk_verity_reader_create(img, a, &r);
	is_int(r->read_at(r, 299 * BS + 5, buf, BS - 5), 0, "a read beside the bad block passes");
	is_int(r->read_at(r, 300 * BS + 4000, buf, 200), SQK_ERR_IO,
	       "a read that covers the bad block fails");
	is_int(r->errnum, 5, "with EIO");
	ok(sqk_verity_reader_failures(r, &first) == 1 && first.block == 300,
	   "the reader records the block");
	img->write_at(img, 300 * BS + 17, &orig, 1);
	is_int(r->read_at(r, 300 * BS + 4000, buf, 200), 0, "put back, it reads again");
	/* A byte of the lowest level of the tree: the hash block is named, not its data blocks. */
	bytes = sqk_file_mem_data(img, &len);
	orig = bytes[end - 3 * BS + 9];
	img->write_at(img, end - 3 * BS + 9, (uint8_t[]){(uint8_t)(orig ^ 0x55)}, 1);
	a = area(img, size, root, digest);
	sqk_verity_check(a, img, 1, count_bad, &last, &n);
	ok(n == 1 && last.level == 0 && last.ncovers == 128,
	   "a changed hash byte: its hash block, standing for 128 data blocks");
	sqk_verity_area_free(a);
	/* A byte after the last digest of the last hash block: that block no longer matches. */
	img->write_at(img, end - 3 * BS + 9, &orig, 1);
	img->write_at(img, end - 2, (uint8_t[]){1}, 1);
	a = area(img, size, root, digest);
	sqk_verity_check(a, img, 1, count_bad, &last, &n);
	ok(n == 1 && last.level == 0 && last.block == 5 && last.ncovers == 700 - 640,
	   "a byte after the last digest: the last hash block, for its 60 data blocks");
	sqk_verity_area_free(a);
	sqk_file_destroy(r);
}

/* A tree made with bytes after its last digest (and hashes that cover them): spare not zero. */
static void test_spare(void)
{
	struct sqk_verity_params p = {.algorithm = "sha256",
				      .hash_type = 1,
				      .data_block_size = BS,
				      .hash_block_size = BS,
				      .data_blocks = 200,
				      .hash_offset = 200 * BS,
				      .superblock = 1};
	struct sqk_file *f = sqk_file_mem(NULL, 0);
	struct sqk_verity_hasher h;
	struct sqk_verity_geo g;
	struct sqk_verity_ctx *c = sqk_verity_ctx_new();
	struct sqk_verity_bad last = {0};
	struct sqk_verity_area *a;
	uint8_t *data = calloc(200, BS), *leaves, root[64];
	uint64_t i, n;

	for (i = 0; i < 200 * BS; i++)
		data[i] = (uint8_t)next();
	f->write_at(f, 0, data, 200 * BS);
	sqk_verity_hasher_init(&h, &p);
	sqk_verity_geometry(&p, h.digest, &g);
	leaves = calloc(1, sqk_verity_leaves_bytes(&g));
	for (i = 0; i < 200; i++)
		sqk_verity_hash(&h, c, data + i * BS, BS, leaves + i * g.slot);
	leaves[200 * g.slot + 3] = 7;
	sqk_verity_tree_write(&p, &g, &h, leaves, f, root);
	a = area(f, 200 * BS, root, h.digest);
	n = 0;
	if (a)
		sqk_verity_check(a, f, 2, count_bad, &last, &n);
	ok(a && n == 1 && last.why == SQK_VERITY_SPARE && last.level == 0 && last.block == 1,
	   "a tree with a byte after its last digest: spare bytes not zero, as veritysetup "
	   "verify says");
	sqk_verity_area_free(a);
	sqk_verity_ctx_free(c);
	sqk_file_destroy(f);
	free(leaves);
	free(data);
}

int main(void)
{
	unsigned round = 0;

	run(round++, 4096, 1, 0);
	run(round++, 8192, 2, 0);
	run(round++, 129 * BS, 2, 0);
	run(round++, 1000 * BS, 3, 0);
	run(round++, 300 * BS, 1, 0);
	run(round++, 300 * BS, 2, 1);
	for (; round < 14; round++)
		run(round, (1 + next() % 400) * BS, 1 + round % 3, 0);
	test_read_and_check();
	test_spare();
	return tap_done();
}
