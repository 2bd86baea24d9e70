// SPDX-License-Identifier: BSD-2-Clause
/*
 * HTTP range requests through libcurl. Each request takes one of a bounded
 * set of easy handles (a handle keeps its connection alive for the next
 * request), sends Range and, once the image's identity is pinned, If-Match
 * (a strong ETag) or If-Unmodified-Since (its Last-Modified), and checks
 * the reply against what it asked: 206, the range asked, the size pinned.
 * A changed image is ESTALE at once; timeouts, resets, cut bodies and 5xx
 * are tried again after a backoff, a bounded number of times.
 */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "remote_http.h"
#include "util/error.h"
#include "util/file.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_code;

static void curl_init(void)
{
	curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* One reply as the callbacks see it. */
struct reply {
	long status;
	char etag[256], lastmod[64];
	uint64_t first, last, total;
	int has_range;
	uint64_t length; /* Content-Length, or UINT64_MAX */
	uint8_t *buf;	 /* the body goes here (up to want bytes) or to fd */
	size_t want, got;
	int fd;
	int overflow; /* a body longer than asked for: the transfer was stopped */
	int write_errno;
};

/* "Name: value" header's value when line is that header, trimmed into out. */
static int header_value(const char *line, size_t n, const char *name, char *out, size_t cap)
{
	size_t k = strlen(name), len;

	if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':')
		return 0;
	line += k + 1;
	n -= k + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' || line[n - 1] == ' '))
		n--;
	len = n < cap - 1 ? n : cap - 1;
	memcpy(out, line, len);
	out[len] = '\0';
	return 1;
}

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	char v[256];

	n *= size;
	/* A new status line (after a redirect, a 100): forget the last reply's headers. */
	if (n > 5 && strncmp(line, "HTTP/", 5) == 0) {
		r->etag[0] = r->lastmod[0] = '\0';
		r->has_range = 0;
		r->length = UINT64_MAX;
	} else if (header_value(line, n, "ETag", v, sizeof(v))) {
		snprintf(r->etag, sizeof(r->etag), "%s", v);
	} else if (header_value(line, n, "Last-Modified", r->lastmod, sizeof(r->lastmod))) {
		;
	} else if (header_value(line, n, "Content-Length", v, sizeof(v))) {
		r->length = strtoull(v, NULL, 10);
	} else if (header_value(line, n, "Content-Range", v, sizeof(v))) {
		unsigned long long a, b, t;

		r->has_range = sscanf(v, "bytes %llu-%llu/%llu", &a, &b, &t) == 3 && a <= b;
		if (r->has_range) {
			r->first = a;
			r->last = b;
			r->total = t;
		}
	}
	return n;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;

	n *= size;
	if (r->fd >= 0) {
		if (sqk_write_full(r->fd, data, n, SQK_NO_OFFSET) != 0) {
			r->write_errno = errno;
			return 0;
		}
		r->got += n;
		return n;
	}
	if (n > r->want - r->got) {
		/* More than asked for (a 200 to a range request): stop it here. */
		r->overflow = 1;
		return 0;
	}
	memcpy(r->buf + r->got, data, n);
	r->got += n;
	return n;
}

int sqk_http_init(struct sqk_http *h, const char *url, const struct sqk_remote_opts *o)
{
	const char *p = o->headers;

	memset(h, 0, sizeof(*h));
	pthread_once(&curl_once, curl_init);
	if (curl_init_code != CURLE_OK)
		return SQK_ERR_NOMEM;
	h->url = strdup(url);
	h->free = calloc(o->connections ? o->connections : 1, sizeof(*h->free));
	if (!h->url || !h->free) {
		sqk_http_release(h);
		return SQK_ERR_NOMEM;
	}
	h->timeout_s = o->timeout_s ? o->timeout_s : 30;
	h->retries = o->retries;
	h->connections = o->connections ? o->connections : 1;
	while (*p) {
		const char *end = strchr(p, '\n');
		char line[SQK_REMOTE_HEADERS];
		struct curl_slist *s;
		size_t n = end ? (size_t)(end - p) : strlen(p);

		memcpy(line, p, n);
		line[n] = '\0';
		s = curl_slist_append(h->headers, line);
		if (!s) {
			sqk_http_release(h);
			return SQK_ERR_NOMEM;
		}
		h->headers = s;
		p += n + (end != NULL);
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->free_cond, NULL);
	return 0;
}

void sqk_http_release(struct sqk_http *h)
{
	unsigned i;

	for (i = 0; i < h->nfree; i++)
		curl_easy_cleanup(h->free[i]);
	if (h->free) {
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->free_cond);
	}
	free(h->free);
	curl_slist_free_all(h->headers);
	free(h->url);
	memset(h, 0, sizeof(*h));
}

/* An idle handle, or a new one while fewer than connections exist; waits otherwise. */
static CURL *take_handle(struct sqk_http *h)
{
	CURL *c = NULL;
	int make = 0;

	pthread_mutex_lock(&h->lock);
	while (!h->nfree && h->made >= h->connections)
		pthread_cond_wait(&h->free_cond, &h->lock);
	if (h->nfree)
		c = h->free[--h->nfree];
	else
		make = ++h->made;
	pthread_mutex_unlock(&h->lock);
	if (make && !(c = curl_easy_init())) {
		pthread_mutex_lock(&h->lock);
		h->made--;
		pthread_cond_signal(&h->free_cond);
		pthread_mutex_unlock(&h->lock);
	}
	return c;
}

static void give_handle(struct sqk_http *h, CURL *c)
{
	pthread_mutex_lock(&h->lock);
	h->free[h->nfree++] = c;
	pthread_cond_signal(&h->free_cond);
	pthread_mutex_unlock(&h->lock);
}

/* The conditions that make a request about the pinned image only. */
static struct curl_slist *conditions(struct sqk_http *h, struct curl_slist *l)
{
	char line[320];

	if (h->etag[0] && strncmp(h->etag, "W/", 2) != 0)
		snprintf(line, sizeof(line), "If-Match: %s", h->etag);
	else if (h->lastmod[0])
		snprintf(line, sizeof(line), "If-Unmodified-Since: %s", h->lastmod);
	else
		return l;
	return curl_slist_append(l, line);
}

/*
 * Send one request: bytes off..off+len-1 (len 0: the whole file), with the
 * pinned conditions when cond is set. Returns libcurl's code; r holds the reply.
 */
static CURLcode send_request(struct sqk_http *h, CURL *c, uint64_t off, size_t len, int cond,
			     struct reply *r)
{
	struct curl_slist *l = NULL, *s = h->headers;
	char range[64];
	CURLcode rc;

	for (; s; s = s->next)
		l = curl_slist_append(l, s->data);
	if (len) {
		snprintf(range, sizeof(range), "Range: bytes=%" PRIu64 "-%" PRIu64, off,
			 off + len - 1);
		l = curl_slist_append(l, range);
	}
	if (cond)
		l = conditions(h, l);
	/* Never a compressed body: the range is of the file's own bytes. */
	l = curl_slist_append(l, "Accept-Encoding: identity");
	if (!l)
		return CURLE_OUT_OF_MEMORY;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, h->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 8L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "squashkit");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)h->timeout_s);
	/* A reply that stalls (no byte for timeout_s seconds) fails and may be tried again. */
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)h->timeout_s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	__atomic_add_fetch(&h->requests, 1, __ATOMIC_RELAXED);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	__atomic_add_fetch(&h->bytes, r->got, __ATOMIC_RELAXED);
	curl_slist_free_all(l);
	return rc;
}

/* What a transfer that failed in libcurl comes to: its errno; *again when it may pass. */
static int curl_errno(CURLcode rc, int *again)
{
	*again = 1;
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		return ECONNREFUSED;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return ECONNRESET;
	default:
		break;
	}
	*again = 0;
	switch (rc) {
	case CURLE_OUT_OF_MEMORY:
		return ENOMEM;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return EHOSTUNREACH;
	case CURLE_TOO_MANY_REDIRECTS:
		return ELOOP;
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
		return EPROTONOSUPPORT;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
		return EPROTO;
	default:
		return EIO;
	}
}

/* The errno of a reply whose status is not the one wanted; *again when it may pass. */
static int status_errno(long status, int *again)
{
	*again = status >= 500 || status == 408 || status == 429;
	if (*again)
		return EIO;
	switch (status) {
	case 401:
	case 403:
		return EACCES;
	case 404:
	case 410:
		return ENOENT;
	case 412: /* If-Match failed: the image is not the one opened */
	case 416: /* the range is past its end: it is shorter now */
		return ESTALE;
	default:
		return EIO;
	}
}

/* Sleep before attempt i (from 1): 100 ms doubled each time, at most 2 s. */
static void backoff(unsigned i)
{
	unsigned ms = i > 5 ? 2000 : 100u << (i - 1);
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	if (ms > 2000)
		ts = (struct timespec){2, 0};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Is r the reply of the pinned image? (An unconditional server may still say its ETag.) */
static int same_image(const struct sqk_http *h, const struct reply *r)
{
	if (h->etag[0] && r->etag[0] && strcmp(h->etag, r->etag) != 0)
		return 0;
	if (!h->etag[0] && h->lastmod[0] && r->lastmod[0] && strcmp(h->lastmod, r->lastmod) != 0)
		return 0;
	return 1;
}

static void reply_init(struct reply *r, void *buf, size_t want, int fd)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->want = want;
	r->fd = fd;
	r->length = UINT64_MAX;
}

/*
 * Attempt i (from 0) of a request: after the backoff its number asks for,
 * on a handle of the set. libcurl's code; r holds the reply.
 */
static CURLcode attempt(struct sqk_http *h, unsigned i, uint64_t off, size_t len, int cond,
			struct reply *r)
{
	CURLcode rc;
	CURL *c;

	if (i) {
		__atomic_add_fetch(&h->retried, 1, __ATOMIC_RELAXED);
		backoff(i);
	}
	c = take_handle(h);
	if (!c)
		return CURLE_OUT_OF_MEMORY;
	rc = send_request(h, c, off, len, cond, r);
	give_handle(h, c);
	return rc;
}

int sqk_http_get(struct sqk_http *h, uint64_t off, void *buf, size_t len, int *errnum)
{
	unsigned i;
	int again = 0, e = EIO;

	for (i = 0; i <= h->retries; i++) {
		struct reply r;
		CURLcode rc;

		reply_init(&r, buf, len, -1);
		rc = attempt(h, i, off, len, 1, &r);
		if (r.status == 206 && (!same_image(h, &r) || !r.has_range || r.total != h->size)) {
			e = ESTALE;
			again = 0;
		} else if (r.status == 200) {
			/* The whole file again: a changed image, or a server that stopped ranges.
			 */
			e = same_image(h, &r) && r.length == h->size ? EIO : ESTALE;
			again = 0;
		} else if (rc != CURLE_OK) {
			e = curl_errno(rc, &again);
		} else if (r.status != 206) {
			e = status_errno(r.status, &again);
		} else if (r.first != off || r.last != off + len - 1 || r.got != len) {
			e = EIO; /* another range than asked for, or a short body */
			again = 1;
		} else {
			return 0;
		}
		if (!again)
			break;
	}
	*errnum = e;
	return SQK_ERR_IO;
}

/* The sentence for a probe that failed with errno e after reply r. */
static void say(char *why, size_t len, int e, const struct reply *r)
{
	if (r->status >= 400)
		snprintf(why, len, "HTTP %ld (%s)", r->status, strerror(e));
	else
		snprintf(why, len, "%s", strerror(e));
}

int sqk_http_probe(struct sqk_http *h, void *buf, size_t len, size_t *got, int *errnum, char *why,
		   size_t whylen)
{
	unsigned i;
	int again = 0, e = EIO;
	struct reply r;

	for (i = 0; i <= h->retries; i++) {
		CURLcode rc;

		reply_init(&r, buf, len, -1);
		rc = attempt(h, i, 0, len, 0, &r);
		if (r.status == 200 && (rc == CURLE_OK || r.overflow)) {
			/* No range support: the body is the whole file. */
			snprintf(why, whylen,
				 "the server ignores range requests (HTTP 200 to a request for "
				 "bytes 0-%zu)",
				 len - 1);
			*errnum = EPROTONOSUPPORT;
			return SQK_ERR_UNSUPPORTED;
		}
		if (rc != CURLE_OK)
			e = curl_errno(rc, &again);
		else if (r.status == 416) {
			snprintf(why, whylen, "the file is empty");
			*errnum = EIO;
			return SQK_ERR_TRUNCATED;
		} else if (r.status != 206)
			e = status_errno(r.status, &again);
		else if (!r.has_range || r.first != 0 || r.last >= len || r.got != r.last + 1)
			e = EIO, again = 1;
		else
			break;
		if (!again || i == h->retries) {
			say(why, whylen, e, &r);
			*errnum = e;
			return SQK_ERR_IO;
		}
	}
	snprintf(h->etag, sizeof(h->etag), "%s", r.etag);
	snprintf(h->lastmod, sizeof(h->lastmod), "%s", r.lastmod);
	h->size = r.total;
	*got = r.got;
	return 0;
}

int sqk_http_download(struct sqk_http *h, int fd, int *errnum, char *why, size_t whylen)
{
	unsigned i;
	int again = 0, e = EIO;
	struct reply r;

	reply_init(&r, NULL, 0, fd);
	for (i = 0; i <= h->retries; i++) {
		CURLcode rc;

		/* A try again starts the file again. */
		if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
			e = errno;
			break;
		}
		reply_init(&r, NULL, 0, fd);
		rc = attempt(h, i, 0, 0, 0, &r);
		if (r.write_errno) {
			e = r.write_errno;
			again = 0;
		} else if (rc != CURLE_OK) {
			e = curl_errno(rc, &again);
		} else if (r.status != 200) {
			e = status_errno(r.status, &again);
		} else if (r.length != UINT64_MAX && r.length != r.got) {
			e = EIO, again = 1;
		} else {
			h->size = r.got;
			return 0;
		}
		if (!again)
			break;
	}
	say(why, whylen, e, &r);
	*errnum = e;
	return e == ENOSPC ? SQK_ERR_NOSPACE : SQK_ERR_IO;
}
