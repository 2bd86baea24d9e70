/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_REMOTE_H
#define SQK_REMOTE_H

/*
 * An image on a web server, read as a file (struct sqk_file) through HTTP
 * range requests (libcurl). The file is cut into blocks of
 * SQK_REMOTE_BLOCK bytes kept in a block cache of its own (core/cache/:
 * concurrent misses of one block share one fetch, the keyed wait); a read
 * of several missing blocks is one request, and a read that follows the
 * last one fetches ahead. The image's identity (ETag or Last-Modified, and
 * its size) is pinned by the first reply and every later request is
 * conditional on it: a changed image fails the read (ESTALE), never mixes
 * bytes of two versions. Fetched blocks may also be kept on disk
 * (remote_disk.c) for the next user.
 */
#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"

struct sqk_file;

#define SQK_REMOTE_BLOCK   (4u << 10)
#define SQK_REMOTE_HEADERS 4096

struct sqk_remote_opts {
	/* Extra request headers, "Name: value" lines each ended by '\n'. */
	char headers[SQK_REMOTE_HEADERS];
	/* The on-disk block cache ("" for none) and the bytes it may hold. */
	char cache_dir[4096];
	uint64_t cache_max;
	unsigned timeout_s;	     /* a connection or a reply that stalls this long fails */
	unsigned retries;	     /* attempts after the first, for transient failures */
	unsigned connections;	     /* requests in flight at once */
	int download;		     /* a server without range support: fetch it all first */
	enum sqk_wait_policy policy; /* of the block cache */
};

void sqk_remote_opts_default(struct sqk_remote_opts *o);
/* Add one header line (no newline in it): 0, or SQK_ERR_ARG / SQK_ERR_OVERFLOW. */
int sqk_remote_opts_header(struct sqk_remote_opts *o, const char *line);

/* Whether s names a remote image (http:// or https://). */
int sqk_remote_is_url(const char *s);

/*
 * Open the image at url: 0 and *out, or a negative code with *errnum and a
 * sentence in why (len bytes) saying what the server did.
 */
int sqk_remote_open(const char *url, const struct sqk_remote_opts *o, struct sqk_file **out,
		    int *errnum, char *why, size_t len);

/* What a remote file has done, for bench and --stats. */
struct sqk_remote_stats {
	uint64_t requests;	/* HTTP requests sent, retries included */
	uint64_t bytes_fetched; /* body bytes received */
	uint64_t retries;	/* requests sent again after a transient failure */
	uint64_t blocks;	/* blocks fetched from the server */
	uint64_t disk_hits;	/* blocks found in the on-disk cache */
	uint64_t shared;	/* misses that waited for another reader's fetch */
	uint64_t distinct;	/* distinct blocks read */
};

/* One counter by name ("requests", ...): 0, or -1 for another name. */
int sqk_remote_stat(const struct sqk_remote_stats *s, const char *name, uint64_t *v);
/* The names, NULL-terminated. */
const char *const *sqk_remote_stat_names(void);

/* Whether f is a remote file, and its counters. */
int sqk_remote_is(const struct sqk_file *f);
void sqk_remote_stats(struct sqk_file *f, struct sqk_remote_stats *out);

#endif
