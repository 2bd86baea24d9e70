/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_SHOW_H
#define SQK_SHOW_H

/*
 * The read-only inspector commands (inspect, ls, cat, stat) and what they
 * share. One driver parses the options they all take (--stats, --offset, --help,
 * --json where the command has JSON output), checks the operands (IMAGE,
 * then PATH...), opens the image, runs the command, flushes stdout, prints
 * the cache counters and gives the exit status. A command is its usage
 * text, its own options and one run function.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fe.h"

struct sqk_image;
struct sqk_inode;
struct sqk_show;

/* Option values the driver keeps for itself: a command's own stay below. */
enum { SQK_SHOW_OPT_JSON = 0x1000, SQK_SHOW_OPT_STATS, SQK_SHOW_OPT_OFFSET, SQK_SHOW_OPT_VERITY };
/* The remote options after the six of verity. */
#define SQK_SHOW_OPT_REMOTE (SQK_SHOW_OPT_VERITY + 6)

struct sqk_show_cmd {
	const char *usage;	       /* the --help text */
	const char *shortopts;	       /* its own short options, "" for none */
	const struct option *longopts; /* its own long options (NULL-terminated) or NULL */
	int json;		       /* takes --json */
	unsigned min_paths, max_paths; /* PATH operands after IMAGE */
	/* One of its own options: 0, or the exit status of a usage error. */
	int (*option)(struct sqk_show *s, int opt, const char *arg);
	/* The work on the open image: EXIT_OK, or EXIT_FAIL after reporting why. */
	int (*run)(struct sqk_show *s);
};

struct sqk_show {
	const char *image; /* the IMAGE operand */
	struct sqk_image *img;
	char **paths; /* the PATH operands */
	unsigned npaths;
	int json;	     /* --json given */
	struct sqk_json out; /* a JSON writer on stdout */
	void *ctx;	     /* the command's own state */
};

/* Run cmd with argv: the whole life of an inspector command. */
int cli_show_main(int argc, char **argv, const struct sqk_show_cmd *cmd, void *ctx);

/* PATH from the root without repeated or trailing slashes ("/" for the root); malloc'd. */
char *cli_show_normalise(const char *path);

/* "squashkit CMD: IMAGE: /path: what went wrong" for a path inside an image. */
void cli_show_path_error(const char *image, const char *path, const char *what);

/* "drwxr-xr-x" with s/S/t/T, into out[11]. */
void cli_mode_string(mode_t mode, char out[11]);

/* A time as "YYYY-MM-DD HH:MM[:SS]" in UTC. */
void cli_time_string(uint32_t t, int seconds, char *out, size_t len);

/*
 * What a failed call of the public API was, in words: the errno behind it,
 * or its code's words.
 */
const char *cli_api_why(int err);
/* The same for a failure whose errno was kept (0: none). */
const char *cli_api_text(int err, int errnum);

#endif
