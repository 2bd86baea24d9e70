// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON reader against documents written by hand: an OCI index as
 * registries write it, every escape and the surrogate pairs decoded to
 * UTF-8, numbers, nesting; and each kind of invalid text refused at the
 * right place (trailing commas, control characters, bad UTF-8, lone
 * surrogates, keys given twice, leading zeros, nesting past 64, text after
 * the value).
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/json_parse.h"

static void test_index(void)
{
	static const char text[] =
		"{\n  \"schemaVersion\": 2,\n  \"manifests\": [\n    {\n"
		"      \"mediaType\": \"application/vnd.oci.image.manifest.v1+json\",\n"
		"      \"digest\": \"sha256:0123\",\n      \"size\": 525,\n"
		"      \"platform\": {\"architecture\": \"amd64\", \"os\": \"linux\"},\n"
		"      \"annotations\": {\"org.opencontainers.image.ref.name\": \"3.19\"}\n"
		"    }\n  ]\n}\n";
	struct sqk_jdoc *d;
	const struct sqk_jv *r, *m;
	size_t where;
	const char *why;
	uint64_t v = 0;

	is_int(sqk_json_parse(text, strlen(text), &d, &where, &why), 0, "an OCI index parses");
	r = sqk_json_root(d);
	ok(r->type == SQK_JOBJ && r->n == 2, "its root is an object of two members");
	ok(!sqk_json_u64(sqk_json_get(r, "schemaVersion"), &v) && v == 2, "schemaVersion 2");
	m = sqk_json_get(r, "manifests");
	ok(m && m->type == SQK_JARR && m->n == 1, "one manifest");
	m = &m->kids[0];
	ok(!strcmp(sqk_json_str(m, "digest"), "sha256:0123"), "its digest");
	ok(!sqk_json_u64(sqk_json_get(m, "size"), &v) && v == 525, "its size");
	ok(!strcmp(sqk_json_str(sqk_json_get(m, "platform"), "os"), "linux"), "its platform's os");
	ok(!strcmp(sqk_json_str(sqk_json_get(m, "annotations"),
				"org.opencontainers.image.ref.name"),
		   "3.19"),
	   "its ref name");
	ok(!sqk_json_get(m, "nothing") && !sqk_json_str(m, "size"),
	   "a missing member is NULL, a number is no string");
	sqk_json_free(d);
}

static void test_strings(void)
{
	static const char text[] =
		"[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\\ud83d\\ude00\", "
		"\"\xc3\xa9\", \"\"]";
	struct sqk_jdoc *d;
	const struct sqk_jv *r;
	size_t where;
	const char *why;

	is_int(sqk_json_parse(text, strlen(text), &d, &where, &why), 0, "escapes parse");
	r = sqk_json_root(d);
	ok(r->n == 4, "four strings");
	ok(r->kids[0].len == 12 && !memcmp(r->kids[0].str, "a\"b\\c/d\b\f\n\r\t", 12),
	   "the short escapes");
	ok(!strcmp(r->kids[1].str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
	   "\\u escapes and a surrogate pair decode to UTF-8");
	ok(!strcmp(r->kids[2].str, "\xc3\xa9"), "UTF-8 passes as it is");
	ok(r->kids[3].len == 0 && r->kids[3].str[0] == '\0', "the empty string");
	sqk_json_free(d);
}

static void test_numbers(void)
{
	static const char text[] = "[0, -1, 1.5e3, 18446744073709551615, 18446744073709551616, "
				   "true, false, null, [], {}]";
	struct sqk_jdoc *d;
	const struct sqk_jv *r;
	size_t where;
	const char *why;
	uint64_t v = 1;

	char *copy = strdup(text);

	is_int(sqk_json_parse(copy, strlen(copy), &d, &where, &why), 0, "scalars parse");
	/* The document keeps its own copy of what it holds. */
	memset(copy, 'x', strlen(copy));
	free(copy);
	r = sqk_json_root(d);
	ok(!sqk_json_u64(&r->kids[0], &v) && v == 0, "0");
	ok(sqk_json_u64(&r->kids[1], &v) == SQK_ERR_CORRUPT, "-1 is no size");
	ok(sqk_json_u64(&r->kids[2], &v) == SQK_ERR_CORRUPT, "1.5e3 is no size");
	ok(!sqk_json_u64(&r->kids[3], &v) && v == UINT64_MAX, "2^64 - 1");
	ok(sqk_json_u64(&r->kids[4], &v) == SQK_ERR_CORRUPT, "2^64 overflows");
	ok(r->kids[5].type == SQK_JBOOL && !strcmp(r->kids[5].str, "true") &&
	       r->kids[7].type == SQK_JNULL,
	   "true, null");
	ok(r->kids[8].type == SQK_JARR && r->kids[8].n == 0 && r->kids[9].type == SQK_JOBJ,
	   "empty array and object");
	sqk_json_free(d);
}

static void refused(const char *text, size_t at, const char *what)
{
	struct sqk_jdoc *d = NULL;
	size_t where = (size_t)-1;
	const char *why = NULL;
	int err = sqk_json_parse(text, strlen(text), &d, &where, &why);

	if (!tap_ok(err == SQK_ERR_CORRUPT && !d && where == at && why, "%s: refused at %zu", what,
		    at))
		printf("#   err %d, at %zu: %s\n", err, where, why ? why : "(nothing)");
	sqk_json_free(d);
}

static void test_refused(void)
{
	char deep[200];
	int i;

	refused("[1,]", 3, "a trailing comma");
	refused("{\"a\":1,}", 7, "a trailing comma in an object");
	refused("\"a\tb\"", 2, "a tab in a string");
	refused("\"\xc3\"", 1, "a cut UTF-8 sequence");
	refused("\"\xc0\xaf\"", 1, "an overlong UTF-8 form");
	refused("\"\xed\xa0\x80\"", 1, "an encoded surrogate");
	refused("\"\\ud800\"", 7, "a lone high surrogate");
	refused("\"\\udc00\"", 7, "a lone low surrogate");
	refused("\"\\x\"", 3, "an unknown escape");
	refused("{\"a\":1,\"a\":2}", 10, "a key given twice");
	refused("01", 2, "a leading zero");
	refused("[1 2]", 3, "a missing comma");
	refused("{1:2}", 1, "a key that is no string");
	refused("{} x", 3, "text after the value");
	refused("", 0, "nothing");
	refused("\"abc", 4, "a string that does not end");
	refused("tru", 0, "a cut literal");
	for (i = 0; i < 65; i++)
		deep[i] = '[';
	deep[65] = '\0';
	refused(deep, 64, "65 levels");
}

int main(void)
{
	test_index();
	test_strings();
	test_numbers();
	test_refused();
	return tap_done();
}
