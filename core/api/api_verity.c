// SPDX-License-Identifier: BSD-2-Clause
/* dm-verity on open images: the options of an open, what an image is read through (verity.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "read/image_verity.h"
#include "util/file.h"
#include "verity/verity_read.h"
#include "verity/verity_sign.h"

int sqk_open_opts_set_root_hash(struct sqk_open_opts *o, const char *hex)
{
	struct sqk_api_verity *v = &o->verity;

	if (!hex || sqk_verity_where_root(&v->w, hex))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid root hash '%s'",
				    hex ? hex : "(null)");
	v->on = 1;
	return sqk_api_ok();
}

int sqk_open_opts_set_verity_area(struct sqk_open_opts *o, const char *hash_file, uint64_t offset)
{
	struct sqk_api_verity *v = &o->verity;

	if (hash_file && snprintf(v->hash_path, sizeof(v->hash_path), "%s", hash_file) >=
				 (int)sizeof(v->hash_path))
		return sqk_api_fail(SQK_ERR_ARG, 0, hash_file, "path too long");
	if (!hash_file)
		v->hash_path[0] = '\0';
	v->w.offset = offset;
	return sqk_api_ok();
}

int sqk_open_opts_set_verity_no_superblock(struct sqk_open_opts *o, const char *hash,
					   const char *salt)
{
	const char *why;

	if (sqk_verity_where_plain(&o->verity.w, hash, salt, &why))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "%s '%s'", why,
				    !hash || strstr(why, "salt") ? salt : hash);
	return sqk_api_ok();
}

int sqk_open_opts_set_verity_signature(struct sqk_open_opts *o, const char *p7s, const char *cert)
{
	struct sqk_api_verity *v = &o->verity;

	if (!p7s || !cert)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "a signature needs its certificate");
	if (snprintf(v->sig, sizeof(v->sig), "%s", p7s) >= (int)sizeof(v->sig) ||
	    snprintf(v->cert, sizeof(v->cert), "%s", cert) >= (int)sizeof(v->cert))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "path too long");
	return sqk_api_ok();
}

const struct sqk_verity_where *sqk_api_verity_where(const struct sqk_open_opts *o,
						    struct sqk_verity_where *w)
{
	*w = o->verity.w;
	w->hash_path = o->verity.hash_path[0] ? o->verity.hash_path : NULL;
	if (w->hash_path && w->offset == SQK_VERITY_AT_END)
		w->offset = 0;
	return w;
}

/* Where the area failed to open, in a message: the hash file's name, or the image's. */
static int area_fail(int err, const char *name, const struct sqk_verity_where *w, const char *why)
{
	const char *where = w->hash_path ? w->hash_path : name;

	if (!why)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, where, NULL);
	return sqk_api_fail(err, 0, where, "dm-verity: %s", why);
}

int sqk_api_verity_wrap(struct sqk_file *f, const char *name, const struct sqk_open_opts *o,
			struct sqk_file **out)
{
	struct sqk_verity_where w;
	const char *why;
	int err;

	*out = f;
	if (!o->verity.on)
		return 0;
	errno = 0;
	err = sqk_image_verity_file(f, sqk_api_verity_where(o, &w), out, &why);
	return err ? area_fail(err, name, &w, why) : 0;
}

/* The public form of p's parameters and where its area is. */
static void info_of(const struct sqk_verity_params *p, const uint8_t *root, uint32_t digest,
		    uint64_t size, int in_image, struct sqk_verity_info *info)
{
	memset(info, 0, sizeof(*info));
	if (root)
		sqk_verity_hex(root, digest, info->root_hash);
	sqk_verity_hex(p->salt, p->salt_size, info->salt);
	memcpy(info->hash, p->algorithm, sizeof(info->hash));
	if (p->superblock)
		sqk_verity_uuid_str(p->uuid, info->uuid);
	info->superblock = p->superblock;
	info->in_image_file = in_image;
	info->hash_offset = p->hash_offset;
	info->hash_size = size;
	info->data_blocks = p->data_blocks;
	info->data_block_size = p->data_block_size;
	info->hash_block_size = p->hash_block_size;
	info->hash_type = p->hash_type;
}

void sqk_api_verity_info(const struct sqk_verity_params *p, const uint8_t *root, uint32_t digest,
			 uint64_t size, int in_image, struct sqk_verity_info *info)
{
	info_of(p, root, digest, size, in_image, info);
}

static int image_verity(struct sqk_image *img, struct sqk_verity_info *info)
{
	struct sqk_file *f = sqk_image_file(img);
	const struct sqk_verity_area *a = sqk_verity_reader_area(f);
	struct sqk_verity_params p;
	uint32_t digest;

	if (a) {
		info_of(&a->p, a->root, a->h.digest, a->g.end - a->p.hash_offset, !a->own_hash,
			info);
		return sqk_api_ok();
	}
	if (sqk_image_verity_find(f, &p) != 0)
		return sqk_api_fail(SQK_ERR_NOENT, 0, NULL,
				    "no dm-verity superblock after the image");
	{
		struct sqk_verity_geo g;

		digest = sqk_verity_digest_size(p.algorithm);
		if (!digest || sqk_verity_geometry(&p, digest, &g))
			return sqk_api_fail(SQK_ERR_NOENT, 0, NULL,
					    "the dm-verity superblock after the image is not one "
					    "this library reads");
		info_of(&p, NULL, digest, g.end - p.hash_offset, 1, info);
	}
	return sqk_api_ok();
}

int(sqk_image_verity)(struct sqk_image *img, struct sqk_verity_info *given, size_t size)
{
	struct sqk_verity_info info;
	int err;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_verity_info, hash_type), "sqk_verity_info"))
		return SQK_ERR_ARG;
	err = image_verity(img, &info);
	if (!err)
		sqk_api_out(given, size, &info, sizeof(info), 0, NULL);
	return err;
}

uint64_t(sqk_image_verity_failures)(struct sqk_image *img, struct sqk_verity_block *first,
				    size_t size)
{
	struct sqk_verity_bad b;
	struct sqk_verity_block one;
	uint64_t n = sqk_verity_reader_failures(sqk_image_file(img), &b);

	/* A struct too small to hold the first version gets nothing. */
	if (n && first && size >= SQK_API_V1(struct sqk_verity_block, what)) {
		memset(&one, 0, sizeof(one));
		one.level = b.level;
		one.block = b.block;
		one.pos = b.pos;
		one.covers = b.covers;
		one.ncovers = b.ncovers;
		sqk_verity_bad_text(&b, one.what, sizeof(one.what));
		sqk_api_out(first, size, &one, sizeof(one), 0, NULL);
	}
	return n;
}

/* A whole small file into memory: 0, or SQK_ERR_IO (errno) / SQK_ERR_NOMEM / SQK_ERR_ARG. */
static int slurp(const char *path, uint8_t **out, size_t *len)
{
	struct sqk_file *f;
	uint64_t size;
	int err = 0;

	*out = NULL;
	errno = 0;
	f = sqk_file_open(path, SQK_FILE_READ, &err);
	if (!f)
		return err;
	size = f->size(f);
	if (size > (1u << 20)) {
		sqk_file_destroy(f);
		return SQK_ERR_ARG;
	}
	*out = malloc(size ? (size_t)size : 1);
	err = *out ? f->read_at(f, 0, *out, (size_t)size) : SQK_ERR_NOMEM;
	if (err == SQK_ERR_IO)
		errno = f->errnum;
	sqk_file_destroy(f);
	if (err) {
		free(*out);
		*out = NULL;
	}
	*len = (size_t)size;
	return err;
}

int sqk_api_verity_signature(const char *root_hex, const char *p7s, const char *cert,
			     const char **why, const char **which)
{
	uint8_t *sig;
	size_t len = 0;
	int err = slurp(p7s, &sig, &len);

	*why = NULL;
	*which = p7s;
	if (err == SQK_ERR_ARG) {
		*why = "larger than any signature";
		return SQK_ERR_CORRUPT;
	}
	if (err)
		return err;
	errno = 0;
	err = sqk_verity_sig_check(root_hex, sig, len, cert, why);
	free(sig);
	/* The certificate is read before the signature is looked at. */
	if (err == SQK_ERR_IO || err == SQK_ERR_ARG)
		*which = cert;
	return err;
}

int sqk_verity_signature_check(const char *root_hex, const char *p7s, const char *cert)
{
	const char *why, *which;
	int err = sqk_api_verity_signature(root_hex, p7s, cert, &why, &which);

	if (!err)
		return sqk_api_ok();
	if (err == SQK_ERR_IO)
		return sqk_api_fail(err, errno, which, NULL);
	return sqk_api_fail(err, 0, which, "%s", why ? why : sqk_strerror(err));
}
