// SPDX-License-Identifier: BSD-2-Clause
/* Opening an image (path, descriptor, callbacks; at an offset), its facts and counters. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "format/fmt_super.h"
#include "read/offset.h"
#include "util/pool.h"
#include "verity/verity_read.h"
#include "util/store.h"

struct sqk_open_opts *sqk_open_opts_create(void)
{
	struct sqk_open_opts *o = calloc(1, sizeof(*o));

	if (!o) {
		sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		return NULL;
	}
	sqk_api_open_defaults(NULL, o);
	return o;
}

void sqk_open_opts_destroy(struct sqk_open_opts *o)
{
	free(o);
}

void sqk_api_open_defaults(const struct sqk_open_opts *o, struct sqk_open_opts *out)
{
	if (o) {
		*out = *o;
		if (o->image.tmpdir)
			out->image.tmpdir = out->tmpdir;
		return;
	}
	memset(out, 0, sizeof(*out));
	sqk_image_opts_default(&out->image);
	out->verity.w.offset = SQK_VERITY_AT_END;
	/* Readers on every CPU: a data entry and a decompressor each. */
	out->image.data_entries = sqk_online_cpus();
	out->image.decompressors = sqk_online_cpus();
	sqk_remote_opts_default(&out->remote);
}

int sqk_open_opts_set_offset(struct sqk_open_opts *o, uint64_t offset)
{
	o->offset = offset;
	o->offset_auto = 0;
	return sqk_api_ok();
}

int sqk_open_opts_set_offset_auto(struct sqk_open_opts *o)
{
	o->offset = 0;
	o->offset_auto = 1;
	return sqk_api_ok();
}

int sqk_open_opts_set_cache(struct sqk_open_opts *o, enum sqk_cache_kind kind, unsigned entries)
{
	unsigned *to[] = {
		[SQK_CACHE_METADATA] = &o->image.meta_entries,
		[SQK_CACHE_FRAGMENT] = &o->image.frag_entries,
		[SQK_CACHE_DATA] = &o->image.data_entries,
		[SQK_CACHE_COMPRESSED] = &o->image.comp_entries,
	};

	if ((unsigned)kind >= SQK_CACHE_COUNT)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no cache of kind %d", (int)kind);
	if (!entries && kind != SQK_CACHE_COMPRESSED)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "only the compressed-block cache may have no entry");
	*to[kind] = entries;
	return sqk_api_ok();
}

int sqk_open_opts_set_policy(struct sqk_open_opts *o, enum sqk_policy policy)
{
	static const enum sqk_wait_policy of[] = {
		[SQK_POLICY_HERD] = SQK_WAIT_HERD,
		[SQK_POLICY_EXCLUSIVE] = SQK_WAIT_EXCLUSIVE,
		[SQK_POLICY_KEYED] = SQK_WAIT_KEYED,
	};

	if ((unsigned)policy > SQK_POLICY_KEYED)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no wait policy %d", (int)policy);
	o->image.policy = of[policy];
	return sqk_api_ok();
}

int sqk_open_opts_set_fragment_bytes(struct sqk_open_opts *o, size_t bytes)
{
	o->image.frag_bytes = bytes;
	return sqk_api_ok();
}

int sqk_open_opts_set_decompressors(struct sqk_open_opts *o, unsigned n)
{
	if (!n)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "at least one decompressor is needed");
	o->image.decompressors = n;
	return sqk_api_ok();
}

int sqk_open_opts_set_kernel_decode(struct sqk_open_opts *o, int on)
{
	o->image.strict = !!on;
	return sqk_api_ok();
}

int sqk_open_opts_set_memory(struct sqk_open_opts *o, uint64_t bytes)
{
	o->image.memory = bytes;
	return sqk_api_ok();
}

int sqk_open_opts_set_tmpdir(struct sqk_open_opts *o, const char *dir)
{
	if (!dir) {
		o->image.tmpdir = NULL;
		return sqk_api_ok();
	}
	if (!*dir || strlen(dir) >= sizeof(o->tmpdir))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "the directory '%s' is %s", dir,
				    *dir ? "too long" : "empty");
	memcpy(o->tmpdir, dir, strlen(dir) + 1);
	o->image.tmpdir = o->tmpdir;
	return sqk_api_ok();
}

int sqk_api_place(struct sqk_file *f, const char *name, const struct sqk_open_opts *o,
		  struct sqk_file **out)
{
	uint64_t at = o->offset, found[2];
	unsigned n;
	int err;

	if (o->offset_auto) {
		err = sqk_find_images(f, found, &n);
		if (err) {
			sqk_api_fail(err, f->errnum, name, NULL);
			sqk_file_destroy(f);
			return err;
		}
		if (n != 1) {
			sqk_file_destroy(f);
			if (!n)
				return sqk_api_fail(SQK_ERR_MAGIC, 0, name,
						    "no SquashFS image found");
			return sqk_api_fail(SQK_ERR_MAGIC, 0, name,
					    "%u SquashFS superblocks found (at %llu, %llu%s)", n,
					    (unsigned long long)found[0],
					    (unsigned long long)found[1], n > 2 ? ", ..." : "");
		}
		at = found[0];
	}
	*out = f;
	if (!at)
		return 0;
	if (at >= f->size(f)) {
		sqk_file_destroy(f);
		return sqk_api_fail(SQK_ERR_ARG, 0, name, "offset %llu is past the end of the file",
				    (unsigned long long)at);
	}
	*out = sqk_file_window(f, at);
	if (!*out) {
		sqk_file_destroy(f);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, name, NULL);
	}
	return 0;
}

/* The first block that fails its hash while an image opens. */
static void first_bad(void *ctx, const struct sqk_verity_bad *b)
{
	struct sqk_verity_bad *keep = ctx;

	if (!keep->why)
		*keep = *b;
}

/* Open the image in f (taken), named name in messages. */
static int open_file(struct sqk_file *f, const char *name, const struct sqk_open_opts *opts,
		     struct sqk_image **out)
{
	struct sqk_open_opts o;
	int err;

	struct sqk_verity_bad bad;
	struct sqk_fmt_issue why;
	char words[160];

	*out = NULL;
	sqk_api_open_defaults(opts, &o);
	err = sqk_api_place(f, name, &o, &f);
	if (!err)
		err = sqk_api_verity_wrap(f, name, &o, &f);
	if (err)
		return err;
	/* A block that fails its hash at open is said as such. */
	sqk_verity_reader_on_bad(f, first_bad, &bad);
	bad.why = 0;
	errno = 0;
	o.image.why = &why;
	err = sqk_image_open(f, &o.image, out);
	if (err && bad.why) {
		sqk_verity_bad_text(&bad, words, sizeof(words));
		return sqk_api_fail(err, EIO, name, "dm-verity: %s", words);
	}
	/* Named as the check names it: the field, its value, the rule. */
	if (err == SQK_ERR_CORRUPT && *why.field)
		return sqk_api_fail(err, 0, name, "%s: %s %llu %s", sqk_strerror(err), why.field,
				    (unsigned long long)why.value, why.why);
	if (err)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, name, NULL);
	sqk_verity_reader_on_bad(sqk_image_file(*out), NULL, NULL);
	return sqk_api_ok();
}

int sqk_image_open_path(const char *path, const struct sqk_open_opts *opts, struct sqk_image **out)
{
	struct sqk_file *f;
	int err = sqk_api_path_file(path, &f);

	if (err)
		*out = NULL;
	return err ? err : open_file(f, path, opts, out);
}

/* The file read from fd, through a duplicate of its own; name says "descriptor N". */
static int fd_file(int fd, char name[32], struct sqk_file **out)
{
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	snprintf(name, 32, "descriptor %d", fd);
	if (dup < 0)
		return sqk_api_fail(SQK_ERR_IO, errno, name, NULL);
	*out = sqk_file_fdopen(dup, 1);
	if (!*out) {
		close(dup);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, name, NULL);
	}
	return 0;
}

int sqk_image_open_url(const char *url, const struct sqk_open_opts *opts, struct sqk_image **out)
{
	struct sqk_file *f;
	int err = sqk_api_url_file(url, opts, &f);

	return err ? err : open_file(f, url, opts, out);
}

int sqk_image_open_fd(int fd, const struct sqk_open_opts *opts, struct sqk_image **out)
{
	struct sqk_file *f;
	char name[32];
	int err = fd_file(fd, name, &f);

	if (err)
		*out = NULL;
	return err ? err : open_file(f, name, opts, out);
}

int(sqk_image_open_io)(const struct sqk_io *io, const struct sqk_open_opts *opts,
		       struct sqk_image **out, size_t io_size)
{
	struct sqk_file *f;
	int err = sqk_api_io_file(io, io_size, &f);

	if (err)
		*out = NULL;
	return err ? err : open_file(f, SQK_API_IO_NAME, opts, out);
}

/* The images found in f (destroyed here), named name in messages. */
static int find_in(struct sqk_file *f, const char *name, uint64_t limit, uint64_t *found,
		   size_t max)
{
	unsigned n;
	int err = sqk_find_images_before(f, limit, found, max, &n);

	if (err)
		sqk_api_fail(err, err == SQK_ERR_IO ? f->errnum : 0, name, NULL);
	sqk_file_destroy(f);
	if (err)
		return err;
	sqk_api_ok();
	return n > INT_MAX ? INT_MAX : (int)n;
}

int sqk_image_find_path(const char *path, uint64_t limit, uint64_t *found, size_t max)
{
	struct sqk_file *f;
	int err = sqk_api_path_file(path, &f);

	return err ? err : find_in(f, path, limit, found, max);
}

int sqk_image_find_url(const char *url, const struct sqk_open_opts *opts, uint64_t limit,
		       uint64_t *found, size_t max)
{
	struct sqk_file *f;
	int err = sqk_api_url_file(url, opts, &f);

	return err ? err : find_in(f, url, limit, found, max);
}

int sqk_image_find_fd(int fd, uint64_t limit, uint64_t *found, size_t max)
{
	struct sqk_file *f;
	char name[32];
	int err = fd_file(fd, name, &f);

	return err ? err : find_in(f, name, limit, found, max);
}

int(sqk_image_find_io)(const struct sqk_io *io, uint64_t limit, uint64_t *found, size_t max,
		       size_t io_size)
{
	struct sqk_file *f;
	int err = sqk_api_io_file(io, io_size, &f);

	return err ? err : find_in(f, SQK_API_IO_NAME, limit, found, max);
}

static void image_info(const struct sqk_image *img, struct sqk_image_info *info)
{
	const struct sqk_super *sb = sqk_image_super(img);
	const struct sqk_layout *l = sqk_image_layout(img);
	const struct sqk_codec *codec = sqk_codec_by_id(sb->compressor);
	struct {
		uint64_t start, size;
	} * to[SQK_TABLE_COUNT] = {
		[SQK_TABLE_INODE] = (void *)&info->inode_table,
		[SQK_TABLE_DIR] = (void *)&info->directory_table,
		[SQK_TABLE_FRAG] = (void *)&info->fragment_table,
		[SQK_TABLE_EXPORT] = (void *)&info->export_table,
		[SQK_TABLE_ID] = (void *)&info->id_table,
		[SQK_TABLE_XATTR] = (void *)&info->xattr_table,
	};
	int i;

	memset(info, 0, sizeof(*info));
	info->bytes_used = sb->bytes_used;
	info->block_size = sb->block_size;
	info->inodes = sb->inode_count;
	info->fragments = sb->fragment_count;
	info->ids = sb->id_count;
	info->mkfs_time = sb->mkfs_time;
	info->flags = sb->flags;
	info->compressor = codec ? codec->name : "unknown";
	for (i = 0; i < SQK_TABLE_COUNT; i++)
		if (l->t[i].present) {
			to[i]->start = l->t[i].start;
			to[i]->size = l->t[i].end - l->t[i].start;
		}
	info->exportable = l->t[SQK_TABLE_EXPORT].present;
	info->has_xattrs = l->t[SQK_TABLE_XATTR].present;
	info->offset = sqk_image_file(img)->origin;
	info->version_major = sb->version_major;
	info->version_minor = sb->version_minor;
}

int(sqk_image_info)(const struct sqk_image *img, struct sqk_image_info *out, size_t size)
{
	struct sqk_image_info info;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_image_info, xattr_table), "sqk_image_info"))
		return SQK_ERR_ARG;
	image_info(img, &info);
	sqk_api_out(out, size, &info, sizeof(info), 0, NULL);
	return sqk_api_ok();
}

int(sqk_image_superblock)(const struct sqk_image *img, struct sqk_superblock *given, size_t size)
{
	const struct sqk_super *sb = sqk_image_super(img);
	struct sqk_superblock s, *out = &s;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_superblock, root_offset), "sqk_superblock"))
		return SQK_ERR_ARG;
	memset(out, 0, sizeof(*out));
#define COPY(field) out->field = sb->field;
	COPY(magic)
	COPY(inode_count)
	COPY(mkfs_time)
	COPY(block_size)
	COPY(fragment_count)
	COPY(compressor)
	COPY(block_log)
	COPY(flags)
	COPY(id_count)
	COPY(version_major) COPY(version_minor) COPY(root_inode) COPY(bytes_used) COPY(id_table)
		COPY(xattr_table) COPY(inode_table) COPY(dir_table) COPY(fragment_table)
			COPY(export_table)
#undef COPY
				out->root_block = SQK_REF_BLOCK(sb->root_inode);
	out->root_offset = SQK_REF_OFFSET(sb->root_inode);
	sqk_api_out(given, size, &s, sizeof(s), 0, NULL);
	return sqk_api_ok();
}

int(sqk_superblock_flag)(const struct sqk_superblock *given, unsigned i, const char **name,
			 size_t size)
{
	struct sqk_superblock s, *sb = &s;
	unsigned n;
	int err = sqk_api_in(&s, sizeof(s), given, size,
			     SQK_API_V1(struct sqk_superblock, root_offset), "sqk_superblock");

	if (err)
		return err;
	for (n = 0; n < i && sqk_fmt_super_flags[n].name; n++)
		;
	if (!sqk_fmt_super_flags[n].name)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no superblock flag %u", i);
	*name = sqk_fmt_super_flags[n].name;
	sqk_api_ok();
	return !!(sb->flags & sqk_fmt_super_flags[n].bit);
}

int(sqk_image_compressor_options)(const struct sqk_image *img, struct sqk_comp_option *opts,
				  int max, size_t size)
{
	const struct sqk_codec *codec = sqk_codec_by_id(sqk_image_super(img)->compressor);
	struct sqk_comp_kv kv[16];
	struct sqk_comp_option one;
	int i, n;

	if (max > 0 &&
	    sqk_api_size(size, SQK_API_V1(struct sqk_comp_option, value), "sqk_comp_option"))
		return SQK_ERR_ARG;
	n = codec && codec->describe ? codec->describe(sqk_image_comp(img), kv, 16) : 0;
	for (i = 0; i < n && i < max; i++) {
		memset(&one, 0, sizeof(one));
		one.key = kv[i].key;
		snprintf(one.value, sizeof(one.value), "%s", kv[i].value);
		sqk_api_out((char *)opts + (size_t)i * size, size, &one, sizeof(one), 0, NULL);
	}
	sqk_api_ok();
	return n;
}

/* The cache of kind in img: 0, or the error, said. */
static int cache_of(struct sqk_image *img, enum sqk_cache_kind kind, struct sqk_cache **c)
{
	if ((unsigned)kind >= SQK_CACHE_COUNT)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no cache of kind %d", (int)kind);
	*c = sqk_image_cache(img, kind);
	if (!*c)
		return sqk_api_fail(SQK_ERR_NOENT, 0, NULL, "the image has no such cache");
	return 0;
}

int sqk_image_counter(struct sqk_image *img, enum sqk_cache_kind kind, const char *name,
		      uint64_t *value)
{
	struct sqk_cache *c;
	int err;

	if (!strcmp(name, "decompressions")) {
		*value = sqk_image_decompressions(img);
		return sqk_api_ok();
	}
	if (!strcmp(name, "temporary_files") || !strcmp(name, "spilled")) {
		struct sqk_spill *b = sqk_image_budget(img);

		*value = __atomic_load_n(name[0] == 't' ? &b->files : &b->bytes, __ATOMIC_RELAXED);
		return sqk_api_ok();
	}
	err = cache_of(img, kind, &c);
	if (err)
		return err;
	if (sqk_cache_counter(c, name, value))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no counter '%s'", name);
	return sqk_api_ok();
}

int sqk_image_rate(struct sqk_image *img, enum sqk_cache_kind kind, const char *name, double *value)
{
	struct sqk_cache *c;
	int err = cache_of(img, kind, &c);

	if (err)
		return err;
	if (sqk_cache_rate(c, name, value))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no rate '%s'", name);
	return sqk_api_ok();
}

const char *const *sqk_rate_names(void)
{
	return sqk_cache_rate_names();
}

const char *const *sqk_counter_names(void)
{
	return sqk_cache_counter_names();
}

uint64_t sqk_image_bytes_read(const struct sqk_image *img)
{
	return __atomic_load_n(&sqk_image_file(img)->bytes_read, __ATOMIC_RELAXED);
}
