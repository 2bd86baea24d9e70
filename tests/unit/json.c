// SPDX-License-Identifier: BSD-2-Clause
/*
 * The JSON writer against golden text written by hand: commas and nesting,
 * the line-per-element layout, every escape of the string contract (valid
 * UTF-8 passes, control characters become \u00XX, each invalid byte the
 * lone surrogate \udcXX),
 * number formats, and misuse reported instead of invalid output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/error.h"
#include "util/json.h"

/* Compare the buffer's text with want; on a mismatch show both. */
static void is_text(struct sqk_json *j, const char *want, const char *what)
{
	size_t len;
	const char *got = sqk_json_buffer(j, &len);

	if (!tap_ok(len == strlen(want) && memcmp(got, want, len) == 0, "%s", what))
		printf("#   got:  %s#   want: %s", got, want);
}

/* One string value written alone, as a document. */
static void is_string(const void *in, size_t len, const char *want, const char *what)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_bytes(&j, in, len);
	is_int(sqk_json_finish(&j), 0, "%s: finished", what);
	is_text(&j, want, what);
	sqk_json_release(&j);
}

static void test_nesting(void)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "a", "x");
	sqk_json_key(&j, "b");
	sqk_json_begin_array(&j, 0);
	sqk_json_uint(&j, 1);
	sqk_json_int(&j, -2);
	sqk_json_begin_object(&j, 0);
	sqk_json_end_object(&j);
	sqk_json_begin_array(&j, 0);
	sqk_json_end_array(&j);
	sqk_json_null(&j);
	sqk_json_bool(&j, 1);
	sqk_json_bool(&j, 0);
	sqk_json_end_array(&j);
	sqk_json_key_null(&j, "c");
	sqk_json_key_bool(&j, "d", 7);
	sqk_json_key_uint(&j, "e", UINT64_MAX);
	sqk_json_end_object(&j);
	is_int(sqk_json_finish(&j), 0, "nesting: finished");
	is_text(&j,
		"{\"a\":\"x\",\"b\":[1,-2,{},[],null,true,false],\"c\":null,\"d\":true,"
		"\"e\":18446744073709551615}\n",
		"nesting: commas between members and elements, none after the last");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_int(&j, INT64_MIN);
	sqk_json_finish(&j);
	is_text(&j, "-9223372036854775808\n", "the smallest integer");
	sqk_json_release(&j);
}

static void test_lines(void)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, SQK_JSON_LINES);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "n", 1);
	sqk_json_end_object(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "n", 2);
	sqk_json_end_object(&j);
	sqk_json_end_array(&j);
	sqk_json_finish(&j);
	is_text(&j, "[\n{\"n\":1},\n{\"n\":2}\n]\n", "lines: one element a line");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, SQK_JSON_LINES);
	sqk_json_end_array(&j);
	sqk_json_finish(&j);
	is_text(&j, "[]\n", "lines: an empty array stays on one line");
	sqk_json_release(&j);
}

static void test_strings(void)
{
	static const char ctl[] = {'a', 0, 1, 0x1f, 0x7f, '\r', '\b', 'z'};

	is_string("plain", 5, "\"plain\"\n", "plain ASCII passes");
	is_string("q\"b\\s/", 6, "\"q\\\"b\\\\s/\"\n", "quote and backslash escaped, slash not");
	is_string("a\nb\tc", 5, "\"a\\nb\\tc\"\n", "newline and tab as \\n and \\t");
	is_string(ctl, sizeof(ctl), "\"a\\u0000\\u0001\\u001f\\u007f\\u000d\\u0008z\"\n",
		  "other control characters and DEL as \\u00XX");
	is_string("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", 14,
		  "\"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80\"\n",
		  "valid 2-, 3- and 4-byte UTF-8 passes as it is");
	is_string("\xff\xfe", 2, "\"\\udcff\\udcfe\"\n", "bytes never in UTF-8: \\udcXX each");
	is_string("a\x80z", 3, "\"a\\udc80z\"\n", "a lone continuation byte");
	is_string("\xc3", 1, "\"\\udcc3\"\n", "a sequence cut short at the end");
	is_string("\xe6\x97z", 3, "\"\\udce6\\udc97z\"\n",
		  "a cut-short sequence: each of its bytes escaped, the next byte kept");
	is_string("\xc0\xaf", 2, "\"\\udcc0\\udcaf\"\n", "an overlong 2-byte form");
	is_string("\xe0\x80\xaf", 3, "\"\\udce0\\udc80\\udcaf\"\n", "an overlong 3-byte form");
	is_string("\xf0\x80\x80\xaf", 4, "\"\\udcf0\\udc80\\udc80\\udcaf\"\n",
		  "an overlong 4-byte form");
	is_string("\xed\xa0\x80", 3, "\"\\udced\\udca0\\udc80\"\n", "a UTF-16 surrogate (U+D800)");
	is_string("\xf4\x90\x80\x80", 4, "\"\\udcf4\\udc90\\udc80\\udc80\"\n", "past U+10FFFF");
	is_string("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"\n", "U+10FFFF itself passes");
	is_string("", 0, "\"\"\n", "the empty string");
	/* The bytes 0xff 0xfe and the characters U+00FF U+00FE differ. */
	is_string("\xc3\xbf\xc3\xbe", 4, "\"\xc3\xbf\xc3\xbe\"\n",
		  "U+00FF U+00FE stay characters, unlike the bytes ff fe");
}

static void test_keys(void)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "k\"\xff", "v");
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
	is_text(&j, "{\"k\\\"\\udcff\":\"v\"}\n", "keys are escaped like strings");
	sqk_json_release(&j);
}

static void test_doubles(void)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, 0);
	sqk_json_double(&j, 0.5, 6);
	sqk_json_double(&j, 2.0 / 3.0, 3);
	sqk_json_double(&j, 1234.5678, 1);
	sqk_json_double(&j, 7.49, 0);
	sqk_json_double(&j, -0.25, 2);
	sqk_json_double(&j, NAN, 3);
	sqk_json_double(&j, INFINITY, 1);
	sqk_json_double(&j, -INFINITY, 1);
	sqk_json_end_array(&j);
	sqk_json_finish(&j);
	is_text(&j, "[0.500000,0.667,1234.6,7,-0.25,null,null,null]\n",
		"doubles: fixed decimals; not finite is null");
	sqk_json_release(&j);
}

/* Each misuse is reported by finish, and nothing more is written after it. */
static void test_misuse(void)
{
	struct sqk_json j;

	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_uint(&j, 1);
	sqk_json_end_object(&j);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: a value in an object without a key");
	is_text(&j, "{", "misuse: nothing written after it");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, 0);
	sqk_json_key(&j, "k");
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: a key in an array");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key(&j, "k");
	sqk_json_key(&j, "l");
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: two keys in a row");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_object(&j, 0);
	sqk_json_key(&j, "k");
	sqk_json_end_object(&j);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: a key without its value");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, 0);
	sqk_json_end_object(&j);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: an end that does not match");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_begin_array(&j, 0);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: an unfinished document");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: an empty document");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	sqk_json_uint(&j, 1);
	sqk_json_uint(&j, 2);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "misuse: two top-level values");
	is_text(&j, "1", "misuse: the second top-level value is not written");
	sqk_json_release(&j);
}

static void test_depth(void)
{
	struct sqk_json j;
	int i;

	sqk_json_init_buf(&j);
	for (i = 0; i < SQK_JSON_MAX_DEPTH; i++)
		sqk_json_begin_array(&j, 0);
	for (i = 0; i < SQK_JSON_MAX_DEPTH; i++)
		sqk_json_end_array(&j);
	is_int(sqk_json_finish(&j), 0, "depth: SQK_JSON_MAX_DEPTH levels are fine");
	sqk_json_release(&j);

	sqk_json_init_buf(&j);
	for (i = 0; i <= SQK_JSON_MAX_DEPTH; i++)
		sqk_json_begin_array(&j, 0);
	is_int(sqk_json_finish(&j), SQK_ERR_ARG, "depth: one more is refused");
	sqk_json_release(&j);
}

/* The same document through a FILE and through the buffer. */
static void test_file(void)
{
	struct sqk_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		ok(0, "open_memstream");
		return;
	}
	sqk_json_init_file(&j, f);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_double(&j, "r", 0.125, 4);
	sqk_json_key_string(&j, "s", "\x01\xe9");
	sqk_json_end_object(&j);
	is_int(sqk_json_finish(&j), 0, "file: finished");
	fclose(f);
	ok(text && strcmp(text, "{\"r\":0.1250,\"s\":\"\\u0001\\udce9\"}\n") == 0,
	   "file: the same text as the buffer would hold");
	free(text);
}

/* Past the stage of a FILE writer: the same text as the buffer holds. */
static void test_file_large(void)
{
	struct sqk_json f, b;
	char *text = NULL, big[6000];
	size_t len = 0, blen;
	FILE *out = open_memstream(&text, &len);
	const char *want;
	int i, k;

	if (!out) {
		ok(0, "open_memstream");
		return;
	}
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	sqk_json_init_file(&f, out);
	sqk_json_init_buf(&b);
	for (k = 0; k < 2; k++) {
		struct sqk_json *j = k ? &b : &f;

		sqk_json_begin_array(j, SQK_JSON_LINES);
		for (i = 0; i < 3000; i++)
			sqk_json_uint(j, (uint64_t)i * 7919);
		sqk_json_string(j, big);
		sqk_json_string(j, "\xff\n");
		sqk_json_end_array(j);
		is_int(sqk_json_finish(j), 0, "large %s: finished", k ? "buffer" : "file");
	}
	fclose(out);
	want = sqk_json_buffer(&b, &blen);
	ok(text && len == blen && memcmp(text, want, len) == 0 && blen > 3 * SQK_JSON_STAGE,
	   "large: a FILE writer past its stage writes what the buffer holds");
	sqk_json_release(&b);
	free(text);
}

/* A long string grows the buffer many times over. */
static void test_growth(void)
{
	size_t n = 100000, len;
	char *in = malloc(n), *want = malloc(n + 4);
	struct sqk_json j;
	const char *got;

	if (!in || !want) {
		ok(0, "malloc");
		free(in);
		free(want);
		return;
	}
	memset(in, 'x', n);
	want[0] = '"';
	memset(want + 1, 'x', n);
	memcpy(want + 1 + n, "\"\n", 3);
	sqk_json_init_buf(&j);
	sqk_json_bytes(&j, in, n);
	sqk_json_finish(&j);
	got = sqk_json_buffer(&j, &len);
	ok(len == n + 3 && strcmp(got, want) == 0, "growth: a 100000-byte string whole");
	sqk_json_release(&j);
	free(in);
	free(want);
}

static void test_utf8_valid(void)
{
	ok(sqk_utf8_valid("caf\xc3\xa9", 5), "utf8: valid text");
	ok(sqk_utf8_valid("", 0), "utf8: empty");
	ok(sqk_utf8_valid("a\0b", 3), "utf8: a NUL is valid UTF-8");
	ok(!sqk_utf8_valid("\xc3", 1), "utf8: cut short");
	ok(!sqk_utf8_valid("\xed\xbf\xbf", 3), "utf8: a surrogate");
	ok(!sqk_utf8_valid("\xc1\xbf", 2), "utf8: overlong");
}

int main(void)
{
	test_nesting();
	test_lines();
	test_strings();
	test_keys();
	test_doubles();
	test_misuse();
	test_depth();
	test_file();
	test_file_large();
	test_growth();
	test_utf8_valid();
	return tap_done();
}
