// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz target: damaged dm-verity areas (and data) before the verifier. A
 * file of data blocks with a sound tree after it is made once; each input
 * is a list of damages (a position and a byte to XOR there), mostly in the
 * hash area (its superblock, its tree, the spare bytes), some in the data.
 * Then the area is opened against the sound root hash, every block is read
 * through the verifying reader and the whole-image check runs. What must
 * hold, whatever the damage:
 *   - a read that succeeds gives the original bytes (the reader never
 *     hands out bytes the root hash does not vouch for);
 *   - when a data block was changed, the check reports a bad block;
 *   - when the check reports none, every read succeeds;
 *   - nothing crashes, leaks or reads out of bounds.
 * Anything else aborts, saying which.
 *
 * With SQK_FUZZ_SEEDS=DIR in the environment it writes seed inputs there
 * and exits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "util/file.h"
#include "verity/verity_area.h"
#include "verity/verity_build.h"
#include "verity/verity_check.h"
#include "verity/verity_read.h"

#define BS     4096u
#define BLOCKS 150u /* two levels with sha256: 2 hash blocks, then 1 */

static uint8_t *sound; /* data and area, as built */
static size_t sound_len;
static uint8_t root[64];
static uint32_t digest;

static void build(void)
{
	struct sqk_verity_build_opts o = {.threads = 1};
	struct sqk_file *mem = sqk_file_mem(NULL, 0), *f;
	struct sqk_verity_build *vb;
	const struct sqk_verity_result *r;
	uint8_t *data = malloc(BLOCKS * BS);
	const uint8_t *bytes;
	uint64_t x = 7;
	size_t i;

	for (i = 0; i < BLOCKS * BS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		data[i] = (uint8_t)(x >> 56);
	}
	strcpy(o.p.algorithm, "sha256");
	o.p.superblock = 1;
	o.salt = SQK_VERITY_SALT_GIVEN;
	o.p.salt_size = 7;
	memcpy(o.p.salt, "\x01\x02\x03\x04\x05\x06\x07", 7);
	if (sqk_verity_build_create(mem, &o, &vb))
		abort();
	f = sqk_verity_build_file(vb);
	if (f->write_at(f, 0, data, BLOCKS * BS) ||
	    sqk_verity_build_finish(vb, BLOCKS * BS, data, 96))
		abort();
	r = sqk_verity_build_result(vb);
	memcpy(root, r->root, r->digest);
	digest = r->digest;
	bytes = sqk_file_mem_data(mem, &sound_len);
	sound = malloc(sound_len);
	memcpy(sound, bytes, sound_len);
	sqk_verity_build_destroy(vb);
	sqk_file_destroy(mem);
	free(data);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (getenv("SQK_FUZZ_SEEDS")) {
		fuzz_seeds(getenv("SQK_FUZZ_SEEDS"), 24, 0, 5);
		exit(0);
	}
	build();
	return 0;
}

static void broken(const char *what)
{
	fprintf(stderr, "the verifier's property is broken: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	struct sqk_verity_where w = {.offset = SQK_VERITY_AT_END, .root_len = digest};
	uint8_t *img = malloc(sound_len), *buf = malloc(BS);
	struct sqk_verity_area *a = NULL;
	struct sqk_file *f, *r = NULL;
	uint64_t area = (uint64_t)BLOCKS * BS, i, nbad = 0;
	int data_changed = 0, all_read = 1;
	const char *why;
	size_t k;

	memcpy(img, sound, sound_len);
	/* Damages of 5 bytes each: 2 of position, 1 of where (data or area), 1 XOR, 1 spare. */
	for (k = 0; k + 5 <= size; k += 5) {
		uint32_t pos =
			(uint32_t)in[k] | (uint32_t)in[k + 1] << 8 | (uint32_t)in[k + 4] << 16;
		uint64_t at = in[k + 2] & 1 ? area + pos % (sound_len - area) : pos % area;

		img[at] ^= in[k + 3];
	}
	/* Two damages of one byte may undo each other: what counts is what is left. */
	data_changed = memcmp(img, sound, area) != 0;
	memcpy(w.root, root, digest);
	f = sqk_file_mem(img, sound_len);
	if (sqk_verity_area_open(f, area, &w, &a, &why) == 0) {
		if (sqk_verity_check(a, f, 1, NULL, NULL, &nbad))
			broken("the check could not be made in memory");
		if (data_changed && !nbad)
			broken("a data block was changed and the check found nothing");
		if (sqk_verity_reader_create(f, a, &r))
			broken("no reader");
		f = NULL;
		for (i = 0; i < BLOCKS; i++) {
			if (r->read_at(r, i * BS, buf, BS) != 0) {
				all_read = 0;
				continue;
			}
			if (memcmp(buf, sound + i * BS, BS))
				broken("a read succeeded with bytes the root hash does not vouch "
				       "for");
		}
		/* A read across two blocks, at an odd place: the same rule. */
		if (r->read_at(r, 3 * BS + 100, buf, BS) == 0 &&
		    memcmp(buf, sound + 3 * BS + 100, BS))
			broken("an unaligned read gave other bytes");
		if (!nbad && !all_read)
			broken("the check found nothing, a read failed");
	} else if (!data_changed && memcmp(img + area, sound + area, 512) == 0 &&
		   memcmp(img + area + BS, sound + area + BS, sound_len - area - BS) == 0) {
		/* The superblock's first 512 bytes and the tree as built: it must open. */
		broken("a sound area did not open");
	}
	sqk_file_destroy(r);
	sqk_file_destroy(f);
	free(img);
	free(buf);
	return 0;
}
