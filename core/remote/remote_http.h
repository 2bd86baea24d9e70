/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_REMOTE_HTTP_H
#define SQK_REMOTE_HTTP_H

/*
 * The request engine of a remote file: a bounded set of libcurl handles
 * (each keeps its connection for the next request), range requests made
 * conditional on the identity the first reply pinned, and retries with a
 * bounded backoff for what may pass (timeouts, resets, 5xx).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "remote.h"

struct curl_slist;

struct sqk_http {
	char *url;
	struct curl_slist *headers; /* the caller's */
	unsigned timeout_s, retries, connections;
	pthread_mutex_t lock;
	pthread_cond_t free_cond;
	void **free; /* idle handles */
	unsigned nfree, made;
	/* The identity pinned by the first reply. */
	char etag[256], lastmod[64];
	uint64_t size;
	/* Counters (atomic). */
	uint64_t requests, bytes, retried;
};

int sqk_http_init(struct sqk_http *h, const char *url, const struct sqk_remote_opts *o);
void sqk_http_release(struct sqk_http *h);

/*
 * The first request: bytes 0..len-1, which pins the identity and the size.
 * 0 with *got bytes in buf; SQK_ERR_UNSUPPORTED when the server ignored the
 * range (a 200 reply); else a code with *errnum and why.
 */
int sqk_http_probe(struct sqk_http *h, void *buf, size_t len, size_t *got, int *errnum, char *why,
		   size_t whylen);
/* Bytes off..off+len-1 of the pinned image: 0, or SQK_ERR_IO with *errnum. */
int sqk_http_get(struct sqk_http *h, uint64_t off, void *buf, size_t len, int *errnum);
/* The whole image into fd (a server without ranges): 0, or a code with *errnum and why. */
int sqk_http_download(struct sqk_http *h, int fd, int *errnum, char *why, size_t whylen);

#endif
