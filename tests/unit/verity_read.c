// SPDX-License-Identifier: BSD-2-Clause
/*
 * The verifying reader from many threads at once, as the mount reads
 * through it: hash blocks checked by whichever thread needs them first and
 * shared (one copy kept, the others freed), every read of a range that
 * covers only sound blocks giving the right bytes, every read covering the
 * one changed block failing with EIO, the failures counted. Run under
 * ThreadSanitizer in `make check` (the pool_* tests).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/file.h"
#include "verity/verity_area.h"
#include "verity/verity_build.h"
#include "verity/verity_read.h"

#define BS	4096u
#define BLOCKS	2000u
#define BAD	1234u
#define THREADS 8
#define READS	3000

static uint8_t *data;
static struct sqk_file *reader;

struct worker {
	uint64_t seed;
	unsigned good, bad, wrong;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint8_t *buf = malloc(3 * BS);
	unsigned i;

	for (i = 0; i < READS; i++) {
		uint64_t off, len;
		int err, covers;

		w->seed = w->seed * 6364136223846793005ull + 1442695040888963407ull;
		off = (w->seed >> 20) % ((BLOCKS - 3) * (uint64_t)BS);
		len = 1 + (w->seed >> 8) % (2 * BS);
		covers = off / BS <= BAD && (off + len - 1) / BS >= BAD;
		err = reader->read_at(reader, off, buf, (size_t)len);
		if (covers) {
			w->bad += err == SQK_ERR_IO;
			w->wrong += err != SQK_ERR_IO;
		} else if (!err && !memcmp(buf, data + off, (size_t)len)) {
			w->good++;
		} else {
			w->wrong++;
		}
	}
	free(buf);
	return NULL;
}

int main(void)
{
	struct sqk_verity_build_opts o = {.threads = 2};
	struct sqk_file *mem = sqk_file_mem(NULL, 0);
	struct sqk_verity_where w = {.offset = SQK_VERITY_AT_END};
	struct sqk_verity_build *vb;
	const struct sqk_verity_result *r;
	struct sqk_verity_area *a;
	struct worker ws[THREADS];
	pthread_t t[THREADS];
	const char *why;
	unsigned i, good = 0, bad = 0, wrong = 0;
	uint64_t x = 3;

	data = malloc((size_t)BLOCKS * BS);
	for (i = 0; i < BLOCKS * BS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		data[i] = (uint8_t)(x >> 56);
	}
	strcpy(o.p.algorithm, "sha512");
	o.p.superblock = 1;
	o.salt = SQK_VERITY_SALT_RANDOM;
	sqk_verity_build_create(mem, &o, &vb);
	sqk_verity_build_file(vb)->write_at(sqk_verity_build_file(vb), 0, data,
					    (size_t)BLOCKS * BS);
	ok(!sqk_verity_build_finish(vb, (uint64_t)BLOCKS * BS, data, 96), "a tree of %u blocks",
	   BLOCKS);
	r = sqk_verity_build_result(vb);
	w.root_len = r->digest;
	memcpy(w.root, r->root, r->digest);
	sqk_verity_build_destroy(vb);
	/* One byte of one block changed, after the tree was made. */
	mem->write_at(mem, (uint64_t)BAD * BS + 77, (uint8_t[]){(uint8_t)(data[BAD * BS + 77] ^ 4)},
		      1);
	ok(!sqk_verity_area_open(mem, (uint64_t)BLOCKS * BS, &w, &a, &why), "the area opens");
	ok(!sqk_verity_reader_create(mem, a, &reader), "a reader over it");
	for (i = 0; i < THREADS; i++) {
		ws[i] = (struct worker){.seed = 1000 + i};
		pthread_create(&t[i], NULL, work, &ws[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		good += ws[i].good;
		bad += ws[i].bad;
		wrong += ws[i].wrong;
	}
	is_int(wrong, 0, "%u threads, %u reads each: no read went otherwise than it must", THREADS,
	       READS);
	ok(good > 0 && bad > 0, "%u sound reads gave the right bytes, %u over the bad block failed",
	   good, bad);
	is_int(sqk_verity_reader_failures(reader, NULL), bad, "every failure was counted");
	sqk_file_destroy(reader);
	free(data);
	return tap_done();
}
