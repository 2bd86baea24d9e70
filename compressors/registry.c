// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "format/format.h"

/* Indexed by nothing: lookups walk it. Kept in id order for listings. */
const struct sqk_codec *const sqk_codecs[] = {
	&sqk_codec_gzip, &sqk_codec_lzma, &sqk_codec_lzo, &sqk_codec_xz,
	&sqk_codec_lz4,	 &sqk_codec_zstd, NULL,
};

const struct sqk_codec *sqk_codec_by_id(int id)
{
	for (int i = 0; sqk_codecs[i]; i++)
		if (sqk_codecs[i]->id == id)
			return sqk_codecs[i];
	return NULL;
}

const struct sqk_codec *sqk_codec_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; sqk_codecs[i]; i++)
		if (!strcmp(sqk_codecs[i]->name, name))
			return sqk_codecs[i];
	return NULL;
}

int sqk_comp_config_init(struct sqk_comp_config *cfg, int id, uint32_t block_size)
{
	const struct sqk_codec *codec = sqk_codec_by_id(id);

	if (!codec)
		return SQK_ERR_UNSUPPORTED;
	codec->defaults(cfg, block_size);
	return 0;
}

int sqk_comp_config_option(struct sqk_comp_config *cfg, const char *key_value)
{
	const struct sqk_codec *codec = sqk_codec_by_id(cfg->id);
	const char *eq = key_value ? strchr(key_value, '=') : NULL;
	char key[32];
	size_t len;

	if (!codec || !eq)
		return SQK_ERR_ARG;
	len = (size_t)(eq - key_value);
	if (len == 0 || len >= sizeof(key))
		return SQK_ERR_ARG;
	memcpy(key, key_value, len);
	key[len] = '\0';
	return codec->set_option(cfg, key, eq + 1);
}

struct sqk_compressor *sqk_comp_create(const struct sqk_comp_config *cfg)
{
	const struct sqk_codec *codec = sqk_codec_by_id(cfg->id);

	return codec ? codec->create(cfg) : NULL;
}

int sqk_comp_config_setup(struct sqk_comp_config *cfg, const struct sqk_codec *codec,
			  uint32_t block_size, int level, const char *const *kvs, size_t n,
			  size_t *bad)
{
	uint8_t buf[64];
	size_t len, i;

	*bad = n;
	memset(cfg, 0, sizeof(*cfg));
	codec->defaults(cfg, block_size);
	if (level >= 0) {
		if (level < codec->level_min || level > codec->level_max)
			return SQK_ERR_ARG;
		cfg->level = level;
	}
	for (i = 0; i < n; i++)
		if (sqk_comp_config_option(cfg, kvs[i])) {
			*bad = i;
			return SQK_ERR_ARG;
		}
	/* Options valid one by one may still not go together (xz: lc + lp at most 4). */
	if (n && codec->write_options(cfg, buf, sizeof(buf), &len))
		return SQK_ERR_ARG;
	return 0;
}
