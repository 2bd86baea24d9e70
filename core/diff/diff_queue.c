// SPDX-License-Identifier: BSD-2-Clause
/*
 * The order of the changes. The walk goes on while the contents of files
 * are compared on the pool, so a change can be found before the outcome
 * of a file that comes earlier in the tree. Such changes wait in a queue,
 * behind a place held for each file being compared, and go to the sink
 * when everything before them is known. The queue is bounded: past its
 * bounds the walk waits for the oldest file.
 */
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "format/format.h"
#include "util/error.h"

/* Files being compared at once, and changes held back, at most. */
#define MAX_JOBS  256
#define MAX_ITEMS 4096

struct diff_item {
	struct diff_item *next;
	struct sqk_diff_change c;
	struct diff_job *job; /* a place held for a file: c is its CONTENTS change */
	char buf[];	      /* the strings c points to */
};

/* Count the change, then hand it to the sink. */
static int deliver(struct diff *d, const struct sqk_diff_change *c)
{
	struct sqk_diff_stats *st = d->st;
	int r;

	switch (c->what) {
	case SQK_DIFF_SUPER:
		break;
	case SQK_DIFF_ADDED:
		st->added++;
		st->bytes_added += c->size;
		break;
	case SQK_DIFF_REMOVED:
		st->removed++;
		st->bytes_removed += c->size;
		break;
	default:
		/* An entry's changes come together: count it at its first. */
		if (!d->last || strcmp(d->last, c->path) != 0) {
			size_t len = strlen(c->path) + 1;
			char *p = d->last;

			if (len > d->last_cap) {
				p = realloc(d->last, len);
				if (!p)
					return sqk_diff_fail(d, -1, SQK_ERR_NOMEM);
				d->last = p;
				d->last_cap = len;
			}
			memcpy(p, c->path, len);
			st->changed++;
		}
		if (c->what == SQK_DIFF_SIZE)
			st->bytes_changed += c->b;
		else if (c->what == SQK_DIFF_CONTENTS)
			st->bytes_changed += c->size;
	}
	r = d->sink->change(d->sink, c);
	if (r < 0)
		return sqk_diff_fail(d, -1, r);
	return r;
}

static size_t str_room(const char *s, size_t len)
{
	return s ? len + 1 : 0;
}

static char *str_copy(char **at, const char *s, size_t len)
{
	char *p = *at;

	if (!s)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	*at += len + 1;
	return p;
}

static struct diff_item *item_new(const struct sqk_diff_change *c)
{
	size_t plen = c->path ? strlen(c->path) : 0, nlen = c->name ? strlen(c->name) : 0;
	struct diff_item *it;
	char *at;

	it = malloc(sizeof(*it) + str_room(c->path, plen) + str_room(c->name, nlen) +
		    str_room(c->sa, c->la) + str_room(c->sb, c->lb));
	if (!it)
		return NULL;
	it->next = NULL;
	it->job = NULL;
	it->c = *c;
	at = it->buf;
	it->c.path = str_copy(&at, c->path, plen);
	it->c.name = str_copy(&at, c->name, nlen);
	it->c.sa = str_copy(&at, c->sa, c->la);
	it->c.sb = str_copy(&at, c->sb, c->lb);
	return it;
}

static void append(struct diff *d, struct diff_item *it)
{
	if (d->tail)
		d->tail->next = it;
	else
		d->head = it;
	d->tail = it;
	d->items++;
	if (it->job)
		d->jobs++;
}

static void pop(struct diff *d)
{
	struct diff_item *it = d->head;

	d->head = it->next;
	if (!d->head)
		d->tail = NULL;
	d->items--;
	if (it->job) {
		d->jobs--;
		sqk_diff_job_free(it->job);
	}
	free(it);
}

int sqk_diff_emit(struct diff *d, const struct sqk_diff_change *c)
{
	struct diff_item *it;

	if (!d->head)
		return deliver(d, c);
	it = item_new(c);
	if (!it)
		return sqk_diff_fail(d, -1, SQK_ERR_NOMEM);
	append(d, it);
	return 0;
}

int sqk_diff_emit_job(struct diff *d, struct diff_job *job, uint64_t size)
{
	struct sqk_diff_change c;
	struct diff_item *it;

	memset(&c, 0, sizeof(c));
	c.what = SQK_DIFF_CONTENTS;
	c.path = diff_path(d);
	c.type = SQK_FILE;
	c.size = size;
	it = item_new(&c);
	if (!it) {
		sqk_diff_job_free(job);
		return sqk_diff_fail(d, -1, SQK_ERR_NOMEM);
	}
	it->job = job;
	append(d, it);
	return 0;
}

/* The head, if it is ready (or once it is, with wait): delivered. 2: not ready. */
static int head_out(struct diff *d, int wait)
{
	struct diff_item *it = d->head;
	int r = 0, side;

	if (it->job) {
		r = sqk_diff_job_done(d, it->job, wait);
		if (r < 0)
			return sqk_diff_fail(d, -1, r);
		if (!r)
			return 2;
		r = sqk_diff_job_result(it->job, &it->c.offset, &side);
		if (r < 0) {
			/* The error belongs to the file's path, not to where the walk is. */
			char *saved = d->path;

			d->path = (char *)it->c.path;
			r = sqk_diff_fail(d, side, r);
			d->path = saved;
		} else if (r == 1) {
			r = deliver(d, &it->c);
		}
	} else {
		r = deliver(d, &it->c);
	}
	pop(d);
	return r;
}

int sqk_diff_drain(struct diff *d, int wait)
{
	int r;

	while (d->head) {
		int block =
			wait == 2 || (wait == 1 && (d->items > MAX_ITEMS || d->jobs > MAX_JOBS));

		r = head_out(d, block);
		if (r == 2)
			break; /* not ready, and no need to wait */
		if (r)
			return r;
	}
	return 0;
}

void sqk_diff_queue_release(struct diff *d)
{
	while (d->head)
		pop(d);
	free(d->last);
	d->last = NULL;
}
