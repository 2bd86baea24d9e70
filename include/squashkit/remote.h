/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_REMOTE_H
#define SQUASHKIT_REMOTE_H

/**
 * @file squashkit/remote.h
 * Images on web servers: an `http://` or `https://` URL read through HTTP
 * range requests (libcurl: HTTP/1.1 and HTTP/2, TLS with the system's
 * certificate authorities, proxies from the environment, ~/.netrc), only
 * the bytes read fetched.
 *
 * The image's identity (its ETag or Last-Modified, and its size) is pinned
 * by the first reply and every later request is conditional on it: a
 * changed image fails the read with SQK_ERR_IO and errno ESTALE, never
 * gives bytes of two versions. Timeouts, reset connections, cut replies
 * and 5xx are tried again with a growing pause, a bounded number of times;
 * then the read fails (SQK_ERR_IO, the errno of the last failure). A server
 * that answers a range request with the whole file is refused
 * (SQK_ERR_UNSUPPORTED) unless sqk_open_opts_set_download() was given.
 * Redirects are followed (at most 8, to http and https only). Blocks read
 * are kept in a cache of the image's own, shared by every thread: threads
 * missing one block wait for its one fetch. A root hash
 * (sqk_open_opts_set_root_hash()) checks every fetched byte.
 */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when @p s is an http:// or https:// URL, else 0. */
SQK_API int sqk_path_is_url(const char *s);

/** Send the header @p line ("Name: value") with every request (authentication, ...). */
SQK_API int sqk_open_opts_add_header(struct sqk_open_opts *o, const char *line);
/**
 * Keep fetched blocks in the directory @p dir (made when missing; NULL: no
 * such cache, the default), at most @p max_bytes of them (0: 1 GiB). Any
 * number of processes may share it; a block is named by the image's
 * identity, so a changed image never finds another's blocks. Only images
 * whose server gives an ETag or a Last-Modified are kept.
 */
SQK_API int sqk_open_opts_set_remote_cache(struct sqk_open_opts *o, const char *dir,
					   uint64_t max_bytes);
/**
 * A server that ignores range requests: fetch the whole image into an
 * unnamed temporary file when it opens (in the cache directory, else
 * $TMPDIR, else /tmp) rather than refuse it. Default off.
 */
SQK_API int sqk_open_opts_set_download(struct sqk_open_opts *o, int on);
/** A connection or a reply that stalls @p seconds fails (default 30). */
SQK_API int sqk_open_opts_set_timeout(struct sqk_open_opts *o, unsigned seconds);
/** Attempts after the first for a request that failed and may pass (default 4). */
SQK_API int sqk_open_opts_set_retries(struct sqk_open_opts *o, unsigned n);

/** Open the image at @p url (opts may be NULL); see sqk_image_open_path(). */
SQK_API int sqk_image_open_url(const char *url, const struct sqk_open_opts *opts,
			       struct sqk_image **out);
/** Where images start in what @p url serves; see sqk_image_find_path(). */
SQK_API int sqk_image_find_url(const char *url, const struct sqk_open_opts *opts, uint64_t limit,
			       uint64_t *found, size_t max);
/**
 * The file at @p url as read callbacks, for sqk_image_open_io(),
 * sqk_image_find_io(), sqk_check_io(): 0 and @p io filled (its close frees
 * it; call it when io is given to none of them), or a negative code.
 */
SQK_API int sqk_io_open_url(const char *url, const struct sqk_open_opts *opts, struct sqk_io *io,
			    size_t struct_size);
#define sqk_io_open_url(...) sqk_io_open_url(__VA_ARGS__, sizeof(struct sqk_io))

/**
 * A counter of the remote file under @p img by name: "requests" (sent,
 * retries included), "bytes_fetched", "retries", "blocks_fetched",
 * "disk_hits" (blocks found in the cache directory), "fetches_shared"
 * (misses that waited for another thread's fetch of their block),
 * "distinct_blocks" (blocks of 4 KiB read at least once). 0 and
 * *value; SQK_ERR_ARG for another name or an image that is not remote.
 */
SQK_API int sqk_image_remote_counter(const struct sqk_image *img, const char *name,
				     uint64_t *value);
/** The counters' names, NULL-terminated. */
SQK_API const char *const *sqk_remote_counter_names(void);

#ifdef __cplusplus
}
#endif

#endif
