/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_VERITYOPT_H
#define SQK_VERITYOPT_H

/*
 * dm-verity on the command line: the options that read an image through
 * its hash tree (fsck, mount, unimage, cat, diff), and a tree's parameters
 * as text and JSON (mkimage, verity, inspect).
 */
#include <stdint.h>
#include <stdio.h>

#include <squashkit/squashkit.h>

/* The options' long names, for a command's table (each command gives them its own values). */
#define CLI_VERITY_OPTIONS(base)                                                                   \
	{"root-hash", required_argument, NULL, (base)},                                            \
		{"root-hash-file", required_argument, NULL, (base) + 1},                           \
		{"verity-hash-file", required_argument, NULL, (base) + 2},                         \
		{"verity-hash-offset", required_argument, NULL, (base) + 3},                       \
		{"verity-salt", required_argument, NULL, (base) + 4},                              \
	{                                                                                          \
		"verity-hash", required_argument, NULL, (base) + 5                                 \
	}
#define CLI_VERITY_NOPTS 6

/* What they say. */
struct cli_verity {
	int given;
	char root[160];
	const char *hash_file;
	uint64_t offset;
	int offset_given;
	const char *salt, *hash;
};

/*
 * Take option which (0..CLI_VERITY_NOPTS-1, the order above) with arg:
 * 0, or EXIT_USAGE after the usage line (a root hash file that cannot be
 * read: EXIT_FAIL after its line).
 */
int cli_verity_take(struct cli_verity *v, int which, const char *arg);
/* The options that need --root-hash have it: 0, or EXIT_USAGE after saying so. */
int cli_verity_check(const struct cli_verity *v);
/* Set them into o: 0, or -1 after the error line (path names the image). */
int cli_verity_apply(const struct cli_verity *v, struct sqk_open_opts *o, const char *path);

/*
 * The reader options of a command that opens one image (unimage, cat,
 * mount, ...): taken into one setting, which every image the command opens
 * through imageopt.h is then read through.
 */
int cli_verity_option(int which, const char *arg);
/*
 * The default: of a command's option loop: option c, when it is one of
 * these (numbered from base), taken with arg. 0, or the exit code
 * (EXIT_USAGE for an option that is none of them: getopt said why).
 */
int cli_verity_default(int c, int base, const char *arg);
/* Their checks against each other: 0, or EXIT_USAGE after saying why. */
int cli_verity_options_check(void);
/* Open images through v's options (diff's per side) instead, until called with NULL. */
void cli_verity_use(const struct cli_verity *v);
/* Was --root-hash given? */
int cli_verity_given(void);
/* Into o, for an image opened through the public API: 0, or -1 after the error line. */
int cli_verity_open_opts(struct sqk_open_opts *o, const char *path);
/* The reader options of the command running (bincmd/reader.c reads through them). */
const struct cli_verity *cli_verity_reader(void);

/*
 * After reading img through its tree: one line saying how many blocks
 * failed and which was the first, when any did.
 */
void cli_verity_failures(const char *path, struct sqk_image *img);

/* A tree's parameters as the members of a JSON object the caller opened. */
struct sqk_json;
void cli_verity_json_members(struct sqk_json *j, const struct sqk_verity_info *info);
/* The same as lines of text, each after prefix. */
void cli_verity_text(FILE *out, const char *prefix, const struct sqk_verity_info *info);

#endif
