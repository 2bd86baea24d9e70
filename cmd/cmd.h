/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_CMD_H
#define SQK_CMD_H

/* The front ends and the helpers they share. Only cmd/ prints. */
#include <stdint.h>
#include <stdio.h>

#include <squashkit/error.h>

#include "fe.h"

int cli_mkimage(int argc, char **argv);
int cli_unimage(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_ls(int argc, char **argv);
int cli_cat(int argc, char **argv);
int cli_stat(int argc, char **argv);
int cli_fsck(int argc, char **argv);
int cli_verity(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_mount(int argc, char **argv);
int cli_umount(int argc, char **argv);

/* Exit codes of CLI.md (fsck has its own). */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* The running command's name, for messages ("mkimage", "ls", ...). */
extern const char *cli_cmd_name;

/* "squashkit CMD: PATH: what went wrong" on stderr. path may be NULL. */
void cli_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The error line for a core error code; for SQK_ERR_IO and SQK_ERR_NOSPACE
 * the errno of the call that just failed, in its words.
 */
void cli_error_code(const char *path, int err);
/* The same with the errno given (0: the code's own words). */
void cli_error_errno(const char *path, int err, int errnum);
/* The help lines of --offset, as every command that reads an image words them. */
#define SQK_HELP_OFFSET                                                                            \
	"      --offset N|auto\n"                                                                  \
	"                    the image starts N bytes into IMAGE (K/M suffixes);\n"                \
	"                    auto looks for it and says where it found it\n"
/* The options that read an image through its dm-verity tree (verityopt.h). */
#define SQK_HELP_VERITY                                                                            \
	"      --root-hash HEX\n"                                                                  \
	"                    read through the image's dm-verity hash tree, every\n"                \
	"                    block checked before use (the area after the image)\n"                \
	"      --root-hash-file F\n"                                                               \
	"                    the root hash is the first line of F\n"                               \
	"      --verity-hash-file F\n"                                                             \
	"                    the hash area is in F\n"                                              \
	"      --verity-hash-offset N\n"                                                           \
	"                    the hash area starts N bytes into its file\n"                         \
	"      --verity-salt HEX\n"                                                                \
	"                    the area has no superblock: the salt (- for none)\n"                  \
	"      --verity-hash ALG\n"                                                                \
	"                    ... and the hash, sha256 (default) or sha512\n"
/* The same after --root-hash, in the wider columns of unimage and mount. */
#define SQK_HELP_VERITY_MORE                                                                       \
	"      --root-hash-file F    the root hash is the first line of F\n"                       \
	"      --verity-hash-file F  the hash area is in F (default: after the image)\n"           \
	"      --verity-hash-offset N\n"                                                           \
	"                            the hash area starts N bytes into its file\n"                 \
	"      --verity-salt HEX     the area has no superblock: its salt (- for none)\n"          \
	"      --verity-hash ALG     ... and its hash, sha256 (default) or sha512\n"
/* An image read over HTTP (remoteopt.h). */
#define SQK_HELP_REMOTE                                                                            \
	"\nIMAGE may be an http:// or https:// URL, read through range requests:\n"                \
	"      --header H    send the header H ('Name: value') with each request\n"                \
	"      --cache-dir DIR\n"                                                                  \
	"                    keep fetched blocks in DIR for the runs after\n"                      \
	"      --cache-size SIZE\n"                                                                \
	"                    at most SIZE bytes in --cache-dir (default 1G)\n"                     \
	"      --download    fetch the whole image first from a server that ignores\n"             \
	"                    range requests (else refused)\n"                                      \
	"      --timeout S   a request that stalls S seconds fails (default 30)\n"                 \
	"      --retries N   try a failed request again N times (default 4)\n"
/* The end of the help of inspect, ls, cat and stat. */
#define SQK_HELP_INSPECTOR_TAIL                                                                    \
	SQK_HELP_OFFSET                                                                            \
	SQK_HELP_VERITY                                                                            \
	"      --stats       print cache counters on stderr at the end\n"                          \
	"  -h, --help        show this help\n" SQK_HELP_REMOTE

/* A usage error: the message, then "Try 'squashkit CMD --help'."; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * getopt_long for the native commands (badopt.c): an option it refuses, or
 * a long option written with one dash (-all-root), is reported in one
 * usage error line naming it as typed, and returned as '?'.
 */
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);
/*
 * A value the library refused (SQK_ERR_ARG) as the usage error line: its
 * words, with the option it names spelled as the command line spells it
 * ("invalid --root-mode '9'"). Returns EXIT_USAGE.
 */
int cli_refused(const char *name);
/* -j N, 1 to 1024 threads, into *threads: 0, or -1 after printing the usage error. */
int cli_threads_option(const char *arg, unsigned *threads);
/*
 * Binary output for stdout: when it is a terminal, say so and return -1
 * (gzip and tar refuse it too); --force writes anyway. 0 otherwise.
 */
int cli_refuse_terminal(const char *what, int force);
/*
 * stdout failed (a reader gone, a full disk): "squashkit CMD: stdout: why"
 * on stderr the first time, nothing after, so that a closed pipe is one
 * line however many writes and flushes find it. errnum 0: unknown.
 */
void cli_stdout_error(int errnum);
/* Flush stdout: 0, or -1 when stdout has failed (said once, as above). */
int cli_stdout_flush(void);
/* 0 leaves out the "Try" line: the compat front ends' errors are one line, as the peers'. */
extern int cli_usage_hint;

/*
 * Text for one-line messages and listings: backslash as \\, newline and tab
 * as \n and \t, other control characters and DEL as \xNN; every other byte
 * as it is. The _len form takes a byte count, so NULs are fine.
 */
void cli_print_escaped(FILE *out, const char *s);
/* An image path of the library's callbacks ("/a/b", "/") as the front ends print it: "a/b", "". */
static inline const char *cli_relpath(const char *path)
{
	return path + (*path == '/');
}
void cli_print_escaped_len(FILE *out, const void *buf, size_t len);

/*
 * 0 (native): a closed stdout is an error to report (main() ignores
 * SIGPIPE for them). 1 (the compat front ends): it kills the command, as
 * it kills the peers' tools, and messages spell options as the peers do.
 */
extern int cli_die_of_sigpipe;

#endif
