// SPDX-License-Identifier: BSD-2-Clause
/* The JSON writer: commas, nesting and string escapes in one place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json.h"

enum { LEVEL_OBJECT = 1, LEVEL_NONEMPTY = 2, LEVEL_LINES = 4 };

void sqk_json_init_file(struct sqk_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

void sqk_json_init_buf(struct sqk_json *j)
{
	memset(j, 0, sizeof(*j));
}

const char *sqk_json_buffer(const struct sqk_json *j, size_t *len)
{
	if (len)
		*len = j->len;
	return j->buf ? j->buf : "";
}

void sqk_json_release(struct sqk_json *j)
{
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
}

/* The staged text goes to the stream in one piece. */
static void flush_stage(struct sqk_json *j)
{
	if (j->out && j->staged) {
		fwrite(j->stage, 1, j->staged, j->out);
		j->staged = 0;
	}
}

static void put(struct sqk_json *j, const void *p, size_t n)
{
	if (j->out) {
		if (j->staged + n > sizeof(j->stage)) {
			flush_stage(j);
			if (n > sizeof(j->stage)) {
				fwrite(p, 1, n, j->out);
				return;
			}
		}
		/* Most pieces are a byte or two: a call to memcpy costs more. */
		if (n <= 8) {
			const char *c = p;
			size_t i;

			for (i = 0; i < n; i++)
				j->stage[j->staged + i] = c[i];
		} else {
			memcpy(j->stage + j->staged, p, n);
		}
		j->staged += n;
		return;
	}
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		char *b;

		while (cap < j->len + n + 1)
			cap *= 2;
		b = realloc(j->buf, cap);
		if (!b) {
			j->err = SQK_ERR_NOMEM;
			return;
		}
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, p, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct sqk_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/*
 * Before a key or a value: check it may come here and write the comma (and
 * the newline of a SQK_JSON_LINES container). 0 when nothing may be written.
 */
static int start(struct sqk_json *j, int is_key)
{
	uint8_t *l;

	if (j->err)
		return 0;
	if (j->depth == 0) {
		if (is_key || j->done) {
			j->err = SQK_ERR_ARG;
			return 0;
		}
		return 1;
	}
	l = &j->level[j->depth - 1];
	if (*l & LEVEL_OBJECT) {
		if (is_key == j->want_value) {
			j->err = SQK_ERR_ARG;
			return 0;
		}
		if (!is_key) {
			j->want_value = 0;
			return 1;
		}
	} else if (is_key) {
		j->err = SQK_ERR_ARG;
		return 0;
	}
	if (*l & LEVEL_NONEMPTY)
		put(j, ",", 1);
	if (*l & LEVEL_LINES)
		put(j, "\n", 1);
	*l |= LEVEL_NONEMPTY;
	return !j->err;
}

/* After a value: at the top level it is the whole document, and it goes out. */
static void end_value(struct sqk_json *j)
{
	if (j->depth == 0) {
		j->done = 1;
		flush_stage(j);
	}
}

static void begin(struct sqk_json *j, int object, int flags, char c)
{
	if (!start(j, 0))
		return;
	if (j->depth == SQK_JSON_MAX_DEPTH) {
		j->err = SQK_ERR_ARG;
		return;
	}
	j->level[j->depth++] = (uint8_t)((object ? LEVEL_OBJECT : 0) |
					 ((flags & SQK_JSON_LINES) ? LEVEL_LINES : 0));
	put(j, &c, 1);
}

static void end(struct sqk_json *j, int object, char c)
{
	uint8_t l;

	if (j->err)
		return;
	if (j->depth == 0 || j->want_value || !(j->level[j->depth - 1] & LEVEL_OBJECT) != !object) {
		j->err = SQK_ERR_ARG;
		return;
	}
	l = j->level[--j->depth];
	if ((l & LEVEL_LINES) && (l & LEVEL_NONEMPTY))
		put(j, "\n", 1);
	put(j, &c, 1);
	end_value(j);
}

void sqk_json_begin_object(struct sqk_json *j, int flags)
{
	begin(j, 1, flags, '{');
}

void sqk_json_end_object(struct sqk_json *j)
{
	end(j, 1, '}');
}

void sqk_json_begin_array(struct sqk_json *j, int flags)
{
	begin(j, 0, flags, '[');
}

void sqk_json_end_array(struct sqk_json *j)
{
	end(j, 0, ']');
}

size_t sqk_utf8_seq(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint32_t cp;
	size_t n, i;

	if (b[0] < 0x80)
		return 1;
	if (b[0] >= 0xc2 && b[0] <= 0xdf)
		n = 2, cp = b[0] & 0x1f;
	else if (b[0] >= 0xe0 && b[0] <= 0xef)
		n = 3, cp = b[0] & 0x0f;
	else if (b[0] >= 0xf0 && b[0] <= 0xf4)
		n = 4, cp = b[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((b[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (b[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int sqk_utf8_valid(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i = 0;

	while (i < len) {
		size_t n = sqk_utf8_seq(b + i, len - i);

		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

static const char hex[] = "0123456789abcdef";

/* The quoted string; runs of bytes that need no escape go out in one piece. */
static void quote(struct sqk_json *j, const uint8_t *b, size_t len)
{
	size_t i = 0, run = 0;

	put(j, "\"", 1);
	while (i < len) {
		uint8_t c = b[i];
		char esc[6] = {'\\', (char)c};
		size_t elen = 2;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t n = sqk_utf8_seq(b + i, len - i);

			if (n) {
				i += n;
				continue;
			}
		}
		if (c == '\n' || c == '\t') {
			esc[1] = c == '\n' ? 'n' : 't';
		} else if (c != '"' && c != '\\') {
			/*
			 * A control character or DEL is its own code point; a
			 * byte outside valid UTF-8 is the lone surrogate
			 * U+DC00 + byte, which no text holds, so that it can
			 * never be read as the character of the same value.
			 */
			memcpy(esc, c >= 0x80 ? "\\udc" : "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
		}
		put(j, b + run, i - run);
		put(j, esc, elen);
		run = ++i;
	}
	put(j, b + run, len - run);
	put(j, "\"", 1);
}

void sqk_json_key(struct sqk_json *j, const char *key)
{
	if (!start(j, 1))
		return;
	quote(j, (const uint8_t *)key, strlen(key));
	put(j, ":", 1);
	j->want_value = 1;
}

void sqk_json_bytes(struct sqk_json *j, const void *buf, size_t len)
{
	if (!start(j, 0))
		return;
	quote(j, buf, len);
	end_value(j);
}

void sqk_json_string(struct sqk_json *j, const char *s)
{
	sqk_json_bytes(j, s, strlen(s));
}

void sqk_json_blob(struct sqk_json *j, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	if (sqk_utf8_valid(buf, len)) {
		sqk_json_bytes(j, buf, len);
		return;
	}
	sqk_json_begin_object(j, 0);
	sqk_json_key(j, "hex");
	if (!start(j, 0))
		return;
	put(j, "\"", 1);
	for (i = 0; i < len; i++) {
		char h[2] = {hex[b[i] >> 4], hex[b[i] & 15]};

		put(j, h, 2);
	}
	put(j, "\"", 1);
	sqk_json_end_object(j);
}

static void scalar(struct sqk_json *j, const char *text)
{
	if (!start(j, 0))
		return;
	puts_(j, text);
	end_value(j);
}

/* v in decimal, with a leading '-' when neg; a number a line of ls -l has ten of. */
static void decimal(struct sqk_json *j, uint64_t v, int neg)
{
	char t[24], *p = t + sizeof(t);

	if (!start(j, 0))
		return;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	put(j, p, (size_t)(t + sizeof(t) - p));
	end_value(j);
}

void sqk_json_uint(struct sqk_json *j, uint64_t v)
{
	decimal(j, v, 0);
}

void sqk_json_int(struct sqk_json *j, int64_t v)
{
	/* The magnitude of INT64_MIN does not fit an int64_t: negate as unsigned. */
	decimal(j, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void sqk_json_double(struct sqk_json *j, double v, int decimals)
{
	/* The largest double has 309 digits before the point. */
	char t[400];

	if (!isfinite(v)) {
		scalar(j, "null");
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	snprintf(t, sizeof(t), "%.*f", decimals, v);
	scalar(j, t);
}

void sqk_json_bool(struct sqk_json *j, int v)
{
	scalar(j, v ? "true" : "false");
}

void sqk_json_null(struct sqk_json *j)
{
	scalar(j, "null");
}

void sqk_json_key_string(struct sqk_json *j, const char *key, const char *s)
{
	sqk_json_key(j, key);
	sqk_json_string(j, s);
}

void sqk_json_key_uint(struct sqk_json *j, const char *key, uint64_t v)
{
	sqk_json_key(j, key);
	sqk_json_uint(j, v);
}

void sqk_json_key_double(struct sqk_json *j, const char *key, double v, int decimals)
{
	sqk_json_key(j, key);
	sqk_json_double(j, v, decimals);
}

void sqk_json_key_bool(struct sqk_json *j, const char *key, int v)
{
	sqk_json_key(j, key);
	sqk_json_bool(j, v);
}

void sqk_json_key_null(struct sqk_json *j, const char *key)
{
	sqk_json_key(j, key);
	sqk_json_null(j);
}

int sqk_json_finish(struct sqk_json *j)
{
	if (!j->err && (j->depth || j->want_value || !j->done))
		j->err = SQK_ERR_ARG;
	if (!j->err)
		put(j, "\n", 1);
	flush_stage(j);
	return j->err;
}
