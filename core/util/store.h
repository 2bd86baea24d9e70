/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_STORE_H
#define SQK_STORE_H

/*
 * Memory for what a reader keeps about a whole image or tree (fsck's record
 * of every inode, the first path of every hard-linked file, the directories
 * a walk entered): bytes addressed by offset, in pages held in memory up to
 * a budget that several stores share, and beyond it in a temporary file.
 * Bytes never written read as zeros.
 *
 * A temporary file is unlinked from the moment it is made (O_TMPFILE, or
 * made and removed at once where the file system has no O_TMPFILE), so no
 * exit leaves one behind: an error, a signal, a crash. Pages go to it only
 * once the budget is spent, least recently used first (a clock), so a run
 * that fits writes nothing.
 *
 * A store is one thread's; a budget may be shared by stores of several
 * threads. Calls return 0 or a negative code; a failed call of the
 * temporary file leaves its errno and directory in the budget.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_budget {
	uint64_t limit;	    /* bytes of pages the stores may hold in memory together */
	const char *tmpdir; /* where temporary files go; NULL: $TMPDIR, else /tmp */
	/* Kept by the stores: */
	uint64_t used;	  /* bytes of pages in memory */
	uint64_t spilled; /* bytes written to temporary files */
	uint64_t files;	  /* temporary files made */
	int errnum;	  /* the errno of the temporary file's call that failed */
	char where[256];  /* and the directory it was in */
};

/* A budget of limit bytes in tmpdir (NULL: $TMPDIR, else /tmp). */
void sqk_budget_init(struct sqk_budget *b, uint64_t limit, const char *tmpdir);
/* The default limit: a quarter of the memory, at most 256 MiB. */
uint64_t sqk_budget_default(void);
/* The directory temporary files go to. */
const char *sqk_budget_dir(const struct sqk_budget *b);
struct sqk_fault;
/*
 * Is err a failure of b's temporary files? Then f (when not NULL) gets its
 * story: err, the errno, and "temporary file in DIR: " and the errno's words.
 */
int sqk_budget_failed(const struct sqk_budget *b, int err, struct sqk_fault *f);

struct sqk_store;

int sqk_store_create(struct sqk_budget *b, struct sqk_store **out);
/* Frees the pages; the temporary file goes with its descriptor. NULL is allowed. */
void sqk_store_destroy(struct sqk_store *s);
int sqk_store_read(struct sqk_store *s, uint64_t off, void *buf, size_t len);
int sqk_store_write(struct sqk_store *s, uint64_t off, const void *buf, size_t len);
/* Everything back to zeros, the memory and the file given back. */
void sqk_store_clear(struct sqk_store *s);
/* One past the highest byte written. */
uint64_t sqk_store_size(const struct sqk_store *s);
/* The budget the store draws on. */
struct sqk_budget *sqk_store_budget(const struct sqk_store *s);

/*
 * Bit idx (of a bitmap at offset 0): 1 or 0, or a negative code. set
 * sets it, returning what it was.
 */
int sqk_store_bit(struct sqk_store *s, uint64_t idx, int set);

/*
 * A table of fixed-size records from offset 0 (a record at idx * size), or
 * keys to 64-bit values (store_hash.c), or runs sorted (store_sort.c).
 */
static inline int sqk_store_get(struct sqk_store *s, uint64_t idx, void *rec, size_t size)
{
	return sqk_store_read(s, idx * size, rec, size);
}

static inline int sqk_store_put(struct sqk_store *s, uint64_t idx, const void *rec, size_t size)
{
	return sqk_store_write(s, idx * size, rec, size);
}

/*
 * A map of 64-bit keys to nonzero 64-bit values, in a store: open
 * addressing, at most half full, growing by doubling.
 */
struct sqk_store_hash {
	struct sqk_store *s;
	struct sqk_budget *b;
	uint64_t cap, count; /* slots (a power of two, or 0), keys */
};

void sqk_store_hash_init(struct sqk_store_hash *h, struct sqk_budget *b);
void sqk_store_hash_release(struct sqk_store_hash *h);
/* key's value in *val: 1, 0 when it has none, or a negative code. */
int sqk_store_hash_get(struct sqk_store_hash *h, uint64_t key, uint64_t *val);
/* Give key the value val (nonzero), replacing any; 0 or a negative code. */
int sqk_store_hash_set(struct sqk_store_hash *h, uint64_t key, uint64_t val);

/*
 * Sort the count records of size bytes at offset 0 of *s by cmp: sorted
 * runs of what fits a quarter of the budget, then merged, up to 16 at a
 * time, into a new store that replaces *s. 0 or a negative code (*s is
 * then unchanged or sorted in part, and still the caller's to destroy).
 */
int sqk_store_sort(struct sqk_store **s, uint64_t count, size_t size,
		   int (*cmp)(const void *a, const void *b));

#endif
