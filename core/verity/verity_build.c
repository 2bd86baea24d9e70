// SPDX-License-Identifier: BSD-2-Clause
/* The tree made while the image is written (verity_build.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "util/error.h"
#include "util/file.h"
#include "verity_blocks.h"
#include "verity_build.h"
#include "verity_hash.h"
#include "verity_tree.h"

#define BS SQK_VERITY_BLOCK

/* A block's state: not hashed (or hashed before a later write), or its digest in leaves. */
enum { B_OPEN = 0, B_HASHED = 1 };

struct sqk_verity_build {
	struct sqk_file base; /* the wrapper the writer writes through */
	struct sqk_file *image;
	struct sqk_verity_build_opts o;
	struct sqk_verity_hasher h;
	struct sqk_verity_ctx *ctx;
	/* Per block: its digest (slot bytes apart, as level 0 holds them) and its state. */
	uint8_t *leaves, *state;
	uint64_t nblocks; /* blocks the arrays hold */
	uint32_t slot;
	/* Block 0, in memory from the start: the superblock is written into it last. */
	uint8_t head[BS];
	/* The block being filled by writes that do not cover it: bytes [lo, hi) are in buf. */
	struct {
		int live;
		uint64_t idx;
		uint32_t lo, hi;
		uint8_t buf[BS];
	} fill;
	int finished;
	const uint8_t *final_head; /* after the end: what may still be written at 0 */
	size_t final_len;
	uint8_t final_bytes[BS];
	struct sqk_verity_result res;
	int hash_failed; /* the finish failed writing hash_out */
};

int sqk_verity_random(void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = getrandom(p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return SQK_ERR_IO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Room for block b in the arrays, the new part zero. */
static int reserve(struct sqk_verity_build *vb, uint64_t b)
{
	uint64_t n = vb->nblocks ? vb->nblocks : 256;
	uint8_t *l, *s;

	if (b < vb->nblocks)
		return 0;
	while (n <= b)
		n *= 2;
	if (n > SIZE_MAX / vb->slot)
		return SQK_ERR_NOMEM;
	l = realloc(vb->leaves, (size_t)n * vb->slot);
	if (!l)
		return SQK_ERR_NOMEM;
	vb->leaves = l;
	s = realloc(vb->state, (size_t)n);
	if (!s)
		return SQK_ERR_NOMEM;
	vb->state = s;
	memset(l + vb->nblocks * vb->slot, 0, (size_t)(n - vb->nblocks) * vb->slot);
	memset(s + vb->nblocks, B_OPEN, (size_t)(n - vb->nblocks));
	vb->nblocks = n;
	return 0;
}

static int hash_block(struct sqk_verity_build *vb, uint64_t b, const uint8_t *data)
{
	int err = sqk_verity_hash(&vb->h, vb->ctx, data, BS, vb->leaves + b * vb->slot);

	if (!err)
		vb->state[b] = B_HASHED;
	return err;
}

/* Bytes [s, e) of block b, written: hashed once the block is whole. */
static int take(struct sqk_verity_build *vb, uint64_t b, uint32_t s, uint32_t e, const uint8_t *p)
{
	int err;

	if (b == 0) {
		memcpy(vb->head + s, p, e - s);
		return 0;
	}
	err = reserve(vb, b);
	if (err)
		return err;
	if (s == 0 && e == BS) {
		if (vb->fill.live && vb->fill.idx == b)
			vb->fill.live = 0;
		return hash_block(vb, b, p);
	}
	/* Part of a block: what was hashed of it is no longer what it holds. */
	vb->state[b] = B_OPEN;
	if (vb->fill.live && vb->fill.idx == b && s <= vb->fill.hi && e >= vb->fill.lo) {
		if (s < vb->fill.lo)
			vb->fill.lo = s;
		if (e > vb->fill.hi)
			vb->fill.hi = e;
	} else {
		/* Another block left part-filled stays open: it is read back at the end. */
		vb->fill.live = 1;
		vb->fill.idx = b;
		vb->fill.lo = s;
		vb->fill.hi = e;
	}
	memcpy(vb->fill.buf + s, p, e - s);
	if (vb->fill.lo == 0 && vb->fill.hi == BS) {
		vb->fill.live = 0;
		return hash_block(vb, b, vb->fill.buf);
	}
	return 0;
}

/* After the end only the head may be written, and only as it was given. */
static int late_write(struct sqk_verity_build *vb, uint64_t off, const uint8_t *p, size_t len)
{
	if (off > vb->final_len || len > vb->final_len - off ||
	    memcmp(vb->final_bytes + off, p, len) != 0)
		return SQK_ERR_ARG;
	return vb->image->write_at(vb->image, off, p, len);
}

static int vb_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	struct sqk_verity_build *vb = (struct sqk_verity_build *)f;
	const uint8_t *p = buf;
	uint64_t end = off + len, b;
	int err;

	if (vb->finished)
		return late_write(vb, off, p, len);
	if (end < off)
		return SQK_ERR_OVERFLOW;
	err = vb->image->write_at(vb->image, off, buf, len);
	if (err) {
		f->errnum = vb->image->errnum;
		return err;
	}
	for (b = off / BS; len && b <= (end - 1) / BS; b++) {
		uint64_t s = b * BS > off ? b * BS : off;
		uint64_t e = (b + 1) * BS < end ? (b + 1) * BS : end;

		err = take(vb, b, (uint32_t)(s - b * BS), (uint32_t)(e - b * BS), p + (s - off));
		if (err)
			return err;
	}
	return 0;
}

static int vb_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct sqk_verity_build *vb = (struct sqk_verity_build *)f;
	int err = vb->image->read_at(vb->image, off, buf, len);

	if (err)
		f->errnum = vb->image->errnum;
	return err;
}

static uint64_t vb_size(struct sqk_file *f)
{
	struct sqk_verity_build *vb = (struct sqk_verity_build *)f;

	return vb->image->size(vb->image);
}

static int vb_sync(struct sqk_file *f)
{
	struct sqk_verity_build *vb = (struct sqk_verity_build *)f;
	int err = vb->image->sync(vb->image);

	if (err)
		f->errnum = vb->image->errnum;
	return err;
}

/* Cut the image: blocks from the new end on are no longer its. */
static int vb_truncate(struct sqk_file *f, uint64_t size)
{
	struct sqk_verity_build *vb = (struct sqk_verity_build *)f;
	uint64_t b = size / BS, i;
	int err;

	if (vb->finished)
		return SQK_ERR_ARG;
	if (!vb->image->truncate)
		return SQK_ERR_UNSUPPORTED;
	err = vb->image->truncate(vb->image, size);
	if (err) {
		f->errnum = vb->image->errnum;
		return err;
	}
	if (vb->fill.live && vb->fill.idx >= b)
		vb->fill.live = 0;
	/* A block cut part-way holds zeros after the cut: hashed again from the file. */
	for (i = b; i < vb->nblocks; i++)
		vb->state[i] = B_OPEN;
	if (b == 0)
		memset(vb->head + size, 0, BS - size);
	return 0;
}

static void vb_destroy(struct sqk_file *f)
{
}

int sqk_verity_build_create(struct sqk_file *image, const struct sqk_verity_build_opts *o,
			    struct sqk_verity_build **out)
{
	struct sqk_verity_build *vb = calloc(1, sizeof(*vb));
	uint8_t r[16];
	int err;

	*out = NULL;
	if (!vb)
		return SQK_ERR_NOMEM;
	vb->image = image;
	vb->o = *o;
	vb->o.p.hash_type = 1;
	vb->o.p.data_block_size = vb->o.p.hash_block_size = BS;
	err = 0;
	if (o->salt == SQK_VERITY_SALT_RANDOM) {
		vb->o.p.salt_size = 32;
		err = sqk_verity_random(vb->o.p.salt, 32);
		if (!err)
			err = sqk_verity_random(r, sizeof(r));
		sqk_verity_uuid_v4(vb->o.p.uuid, r);
	} else if (o->salt == SQK_VERITY_SALT_DERIVED) {
		/* The writes are hashed with no salt; the salt comes from what they give. */
		vb->o.p.salt_size = 0;
	}
	if (!err)
		err = sqk_verity_hasher_init(&vb->h, &vb->o.p);
	if (!err && !(vb->ctx = sqk_verity_ctx_new()))
		err = SQK_ERR_NOMEM;
	if (err) {
		sqk_verity_build_destroy(vb);
		return err;
	}
	vb->slot = 1u << 5;
	while (vb->slot < vb->h.digest)
		vb->slot <<= 1;
	/* Block 0 as the file holds it now: an image appended to keeps most of it. */
	if (image->size(image) >= BS && (err = image->read_at(image, 0, vb->head, BS))) {
		vb->base.errnum = image->errnum;
		*out = vb;
		return err;
	}
	vb->base.read_at = vb_read_at;
	vb->base.write_at = vb_write_at;
	vb->base.size = vb_size;
	vb->base.sync = vb_sync;
	vb->base.truncate = vb_truncate;
	vb->base.destroy = vb_destroy;
	*out = vb;
	return 0;
}

struct sqk_file *sqk_verity_build_file(struct sqk_verity_build *vb)
{
	return &vb->base;
}

/* Every block not hashed as written, read back from the image and hashed. */
static int hash_rest(struct sqk_verity_build *vb, uint64_t blocks, const uint8_t *need,
		     uint64_t *reread)
{
	struct sqk_verity_run r = {
		.h = &vb->h,
		.f = vb->image,
		.bs = BS,
		.first = 1,
		.n = blocks - 1,
		.need = need ? need + 1 : NULL,
		.out = vb->leaves + vb->slot,
		.slot = vb->slot,
		.threads = vb->o.threads,
	};
	uint64_t i;
	int err;

	if (blocks < 2)
		return 0;
	for (i = 1, *reread = 0; i < blocks; i++)
		*reread += !need || need[i];
	err = r.n ? sqk_verity_hash_run(&r) : 0;
	if (err)
		vb->base.errnum = vb->image->errnum;
	return err;
}

/*
 * SALT_DERIVED: the root the image has with no salt gives the salt; every
 * block is hashed again with it (block 0 from memory, the rest read back).
 */
static int derive(struct sqk_verity_build *vb, const struct sqk_verity_geo *g, uint64_t *reread)
{
	struct sqk_verity_params *p = &vb->o.p;
	uint8_t root[SQK_VERITY_DIGEST_MAX];
	int err;

	err = sqk_verity_tree_write(p, g, &vb->h, vb->leaves, NULL, root);
	if (!err)
		err = sqk_verity_digest("sha256", root, vb->h.digest, p->salt);
	if (err)
		return err;
	p->salt_size = 32;
	err = sqk_verity_hasher_init(&vb->h, p);
	if (!err)
		err = sqk_verity_hash(&vb->h, vb->ctx, vb->head, BS, vb->leaves);
	return err ? err : hash_rest(vb, g->data_blocks, NULL, reread);
}

/* A uuid made of the tree and the salt, for output that is the same bytes every time. */
static int derived_uuid(struct sqk_verity_build *vb, const uint8_t *root)
{
	uint8_t in[SQK_VERITY_DIGEST_MAX + SQK_VERITY_SALT_MAX], d[32];
	int err;

	memcpy(in, root, vb->h.digest);
	memcpy(in + vb->h.digest, vb->o.p.salt, vb->o.p.salt_size);
	err = sqk_verity_digest("sha256", in, vb->h.digest + vb->o.p.salt_size, d);
	if (!err)
		sqk_verity_uuid_v4(vb->o.p.uuid, d);
	return err;
}

int sqk_verity_build_finish(struct sqk_verity_build *vb, uint64_t size, const void *head,
			    size_t len)
{
	struct sqk_verity_result *res = &vb->res;
	struct sqk_verity_params *p = &vb->o.p;
	struct sqk_file *out = vb->o.hash_out ? vb->o.hash_out : vb->image;
	struct sqk_verity_geo g;
	uint8_t *need = NULL;
	uint64_t blocks = size / BS, i, reread = 0;
	int err;

	memset(res, 0, sizeof(*res));
	if (vb->finished || !size || size % BS || len > BS)
		return SQK_ERR_ARG;
	if (len) {
		memcpy(vb->head, head, len);
		memcpy(vb->final_bytes, head, len);
	}
	vb->final_len = len;
	p->data_blocks = blocks;
	p->hash_offset = vb->o.hash_out ? 0 : size;
	err = sqk_verity_geometry(p, vb->h.digest, &g);
	/* Level 0 is whole hash blocks of digests, zeros after the last. */
	if (!err)
		err = reserve(vb, sqk_verity_leaves_bytes(&g) / vb->slot);
	if (!err && !(need = malloc((size_t)blocks)))
		err = SQK_ERR_NOMEM;
	if (err)
		goto out;
	/* Digests past the end are none. */
	memset(vb->leaves + blocks * vb->slot, 0, (size_t)((vb->nblocks - blocks) * vb->slot));
	for (i = 0; i < blocks; i++)
		need[i] = vb->state[i] != B_HASHED;
	err = hash_block(vb, 0, vb->head);
	if (!err)
		err = hash_rest(vb, blocks, need, &reread);
	if (!err && vb->o.salt == SQK_VERITY_SALT_DERIVED)
		err = derive(vb, &g, &reread);
	if (err)
		goto out;
	if (vb->o.salt != SQK_VERITY_SALT_RANDOM) {
		err = sqk_verity_tree_write(p, &g, &vb->h, vb->leaves, NULL, res->root);
		if (!err)
			err = derived_uuid(vb, res->root);
	}
	if (!err) {
		err = sqk_verity_tree_write(p, &g, &vb->h, vb->leaves, out, res->root);
		/* Nothing of an earlier file's bytes after the area. */
		if (!err && out->truncate)
			err = out->truncate(out, g.end);
		if (err) {
			vb->base.errnum = out->errnum;
			vb->hash_failed = out == vb->o.hash_out;
		}
	}
	if (err)
		goto out;
	vb->finished = 1;
	res->p = *p;
	res->digest = vb->h.digest;
	res->hash_size = g.end - p->hash_offset;
	res->reread_blocks = reread;
	if (vb->o.done && (err = vb->o.done(vb->o.ctx)))
		vb->finished = 0;
out:
	free(need);
	return err;
}

int sqk_verity_build_hash_failed(const struct sqk_verity_build *vb)
{
	return vb->hash_failed;
}

const struct sqk_verity_result *sqk_verity_build_result(const struct sqk_verity_build *vb)
{
	return vb->finished ? &vb->res : NULL;
}

void sqk_verity_build_destroy(struct sqk_verity_build *vb)
{
	if (!vb)
		return;
	sqk_verity_ctx_free(vb->ctx);
	free(vb->leaves);
	free(vb->state);
	free(vb);
}
