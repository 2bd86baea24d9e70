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

/* The reader options' help lines. */
#define SQK_HELP_VERITY                                                                            \
	"      --root-hash HEX   read through the image's dm-verity hash tree: every\n"            \
	"                        block is checked against it before use\n"                         \
	"      --root-hash-file F  the root hash is the first line of F\n"                         \
	"      --verity-hash-file F  the hash area is in F (default: after the image)\n"           \
	"      --verity-hash-offset N  the hash area starts N bytes into its file\n"               \
	"      --verity-salt HEX  the hash area has no superblock: its salt (- for none)\n"        \
	"      --verity-hash ALG  ... and its hash algorithm (default sha256)\n"

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

/* A tree's parameters as the members of a JSON object the caller opened. */
struct sqk_json;
void cli_verity_json_members(struct sqk_json *j, const struct sqk_verity_info *info);
/* The same as lines of text, each after prefix. */
void cli_verity_text(FILE *out, const char *prefix, const struct sqk_verity_info *info);

#endif
