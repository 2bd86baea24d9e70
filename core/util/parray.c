// SPDX-License-Identifier: BSD-2-Clause
/* The paged array (parray.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "parray.h"

struct pa_page {
	uint8_t *mem;
	uint8_t dirty, stored, ref;
};

int sqk_parray_init(struct sqk_parray *pa, struct sqk_spill *sp, size_t rec, size_t page_bytes,
		    uint64_t mem)
{
	memset(pa, 0, sizeof(*pa));
	pa->sp = sp;
	pa->rec = rec;
	pa->per_page = page_bytes / rec ? page_bytes / rec : 1;
	pa->page_bytes = pa->per_page * rec;
	pa->max_res = mem / pa->page_bytes ? (size_t)(mem / pa->page_bytes) : 1;
	return 0;
}

void sqk_parray_release(struct sqk_parray *pa)
{
	size_t i;

	for (i = 0; i < pa->npages; i++)
		free(pa->pages[i].mem);
	free(pa->pages);
	free(pa->resident);
	sqk_tmp_destroy(pa->tmp);
	memset(pa, 0, sizeof(*pa));
}

uint64_t sqk_parray_memory(const struct sqk_parray *pa)
{
	return (uint64_t)pa->nres * pa->page_bytes;
}

/* Send the page the hand stops at to disk: one not used since the hand last passed. */
static int evict(struct sqk_parray *pa)
{
	for (;;) {
		size_t k = pa->hand % pa->nres, no = pa->resident[k];
		struct pa_page *p = &pa->pages[no];
		int err;

		if (p->ref) {
			p->ref = 0;
			pa->hand = k + 1;
			continue;
		}
		if (p->dirty) {
			if (!pa->tmp && (err = sqk_tmp_create(pa->sp, &pa->tmp)))
				return err;
			err = sqk_tmp_write(pa->tmp, (uint64_t)no * pa->page_bytes, p->mem,
					    pa->page_bytes);
			if (err)
				return err;
			p->stored = 1;
			p->dirty = 0;
		}
		free(p->mem);
		p->mem = NULL;
		pa->resident[k] = pa->resident[--pa->nres];
		pa->hand = k;
		return 0;
	}
}

/* Page no in memory: read back, or new and zeroed. */
static int page_in(struct sqk_parray *pa, size_t no, struct pa_page **out)
{
	struct pa_page *p;
	int err;

	if (pa->err)
		return pa->err;
	if (no >= pa->npages) {
		if (SQK_ARRAY_GROW(pa->pages, pa->pages_cap, no + 1))
			return pa->err = SQK_ERR_NOMEM;
		memset(pa->pages + pa->npages, 0, (no + 1 - pa->npages) * sizeof(*pa->pages));
		pa->npages = no + 1;
	}
	p = &pa->pages[no];
	p->ref = 1;
	if (p->mem) {
		*out = p;
		return 0;
	}
	while (pa->nres >= pa->max_res)
		if ((err = evict(pa)))
			return pa->err = err;
	if (SQK_ARRAY_GROW(pa->resident, pa->res_cap, pa->nres + 1))
		return pa->err = SQK_ERR_NOMEM;
	p = &pa->pages[no];
	p->mem = p->stored ? malloc(pa->page_bytes) : calloc(1, pa->page_bytes);
	if (!p->mem)
		return pa->err = SQK_ERR_NOMEM;
	if (p->stored) {
		err = sqk_tmp_read(pa->tmp, (uint64_t)no * pa->page_bytes, p->mem, pa->page_bytes);
		if (err) {
			free(p->mem);
			p->mem = NULL;
			return pa->err = err;
		}
	}
	pa->resident[pa->nres++] = no;
	*out = p;
	return 0;
}

int sqk_parray_get(struct sqk_parray *pa, uint64_t idx, void *out)
{
	struct pa_page *p;
	int err;

	if (idx >= pa->count) {
		memset(out, 0, pa->rec);
		return pa->err;
	}
	err = page_in(pa, (size_t)(idx / pa->per_page), &p);
	if (err)
		return err;
	memcpy(out, p->mem + (size_t)(idx % pa->per_page) * pa->rec, pa->rec);
	return 0;
}

int sqk_parray_put(struct sqk_parray *pa, uint64_t idx, const void *in)
{
	struct pa_page *p;
	int err = page_in(pa, (size_t)(idx / pa->per_page), &p);

	if (err)
		return err;
	memcpy(p->mem + (size_t)(idx % pa->per_page) * pa->rec, in, pa->rec);
	p->dirty = 1;
	if (idx >= pa->count)
		pa->count = idx + 1;
	return 0;
}

/* Copy between buf and the bytes at off, page by page (to: into the array). */
static int span(struct sqk_parray *pa, uint64_t off, void *buf, size_t len, int to)
{
	uint8_t *b = buf;

	while (len) {
		size_t at = (size_t)(off % pa->page_bytes), n = pa->page_bytes - at;
		struct pa_page *p;
		int err = page_in(pa, (size_t)(off / pa->page_bytes), &p);

		if (err)
			return err;
		if (n > len)
			n = len;
		if (to) {
			memcpy(p->mem + at, b, n);
			p->dirty = 1;
		} else {
			memcpy(b, p->mem + at, n);
		}
		b += n;
		off += n;
		len -= n;
	}
	return 0;
}

int sqk_parray_read(struct sqk_parray *pa, uint64_t off, void *buf, size_t len)
{
	if (off + len > pa->count)
		return pa->err ? pa->err : SQK_ERR_CORRUPT;
	return span(pa, off, buf, len, 0);
}

int sqk_parray_append(struct sqk_parray *pa, const void *buf, size_t len, uint64_t *off)
{
	int err = span(pa, pa->count, (void *)buf, len, 1);

	if (err)
		return err;
	*off = pa->count;
	pa->count += len;
	return 0;
}
