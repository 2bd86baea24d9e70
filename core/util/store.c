// SPDX-License-Identifier: BSD-2-Clause
/*
 * The store's pages (store.h): a table from page number to the slot holding
 * it, the slots in a clock, and the temporary (spill.h) the pages the clock
 * passes over go to once the budget, or the store's own cap, is spent.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "store.h"

#define PAGE_SHIFT_MIN 4
#define PAGE_SHIFT_STD 12
#define PAGE_SHIFT_MAX 20

struct slot {
	uint64_t page;
	uint8_t *mem;
	uint8_t dirty, ref;
};

struct sqk_store {
	struct sqk_spill *sp;
	unsigned shift; /* pages of 1 << shift bytes */
	size_t page;
	size_t max_slots; /* the store's own cap, in pages (0: none) */
	uint32_t *where;  /* page -> slot + 1; 0: not in memory */
	size_t nwhere;
	struct slot *slot;
	size_t nslots, slotcap, hand;
	size_t last;	     /* the slot used last + 1, for runs of calls in one page */
	struct sqk_tmp *tmp; /* made when a page first goes out */
	uint64_t file_end;
	uint64_t size;
};

int sqk_store_create(struct sqk_spill *sp, size_t page, uint64_t cap, struct sqk_store **out)
{
	struct sqk_store *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return SQK_ERR_NOMEM;
	s->sp = sp;
	s->shift = page ? PAGE_SHIFT_MIN : PAGE_SHIFT_STD;
	while (s->shift < PAGE_SHIFT_MAX && ((size_t)1 << s->shift) < page)
		s->shift++;
	s->page = (size_t)1 << s->shift;
	s->max_slots = cap ? (size_t)(cap / s->page) : 0;
	if (cap && !s->max_slots)
		s->max_slots = 1;
	return 0;
}

void sqk_store_clear(struct sqk_store *s)
{
	size_t i;

	for (i = 0; i < s->nslots; i++)
		free(s->slot[i].mem);
	__atomic_sub_fetch(&s->sp->used, (uint64_t)s->nslots * s->page, __ATOMIC_RELAXED);
	free(s->slot);
	free(s->where);
	sqk_tmp_destroy(s->tmp);
	s->tmp = NULL;
	s->slot = NULL;
	s->where = NULL;
	s->nslots = s->slotcap = s->nwhere = s->hand = s->last = 0;
	s->file_end = s->size = 0;
}

void sqk_store_destroy(struct sqk_store *s)
{
	if (!s)
		return;
	sqk_store_clear(s);
	free(s);
}

uint64_t sqk_store_size(const struct sqk_store *s)
{
	return s->size;
}

uint64_t sqk_store_memory(const struct sqk_store *s)
{
	return (uint64_t)s->nslots * s->page;
}

struct sqk_spill *sqk_store_spill(const struct sqk_store *s)
{
	return s->sp;
}

static int write_back(struct sqk_store *s, struct slot *sl)
{
	uint64_t off = sl->page << s->shift;
	int err;

	if (!s->tmp && (err = sqk_tmp_create(s->sp, &s->tmp)) != 0)
		return err;
	err = sqk_tmp_write(s->tmp, off, sl->mem, s->page);
	if (err)
		return err;
	if (off + s->page > s->file_end)
		s->file_end = off + s->page;
	sl->dirty = 0;
	return 0;
}

/* May the store hold one more page? Always one; then within its cap and the budget. */
static int may_grow(const struct sqk_store *s)
{
	if (!s->nslots)
		return 1;
	if (s->max_slots && s->nslots >= s->max_slots)
		return 0;
	return __atomic_load_n(&s->sp->used, __ATOMIC_RELAXED) + s->page <= s->sp->budget;
}

/* A slot for a page not in memory: a new one while the budget lasts, else the clock's. */
static int free_slot(struct sqk_store *s, size_t *k)
{
	struct slot *sl;
	int err;

	if (may_grow(s)) {
		uint8_t *mem;

		if (SQK_ARRAY_GROW(s->slot, s->slotcap, s->nslots + 1))
			return SQK_ERR_NOMEM;
		mem = malloc(s->page);
		if (!mem)
			return SQK_ERR_NOMEM;
		s->slot[s->nslots] = (struct slot){UINT64_MAX, mem, 0, 0};
		*k = s->nslots++;
		__atomic_add_fetch(&s->sp->used, s->page, __ATOMIC_RELAXED);
		return 0;
	}
	for (;;) {
		sl = &s->slot[s->hand];
		if (!sl->ref)
			break;
		sl->ref = 0;
		s->hand = (s->hand + 1) % s->nslots;
	}
	*k = s->hand;
	s->hand = (s->hand + 1) % s->nslots;
	if (sl->page == UINT64_MAX)
		return 0;
	if (sl->dirty && (err = write_back(s, sl)) != 0)
		return err;
	s->where[sl->page] = 0;
	sl->page = UINT64_MAX;
	return 0;
}

static int load(struct sqk_store *s, uint64_t page, size_t *k)
{
	struct slot *sl;
	uint64_t off = page << s->shift;
	size_t had = s->nwhere;
	int err;

	if (page > SIZE_MAX / 2 || SQK_ARRAY_GROW(s->where, s->nwhere, (size_t)page + 1))
		return SQK_ERR_NOMEM;
	memset(s->where + had, 0, (s->nwhere - had) * sizeof(*s->where));
	err = free_slot(s, k);
	if (err)
		return err;
	sl = &s->slot[*k];
	if (s->tmp && off < s->file_end) {
		err = sqk_tmp_read(s->tmp, off, sl->mem, s->page);
		if (err) {
			/* The slot holds no page now: nothing of it may be written back. */
			s->slot[*k].page = UINT64_MAX;
			return err;
		}
	} else {
		memset(sl->mem, 0, s->page);
	}
	sl->page = page;
	sl->dirty = 0;
	s->where[page] = (uint32_t)*k + 1;
	return 0;
}

/* The memory of page, loaded if need be. */
static int page_mem(struct sqk_store *s, uint64_t page, int write, uint8_t **mem)
{
	size_t k;
	int err;

	if (s->last && s->slot[s->last - 1].page == page) {
		k = s->last - 1;
	} else if (page < s->nwhere && s->where[page]) {
		k = s->where[page] - 1;
	} else {
		err = load(s, page, &k);
		if (err)
			return err;
	}
	s->slot[k].ref = 1;
	if (write)
		s->slot[k].dirty = 1;
	s->last = k + 1;
	*mem = s->slot[k].mem;
	return 0;
}

static int access_bytes(struct sqk_store *s, uint64_t off, uint8_t *buf, size_t len, int write)
{
	while (len > 0) {
		size_t in = (size_t)(off & (s->page - 1)), n = s->page - in;
		uint8_t *mem;
		int err = page_mem(s, off >> s->shift, write, &mem);

		if (err)
			return err;
		if (n > len)
			n = len;
		if (write)
			memcpy(mem + in, buf, n);
		else
			memcpy(buf, mem + in, n);
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

int sqk_store_read(struct sqk_store *s, uint64_t off, void *buf, size_t len)
{
	return access_bytes(s, off, buf, len, 0);
}

int sqk_store_write(struct sqk_store *s, uint64_t off, const void *buf, size_t len)
{
	int err = access_bytes(s, off, (uint8_t *)buf, len, 1);

	if (!err && off + len > s->size)
		s->size = off + len;
	return err;
}

int sqk_store_append(struct sqk_store *s, const void *buf, size_t len, uint64_t *off)
{
	*off = s->size;
	return sqk_store_write(s, s->size, buf, len);
}

int sqk_store_bit(struct sqk_store *s, uint64_t idx, int set)
{
	uint8_t *mem, bit = (uint8_t)(1u << (idx & 7));
	uint64_t byte = idx >> 3;
	int err = page_mem(s, byte >> s->shift, 0, &mem), was;

	if (err)
		return err;
	mem += byte & (s->page - 1);
	was = (*mem & bit) != 0;
	if (set && !was) {
		*mem |= bit;
		s->slot[s->last - 1].dirty = 1;
		if (byte + 1 > s->size)
			s->size = byte + 1;
	}
	return was;
}
