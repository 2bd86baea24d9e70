// SPDX-License-Identifier: BSD-2-Clause
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

int sqk_buf_reserve(struct sqk_buf *b, size_t n)
{
	uint8_t *p;

	if (b->cap >= n)
		return 0;
	p = malloc(n);
	if (!p)
		return SQK_ERR_NOMEM;
	free(b->p);
	b->p = p;
	b->cap = n;
	return 0;
}

void sqk_buf_free(struct sqk_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->cap = 0;
}

int sqk_set_level(const struct sqk_codec *codec, struct sqk_comp_config *cfg, const char *value)
{
	uint64_t v;

	if (sqk_parse_uint(value, (uint64_t)codec->level_max, &v) || v < (uint64_t)codec->level_min)
		return SQK_ERR_ARG;
	cfg->level = (int)v;
	return 0;
}

static const struct sqk_name *find_name(const struct sqk_name *names, const char *s, size_t len)
{
	for (; names->name; names++)
		if (strlen(names->name) == len && !memcmp(names->name, s, len))
			return names;
	return NULL;
}

int sqk_names_to_bits(const char *list, const struct sqk_name *names, uint32_t *bits)
{
	const struct sqk_name *nm;
	uint32_t v = 0;
	const char *end;

	if (!list)
		return SQK_ERR_ARG;
	for (;;) {
		end = strchr(list, ',');
		if (!end)
			end = list + strlen(list);
		nm = find_name(names, list, (size_t)(end - list));
		if (!nm)
			return SQK_ERR_ARG;
		v |= nm->bit;
		if (!*end)
			break;
		list = end + 1;
	}
	*bits = v;
	return 0;
}

void sqk_bits_to_names(uint32_t bits, const struct sqk_name *names, char *out, size_t cap)
{
	size_t used = 0;

	if (!cap)
		return;
	out[0] = '\0';
	for (; names->name; names++) {
		int n;

		if (!(bits & names->bit))
			continue;
		n = snprintf(out + used, cap - used, "%s%s", used ? "," : "", names->name);
		if (n < 0 || (size_t)n >= cap - used)
			break;
		used += (size_t)n;
	}
	if (!used)
		snprintf(out, cap, "none");
}

void sqk_kv_num(struct sqk_comp_kv *kv, int max, int *n, const char *key, unsigned long v)
{
	if (*n >= max)
		return;
	kv[*n].key = key;
	snprintf(kv[*n].value, sizeof(kv[*n].value), "%lu", v);
	kv[*n].is_number = 1;
	(*n)++;
}

void sqk_kv_str(struct sqk_comp_kv *kv, int max, int *n, const char *key, const char *v)
{
	if (*n >= max)
		return;
	kv[*n].key = key;
	snprintf(kv[*n].value, sizeof(kv[*n].value), "%s", v);
	kv[*n].is_number = 0;
	(*n)++;
}

void sqk_config_base(struct sqk_comp_config *cfg, const struct sqk_codec *codec,
		     uint32_t block_size)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->id = codec->id;
	cfg->level = codec->level_default;
	cfg->block_size = block_size;
}
