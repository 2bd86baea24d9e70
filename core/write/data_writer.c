// SPDX-License-Identifier: GPL-2.0-or-later
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "data_writer.h"
#include "error.h"
#include "format.h"
#include "le.h"
#include "pool.h"

enum { K_BLOCK, K_FRAG, K_END };

/* One item in flight, in submission order. */
struct slot {
	struct sqk_data_writer *dw;
	int kind;
	int hole;
	uint8_t *in, *out;
	uint32_t len;
	/* Set by the worker. */
	uint32_t out_len;
	int raw, sparse, err;
	uint64_t hash;
	int done;    /* atomic: the result is ready */
	int claimed; /* atomic: a worker or the main thread has taken it */
	/* What the result belongs to. */
	struct sqk_file_data *fd;
	uint32_t block_no;
	uint32_t frag_index;
};

struct tail_ref {
	uint64_t hash;
	uint32_t len, idx, off;
};

#define OBUF_SIZE (1u << 20)

struct sqk_data_writer {
	struct sqk_data_opts o;
	uint32_t bs;
	struct sqk_pool *pool;
	struct sqk_compressor **comps, *main;
	struct sqk_file *out;

	/* Output: everything before obuf_start is in the file. */
	uint8_t *obuf;
	uint64_t obuf_start;
	uint32_t obuf_len;

	/*
	 * The ring of items in flight. Only blocks and fragment blocks need
	 * buffers; file ends do not, so the ring is long and the buffers few:
	 * many small files must not starve the workers.
	 */
	struct slot *ring;
	unsigned cap, head, count;
	uint8_t **free_bufs; /* pairs: in, out */
	unsigned nbufs, nfree;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct slot *waiting;

	/* The file the source is handing in. */
	struct sqk_file_data *cur;
	uint64_t cur_size;
	uint32_t cur_blocks; /* pieces that are blocks */
	uint32_t cur_tail;   /* tail length, 0 for none */
	uint32_t piece;
	uint8_t *tail_buf;

	/* Fragment packing. */
	uint8_t *frag_buf;
	uint32_t frag_len, frag_idx;
	uint8_t *frag_table;
	uint32_t frag_table_cap;
	struct tail_ref *tails;
	uint32_t ntails, tails_cap;
	uint32_t *tail_slots; /* open hash of tail index + 1 */
	uint32_t ntail_slots;
	uint8_t *rb_buf, *rb_tmp; /* a fragment read back for comparison */
	uint32_t rb_idx;

	/* Whole-file dedup. */
	struct sqk_file_data **files;
	uint32_t nfile_buckets, nfiles;

	uint8_t *cmp_a, *cmp_b;
	/* Every block list handed out, freed with the writer. */
	uint32_t **owned;
	size_t nowned, owned_cap;
	struct sqk_data_stats st;
	uint64_t last_frag_pos; /* where the latest fragment block went */
	uint64_t progress;
	int err;
};

/* A fast 64-bit hash; equality is always confirmed byte by byte. */
static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

#define HM1 0x9e3779b185ebca87ull
#define HM2 0xc2b2ae3d27d4eb4full
#define HM3 0x165667b19e3779f9ull

static uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= HM2;
	h ^= h >> 29;
	h *= HM3;
	h ^= h >> 32;
	return h;
}

uint64_t sqk_hash64(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t a = HM1 ^ len, b = HM2, c = HM3, d = HM1 + HM2, h;

	while (len >= 32) {
		a = rotl64(a + rd64(p) * HM2, 31) * HM1;
		b = rotl64(b + rd64(p + 8) * HM2, 31) * HM1;
		c = rotl64(c + rd64(p + 16) * HM2, 31) * HM1;
		d = rotl64(d + rd64(p + 24) * HM2, 31) * HM1;
		p += 32;
		len -= 32;
	}
	h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18);
	while (len >= 8) {
		h = rotl64(h ^ (rd64(p) * HM2), 27) * HM1 + HM3;
		p += 8;
		len -= 8;
	}
	while (len--)
		h = rotl64(h ^ (*p++ * HM3), 11) * HM1;
	return fmix(h);
}

static int all_zero(const uint8_t *p, size_t len)
{
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		if (rd64(p + i) | rd64(p + i + 8) | rd64(p + i + 16) | rd64(p + i + 24))
			return 0;
	for (; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The hash of len zero bytes, without reading any. */
static uint64_t zero_hash(uint32_t len)
{
	return fmix(0x5a5a5a5a00000000ull ^ len);
}

/* Compress and hash one item with compressor c; the caller has claimed it. */
static void process(struct slot *s, struct sqk_compressor *c)
{
	struct sqk_data_writer *dw = s->dw;
	size_t out = 0;
	int err;

	s->sparse = s->raw = s->err = 0;
	if (s->kind == K_BLOCK) {
		if (s->hole && !dw->o.no_sparse) {
			s->sparse = 1;
		} else if (s->hole) {
			memset(s->in, 0, s->len);
		} else if (!dw->o.no_sparse && all_zero(s->in, s->len)) {
			s->sparse = 1;
		}
		s->hash = s->sparse ? zero_hash(s->len) : sqk_hash64(s->in, s->len);
	}
	if (!s->sparse) {
		err = c->compress(c, s->in, s->len, s->out, dw->bs, &out);
		if (err == 0 && out < s->len) {
			s->out_len = (uint32_t)out;
		} else if (err == 0 || err == SQK_ERR_OVERFLOW) {
			s->raw = 1;
			s->out_len = s->len;
		} else {
			s->err = err;
		}
	}
	pthread_mutex_lock(&dw->lock);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	if (dw->waiting == s)
		pthread_cond_signal(&dw->cond);
	pthread_mutex_unlock(&dw->lock);
}

/*
 * A pool task. The main thread may have taken the item while it waited,
 * and the slot may even hold a newer item by now: whoever claims the slot
 * first processes what it holds, and a late task finds it claimed.
 */
static void compress_task(void *arg, unsigned worker)
{
	struct slot *s = arg;

	if (__atomic_exchange_n(&s->claimed, 1, __ATOMIC_ACQ_REL))
		return;
	process(s, s->dw->comps[worker]);
}

/* The oldest item nobody has started, claimed for the main thread; or NULL. */
static struct slot *claim_unstarted(struct sqk_data_writer *dw)
{
	unsigned i, heavy = 0;

	for (i = 0; i < dw->count && heavy < dw->nbufs; i++) {
		struct slot *t = &dw->ring[(dw->head + i) % dw->cap];

		if (t->kind == K_END)
			continue;
		heavy++;
		if (!__atomic_load_n(&t->claimed, __ATOMIC_ACQUIRE) &&
		    !__atomic_exchange_n(&t->claimed, 1, __ATOMIC_ACQ_REL))
			return t;
	}
	return NULL;
}

/* Output with a small write buffer; rewinding drops bytes after pos. */
static uint64_t out_pos(const struct sqk_data_writer *dw)
{
	return dw->obuf_start + dw->obuf_len;
}

static int out_flush(struct sqk_data_writer *dw)
{
	int err = 0;

	if (dw->obuf_len)
		err = dw->out->write_at(dw->out, dw->obuf_start, dw->obuf, dw->obuf_len);
	dw->obuf_start += dw->obuf_len;
	dw->obuf_len = 0;
	return err;
}

static int out_write(struct sqk_data_writer *dw, const uint8_t *p, uint32_t n)
{
	int err;

	if (n >= OBUF_SIZE / 8) {
		err = out_flush(dw);
		if (!err)
			err = dw->out->write_at(dw->out, dw->obuf_start, p, n);
		dw->obuf_start += n;
		return err;
	}
	if (dw->obuf_len + n > OBUF_SIZE) {
		err = out_flush(dw);
		if (err)
			return err;
	}
	memcpy(dw->obuf + dw->obuf_len, p, n);
	dw->obuf_len += n;
	return 0;
}

static int out_rewind(struct sqk_data_writer *dw, uint64_t pos)
{
	if (pos >= dw->obuf_start) {
		dw->obuf_len = (uint32_t)(pos - dw->obuf_start);
		return 0;
	}
	dw->obuf_len = 0;
	dw->obuf_start = pos;
	return 0;
}

static int out_read(struct sqk_data_writer *dw, uint64_t off, uint8_t *buf, size_t n)
{
	int err = out_flush(dw);

	return err ? err : dw->out->read_at(dw->out, off, buf, n);
}

static int frag_entry(struct sqk_data_writer *dw, uint32_t idx, uint64_t start, uint32_t word)
{
	if (idx >= dw->frag_table_cap) {
		uint32_t cap = dw->frag_table_cap ? dw->frag_table_cap * 2 : 256;
		uint8_t *t;

		while (cap <= idx)
			cap *= 2;
		t = realloc(dw->frag_table, (size_t)cap * SQFS_FRAG_ENTRY_SIZE);
		if (!t)
			return SQK_ERR_NOMEM;
		dw->frag_table = t;
		dw->frag_table_cap = cap;
	}
	put_le64(dw->frag_table + (size_t)idx * 16, start);
	put_le32(dw->frag_table + (size_t)idx * 16 + 8, word);
	put_le32(dw->frag_table + (size_t)idx * 16 + 12, 0);
	return 0;
}

/* Are the stored bytes of two files equal? Both are already in the output. */
static int same_bytes(struct sqk_data_writer *dw, uint64_t a, uint64_t b, uint64_t len, int *same)
{
	*same = 1;
	while (len && *same) {
		size_t n = len < dw->bs ? (size_t)len : dw->bs;
		int err = out_read(dw, a, dw->cmp_a, n);

		if (!err)
			err = out_read(dw, b, dw->cmp_b, n);
		if (err)
			return err;
		*same = memcmp(dw->cmp_a, dw->cmp_b, n) == 0;
		a += n;
		b += n;
		len -= n;
	}
	return 0;
}

static int files_rehash(struct sqk_data_writer *dw)
{
	uint32_t n = dw->nfile_buckets ? dw->nfile_buckets * 4 : 1024, i;
	struct sqk_file_data **b = calloc(n, sizeof(*b));

	if (!b)
		return SQK_ERR_NOMEM;
	for (i = 0; i < dw->nfile_buckets; i++) {
		struct sqk_file_data *f = dw->files[i], *next;

		for (; f; f = next) {
			next = f->next;
			f->next = b[f->hash & (n - 1)];
			b[f->hash & (n - 1)] = f;
		}
	}
	free(dw->files);
	dw->files = b;
	dw->nfile_buckets = n;
	return 0;
}

/* A file's blocks are all placed: find an earlier copy or remember this one. */
static int file_done(struct sqk_data_writer *dw, struct sqk_file_data *fd)
{
	struct sqk_file_data *c;
	uint64_t stored = 0;
	uint32_t i;
	int err;

	if (!fd->nblocks)
		fd->blocks_start = out_pos(dw);
	fd->hash = fmix(fd->hash ^ fd->tail_hash * HM3 ^ fd->size);
	dw->st.files++;
	dw->progress += fd->size;
	/* Rewinding must never drop a fragment block written after this file's blocks. */
	if (dw->o.no_dedup || !fd->nblocks ||
	    (dw->st.fragments && dw->last_frag_pos >= fd->blocks_start))
		return 0;
	for (i = 0; i < fd->nblocks; i++)
		stored += fd->blocks[i] & SQFS_BLOCK_SIZE_MASK;
	if (dw->nfile_buckets) {
		for (c = dw->files[fd->hash & (dw->nfile_buckets - 1)]; c; c = c->next) {
			int same;

			if (c->hash != fd->hash || c->size != fd->size ||
			    c->nblocks != fd->nblocks || c->frag != fd->frag ||
			    c->frag_offset != fd->frag_offset ||
			    memcmp(c->blocks, fd->blocks, fd->nblocks * sizeof(uint32_t)))
				continue;
			err = same_bytes(dw, c->blocks_start, fd->blocks_start, stored, &same);
			if (err)
				return err;
			if (!same)
				continue;
			out_rewind(dw, fd->blocks_start);
			fd->blocks_start = c->blocks_start;
			dw->st.blocks -= fd->nblocks;
			dw->st.block_bytes -= stored;
			dw->st.dedup_files++;
			dw->st.dedup_bytes += fd->size;
			return 0;
		}
	}
	if (dw->nfiles >= dw->nfile_buckets * 2) {
		err = files_rehash(dw);
		if (err)
			return err;
	}
	fd->next = dw->files[fd->hash & (dw->nfile_buckets - 1)];
	dw->files[fd->hash & (dw->nfile_buckets - 1)] = fd;
	dw->nfiles++;
	return 0;
}

static int place(struct sqk_data_writer *dw, struct slot *s, struct sqk_file_data *fd);

/* Take the oldest item, wait for it and place it. */
static int consume_one(struct sqk_data_writer *dw)
{
	struct slot *s = &dw->ring[dw->head];
	struct sqk_file_data *fd = s->fd;
	int err;

	/* Rather than sleep while the oldest item is pending, compress one ourselves. */
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		struct slot *t = claim_unstarted(dw);

		if (t) {
			process(t, dw->main);
			continue;
		}
		pthread_mutex_lock(&dw->lock);
		while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
			dw->waiting = s;
			pthread_cond_wait(&dw->cond, &dw->lock);
		}
		dw->waiting = NULL;
		pthread_mutex_unlock(&dw->lock);
	}

	dw->head = (dw->head + 1) % dw->cap;
	dw->count--;
	err = s->err;
	if (!err)
		err = place(dw, s, fd);
	if (s->kind != K_END) {
		dw->free_bufs[2 * dw->nfree] = s->in;
		dw->free_bufs[2 * dw->nfree + 1] = s->out;
		dw->nfree++;
		s->in = s->out = NULL;
	}
	return err;
}

static int place(struct sqk_data_writer *dw, struct slot *s, struct sqk_file_data *fd)
{
	uint32_t word = 0;
	int err = 0;

	switch (s->kind) {
	case K_BLOCK:
		if (s->block_no == 0)
			fd->blocks_start = out_pos(dw);
		if (s->sparse) {
			dw->st.sparse_blocks++;
			dw->st.sparse_bytes += s->len;
		} else {
			err = out_write(dw, s->raw ? s->in : s->out, s->out_len);
			word = s->out_len | (s->raw ? SQFS_BLOCK_UNCOMPRESSED : 0);
			dw->st.blocks++;
			dw->st.block_bytes += s->out_len;
			dw->st.raw_blocks += s->raw;
		}
		if (s->sparse)
			fd->sparse += s->len;
		fd->blocks[s->block_no] = word;
		fd->hash = rotl64(fd->hash ^ s->hash, 23) * HM1;
		break;
	case K_FRAG:
		dw->last_frag_pos = out_pos(dw);
		err = frag_entry(dw, s->frag_index, out_pos(dw),
				 s->out_len | (s->raw ? SQFS_BLOCK_UNCOMPRESSED : 0));
		if (!err)
			err = out_write(dw, s->raw ? s->in : s->out, s->out_len);
		dw->st.fragments++;
		dw->st.fragment_bytes += s->out_len;
		break;
	case K_END:
		err = file_done(dw, fd);
		break;
	}
	return err;
}

/* Make room for one more item (with buffers when heavy); returns its slot. */
static int reserve(struct sqk_data_writer *dw, int heavy, struct slot **out)
{
	struct slot *s;

	while (dw->count == dw->cap || (heavy && !dw->nfree)) {
		int err = consume_one(dw);

		if (err)
			return err;
	}
	s = &dw->ring[(dw->head + dw->count) % dw->cap];
	if (heavy) {
		dw->nfree--;
		s->in = dw->free_bufs[2 * dw->nfree];
		s->out = dw->free_bufs[2 * dw->nfree + 1];
	}
	s->dw = dw;
	__atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);
	s->err = 0;
	*out = s;
	return 0;
}

static int push(struct sqk_data_writer *dw, struct slot *s)
{
	dw->count++;
	if (s->kind == K_END) {
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
		return 0;
	}
	/* Every field is written: open the slot to whoever comes first. */
	__atomic_store_n(&s->claimed, 0, __ATOMIC_RELEASE);
	return sqk_pool_submit(dw->pool, compress_task, s);
}

static int push_end(struct sqk_data_writer *dw)
{
	struct slot *s;
	int err = reserve(dw, 0, &s);

	if (err)
		return err;
	s->kind = K_END;
	s->fd = dw->cur;
	dw->cur = NULL;
	return push(dw, s);
}

/* Send the filling fragment block to the pool; its buffer moves to the slot. */
static int close_frag(struct sqk_data_writer *dw)
{
	struct slot *s;
	uint8_t *tmp;
	int err;

	if (!dw->frag_len)
		return 0;
	err = reserve(dw, 1, &s);
	if (err)
		return err;
	tmp = s->in;
	s->in = dw->frag_buf;
	dw->frag_buf = tmp;
	s->kind = K_FRAG;
	s->len = dw->frag_len;
	s->hole = 0;
	s->fd = NULL;
	s->frag_index = dw->frag_idx++;
	dw->frag_len = 0;
	return push(dw, s);
}

/* The uncompressed contents of fragment block idx, wherever it is now. */
static int frag_content(struct sqk_data_writer *dw, uint32_t idx, const uint8_t **data)
{
	unsigned i;
	uint32_t word, n;
	uint64_t start;
	size_t got = 0;
	int err;

	if (idx == dw->frag_idx) {
		*data = dw->frag_buf;
		return 0;
	}
	for (i = 0; i < dw->count; i++) {
		struct slot *s = &dw->ring[(dw->head + i) % dw->cap];

		if (s->kind == K_FRAG && s->frag_index == idx) {
			*data = s->in;
			return 0;
		}
	}
	if (dw->rb_idx == idx) {
		*data = dw->rb_buf;
		return 0;
	}
	start = get_le64(dw->frag_table + (size_t)idx * 16);
	word = get_le32(dw->frag_table + (size_t)idx * 16 + 8);
	n = word & SQFS_BLOCK_SIZE_MASK;
	if (n > dw->bs)
		return SQK_ERR_CORRUPT;
	dw->rb_idx = SQFS_INVALID_FRAG;
	if (word & SQFS_BLOCK_UNCOMPRESSED) {
		err = out_read(dw, start, dw->rb_buf, n);
	} else {
		err = out_read(dw, start, dw->rb_tmp, n);
		if (!err)
			err = dw->main->decompress(dw->main, dw->rb_tmp, n, dw->rb_buf, dw->bs,
						   &got);
	}
	if (err)
		return err;
	dw->rb_idx = idx;
	*data = dw->rb_buf;
	return 0;
}

static int tails_grow(struct sqk_data_writer *dw)
{
	uint32_t n = dw->ntail_slots ? dw->ntail_slots * 2 : 1024, i;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return SQK_ERR_NOMEM;
	for (i = 0; i < dw->ntails; i++) {
		uint32_t h = (uint32_t)dw->tails[i].hash & (n - 1);

		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(dw->tail_slots);
	dw->tail_slots = s;
	dw->ntail_slots = n;
	return 0;
}

static int handle_tail(struct sqk_data_writer *dw, int hole)
{
	struct sqk_file_data *fd = dw->cur;
	uint32_t len = dw->cur_tail, h;
	uint64_t hash;
	int err;

	if (hole)
		memset(dw->tail_buf, 0, len);
	hash = sqk_hash64(dw->tail_buf, len);
	fd->tail_hash = hash;
	if ((dw->ntails + 1) * 2 > dw->ntail_slots) {
		err = tails_grow(dw);
		if (err)
			return err;
	}
	h = (uint32_t)hash & (dw->ntail_slots - 1);
	if (!dw->o.no_dedup) {
		for (; dw->tail_slots[h]; h = (h + 1) & (dw->ntail_slots - 1)) {
			struct tail_ref *t = &dw->tails[dw->tail_slots[h] - 1];
			const uint8_t *data;

			if (t->hash != hash || t->len != len)
				continue;
			err = frag_content(dw, t->idx, &data);
			if (err)
				return err;
			if (memcmp(data + t->off, dw->tail_buf, len) == 0) {
				fd->frag = t->idx;
				fd->frag_offset = t->off;
				dw->st.dedup_tails++;
				dw->st.dedup_tail_bytes += len;
				return 0;
			}
		}
	}
	if (dw->frag_len + len > dw->bs) {
		err = close_frag(dw);
		if (err)
			return err;
	}
	memcpy(dw->frag_buf + dw->frag_len, dw->tail_buf, len);
	fd->frag = dw->frag_idx;
	fd->frag_offset = dw->frag_len;
	dw->frag_len += len;
	if (dw->o.no_dedup)
		return 0;
	if (dw->ntails == dw->tails_cap) {
		uint32_t cap = dw->tails_cap ? dw->tails_cap * 2 : 1024;
		struct tail_ref *t = realloc(dw->tails, cap * sizeof(*t));

		if (!t)
			return SQK_ERR_NOMEM;
		dw->tails = t;
		dw->tails_cap = cap;
	}
	dw->tails[dw->ntails] = (struct tail_ref){hash, len, fd->frag, fd->frag_offset};
	dw->tail_slots[h] = ++dw->ntails;
	return 0;
}

int sqk_data_file_begin(struct sqk_data_writer *dw, struct sqk_file_data *fd, uint64_t size)
{
	uint64_t bs = dw->bs, nb;

	if (dw->err)
		return dw->err;
	memset(fd, 0, sizeof(*fd));
	fd->size = size;
	fd->frag = SQFS_INVALID_FRAG;
	dw->cur = fd;
	dw->cur_size = size;
	dw->piece = 0;
	dw->cur_tail = 0;
	if (dw->o.no_fragments || (size >= bs && !dw->o.tail_ends)) {
		nb = (size + bs - 1) / bs;
	} else {
		nb = size / bs;
		dw->cur_tail = (uint32_t)(size % bs);
	}
	if (nb > UINT32_MAX)
		return SQK_ERR_OVERFLOW;
	dw->cur_blocks = (uint32_t)nb;
	dw->st.bytes_in += size;
	if (nb) {
		if (dw->nowned == dw->owned_cap) {
			size_t cap = dw->owned_cap ? dw->owned_cap * 2 : 1024;
			uint32_t **o = realloc(dw->owned, cap * sizeof(*o));

			if (!o)
				return dw->err = SQK_ERR_NOMEM;
			dw->owned = o;
			dw->owned_cap = cap;
		}
		fd->blocks = calloc(nb, sizeof(uint32_t));
		if (!fd->blocks)
			return dw->err = SQK_ERR_NOMEM;
		dw->owned[dw->nowned++] = fd->blocks;
	}
	fd->nblocks = (uint32_t)nb;
	if (!nb && !dw->cur_tail)
		return dw->err = push_end(dw);
	return 0;
}

int sqk_data_piece(struct sqk_data_writer *dw, uint8_t **buf, uint32_t *len, uint64_t *off)
{
	struct slot *s;
	uint64_t o = (uint64_t)dw->piece * dw->bs;
	int err;

	if (dw->err)
		return dw->err;
	if (!dw->cur)
		return 1;
	*off = o;
	if (dw->piece < dw->cur_blocks) {
		err = reserve(dw, 1, &s);
		if (err)
			return dw->err = err;
		*buf = s->in;
		*len = dw->cur_size - o < dw->bs ? (uint32_t)(dw->cur_size - o) : dw->bs;
		return 0;
	}
	*buf = dw->tail_buf;
	*len = dw->cur_tail;
	return 0;
}

int sqk_data_piece_done(struct sqk_data_writer *dw, int hole)
{
	int err;

	if (dw->err)
		return dw->err;
	if (dw->piece < dw->cur_blocks) {
		/* The slot reserved by sqk_data_piece. */
		struct slot *s = &dw->ring[(dw->head + dw->count) % dw->cap];
		uint64_t o = (uint64_t)dw->piece * dw->bs;

		s->kind = K_BLOCK;
		s->hole = hole;
		s->len = dw->cur_size - o < dw->bs ? (uint32_t)(dw->cur_size - o) : dw->bs;
		s->fd = dw->cur;
		s->block_no = dw->piece;
		err = push(dw, s);
	} else {
		err = handle_tail(dw, hole);
	}
	if (err)
		return dw->err = err;
	dw->piece++;
	if (dw->piece == dw->cur_blocks + (dw->cur_tail ? 1 : 0))
		err = push_end(dw);
	return dw->err = err;
}

int sqk_data_finish(struct sqk_data_writer *dw, uint64_t *end)
{
	int err = dw->err;

	if (!err)
		err = close_frag(dw);
	while (!err && dw->count)
		err = consume_one(dw);
	if (!err)
		err = out_flush(dw);
	if (err) {
		/* Let the workers finish with the buffers before they are freed. */
		sqk_pool_wait(dw->pool);
		return dw->err = err;
	}
	*end = out_pos(dw);
	return 0;
}

const uint8_t *sqk_data_fragments(struct sqk_data_writer *dw, uint32_t *count)
{
	*count = dw->frag_idx;
	return dw->frag_table;
}

struct sqk_data_stats *sqk_data_stats(struct sqk_data_writer *dw)
{
	return &dw->st;
}

uint64_t sqk_data_progress(const struct sqk_data_writer *dw)
{
	return dw->progress;
}

int sqk_data_writer_create(const struct sqk_data_opts *o, struct sqk_compressor **comps,
			   struct sqk_compressor *main, struct sqk_file *out, uint64_t pos,
			   struct sqk_data_writer **res)
{
	struct sqk_data_writer *dw = calloc(1, sizeof(*dw));
	unsigned threads = o->threads ? o->threads : 1, i;

	if (!dw)
		return SQK_ERR_NOMEM;
	dw->o = *o;
	dw->bs = o->block_size;
	dw->comps = comps;
	dw->main = main;
	dw->out = out;
	dw->obuf_start = pos;
	dw->rb_idx = SQFS_INVALID_FRAG;
	/*
	 * Enough blocks in flight to keep every worker busy while the main
	 * thread reads and writes; memory is these buffers, whatever the data.
	 */
	dw->nbufs = 3 * threads + 4;
	dw->cap = 4096;
	pthread_mutex_init(&dw->lock, NULL);
	pthread_cond_init(&dw->cond, NULL);
	dw->ring = calloc(dw->cap, sizeof(*dw->ring));
	dw->free_bufs = calloc(2 * (size_t)dw->nbufs, sizeof(*dw->free_bufs));
	if (dw->free_bufs) {
		for (i = 0; i < 2 * dw->nbufs; i++) {
			dw->free_bufs[i] = malloc(dw->bs);
			if (!dw->free_bufs[i])
				break;
		}
		dw->nfree = i / 2;
	}
	dw->obuf = malloc(OBUF_SIZE);
	dw->tail_buf = malloc(dw->bs);
	dw->frag_buf = malloc(dw->bs);
	dw->rb_buf = malloc(dw->bs);
	dw->rb_tmp = malloc(dw->bs);
	dw->cmp_a = malloc(dw->bs);
	dw->cmp_b = malloc(dw->bs);
	dw->pool = sqk_pool_create(threads, dw->nbufs + 2);
	if (!dw->ring || dw->nfree != dw->nbufs || !dw->obuf || !dw->tail_buf || !dw->frag_buf ||
	    !dw->rb_buf || !dw->rb_tmp || !dw->cmp_a || !dw->cmp_b || !dw->pool) {
		sqk_data_writer_destroy(dw);
		return SQK_ERR_NOMEM;
	}
	*res = dw;
	return 0;
}

void sqk_data_writer_destroy(struct sqk_data_writer *dw)
{
	unsigned i;

	if (!dw)
		return;
	sqk_pool_destroy(dw->pool);
	/* Buffers are either free or held by a slot (consumed slots hold none). */
	for (i = 0; dw->free_bufs && i < 2 * dw->nfree; i++)
		free(dw->free_bufs[i]);
	for (i = 0; dw->ring && i < dw->cap; i++) {
		free(dw->ring[i].in);
		free(dw->ring[i].out);
	}
	free(dw->free_bufs);
	pthread_mutex_destroy(&dw->lock);
	pthread_cond_destroy(&dw->cond);
	free(dw->ring);
	free(dw->obuf);
	free(dw->tail_buf);
	free(dw->frag_buf);
	free(dw->rb_buf);
	free(dw->rb_tmp);
	free(dw->cmp_a);
	free(dw->cmp_b);
	free(dw->frag_table);
	free(dw->tails);
	free(dw->tail_slots);
	free(dw->files);
	for (size_t k = 0; k < dw->nowned; k++)
		free(dw->owned[k]);
	free(dw->owned);
	free(dw);
}
