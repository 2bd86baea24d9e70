/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SPILL_H
#define SQK_SPILL_H

/*
 * Memory a job may hold, and the temporary files for what does not fit.
 * A job (a build) has one struct sqk_spill: the directory its temporaries
 * go to, its budget of bytes, and what went to disk. Each structure that
 * can grow with the input takes a share of the budget and keeps the rest
 * in temporaries (parray.h, run.h, extsort.h, spool.h, smap.h).
 *
 * A temporary is made without a name (O_TMPFILE; where the file system
 * has none, made and unlinked at once with the signals blocked in
 * between): nothing a failure, a signal or even SIGKILL could leave
 * behind, gone with its descriptor, and the directory's time untouched
 * (it may be a source being read). A failure names the directory.
 * Temporaries are not thread-safe; one thread uses each.
 */
#include <stddef.h>
#include <stdint.h>

struct sqk_spill {
	char *dir; /* where temporaries are made */
	uint64_t budget;
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

/* The budget and where temporaries go; 0, or SQK_ERR_NOMEM. */
int sqk_spill_init(struct sqk_spill *sp, const char *dir, uint64_t budget, int tiny);
void sqk_spill_release(struct sqk_spill *sp);
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
