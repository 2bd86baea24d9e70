// SPDX-License-Identifier: BSD-2-Clause
/* The spool (spool.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "spool.h"

#define WINDOW (64u << 10)

void sqk_spool_init(struct sqk_spool *s, struct sqk_spill *sp, uint64_t limit)
{
	memset(s, 0, sizeof(*s));
	s->sp = sp;
	s->limit = limit ? limit : 1;
}

void sqk_spool_release(struct sqk_spool *s)
{
	free(s->mem);
	free(s->win);
	sqk_tmp_destroy(s->tmp);
	memset(s, 0, sizeof(*s));
}

/* The bytes in memory go to the temporary. */
static int flush(struct sqk_spool *s)
{
	size_t n = (size_t)(s->size - s->flushed);
	int err;

	if (!n)
		return 0;
	if (!s->tmp && (err = sqk_tmp_create(s->sp, &s->tmp)))
		return err;
	err = sqk_tmp_write(s->tmp, s->flushed, s->mem, n);
	if (err)
		return err;
	s->flushed = s->size;
	return 0;
}

int sqk_spool_write(struct sqk_spool *s, const void *buf, size_t len)
{
	size_t have = (size_t)(s->size - s->flushed);
	int err;

	if (have + len > s->limit) {
		err = flush(s);
		if (err)
			return err;
		have = 0;
		if (len > s->limit) {
			/* Too large to keep: straight through. */
			if (!s->tmp && (err = sqk_tmp_create(s->sp, &s->tmp)))
				return err;
			err = sqk_tmp_write(s->tmp, s->size, buf, len);
			if (err)
				return err;
			s->size += len;
			s->flushed = s->size;
			return 0;
		}
	}
	if (SQK_ARRAY_GROW(s->mem, s->cap, have + len))
		return SQK_ERR_NOMEM;
	memcpy(s->mem + have, buf, len);
	s->size += len;
	return 0;
}

/* Bytes of the temporary, through the window. */
static int read_tmp(struct sqk_spool *s, uint64_t off, uint8_t *buf, size_t len)
{
	while (len) {
		size_t n;
		int err;

		if (off < s->win_off || off >= s->win_off + s->win_len) {
			if (!s->win && !(s->win = malloc(WINDOW)))
				return SQK_ERR_NOMEM;
			s->win_off = off;
			s->win_len =
				s->flushed - off < WINDOW ? (size_t)(s->flushed - off) : WINDOW;
			err = sqk_tmp_read(s->tmp, off, s->win, s->win_len);
			if (err) {
				s->win_len = 0;
				return err;
			}
		}
		n = (size_t)(s->win_off + s->win_len - off);
		if (n > len)
			n = len;
		memcpy(buf, s->win + (off - s->win_off), n);
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

int sqk_spool_read(struct sqk_spool *s, uint64_t off, void *buf, size_t len)
{
	uint8_t *b = buf;

	if (off + len > s->size || off + len < off)
		return SQK_ERR_CORRUPT;
	if (off < s->flushed) {
		size_t n = s->flushed - off < len ? (size_t)(s->flushed - off) : len;
		int err = read_tmp(s, off, b, n);

		if (err)
			return err;
		b += n;
		off += n;
		len -= n;
	}
	if (len)
		memcpy(b, s->mem + (off - s->flushed), len);
	return 0;
}

void sqk_spool_truncate(struct sqk_spool *s, uint64_t size)
{
	if (size >= s->size)
		return;
	if (size < s->flushed) {
		/* Cut into the temporary: what memory held goes, the file's tail is written over.
		 */
		s->flushed = size;
		if (s->win_off + s->win_len > size)
			s->win_len = s->win_off < size ? (size_t)(size - s->win_off) : 0;
	}
	s->size = size;
}

int sqk_spool_clear(struct sqk_spool *s)
{
	int err = s->tmp && s->flushed ? sqk_tmp_clear(s->tmp) : 0;

	s->size = s->flushed = 0;
	s->win_len = 0;
	return err;
}
