// SPDX-License-Identifier: BSD-2-Clause
/*
 * A remote image as a file (see remote.h). Reads go through a block cache
 * of the file's own (core/cache/), so that threads missing one block share
 * its one fetch; a fill fetches the run of blocks its read still needs (and
 * the window ahead of a sequential reader) in one request, the blocks after
 * its own claimed in the cache first, so that nobody fetches them again.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache/cache.h"
#include "remote.h"
#include "remote_disk.h"
#include "remote_http.h"
#include "util/error.h"
#include "util/file.h"

#define BLOCK SQK_REMOTE_BLOCK
/*
 * Blocks of the cache (64 MiB, taken as they are used), and the most one
 * request fetches (2 MiB). Blocks are small: a read of an image's block
 * (a few KiB of metadata, a compressed data block) fetches little more.
 */
#define CACHED_BLOCKS 16384
#define MAX_RUN	      512
/* Readers followed for readahead, and the window's first and largest size in blocks. */
#define STREAMS	 8
#define RA_FIRST 4
#define RA_MAX	 MAX_RUN

struct remote {
	struct sqk_file f;
	struct sqk_http h;
	struct sqk_cache *cache;
	struct sqk_remote_disk *disk;
	struct sqk_file *local; /* --download: the whole image, fetched at open */
	uint64_t size, blocks;
	pthread_mutex_t ra_lock;
	struct {
		uint64_t next;
		unsigned window, run; /* run: reads in a row that started where the last ended */
	} stream[STREAMS];
	unsigned stream_next;
	uint64_t fetched, disk_hits;
};

/* One read: how far its fills may fetch. */
struct read_ctx {
	struct remote *r;
	uint64_t last;	      /* the last block the read wants */
	unsigned ahead;	      /* blocks to fetch past a miss of a sequential reader */
	const uint8_t *first; /* the probe's bytes of block 0, at open */
	int errnum;
};

static size_t block_len(const struct remote *r, uint64_t n)
{
	uint64_t off = n * BLOCK;

	return r->size - off < BLOCK ? (size_t)(r->size - off) : BLOCK;
}

static void set_errnum(struct remote *r, int e)
{
	__atomic_store_n(&r->f.errnum, e, __ATOMIC_RELAXED);
}

/*
 * Fetch e's block and the blocks after it up to last in one request: the
 * others are claimed in the cache first (up to the first one cached, being
 * fetched, or for which no entry is free), so that readers wanting them
 * wait for this fetch instead of making their own.
 */
static int fetch_run(struct read_ctx *c, struct sqk_cache_entry *e, uint64_t last)
{
	struct remote *r = c->r;
	struct sqk_cache_entry *more[MAX_RUN];
	uint64_t n = e->block, off = n * BLOCK, end, k;
	unsigned i, got = 0;
	uint8_t *buf;
	size_t len;
	int err;

	for (k = n + 1; k <= last && sqk_cache_reserve(r->cache, k, 0, &more[got]) == 0; k++)
		got++;
	last = n + got;
	end = (last + 1) * BLOCK < r->size ? (last + 1) * BLOCK : r->size;
	len = (size_t)(end - off);
	buf = got ? malloc(len) : e->data;
	err = buf ? sqk_http_get(&r->h, off, buf, len, &c->errnum) : SQK_ERR_NOMEM;
	if (err == SQK_ERR_IO)
		set_errnum(r, c->errnum);
	if (!err) {
		__atomic_add_fetch(&r->fetched, got + 1, __ATOMIC_RELAXED);
		for (k = n; r->disk && k <= last; k++)
			sqk_remote_disk_put(r->disk, k, buf + (k - n) * BLOCK, block_len(r, k));
		if (got)
			memcpy(e->data, buf, e->length);
	}
	for (i = 0; i < got; i++) {
		if (!err) {
			more[i]->length = block_len(r, n + 1 + i);
			memcpy(more[i]->data, buf + (size_t)(i + 1) * BLOCK, more[i]->length);
		}
		sqk_cache_publish(more[i], err);
	}
	if (got)
		free(buf);
	return err;
}

static int fill_block(void *arg, struct sqk_cache_entry *e)
{
	struct read_ctx *c = arg;
	struct remote *r = c->r;
	uint64_t n = e->block, last = c->last;

	e->length = block_len(r, n);
	if (c->first && n == 0) {
		memcpy(e->data, c->first, e->length);
		return 0;
	}
	if (r->disk && sqk_remote_disk_get(r->disk, n, e->data, e->length) == 0) {
		__atomic_add_fetch(&r->disk_hits, 1, __ATOMIC_RELAXED);
		return 0;
	}
	/* The rest of the read and the window ahead, in one request. */
	if (c->ahead && last < n + c->ahead)
		last = n + c->ahead;
	if (last < n)
		last = n;
	if (last - n >= MAX_RUN)
		last = n + MAX_RUN - 1;
	if (last >= r->blocks)
		last = r->blocks - 1;
	return fetch_run(c, e, last);
}

/*
 * How many blocks to fetch ahead of a read at off..off+len: none for a
 * read that starts nowhere an earlier one ended, a window doubling as a
 * reader goes on (the blocks of a file read in order, a table read
 * through).
 */
static unsigned ahead_of(struct remote *r, uint64_t off, size_t len)
{
	unsigned i, w = 0, run = 0;

	pthread_mutex_lock(&r->ra_lock);
	for (i = 0; i < STREAMS; i++)
		if (r->stream[i].next && off == r->stream[i].next)
			break;
	if (i < STREAMS) {
		run = r->stream[i].run + 1;
		/*
		 * From the third read in a row: a table's metadata blocks read
		 * across a boundary are two, a file read in order many more.
		 */
		if (run >= 2)
			w = r->stream[i].window ? 2 * r->stream[i].window : RA_FIRST;
		if (w > RA_MAX)
			w = RA_MAX;
	} else {
		i = r->stream_next++ % STREAMS;
	}
	r->stream[i].next = off + len;
	r->stream[i].window = w;
	r->stream[i].run = run;
	pthread_mutex_unlock(&r->ra_lock);
	return w;
}

/* Copy what block n holds of off..off+len into buf; the cache fills it if it must. */
static int read_block(struct read_ctx *c, uint64_t n, uint64_t off, uint8_t *buf, size_t len)
{
	struct sqk_cache_entry *e;
	uint64_t start = n * BLOCK, from = off > start ? off - start : 0;
	uint64_t to = off + len - start;
	int err = sqk_cache_get(c->r->cache, n, 0, fill_block, c, &e);

	if (err) {
		if (err == SQK_ERR_IO && !c->errnum)
			c->errnum = __atomic_load_n(&c->r->f.errnum, __ATOMIC_RELAXED);
		return err;
	}
	if (buf) {
		if (to > e->length)
			to = e->length;
		memcpy(buf + (start + from - off), e->data + from, (size_t)(to - from));
	}
	sqk_cache_put(e);
	return 0;
}

static int remote_read_at(struct sqk_file *f, uint64_t off, void *buf, size_t len)
{
	struct remote *r = (struct remote *)f;
	struct read_ctx c = {.r = r};
	uint64_t n, first, last;
	int err = 0;

	if (off > r->size || len > r->size - off)
		return SQK_ERR_TRUNCATED;
	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&f->bytes_read, len, __ATOMIC_RELAXED);
	if (r->local)
		return r->local->read_at(r->local, off, buf, len);
	if (!len)
		return 0;
	first = off / BLOCK;
	last = (off + len - 1) / BLOCK;
	c.last = last;
	c.ahead = ahead_of(r, off, len);
	for (n = first; n <= last && !err; n++)
		err = read_block(&c, n, off, buf, len);
	/* The window ahead of a sequential reader whose blocks so far were all there. */
	for (n = last + 1; !err && c.ahead && n <= last + c.ahead && n < r->blocks; n++)
		if (!sqk_cache_contains(r->cache, n, 0)) {
			read_block(&c, n, 0, NULL, 0);
			break;
		}
	if (err == SQK_ERR_IO && c.errnum)
		set_errnum(r, c.errnum);
	return err;
}

static int remote_write_at(struct sqk_file *f, uint64_t off, const void *buf, size_t len)
{
	return SQK_ERR_UNSUPPORTED;
}

static uint64_t remote_size(struct sqk_file *f)
{
	return ((struct remote *)f)->size;
}

static int remote_sync(struct sqk_file *f)
{
	return 0;
}

static void remote_destroy(struct sqk_file *f)
{
	struct remote *r = (struct remote *)f;

	sqk_cache_destroy(r->cache);
	sqk_remote_disk_close(r->disk);
	sqk_file_destroy(r->local);
	sqk_http_release(&r->h);
	pthread_mutex_destroy(&r->ra_lock);
	free(r);
}

int sqk_remote_is_url(const char *s)
{
	return s && (strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0);
}

/* The whole image into a temporary file (a server without range support, --download). */
static int download(struct remote *r, const struct sqk_remote_opts *o, int *errnum, char *why,
		    size_t len)
{
	const char *dir = o->cache_dir[0] ? o->cache_dir : getenv("TMPDIR");
	int fd, err;

	if (!dir || !*dir)
		dir = "/tmp";
	/* Unnamed: nothing is left behind, whatever ends the process. */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		*errnum = errno;
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return SQK_ERR_IO;
	}
	err = sqk_http_download(&r->h, fd, errnum, why, len);
	if (!err) {
		r->local = sqk_file_fdopen(fd, 1);
		if (r->local)
			return 0;
		err = SQK_ERR_NOMEM;
	}
	close(fd);
	return err;
}

/* The identity the on-disk cache names blocks by: the URL without its query, the validator, the
 * size. */
static void identity(const struct remote *r, char *out, size_t len)
{
	size_t n = strcspn(r->h.url, "?#");

	snprintf(out, len, "%.*s\n%s\n%s\n%llu", (int)n, r->h.url, r->h.etag, r->h.lastmod,
		 (unsigned long long)r->size);
}

/* The first block, fetched by the probe, into the cache. */
static int keep_first(struct remote *r, uint8_t *buf, size_t got)
{
	struct read_ctx c = {.r = r, .first = buf};

	if (got != block_len(r, 0))
		return SQK_ERR_IO;
	r->fetched = 1;
	if (r->disk)
		sqk_remote_disk_put(r->disk, 0, buf, got);
	return read_block(&c, 0, 0, NULL, 0);
}

int sqk_remote_open(const char *url, const struct sqk_remote_opts *o, struct sqk_file **out,
		    int *errnum, char *why, size_t len)
{
	struct remote *r = calloc(1, sizeof(*r));
	uint8_t *first = malloc(BLOCK);
	char id[8192];
	size_t got = 0;
	int err;

	*errnum = 0;
	why[0] = '\0';
	if (!r || !first) {
		free(r);
		free(first);
		return SQK_ERR_NOMEM;
	}
	pthread_mutex_init(&r->ra_lock, NULL);
	r->f.read_at = remote_read_at;
	r->f.write_at = remote_write_at;
	r->f.size = remote_size;
	r->f.sync = remote_sync;
	r->f.destroy = remote_destroy;
	err = sqk_http_init(&r->h, url, o);
	if (!err)
		err = sqk_http_probe(&r->h, first, BLOCK, &got, errnum, why, len);
	if (err == SQK_ERR_UNSUPPORTED && o->download)
		err = download(r, o, errnum, why, len);
	else if (err == SQK_ERR_UNSUPPORTED)
		snprintf(why + strlen(why), len - strlen(why), "; --download fetches it whole");
	if (err)
		goto fail;
	if (r->local) {
		r->size = r->h.size;
		free(first);
		*out = &r->f;
		return 0;
	}
	r->size = r->h.size;
	r->blocks = (r->size + BLOCK - 1) / BLOCK;
	/* Blocks on disk only for an image with a validator: else a change would go unseen. */
	if (o->cache_dir[0] && (r->h.etag[0] || r->h.lastmod[0])) {
		identity(r, id, sizeof(id));
		r->disk = sqk_remote_disk_open(o->cache_dir, o->cache_max, id);
	}
	r->cache = sqk_cache_create("remote", CACHED_BLOCKS, BLOCK, o->policy, SQK_LOOKUP_HASH);
	err = r->cache ? keep_first(r, first, got) : SQK_ERR_NOMEM;
	if (err)
		goto fail;
	free(first);
	*out = &r->f;
	return 0;
fail:
	free(first);
	remote_destroy(&r->f);
	return err;
}

int sqk_remote_is(const struct sqk_file *f)
{
	return f && f->destroy == remote_destroy;
}

void sqk_remote_stats(struct sqk_file *f, struct sqk_remote_stats *s)
{
	struct remote *r = (struct remote *)f;
	struct sqk_cache_stats cs = {0};

	memset(s, 0, sizeof(*s));
	if (!sqk_remote_is(f))
		return;
	if (r->cache)
		sqk_cache_stats(r->cache, &cs);
	s->requests = __atomic_load_n(&r->h.requests, __ATOMIC_RELAXED);
	s->bytes_fetched = __atomic_load_n(&r->h.bytes, __ATOMIC_RELAXED);
	s->retries = __atomic_load_n(&r->h.retried, __ATOMIC_RELAXED);
	s->blocks = __atomic_load_n(&r->fetched, __ATOMIC_RELAXED);
	s->disk_hits = __atomic_load_n(&r->disk_hits, __ATOMIC_RELAXED);
	s->shared = cs.shares;
	s->distinct = cs.distinct;
}
