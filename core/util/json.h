/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_JSON_H
#define SQK_JSON_H

/*
 * The one JSON writer: every --json output goes through it, so every one
 * is valid JSON. The writer puts the commas and colons; the caller says
 * what comes next (begin/end of objects and arrays, keys, values).
 *
 * Strings are always valid UTF-8: valid sequences pass through, '"' and
 * '\' are escaped with a backslash, newline and tab as \n and \t, every
 * other control character (0x00-0x1f, 0x7f) as \u00XX, and each byte that
 * is not part of a valid UTF-8 sequence (overlong forms, surrogates and
 * values past U+10FFFF are not) as \udcXX, XX being the byte in lower-case
 * hex: the lone surrogate U+DC80..U+DCFF, as Python's "surrogateescape"
 * decodes such a byte. No valid UTF-8 holds a surrogate, so raw bytes and
 * real characters never give the same string, and every string gives its
 * bytes back. Doubles print with a fixed number of decimals; one that is
 * not finite is written as null.
 *
 * The output goes to a FILE (errors are the stream's, as with stdio) or to
 * a growing buffer in memory. For a FILE the text is staged in the writer
 * and handed to the stream in pieces: when the stage is full, when the
 * top-level value is complete, and by sqk_json_finish() (a document left
 * unfinished may never reach the stream). A misuse (a value in an object without its
 * key, an end that does not match, nesting past SQK_JSON_MAX_DEPTH) or a
 * failed allocation is remembered and returned by sqk_json_finish().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SQK_JSON_MAX_DEPTH 32

/* Containers opened with this flag put each element on a line of its own. */
#define SQK_JSON_LINES 1

/* Text staged for a FILE before it goes to the stream. */
#define SQK_JSON_STAGE 4096

struct sqk_json {
	FILE *out; /* NULL: into buf */
	char stage[SQK_JSON_STAGE];
	size_t staged;
	char *buf; /* malloc'd, NUL-terminated */
	size_t len, cap;
	int err; /* first misuse or allocation failure */
	unsigned depth;
	int want_value;			   /* a key was written, its value comes next */
	int done;			   /* the top-level value is complete */
	uint8_t level[SQK_JSON_MAX_DEPTH]; /* per open container: LEVEL_* bits */
};

void sqk_json_init_file(struct sqk_json *j, FILE *out);
void sqk_json_init_buf(struct sqk_json *j);
/* The text written into the buffer so far (NUL-terminated), and its length. */
const char *sqk_json_buffer(const struct sqk_json *j, size_t *len);
/* Give back the buffer. */
void sqk_json_release(struct sqk_json *j);

void sqk_json_begin_object(struct sqk_json *j, int flags);
void sqk_json_end_object(struct sqk_json *j);
void sqk_json_begin_array(struct sqk_json *j, int flags);
void sqk_json_end_array(struct sqk_json *j);

/* A member's name; its value comes next. */
void sqk_json_key(struct sqk_json *j, const char *key);

void sqk_json_string(struct sqk_json *j, const char *s);
/* len bytes of buf as a string (NULs and any other bytes allowed). */
void sqk_json_bytes(struct sqk_json *j, const void *buf, size_t len);
/*
 * A value that may be binary (an xattr's): a string when it is valid UTF-8,
 * else the object {"hex":"..."} with its bytes in lower-case hex, easier to
 * read than a string of escapes for data that is not text.
 */
void sqk_json_blob(struct sqk_json *j, const void *buf, size_t len);
void sqk_json_uint(struct sqk_json *j, uint64_t v);
void sqk_json_int(struct sqk_json *j, int64_t v);
/* v with decimals digits after the point ("%.*f"); null when not finite. */
void sqk_json_double(struct sqk_json *j, double v, int decimals);
void sqk_json_bool(struct sqk_json *j, int v);
void sqk_json_null(struct sqk_json *j);

/* A key and its value in one call. */
void sqk_json_key_string(struct sqk_json *j, const char *key, const char *s);
void sqk_json_key_uint(struct sqk_json *j, const char *key, uint64_t v);
void sqk_json_key_double(struct sqk_json *j, const char *key, double v, int decimals);
void sqk_json_key_bool(struct sqk_json *j, const char *key, int v);
void sqk_json_key_null(struct sqk_json *j, const char *key);

/*
 * End the document with a newline. 0, or the first error: SQK_ERR_ARG for
 * a misuse or an unfinished document, SQK_ERR_NOMEM when the buffer could
 * not grow.
 */
int sqk_json_finish(struct sqk_json *j);

/* Is buf valid UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF)? */
int sqk_utf8_valid(const void *buf, size_t len);
/* Length of the valid UTF-8 sequence at buf (1..4), or 0 when it is not one. */
size_t sqk_utf8_seq(const void *buf, size_t len);

#endif
