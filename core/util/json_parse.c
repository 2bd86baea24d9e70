// SPDX-License-Identifier: BSD-2-Clause
/*
 * A strict JSON reader (json_parse.h): recursive descent over the text,
 * values and decoded strings in an arena freed with the document.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json_parse.h"
#include "parse.h"

#define MAX_DEPTH 64

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

struct sqk_jdoc {
	struct chunk *chunks;
	struct sqk_jv root;
};

struct parser {
	const char *s;
	size_t len, pos;
	const char *why;
	struct sqk_jdoc *d;
	int nomem;
};

static void *alloc(struct parser *p, size_t len)
{
	struct chunk *c = p->d->chunks;
	void *r;

	len = (len + 15) & ~(size_t)15;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > 16384 ? len : 16384;

		c = malloc(sizeof(*c) + cap);
		if (!c) {
			p->nomem = 1;
			return NULL;
		}
		c->cap = cap;
		c->used = 0;
		c->next = p->d->chunks;
		p->d->chunks = c;
	}
	r = c->data + c->used;
	c->used += len;
	return r;
}

static int fail(struct parser *p, const char *why)
{
	if (!p->why)
		p->why = why;
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* Append code point cp as UTF-8 to out (room for 4 bytes). */
static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

static int hex4(struct parser *p, uint32_t *out)
{
	uint32_t v = 0;
	int i, d;

	if (p->len - p->pos < 4)
		return fail(p, "a \\u escape needs four hex digits");
	for (i = 0; i < 4; i++) {
		d = sqk_parse_hex_digit(p->s[p->pos + (size_t)i]);
		if (d < 0)
			return fail(p, "a \\u escape needs four hex digits");
		v = v << 4 | (uint32_t)d;
	}
	p->pos += 4;
	*out = v;
	return 0;
}

/* A string at p->pos (its opening quote), decoded into the arena. */
static int string(struct parser *p, const char **out, size_t *out_len)
{
	size_t start = ++p->pos, n = 0;
	char *buf;

	/* A decoded string is never longer than its text. */
	while (p->pos < p->len && p->s[p->pos] != '"')
		p->pos += p->s[p->pos] == '\\' && p->pos + 1 < p->len ? 2 : 1;
	if (p->pos >= p->len)
		return fail(p, "a string does not end");
	buf = alloc(p, p->pos - start + 1);
	if (!buf)
		return -1;
	p->pos = start;
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos];
		uint32_t cp, lo;
		size_t k;

		if (c < 0x20)
			return fail(p, "a control character in a string");
		if (c != '\\') {
			k = utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
			if (!k)
				return fail(p, "a string is not valid UTF-8");
			memcpy(buf + n, p->s + p->pos, k);
			n += k;
			p->pos += k;
			continue;
		}
		c = (unsigned char)p->s[++p->pos];
		p->pos++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			buf[n++] = (char)c;
			break;
		case 'b':
			buf[n++] = '\b';
			break;
		case 'f':
			buf[n++] = '\f';
			break;
		case 'n':
			buf[n++] = '\n';
			break;
		case 'r':
			buf[n++] = '\r';
			break;
		case 't':
			buf[n++] = '\t';
			break;
		case 'u':
			if (hex4(p, &cp))
				return -1;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(p, "a lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->len - p->pos < 6 || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u')
					return fail(p, "a lone high surrogate");
				p->pos += 2;
				if (hex4(p, &lo))
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "a lone high surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			n += put_utf8(buf + n, cp);
			break;
		default:
			return fail(p, "an unknown escape in a string");
		}
	}
	p->pos++;
	buf[n] = '\0';
	*out = buf;
	*out_len = n;
	return 0;
}

/* A scalar as written, text[start..pos), into the arena: the document outlives the text. */
static int copy_text(struct parser *p, struct sqk_jv *v, size_t start)
{
	char *t = alloc(p, p->pos - start + 1);

	if (!t)
		return -1;
	v->len = p->pos - start;
	memcpy(t, p->s + start, v->len);
	t[v->len] = '\0';
	v->str = t;
	return 0;
}

static size_t digits(struct parser *p)
{
	size_t start = p->pos;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos - start;
}

static int number(struct parser *p, struct sqk_jv *v)
{
	size_t start = p->pos, n;

	if (p->s[p->pos] == '-')
		p->pos++;
	n = digits(p);
	if (!n || (n > 1 && p->s[p->pos - n] == '0'))
		return fail(p, "not a number");
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!digits(p))
			return fail(p, "not a number");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!digits(p))
			return fail(p, "not a number");
	}
	v->type = SQK_JNUM;
	return copy_text(p, v, start);
}

static int literal(struct parser *p, const char *word, enum sqk_jtype type, struct sqk_jv *v)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "not a JSON value");
	v->type = type;
	p->pos += n;
	return copy_text(p, v, p->pos - n);
}

static int value(struct parser *p, struct sqk_jv *v, int depth);

/* An array or object at p->pos: its members collected, then copied into the arena. */
static int container(struct parser *p, struct sqk_jv *v, int depth)
{
	char close = p->s[p->pos] == '[' ? ']' : '}';
	struct sqk_jv *kids = NULL, kid;
	size_t n = 0, cap = 0, i;
	int err = 0;

	if (depth >= MAX_DEPTH)
		return fail(p, "nested more than 64 levels deep");
	v->type = close == ']' ? SQK_JARR : SQK_JOBJ;
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		memset(&kid, 0, sizeof(kid));
		skip_ws(p);
		if (close == '}') {
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				err = fail(p, "an object member needs a string key");
				break;
			}
			if ((err = string(p, &kid.key, &kid.key_len)))
				break;
			for (i = 0; i < n; i++)
				if (kids[i].key_len == kid.key_len &&
				    !memcmp(kids[i].key, kid.key, kid.key_len))
					break;
			if (i < n) {
				err = fail(p, "a key given twice in one object");
				break;
			}
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				err = fail(p, "a ':' is missing after a key");
				break;
			}
			p->pos++;
		}
		if ((err = value(p, &kid, depth + 1)))
			break;
		if (n == cap) {
			struct sqk_jv *k = realloc(kids, (cap = cap ? cap * 2 : 8) * sizeof(*k));

			if (!k) {
				p->nomem = 1;
				err = -1;
				break;
			}
			kids = k;
		}
		kids[n++] = kid;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			break;
		}
		err = fail(p, close == ']' ? "a ',' or ']' is missing" : "a ',' or '}' is missing");
		break;
	}
	if (!err && (v->kids = alloc(p, n * sizeof(*kids))) != NULL) {
		memcpy(v->kids, kids, n * sizeof(*kids));
		v->n = n;
	} else {
		err = -1;
	}
	free(kids);
	return err;
}

static int value(struct parser *p, struct sqk_jv *v, int depth)
{
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, "the text ends where a value should be");
	switch (p->s[p->pos]) {
	case '{':
	case '[':
		return container(p, v, depth);
	case '"':
		v->type = SQK_JSTR;
		return string(p, &v->str, &v->len);
	case 't':
		return literal(p, "true", SQK_JBOOL, v);
	case 'f':
		return literal(p, "false", SQK_JBOOL, v);
	case 'n':
		return literal(p, "null", SQK_JNULL, v);
	}
	return number(p, v);
}

int sqk_json_parse(const char *text, size_t len, struct sqk_jdoc **doc, size_t *where,
		   const char **why)
{
	struct parser p = {text, len, 0, NULL, NULL, 0};
	int err;

	*doc = NULL;
	p.d = calloc(1, sizeof(*p.d));
	if (!p.d)
		return SQK_ERR_NOMEM;
	err = value(&p, &p.d->root, 0);
	if (!err) {
		skip_ws(&p);
		if (p.pos < p.len)
			err = fail(&p, "more text after the value");
	}
	if (err) {
		sqk_json_free(p.d);
		if (p.nomem)
			return SQK_ERR_NOMEM;
		*where = p.pos;
		*why = p.why;
		return SQK_ERR_CORRUPT;
	}
	*doc = p.d;
	return 0;
}

const struct sqk_jv *sqk_json_root(const struct sqk_jdoc *d)
{
	return &d->root;
}

void sqk_json_free(struct sqk_jdoc *d)
{
	struct chunk *c, *next;

	if (!d)
		return;
	for (c = d->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(d);
}

const struct sqk_jv *sqk_json_get(const struct sqk_jv *v, const char *key)
{
	size_t i, n = strlen(key);

	if (!v || v->type != SQK_JOBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (v->kids[i].key_len == n && !memcmp(v->kids[i].key, key, n))
			return &v->kids[i];
	return NULL;
}

const char *sqk_json_str(const struct sqk_jv *v, const char *key)
{
	const struct sqk_jv *m = sqk_json_get(v, key);

	return m && m->type == SQK_JSTR ? m->str : NULL;
}

int sqk_json_u64(const struct sqk_jv *v, uint64_t *out)
{
	uint64_t r = 0;
	size_t i;

	if (!v || v->type != SQK_JNUM || !v->len || v->len > 20)
		return SQK_ERR_CORRUPT;
	for (i = 0; i < v->len; i++) {
		unsigned d = (unsigned)(v->str[i] - '0');

		if (d > 9 || r > (UINT64_MAX - d) / 10)
			return SQK_ERR_CORRUPT;
		r = r * 10 + d;
	}
	*out = r;
	return 0;
}
