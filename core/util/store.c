// SPDX-License-Identifier: BSD-2-Clause
/*
 * The store's pages: a table from page number to the slot holding it, the
 * slots in a clock, and the temporary file the pages the clock passes over
 * go to once the budget is spent.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "file.h"
#include "store.h"

#define PAGE_SHIFT 12
#define PAGE	   ((size_t)1 << PAGE_SHIFT)
/*
 * Pages a store may always hold, whatever the budget (it needs one at a
 * time): with a budget of nothing, every store spills, which the tests ask for.
 */
#define MIN_SLOTS 1

struct slot {
	uint64_t page;
	uint8_t *mem;
	uint8_t dirty, ref;
};

struct sqk_store {
	struct sqk_budget *b;
	uint32_t *where; /* page -> slot + 1; 0: not in memory */
	size_t nwhere;
	struct slot *slot;
	size_t nslots, slotcap, hand;
	size_t last; /* the slot used last + 1, for runs of calls in one page */
	int fd;	     /* the temporary file, -1 until a page goes there */
	uint64_t file_end;
	uint64_t size;
};

void sqk_budget_init(struct sqk_budget *b, uint64_t limit, const char *tmpdir)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
	b->tmpdir = tmpdir;
}

uint64_t sqk_budget_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t quarter = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 : 0;

	return quarter && quarter < (256ull << 20) ? quarter : 256ull << 20;
}

const char *sqk_budget_dir(const struct sqk_budget *b)
{
	const char *d = b->tmpdir;

	if (!d || !*d)
		d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

int sqk_budget_failed(const struct sqk_budget *b, int err, struct sqk_fault *f)
{
	int e = __atomic_load_n(&b->errnum, __ATOMIC_RELAXED);

	if (!e || (err != SQK_ERR_IO && err != SQK_ERR_NOSPACE))
		return 0;
	if (f) {
		memset(f, 0, sizeof(*f));
		sqk_fault_set(f, err, e, 0, "");
		snprintf(f->what, sizeof(f->what), "temporary file in %.160s: %s", b->where,
			 strerror(e));
	}
	return 1;
}

int sqk_store_create(struct sqk_budget *b, struct sqk_store **out)
{
	struct sqk_store *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return SQK_ERR_NOMEM;
	s->b = b;
	s->fd = -1;
	return 0;
}

void sqk_store_clear(struct sqk_store *s)
{
	size_t i;

	for (i = 0; i < s->nslots; i++)
		free(s->slot[i].mem);
	__atomic_sub_fetch(&s->b->used, (uint64_t)s->nslots * PAGE, __ATOMIC_RELAXED);
	free(s->slot);
	free(s->where);
	if (s->fd >= 0)
		close(s->fd);
	s->slot = NULL;
	s->where = NULL;
	s->nslots = s->slotcap = s->nwhere = s->hand = s->last = 0;
	s->fd = -1;
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

struct sqk_budget *sqk_store_budget(const struct sqk_store *s)
{
	return s->b;
}

/* The failed call's errno and where, for the one line that says it. */
static int failed(struct sqk_store *s)
{
	int e = errno ? errno : EIO;

	snprintf(s->b->where, sizeof(s->b->where), "%s", sqk_budget_dir(s->b));
	__atomic_store_n(&s->b->errnum, e, __ATOMIC_RELAXED);
	errno = e;
	return sqk_err_from_errno();
}

/*
 * An unnamed file in the budget's directory. Without O_TMPFILE it is made
 * and removed with every signal held, so none comes between the two.
 */
static int open_file(struct sqk_store *s)
{
	const char *dir = sqk_budget_dir(s->b);
	char path[PATH_MAX];
	sigset_t all, old;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		if (snprintf(path, sizeof(path), "%s/squashkit.XXXXXX", dir) >= (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			return failed(s);
		}
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0 && unlink(path) != 0) {
			int e = errno;

			close(fd);
			fd = -1;
			errno = e;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (fd < 0)
		return failed(s);
	s->fd = fd;
	__atomic_add_fetch(&s->b->files, 1, __ATOMIC_RELAXED);
	return 0;
}

static int write_back(struct sqk_store *s, struct slot *sl)
{
	uint64_t off = sl->page << PAGE_SHIFT;
	int err;

	if (s->fd < 0 && (err = open_file(s)) != 0)
		return err;
	if (sqk_write_full(s->fd, sl->mem, PAGE, off) != 0)
		return failed(s);
	if (off + PAGE > s->file_end)
		s->file_end = off + PAGE;
	__atomic_add_fetch(&s->b->spilled, PAGE, __ATOMIC_RELAXED);
	sl->dirty = 0;
	return 0;
}

/* A slot for a page not in memory: a new one while the budget lasts, else the clock's. */
static int free_slot(struct sqk_store *s, size_t *k)
{
	struct sqk_budget *b = s->b;
	struct slot *sl;
	int err;

	if (s->nslots < MIN_SLOTS ||
	    __atomic_load_n(&b->used, __ATOMIC_RELAXED) + PAGE <= b->limit) {
		uint8_t *mem;

		if (SQK_ARRAY_GROW(s->slot, s->slotcap, s->nslots + 1))
			return SQK_ERR_NOMEM;
		mem = malloc(PAGE);
		if (!mem)
			return SQK_ERR_NOMEM;
		s->slot[s->nslots] = (struct slot){UINT64_MAX, mem, 0, 0};
		*k = s->nslots++;
		__atomic_add_fetch(&b->used, PAGE, __ATOMIC_RELAXED);
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
	uint64_t off = page << PAGE_SHIFT;
	size_t had = s->nwhere;
	int err;

	if (page > SIZE_MAX / 2 || SQK_ARRAY_GROW(s->where, s->nwhere, (size_t)page + 1))
		return SQK_ERR_NOMEM;
	memset(s->where + had, 0, (s->nwhere - had) * sizeof(*s->where));
	err = free_slot(s, k);
	if (err)
		return err;
	sl = &s->slot[*k];
	if (s->fd >= 0 && off < s->file_end) {
		if (sqk_read_full(s->fd, sl->mem, PAGE, off) < 0)
			return failed(s);
	} else {
		memset(sl->mem, 0, PAGE);
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
		size_t in = (size_t)(off & (PAGE - 1)), n = PAGE - in;
		uint8_t *mem;
		int err = page_mem(s, off >> PAGE_SHIFT, write, &mem);

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

int sqk_store_bit(struct sqk_store *s, uint64_t idx, int set)
{
	uint8_t *mem, bit = (uint8_t)(1u << (idx & 7));
	uint64_t byte = idx >> 3;
	int err = page_mem(s, byte >> PAGE_SHIFT, 0, &mem), was;

	if (err)
		return err;
	mem += byte & (PAGE - 1);
	was = (*mem & bit) != 0;
	if (set && !was) {
		*mem |= bit;
		s->slot[s->last - 1].dirty = 1;
		if (byte + 1 > s->size)
			s->size = byte + 1;
	}
	return was;
}
