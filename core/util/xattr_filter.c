// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "parse.h"
#include "xattr_filter.h"

int sqk_xattr_filter_set(struct sqk_xattr_filter *f, int exclude, const char *pattern, char *why,
			 size_t why_len)
{
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		regerror(rc, &re, why, why_len);
		regfree(&re);
		return SQK_ERR_ARG;
	}
	if (exclude) {
		if (f->has_exclude)
			regfree(&f->exclude);
		f->exclude = re;
		f->has_exclude = 1;
	} else {
		if (f->has_include)
			regfree(&f->include);
		f->include = re;
		f->has_include = 1;
	}
	return 0;
}

int sqk_xattr_filter_pass(const struct sqk_xattr_filter *f, const char *name)
{
	if (!f)
		return 1;
	if (f->has_include && regexec(&f->include, name, 0, NULL, 0) != 0)
		return 0;
	if (f->has_exclude && regexec(&f->exclude, name, 0, NULL, 0) == 0)
		return 0;
	return 1;
}

void sqk_xattr_filter_release(struct sqk_xattr_filter *f)
{
	if (f->has_include)
		regfree(&f->include);
	if (f->has_exclude)
		regfree(&f->exclude);
	f->has_include = f->has_exclude = 0;
}

static int b64_digit(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Standard base64; the '=' padding may be left off, nothing may follow it. */
static int decode_base64(const char *s, uint8_t *out, size_t *len)
{
	size_t n = strlen(s), i, o = 0;
	uint32_t acc = 0;
	unsigned bits = 0;

	if (n % 4 == 0 && n >= 2 && s[n - 1] == '=')
		n -= s[n - 2] == '=' ? 2 : 1;
	if (n % 4 == 1)
		return -1;
	for (i = 0; i < n; i++) {
		int d = b64_digit((unsigned char)s[i]);

		if (d < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* The bits left over must be zero, as an encoder writes them. */
	if (acc & ((1u << bits) - 1))
		return -1;
	*len = o;
	return 0;
}

static int decode_hex(const char *s, uint8_t *out, size_t *len)
{
	size_t n = strlen(s), i;

	if (n % 2)
		return -1;
	for (i = 0; i < n; i += 2) {
		int hi = sqk_parse_hex_digit((unsigned char)s[i]),
		    lo = sqk_parse_hex_digit((unsigned char)s[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

/* Text where a backslash must start three octal digits of at most 0377. */
static int decode_text(const char *s, uint8_t *out, size_t *len)
{
	size_t o = 0;

	while (*s) {
		if (*s != '\\') {
			out[o++] = (uint8_t)*s++;
			continue;
		}
		if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' || s[3] < '0' ||
		    s[3] > '7')
			return -1;
		out[o++] = (uint8_t)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
		s += 4;
	}
	*len = o;
	return 0;
}

static const char *const namespaces[] = {"user.", "trusted.", "security."};

int sqk_xattr_add_parse(const char *arg, struct sqk_xattr_add *out, const char **why)
{
	const char *eq = strchr(arg, '='), *val;
	size_t nlen, i;
	int rc = 0;
	char kind = 0;

	memset(out, 0, sizeof(*out));
	if (!eq) {
		*why = "no '=' between the name and the value";
		return SQK_ERR_ARG;
	}
	nlen = (size_t)(eq - arg);
	for (i = 0; i < sizeof(namespaces) / sizeof(namespaces[0]); i++) {
		size_t plen = strlen(namespaces[i]);

		if (nlen > plen && strncmp(arg, namespaces[i], plen) == 0)
			break;
	}
	if (i == sizeof(namespaces) / sizeof(namespaces[0])) {
		*why = "the name must be user.NAME, trusted.NAME or security.NAME";
		return SQK_ERR_ARG;
	}
	if (nlen > 255) {
		*why = "the name is longer than 255 bytes (the kernel's limit)";
		return SQK_ERR_ARG;
	}
	val = eq + 1;
	if (!*val) {
		*why = "the value is empty";
		return SQK_ERR_ARG;
	}
	if (val[0] == '0' && val[1] && strchr("sSxXtTbB", val[1])) {
		kind = (char)(val[1] | 0x20);
		val += 2;
		if (!*val) {
			*why = "the value is empty after its 0s, 0x, 0t or 0b prefix";
			return SQK_ERR_ARG;
		}
	}
	out->name = strndup(arg, nlen);
	out->value = malloc(strlen(val));
	if (!out->name || !out->value) {
		sqk_xattr_add_release(out);
		return SQK_ERR_NOMEM;
	}
	switch (kind) {
	case 's':
		rc = decode_base64(val, out->value, &out->value_len);
		*why = "the value after 0s is not base64";
		break;
	case 'x':
		rc = decode_hex(val, out->value, &out->value_len);
		*why = "the value after 0x is not an even number of hexadecimal digits";
		break;
	case 't':
		rc = decode_text(val, out->value, &out->value_len);
		*why = "in the value after 0t, a backslash must start three octal digits "
		       "(000 to 377)";
		break;
	default:
		out->value_len = strlen(val);
		memcpy(out->value, val, out->value_len);
	}
	if (rc) {
		sqk_xattr_add_release(out);
		return SQK_ERR_ARG;
	}
	*why = NULL;
	return 0;
}

void sqk_xattr_add_release(struct sqk_xattr_add *a)
{
	free(a->name);
	free(a->value);
	memset(a, 0, sizeof(*a));
}
