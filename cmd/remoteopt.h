/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_REMOTEOPT_H
#define SQK_REMOTEOPT_H

/*
 * Images on web servers on the command line: the options of every command
 * that reads an image, which an http:// or https:// URL in place of a
 * path is then read with (squashkit/remote.h).
 */
#include <stdint.h>

#include <squashkit/squashkit.h>

#define CLI_REMOTE_OPTIONS(base)                                                                   \
	{"header", required_argument, NULL, (base)},                                               \
		{"cache-dir", required_argument, NULL, (base) + 1},                                \
		{"cache-size", required_argument, NULL, (base) + 2},                               \
		{"download", no_argument, NULL, (base) + 3},                                       \
		{"timeout", required_argument, NULL, (base) + 4},                                  \
	{                                                                                          \
		"retries", required_argument, NULL, (base) + 5                                     \
	}
#define CLI_REMOTE_NOPTS 6

/*
 * Take option c of a table with CLI_REMOTE_OPTIONS(base): -1 when it is
 * none of them, else 0, or EXIT_USAGE after saying why.
 */
int cli_remote_take(int c, int base, const char *arg);
/* Does path name a remote image? */
int cli_is_url(const char *path);
/* The options into o (and the wait policy of the remote blocks): 0, or -1 after the error line. */
int cli_remote_apply(struct sqk_open_opts *o);
/* The wait policy the reader's images are opened with (bench's runs, mount). */
void cli_remote_policy(enum sqk_policy p);
/* The image at url as read callbacks: 0, or -1 after the error line. */
int cli_remote_io(const char *url, struct sqk_io *io);
/* Where images start in what url serves (sqk_image_find_url): as sqk_image_find_path. */
int cli_remote_find(const char *url, uint64_t limit, uint64_t *found, size_t max);

#endif
