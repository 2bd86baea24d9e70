// SPDX-License-Identifier: BSD-2-Clause
/*
 * jsonq: check that a file is one valid JSON text (RFC 8259, strictly: no
 * trailing commas, no control characters in strings, valid UTF-8, no
 * duplicate keys) and print values picked by JSON pointers, so the shell
 * tests need neither python nor jq. A lone \udc80..\udcff is the byte
 * 0x80..0xff outside UTF-8 that squashkit's JSON writes so (surrogateescape)
 * and prints as that byte; any other lone surrogate is an error.
 *
 *   jsonq FILE|- [POINTER...]
 *
 * A pointer is "/key/0/key" (RFC 6901, with ~0 and ~1). Two extra
 * components: "*" visits every member or element (one line each), and a
 * last "#" prints how many members or elements there are; "@" prints an
 * object's keys. Strings print decoded, other scalars as written, arrays and
 * objects as "[array]" / "{object}". A pointer that matches nothing prints
 * "<missing>" and the exit status is 3. Invalid JSON: a message, status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct node {
	enum kind kind;
	char *text; /* number or bool as written; string decoded */
	size_t len;
	char *key; /* as a member */
	size_t key_len;
	struct node *first, *last, *next; /* members or elements, in order */
	size_t nkids;
};

/* Every allocation, so that all of it is freed at exit (leak checkers run the tests). */
static void **allocs;
static size_t nallocs, callocs;

static void *track(void *p)
{
	if (!p) {
		perror("jsonq");
		exit(2);
	}
	if (nallocs == callocs) {
		void **a = realloc(allocs, (callocs ? callocs * 2 : 256) * sizeof(*a));

		if (!a) {
			perror("jsonq");
			exit(2);
		}
		allocs = a;
		callocs = callocs ? callocs * 2 : 256;
	}
	allocs[nallocs++] = p;
	return p;
}

static void free_all(void)
{
	while (nallocs)
		free(allocs[--nallocs]);
	free(allocs);
}

struct parser {
	const unsigned char *p, *end;
	const unsigned char *start;
	int depth;
	const char *error;
};

static struct node *value(struct parser *ps);

static void fail(struct parser *ps, const char *msg)
{
	if (!ps->error)
		ps->error = msg;
}

static void ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct node *new_node(enum kind k)
{
	struct node *n = track(calloc(1, sizeof(*n)));

	n->kind = k;
	return n;
}

static void add_kid(struct node *n, struct node *kid)
{
	if (n->last)
		n->last->next = kid;
	else
		n->first = kid;
	n->last = kid;
	n->nkids++;
}

static void put_utf8(char *out, size_t *len, unsigned long cp)
{
	if (cp < 0x80) {
		out[(*len)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*len)++] = (char)(0xc0 | (cp >> 6));
		out[(*len)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*len)++] = (char)(0xe0 | (cp >> 12));
		out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*len)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*len)++] = (char)(0xf0 | (cp >> 18));
		out[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*len)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int hex4(struct parser *ps, unsigned long *v)
{
	int i;

	*v = 0;
	if (ps->end - ps->p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		unsigned char c = *ps->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned long)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* One UTF-8 sequence of the input, checked; its length or 0. */
static size_t utf8_len(const unsigned char *b, const unsigned char *end)
{
	unsigned long cp;
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
	if ((size_t)(end - b) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((b[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (b[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int string(struct parser *ps, char **out, size_t *outlen)
{
	const unsigned char *q = ps->p + 1;
	char *s;
	size_t len = 0;

	/*
	 * Decoded text is never longer than its source: up to the closing
	 * quote (or the end of the input, which the loop below reports).
	 */
	while (q < ps->end && *q != '"')
		q += *q == '\\' && q + 1 < ps->end ? 2 : 1;
	s = track(malloc((size_t)(q - ps->p) + 1));

	ps->p++; /* the opening quote */
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			fail(ps, "unterminated string");
			break;
		}
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			s[len] = '\0';
			*out = s;
			*outlen = len;
			return 0;
		}
		if (c < 0x20) {
			fail(ps, "control character in a string");
			break;
		}
		if (c == '\\') {
			unsigned long cp, lo;

			if (++ps->p >= ps->end) {
				fail(ps, "unterminated escape");
				break;
			}
			c = *ps->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				s[len++] = (char)c;
				continue;
			case 'b':
				s[len++] = '\b';
				continue;
			case 'f':
				s[len++] = '\f';
				continue;
			case 'n':
				s[len++] = '\n';
				continue;
			case 'r':
				s[len++] = '\r';
				continue;
			case 't':
				s[len++] = '\t';
				continue;
			case 'u':
				break;
			default:
				fail(ps, "bad escape");
				goto out;
			}
			if (hex4(ps, &cp) != 0) {
				fail(ps, "bad \\u escape");
				break;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
					fail(ps, "lone surrogate");
					break;
				}
				ps->p += 2;
				if (hex4(ps, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff) {
					fail(ps, "bad surrogate pair");
					break;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc80 && cp <= 0xdcff) {
				/* A byte outside UTF-8, escaped as surrogateescape does. */
				s[len++] = (char)(cp - 0xdc00);
				continue;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(ps, "lone surrogate");
				break;
			}
			put_utf8(s, &len, cp);
			continue;
		}
		{
			size_t n = utf8_len(ps->p, ps->end);

			if (!n) {
				fail(ps, "invalid UTF-8 in a string");
				break;
			}
			memcpy(s + len, ps->p, n);
			len += n;
			ps->p += n;
		}
	}
out:
	return -1;
}

static void digits(struct parser *ps)
{
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
}

static int is_digit(struct parser *ps)
{
	return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

static struct node *number(struct parser *ps)
{
	const unsigned char *s = ps->p;
	struct node *n;

	if (*ps->p == '-')
		ps->p++;
	if (!is_digit(ps)) {
		fail(ps, "bad number");
		return NULL;
	}
	if (*ps->p == '0')
		ps->p++;
	else
		digits(ps);
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!is_digit(ps)) {
			fail(ps, "bad fraction");
			return NULL;
		}
		digits(ps);
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!is_digit(ps)) {
			fail(ps, "bad exponent");
			return NULL;
		}
		digits(ps);
	}
	n = new_node(J_NUM);
	n->len = (size_t)(ps->p - s);
	n->text = track(strndup((const char *)s, n->len));
	return n;
}

static struct node *literal(struct parser *ps, const char *word, enum kind k)
{
	size_t len = strlen(word);
	struct node *n;

	if ((size_t)(ps->end - ps->p) < len || memcmp(ps->p, word, len) != 0) {
		fail(ps, "unexpected character");
		return NULL;
	}
	ps->p += len;
	n = new_node(k);
	n->text = track(strdup(word));
	n->len = len;
	return n;
}

static struct node *container(struct parser *ps, int obj)
{
	struct node *n = new_node(obj ? J_OBJ : J_ARR);
	char close = obj ? '}' : ']';

	if (++ps->depth > 512) {
		fail(ps, "nested too deeply");
		return n;
	}
	ps->p++;
	ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return n;
	}
	for (;;) {
		char *key = NULL;
		size_t key_len = 0;
		struct node *kid, *k;

		ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a key");
				return n;
			}
			if (string(ps, &key, &key_len) != 0)
				return n;
			for (k = n->first; k; k = k->next)
				if (k->key_len == key_len && memcmp(k->key, key, key_len) == 0)
					fail(ps, "duplicate key");
			ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				fail(ps, "expected ':'");
				return n;
			}
			ps->p++;
		}
		kid = value(ps);
		if (!kid)
			return n;
		kid->key = key;
		kid->key_len = key_len;
		add_kid(n, kid);
		ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return n;
		}
		fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		return n;
	}
}

static struct node *value(struct parser *ps)
{
	struct node *n;

	ws(ps);
	if (ps->error)
		return NULL;
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		n = container(ps, 1);
		break;
	case '[':
		n = container(ps, 0);
		break;
	case '"':
		n = new_node(J_STR);
		if (string(ps, &n->text, &n->len) != 0)
			return NULL;
		break;
	case 't':
		n = literal(ps, "true", J_BOOL);
		break;
	case 'f':
		n = literal(ps, "false", J_BOOL);
		break;
	case 'n':
		n = literal(ps, "null", J_NULL);
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			n = number(ps);
		else {
			fail(ps, "unexpected character");
			n = NULL;
		}
	}
	return ps->error ? NULL : n;
}

static void print_node(const struct node *n)
{
	if (n->kind == J_ARR)
		fputs("[array]", stdout);
	else if (n->kind == J_OBJ)
		fputs("{object}", stdout);
	else
		fwrite(n->text, 1, n->len, stdout);
	fputc('\n', stdout);
}

/* Decode one pointer component (~1 = "/", ~0 = "~") into out. */
static size_t component(const char *s, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '~' && i + 1 < len && (s[i + 1] == '0' || s[i + 1] == '1')) {
			out[n++] = s[i + 1] == '0' ? '~' : '/';
			i++;
		} else {
			out[n++] = s[i];
		}
	}
	return n;
}

/* Print what ptr picks under n; returns how many values matched. */
static int query(const struct node *n, const char *ptr)
{
	const struct node *k;
	const char *next;
	char *comp;
	size_t len, clen, i;
	int found = 0;

	if (*ptr == '\0') {
		print_node(n);
		return 1;
	}
	if (*ptr != '/')
		return 0;
	ptr++;
	next = strchr(ptr, '/');
	len = next ? (size_t)(next - ptr) : strlen(ptr);
	if (!next && len == 1 && *ptr == '#' && (n->kind == J_ARR || n->kind == J_OBJ)) {
		printf("%zu\n", n->nkids);
		return 1;
	}
	if (!next && len == 1 && *ptr == '@' && n->kind == J_OBJ) {
		for (k = n->first; k; k = k->next) {
			fwrite(k->key, 1, k->key_len, stdout);
			fputc('\n', stdout);
		}
		return 1;
	}
	if (len == 1 && *ptr == '*') {
		for (k = n->first; k; k = k->next)
			found += query(k, ptr + len);
		return found;
	}
	comp = track(malloc(len + 1));
	clen = component(ptr, len, comp);
	comp[clen] = '\0';
	if (n->kind == J_OBJ) {
		for (k = n->first; k; k = k->next)
			if (k->key_len == clen && memcmp(k->key, comp, clen) == 0)
				found += query(k, ptr + len);
	} else if (n->kind == J_ARR && clen > 0 && strspn(comp, "0123456789") == clen) {
		i = strtoul(comp, NULL, 10);
		for (k = n->first; k && i > 0; k = k->next)
			i--;
		if (k)
			found += query(k, ptr + len);
	}
	return found;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			char *p = realloc(buf, cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	if (f != stdin)
		fclose(f);
	return buf ? buf : calloc(1, 1);
}

int main(int argc, char **argv)
{
	struct parser ps;
	struct node *root;
	size_t len;
	char *buf;
	int i, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: jsonq FILE|- [POINTER...]\n");
		return 2;
	}
	buf = slurp(argv[1], &len);
	if (!buf) {
		perror(argv[1]);
		return 2;
	}
	track(buf);
	atexit(free_all);
	memset(&ps, 0, sizeof(ps));
	ps.start = ps.p = (const unsigned char *)buf;
	ps.end = ps.p + len;
	root = value(&ps);
	ws(&ps);
	if (!ps.error && ps.p != ps.end)
		fail(&ps, "trailing content");
	if (ps.error || !root) {
		fprintf(stderr, "jsonq: %s: invalid JSON at byte %ld: %s\n", argv[1],
			(long)(ps.p - ps.start), ps.error ? ps.error : "no value");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		if (!query(root, argv[i])) {
			printf("<missing>\n");
			status = 3;
		}
	}
	return status;
}
