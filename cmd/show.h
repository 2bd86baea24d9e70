/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_SHOW_H
#define SQK_SHOW_H

/* What the inspection commands (inspect, ls, cat, stat) share. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct sqk_image;
struct sqk_inode;

/* Symlinks followed while resolving one path, as Linux bounds them. */
#define SQK_SHOW_MAX_SYMLINKS 40

/*
 * Resolve an image path like the kernel would: symlinks met on the way are
 * followed inside the image (an absolute target starts again at the image
 * root, ".." stops at the root), and the last component is followed too when
 * follow_last is set or the path ends with "/". Returns 0 or a negative
 * sqk_err (SQK_ERR_LOOP after too many symlinks).
 */
int sqk_show_resolve(struct sqk_image *img, const char *path, int follow_last,
		     struct sqk_inode *ino);

/* PATH from the root without repeated or trailing slashes ("/" for the root); malloc'd. */
char *sqk_show_normalise(const char *path);

/* "squashkit CMD: IMAGE: /path: what went wrong" for a path inside an image. */
void sqk_show_path_error(const char *image, const char *path, const char *what);
void sqk_show_path_code(const char *image, const char *path, int err);

/* "drwxr-xr-x" with s/S/t/T, into out[11]. */
void sqk_mode_string(mode_t mode, char out[11]);

/* A time as "YYYY-MM-DD HH:MM[:SS]" in UTC. */
void sqk_time_string(uint32_t t, int seconds, char *out, size_t len);

/* The JSON name of a basic type 1..7 ("file", "block_device", ...). */
const char *sqk_json_type(unsigned basic_type);

/* The size a kernel mount reports: a directory counts 3 bytes more than its listing. */
uint64_t sqk_show_size(const struct sqk_inode *ino);

/* Is buf valid UTF-8 (no overlongs, no surrogates)? */
int sqk_utf8_valid(const uint8_t *buf, size_t len);

/*
 * buf as a JSON string: valid UTF-8 passes through, control characters are
 * escaped, and a byte that is not part of valid UTF-8 becomes \u00XX (JSON
 * cannot carry it as it is).
 */
void sqk_json_bytes(FILE *out, const void *buf, size_t len);
static inline void sqk_json_text(FILE *out, const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	sqk_json_bytes(out, s, n);
}

/* buf with unsafe bytes escaped as \xNN (a byte count, so NULs are fine). */
void sqk_print_escaped_len(FILE *out, const void *buf, size_t len);

/* Flush stdout; on failure print "squashkit CMD: stdout: why" and return -1. */
int sqk_show_flush(void);

/*
 * After getopt_long returned '?' (with opterr = 0): one line naming the bad
 * option, then "Try 'squashkit CMD --help'."; returns EXIT_USAGE.
 */
int sqk_show_bad_option(char **argv);

/* A set of 64-bit keys (open addressing; a slot holds key + 1, 0 = empty). */
struct sqk_u64set {
	uint64_t *slot;
	size_t cap, count;
};

/* 1 when key was already there, 0 when added, or SQK_ERR_NOMEM. */
int sqk_u64set_add(struct sqk_u64set *s, uint64_t key);
void sqk_u64set_free(struct sqk_u64set *s);

/* Write all of buf to fd; 0 or -1 with errno. */
int sqk_write_all(int fd, const void *buf, size_t len);

#endif
