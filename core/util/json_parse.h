/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_JSON_PARSE_H
#define SQK_JSON_PARSE_H

/*
 * Reading JSON documents that other programs wrote (an OCI image's index
 * and manifests): RFC 8259 strictly, into a tree of values. No trailing
 * commas, no control characters in strings, valid UTF-8, no key twice in
 * one object (two readers must not see two documents), at most 64 levels.
 */
#include <stddef.h>
#include <stdint.h>

enum sqk_jtype { SQK_JNULL, SQK_JBOOL, SQK_JNUM, SQK_JSTR, SQK_JARR, SQK_JOBJ };

struct sqk_jv {
	enum sqk_jtype type;
	/*
	 * A string decoded, a number or literal as written: NUL-terminated (len
	 * excludes the NUL), in the document, which outlives the text.
	 */
	const char *str;
	size_t len;
	/* An array's elements or an object's members, in order. */
	struct sqk_jv *kids;
	size_t n;
	/* As a member: its key, decoded. */
	const char *key;
	size_t key_len;
};

struct sqk_jdoc;

/*
 * Parse text[0..len). 0 and *doc; SQK_ERR_CORRUPT with *where, the byte
 * offset, and *why, what is wrong there; SQK_ERR_NOMEM.
 */
int sqk_json_parse(const char *text, size_t len, struct sqk_jdoc **doc, size_t *where,
		   const char **why);
const struct sqk_jv *sqk_json_root(const struct sqk_jdoc *d);
void sqk_json_free(struct sqk_jdoc *d);

/* The member key of object v (NULL when v is no object or has none). */
const struct sqk_jv *sqk_json_get(const struct sqk_jv *v, const char *key);
/* Its value when it is a string, else NULL. */
const char *sqk_json_str(const struct sqk_jv *v, const char *key);
/* A number that is a whole non-negative integer: 0 and *out, else SQK_ERR_CORRUPT. */
int sqk_json_u64(const struct sqk_jv *v, uint64_t *out);

#endif
