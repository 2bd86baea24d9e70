/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SPILL_H
#define SQK_SPILL_H

/*
 * Memory a job may hold, and the temporary files for what does not fit.
 * A job (a build, a read of an image, a comparison) has one struct
 * sqk_spill: the directory its temporaries go to, its budget of bytes, and
 * what went to disk. Each structure that can grow with the input keeps
 * what fits in memory and the rest in temporaries: the paged store
 * (store.h: bytes or records by offset, pages drawn from the budget they
 * share, or from a share of their own), sorted runs and their merge
 * (run.h), the external sort (extsort.h), the spool (spool.h) and the map
 * that never forgets (smap.h). This is the one module for all of it.
 *
 * A temporary is made without a name (O_TMPFILE; where the file system
 * has none, made and unlinked at once with the signals blocked in
 * between): nothing a failure, a signal or even SIGKILL could leave
 * behind, gone with its descriptor, and the directory's time untouched
 * (it may be a source being read). A failure names the directory.
 * A temporary is one thread's; the figures and the first failure may be
 * written by several threads sharing the budget.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_spill {
	char *dir; /* where temporaries are made */
	uint64_t budget;
	uint64_t used; /* bytes of store pages in memory (store.h), all threads' */
	/*
	 * Every structure keeps the least it can in memory (a page, a record),
	 * so that small inputs take every path that large ones do: for tests.
	 */
	int tiny;
	/* What went to disk (read with sqk_spill_figure from any thread). */
	uint64_t bytes, files, runs, merges;
	/* The first failure: the errno and the directory of the temporary it was about. */
	int errnum;
	char path[4096 + 64];
};

/*
 * The budget and where temporaries go (dir NULL or "": $TMPDIR, else
 * /tmp); 0, or SQK_ERR_NOMEM.
 */
int sqk_spill_init(struct sqk_spill *sp, const char *dir, uint64_t budget, int tiny);
void sqk_spill_release(struct sqk_spill *sp);
/* A default budget: a quarter of the machine's memory, at most most. */
uint64_t sqk_spill_default(uint64_t most);
/* The readers' most, by default (a build's is larger: mkfs). */
#define SQK_SPILL_READ_MOST (256ull << 20)
struct sqk_fault;
/*
 * Is err a failure of sp's temporaries? Then f (when not NULL) gets its
 * story: err, the errno, and "temporary file in DIR: " with the errno's words.
 */
int sqk_spill_failed(const struct sqk_spill *sp, int err, struct sqk_fault *f);
/*
 * A structure's share: percent of the budget, never under floor (bytes a
 * structure needs to work at all); with tiny, floor alone.
 */
uint64_t sqk_spill_share(const struct sqk_spill *sp, unsigned percent, uint64_t floor);
/* A figure by name ("bytes", "files", "runs", "merges"), safe from any thread. */
uint64_t sqk_spill_figure(const struct sqk_spill *sp, const char *name);
void sqk_spill_count(uint64_t *figure, uint64_t n);

/* One temporary file. */
struct sqk_tmp {
	struct sqk_spill *sp;
	int fd;
	uint64_t size; /* bytes written past the end so far: its length */
	char path[];
};

/* A new temporary in sp's directory; SQK_ERR_IO (with sp's errno and path) when it cannot be. */
int sqk_tmp_create(struct sqk_spill *sp, struct sqk_tmp **out);
void sqk_tmp_destroy(struct sqk_tmp *t);
/* len bytes at off; SQK_ERR_IO or SQK_ERR_NOSPACE, the errno and path kept in sp. */
int sqk_tmp_write(struct sqk_tmp *t, uint64_t off, const void *buf, size_t len);
/* len bytes at off; a temporary that ends before them is an I/O error too. */
int sqk_tmp_read(struct sqk_tmp *t, uint64_t off, void *buf, size_t len);
/* Drop every byte (a run merged away, a stack emptied): the file stays open, empty. */
int sqk_tmp_clear(struct sqk_tmp *t);

#endif
