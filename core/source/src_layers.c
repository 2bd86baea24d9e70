// SPDX-License-Identifier: BSD-2-Clause
/*
 * Layers applied in order (layers.h): the first pass reads every layer
 * through libarchive and makes the tree (layer_apply.c), feeding the top
 * layer's data as it goes; the second reads again the lower layers whose
 * data the finished tree still names, and feeds that data alone.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "layers_int.h"
#include "src_archive.h"
#include "util/array.h"
#include "util/error.h"
#include "util/extsort.h"
#include "util/signals.h"
#include "util/spill.h"

/* The share of the budget the files waiting for the second pass are sorted in. */
#define WANT_SHARE 2

/* libarchive's view of a layer: its bytes through the layer's ops. */
struct reader {
	const struct sqk_layer *l;
	struct sqk_src_ctx *c;
	struct archive *a;
	uint64_t bytes;
	int failed; /* the layer's own error, said in c */
};

static la_ssize_t read_cb(struct archive *a, void *ctx, const void **buf)
{
	struct reader *r = ctx;
	ssize_t n = r->l->ops->read(r->l->ctx, r->c, buf);

	if (n < 0) {
		r->failed = (int)n;
		archive_set_error(a, EIO, "the layer could not be read");
		return -1;
	}
	r->bytes += (uint64_t)n;
	return n;
}

static int say(struct reader *r, int err, const char *what)
{
	errno = 0;
	sqk_src_fail(r->c, r->l->name, "%s", what);
	return err;
}

/*
 * A failure of libarchive's: the layer's own error when a read failed;
 * bytes that are not the layer's (its digest) when they are not, whatever
 * libarchive made of them; else what it says.
 */
static int archive_failed(struct reader *r, int first)
{
	int any = r->l->filter == SQK_LAYER_ANY, err;

	if (r->failed)
		return r->failed;
	err = r->l->ops->finish(r->l->ctx, r->c);
	if (err)
		return err;
	if (first && r->bytes == 0)
		return say(r, SQK_ERR_ARCHIVE,
			   any ? "empty input, not an archive" : "empty, not a tar archive");
	if (first && archive_format(r->a) == 0)
		return say(r, SQK_ERR_ARCHIVE,
			   any ? "not a tar, cpio or zip archive" : "not a tar archive");
	return sqk_src_archive_fail(r->c, r->a, r->l->name);
}

static void reader_close(struct reader *r)
{
	archive_read_free(r->a);
	r->a = NULL;
	r->l->ops->close(r->l->ctx);
}

static int reader_open(struct reader *r, const struct sqk_layer *l, struct sqk_src_ctx *c,
		       int again)
{
	int err;

	*r = (struct reader){l, c, archive_read_new(), 0, 0};
	if (!r->a)
		return SQK_ERR_NOMEM;
	if (l->filter == SQK_LAYER_ANY) {
		sqk_src_archive_formats(r->a);
	} else {
		archive_read_support_format_tar(r->a);
		if (l->filter == SQK_LAYER_GZIP)
			archive_read_support_filter_gzip(r->a);
		if (l->filter == SQK_LAYER_ZSTD)
			archive_read_support_filter_zstd(r->a);
	}
	err = l->ops->open(l->ctx, c, again);
	if (err) {
		archive_read_free(r->a);
		r->a = NULL;
		return err;
	}
	if (archive_read_open(r->a, r, NULL, read_cb, NULL) != ARCHIVE_OK) {
		err = archive_failed(r, 1);
		reader_close(r);
	}
	return err;
}

/* The compression found is the one the layer's media type names. */
static int check_filter(struct reader *r)
{
	static const char *const words[] = {"", "uncompressed", "gzip-compressed",
					    "zstd-compressed"};
	int want, got = archive_filter_code(r->a, 0);
	char why[128];

	switch (r->l->filter) {
	case SQK_LAYER_TAR:
		want = ARCHIVE_FILTER_NONE;
		break;
	case SQK_LAYER_GZIP:
		want = ARCHIVE_FILTER_GZIP;
		break;
	case SQK_LAYER_ZSTD:
		want = ARCHIVE_FILTER_ZSTD;
		break;
	default:
		return 0;
	}
	if (got == want)
		return 0;
	snprintf(why, sizeof(why), "not %s, as its media type says", words[r->l->filter]);
	return say(r, SQK_ERR_ARCHIVE, why);
}

/* The next header: 1 and *e, 0 at the archive's end, or the error. */
static int next(struct reader *r, struct archive_entry **e, uint64_t ordinal)
{
	int rc = archive_read_next_header(r->a, e);

	/* A failed read libarchive let pass (reading ahead past a stream's end) still fails. */
	if (r->failed)
		return r->failed;
	if (rc == ARCHIVE_EOF)
		return 0;
	if (rc < ARCHIVE_WARN)
		return archive_failed(r, ordinal == 0);
	if (ordinal == 0 && (rc = check_filter(r)))
		return rc;
	/* Written in place on a device, a build stops at a signal (util/signals.h). */
	if (sqk_sig_caught())
		return SQK_ERR_INTR;
	return 1;
}

/* The first pass over layer i: its entries into the tree. */
static int apply(struct sqk_layer_state *st, const struct sqk_layer *l, uint32_t i, int top)
{
	struct archive_entry *e;
	struct reader r;
	uint64_t ordinal = 0;
	int err = reader_open(&r, l, st->c, !top), rc;

	if (err)
		return err;
	st->layer = i;
	st->name = l->name;
	st->feed_now = top;
	st->a = r.a;
	while ((rc = next(&r, &e, ordinal)) == 1) {
		st->ordinal = ordinal++;
		err = sqk_layer_entry(st, e);
		if (err)
			break;
	}
	if (!err)
		err = rc;
	if (!err)
		err = sqk_layer_end(st);
	if (!err)
		err = l->ops->finish(l->ctx, st->c);
	reader_close(&r);
	return err;
}

/*
 * The pending files the finished tree names, by layer and place, each
 * once: an external sort of the build's budget, read back a record ahead.
 */
struct wanted {
	struct sqk_layer_state *st;
	struct sqk_sorter sorter;
	uint8_t last[20]; /* the key given last: a file of several links is found for each */
	int have;	  /* p is the next pending file */
	struct sqk_layer_pending p;
};

static void be(uint8_t *b, uint64_t v, unsigned n)
{
	while (n--) {
		b[n] = (uint8_t)v;
		v >>= 8;
	}
}

static int collect(struct wanted *w)
{
	struct sqk_layer_state *st = w->st;
	struct sqk_tree_walk *tw = NULL;
	struct sqk_tree_item it;
	int err = sqk_tree_walk_start(st->t, &tw);

	while (!err && !(err = sqk_tree_walk_next(tw, &it))) {
		struct sqk_layer_pending p;
		struct sqk_node c;
		uint8_t key[20];
		uint64_t i;

		err = sqk_store_hash_get(&st->by_node, it.node, &i);
		if (err <= 0)
			continue; /* not pending (a directory never is), or the error */
		err = sqk_store_get(st->pending, i - 1, &p, sizeof(p));
		if (!err && p.layer)
			err = sqk_tree_get(st->t, it.node, &c);
		if (err || !p.layer || (c.flags & SQK_NODE_DATA_DONE))
			continue;
		be(key, p.layer, 4);
		be(key + 4, p.ordinal, 8);
		be(key + 12, --i, 8);
		err = sqk_sorter_add(&w->sorter, key, sizeof(key), &i, sizeof(i));
	}
	sqk_tree_walk_end(tw);
	if (err == 1)
		err = sqk_sorter_done(&w->sorter);
	return err;
}

/* The next pending file into w->p (w->have), each once. */
static int want_next(struct wanted *w)
{
	struct sqk_rec rec;
	uint64_t i;
	int err;

	w->have = 0;
	do {
		err = sqk_sorter_next(&w->sorter, &rec);
		if (err)
			return err == 1 ? 0 : err;
	} while (rec.klen == sizeof(w->last) && !memcmp(rec.key, w->last, sizeof(w->last)));
	if (rec.klen != sizeof(w->last) || rec.vlen != sizeof(i))
		return SQK_ERR_CORRUPT;
	memcpy(w->last, rec.key, sizeof(w->last));
	memcpy(&i, rec.val, sizeof(i));
	err = sqk_store_get(w->st->pending, i, &w->p, sizeof(w->p));
	w->have = !err;
	return err;
}

/* The second pass over layer l: the data of its pending files, from w->p on, in order. */
static int feed(struct sqk_src_ctx *c, const struct sqk_layer *l, struct wanted *w)
{
	char name[SQK_NAME_MAX + 1];
	struct archive_entry *e;
	struct sqk_node fed;
	struct reader r;
	uint32_t layer = w->p.layer;
	uint64_t ordinal = 0;
	int err = reader_open(&r, l, c, 0), rc = 1;

	if (err)
		return err;
	while (w->have && w->p.layer == layer && (rc = next(&r, &e, ordinal)) == 1) {
		struct sqk_layer_pending p = w->p;

		if (ordinal++ != p.ordinal)
			continue;
		if (sqk_layer_check(e) != p.check) {
			err = say(&r, SQK_ERR_ARCHIVE, "changed since it was first read");
			break;
		}
		err = p.len > SQK_NAME_MAX ? SQK_ERR_CORRUPT
					   : sqk_tree_str_get(c->tree, p.name, p.len, name);
		if (!err)
			err = sqk_tree_get(c->tree, p.node, &fed);
		if (!err)
			err = sqk_src_archive_feed(c, r.a, e, p.node, &fed, archive_entry_pathname(e),
						   p.parent, name, p.len);
		if (!err)
			err = want_next(w);
		/* Copies of the file (--no-hardlinks) share what was placed. */
		while (!err && w->have && w->p.layer == layer && w->p.ordinal == p.ordinal) {
			struct sqk_node copy;

			err = sqk_tree_get(c->tree, w->p.node, &copy);
			if (err)
				break;
			copy.file.data = fed.file.data;
			copy.file.srclen = 0;
			copy.size = fed.size;
			copy.flags |= SQK_NODE_DATA_DONE;
			err = sqk_tree_put(c->tree, w->p.node, &copy);
			if (!err)
				err = want_next(w);
		}
		if (err)
			break;
	}
	if (!err && rc == 0)
		err = say(&r, SQK_ERR_ARCHIVE, "changed since it was first read: it ends earlier");
	if (!err && rc < 0)
		err = rc;
	/* The rest is only checked: its digest covers every byte. */
	if (!err)
		err = l->ops->finish(l->ctx, c);
	reader_close(&r);
	return err;
}

int sqk_src_layers(struct sqk_src_ctx *c, const struct sqk_layer *layers, size_t n,
		   enum sqk_layers_mode mode)
{
	struct sqk_layer_state st = {.c = c, .t = c->tree, .mode = mode};
	struct wanted w = {.st = &st};
	size_t i;
	int err = 0;

	sqk_store_hash_init(&st.by_node, c->spill);
	sqk_sorter_init(&w.sorter, c->spill,
			sqk_spill_share(c->spill, WANT_SHARE, c->spill->tiny ? 64 : 1 << 20));
	for (i = 0; i < n && !err; i++)
		err = apply(&st, &layers[i], (uint32_t)i + 1, i + 1 == n);
	if (!err && st.npending)
		err = collect(&w);
	if (!err && st.npending)
		err = want_next(&w);
	while (!err && w.have)
		err = feed(c, &layers[w.p.layer - 1], &w);
	sqk_sorter_release(&w.sorter);
	sqk_layer_state_release(&st);
	return err;
}
