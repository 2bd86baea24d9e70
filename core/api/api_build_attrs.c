// SPDX-License-Identifier: BSD-2-Clause
/*
 * The build options that are more than a number: modes, the root's owner,
 * xattr filters and additions, the sort file, the parts stored
 * uncompressed, the epoch, the earlier images to reuse. Each is checked
 * when set; a build makes its own objects of them when created, so that
 * the options may go at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api_build.h"
#include "mkfs/mkfs.h"
#include "util/parse.h"
#include "write/reuse.h"
#include "write/sort.h"

static const char *const mode_names[3] = {"file-mode", "dir-mode", "root-mode"};

int sqk_api_set_string(char **to, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	free(*to);
	*to = s;
	return 0;
}

static int set_filter(struct sqk_build_opts *o, int exclude, const char *v)
{
	struct sqk_xattr_filter f = {0};
	char why[256];

	if (sqk_xattr_filter_set(&f, exclude, v, why, sizeof(why)))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "invalid regular expression '%s' for %s: %s", v,
				    exclude ? "xattrs-exclude" : "xattrs-include", why);
	sqk_xattr_filter_release(&f);
	return sqk_api_set_string(exclude ? &o->xattrs_exclude : &o->xattrs_include, v);
}

static int add_xattr(struct sqk_build_opts *o, const char *v)
{
	struct sqk_xattr_add add, other;
	const char *why = NULL;
	size_t i;
	int err = sqk_xattr_add_parse(v, &add, &why);

	if (err == SQK_ERR_NOMEM)
		return sqk_api_fail(err, 0, NULL, NULL);
	if (err)
		return sqk_api_fail(err, 0, NULL, "invalid xattrs-add '%s': %s", v, why);
	for (i = 0; i < o->xattrs_add.n; i++) {
		if (sqk_xattr_add_parse(o->xattrs_add.v[i], &other, &why))
			continue;
		err = strcmp(other.name, add.name) == 0;
		sqk_xattr_add_release(&other);
		if (err) {
			err = sqk_api_fail(SQK_ERR_ARG, 0, NULL, "xattrs-add gives '%s' twice",
					   add.name);
			sqk_xattr_add_release(&add);
			return err;
		}
	}
	sqk_xattr_add_release(&add);
	return sqk_api_strv_add(&o->xattrs_add, v) ? sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL) : 0;
}

/* The sort file is read now, to say what is wrong with it, and again by the build. */
static int set_sort(struct sqk_build_opts *o, const char *v)
{
	struct sqk_sort *s = NULL;
	char why[512];
	unsigned line = 0;
	int err = sqk_sort_load(v, &s, &line, why, sizeof(why));

	sqk_sort_free(s);
	if (err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, v, "line %u: %s", line, why);
	if (err)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, v, NULL);
	return sqk_api_set_string(&o->sort, v);
}

int sqk_api_attrs_set(struct sqk_build_opts *o, const char *name, const char *v)
{
	uint64_t n;
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(name, mode_names[i])) {
			if (sqk_mode_parse(v, &o->modes[i]))
				return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
						    "invalid %s '%s' (octal, or symbolic as chmod "
						    "takes it: u+rwX,go-w)",
						    name, v);
			o->has_mode[i] = 1;
			return 0;
		}
	if (!strcmp(name, "root-uid") || !strcmp(name, "root-gid")) {
		if (sqk_parse_uint(v, UINT32_MAX, &n))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid %s '%s'", name, v);
		if (name[5] == 'u') {
			o->mo.root_uid = (uint32_t)n;
			o->mo.set_root_uid = 1;
		} else {
			o->mo.root_gid = (uint32_t)n;
			o->mo.set_root_gid = 1;
		}
		return 0;
	}
	if (!strcmp(name, "xattrs-include") || !strcmp(name, "xattrs-exclude"))
		return set_filter(o, name[7] == 'e', v);
	if (!strcmp(name, "xattrs-add"))
		return add_xattr(o, v);
	if (!strcmp(name, "sort"))
		return set_sort(o, v);
	if (!strcmp(name, "uncompressed")) {
		if (sqk_mkfs_raw_parse(v, &o->mo.raw))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid uncompressed list '%s' (inodes, data, "
					    "fragments, xattrs, ids)",
					    v);
		return 0;
	}
	if (!strcmp(name, "source-date-epoch")) {
		if (sqk_parse_uint(v, UINT32_MAX, &n))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid %s '%s'", name, v);
		o->mo.epoch = (uint32_t)n;
		o->mo.have_epoch = 1;
		return 0;
	}
	if (!strcmp(name, "offset")) {
		if (sqk_parse_size(v, &o->offset))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid offset '%s'", v);
		return 0;
	}
	if (!strcmp(name, "reuse"))
		return sqk_api_strv_add(&o->reuse, v) ? sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL)
						      : 0;
	if (!strcmp(name, "reuse-offset")) {
		o->reuse_auto = !strcmp(v, "auto");
		if (!o->reuse_auto && sqk_parse_size(v, &o->reuse_offset))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid reuse-offset '%s'", v);
		return 0;
	}
	return 1;
}

void sqk_api_attrs_opts_free(struct sqk_build_opts *o)
{
	free(o->sort);
	free(o->xattrs_include);
	free(o->xattrs_exclude);
	sqk_api_strv_free(&o->xattrs_add);
	sqk_api_strv_free(&o->reuse);
}

static int make_xattrs(struct sqk_api_attrs *a, const struct sqk_build_opts *o,
		       struct sqk_mkfs_opts *mo)
{
	const char *why;
	char buf[256];
	size_t i;

	if ((o->xattrs_include &&
	     sqk_xattr_filter_set(&a->filter, 0, o->xattrs_include, buf, sizeof(buf))) ||
	    (o->xattrs_exclude &&
	     sqk_xattr_filter_set(&a->filter, 1, o->xattrs_exclude, buf, sizeof(buf))))
		return SQK_ERR_NOMEM; /* each compiled once already */
	if (o->xattrs_include || o->xattrs_exclude)
		mo->xattr_filter = &a->filter;
	if (o->xattrs_add.n && !(a->adds = calloc(o->xattrs_add.n, sizeof(*a->adds))))
		return SQK_ERR_NOMEM;
	for (i = 0; i < o->xattrs_add.n; i++, a->nadds++)
		if (sqk_xattr_add_parse(o->xattrs_add.v[i], &a->adds[i], &why))
			return SQK_ERR_NOMEM; /* each parsed once already */
	mo->xattr_adds = a->adds;
	mo->nxattr_adds = a->nadds;
	return 0;
}

/* The earlier images, each at its offset (or looked for), and each able to serve. */
static int make_reuse(struct sqk_api_attrs *a, const struct sqk_build_opts *o,
		      struct sqk_mkfs_opts *mo, const char *path)
{
	struct sqk_open_opts oo;
	size_t i;
	int err;

	if (!o->reuse.n)
		return 0;
	sqk_api_build_step("reuse");
	a->reuse = calloc(o->reuse.n, sizeof(*a->reuse));
	a->given = calloc(o->reuse.n, sizeof(*a->given));
	if (!a->reuse || !a->given)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	sqk_api_open_defaults(NULL, &oo);
	oo.offset = o->reuse_offset;
	oo.offset_auto = o->reuse_auto;
	/* Every worker and the main thread prove blocks at once. */
	oo.image.decompressors = mo->threads + 1;
	for (i = 0; i < o->reuse.n; i++, a->ngiven++) {
		struct sqk_image **img = &a->reuse[a->nreuse];
		struct sqk_api_given *g = &a->given[i];

		err = sqk_image_open_path(o->reuse.v[i], &oo, img);
		if (err)
			return err;
		g->used = (long)a->nreuse++;
		if (!sqk_reuse_refusal(*img, mo->codec, &mo->comp, mo->block_size,
				       !!(mo->raw & SQK_RAW_DATA), !!(mo->raw & SQK_RAW_FRAGMENTS),
				       g->why, sizeof(g->why)))
			continue;
		if (!o->reuse_skip_unfit)
			return sqk_api_fail(SQK_ERR_ARG, 0, o->reuse.v[i], "cannot be reused: %s",
					    g->why);
		/* Left out: its blocks cannot serve this build. */
		sqk_image_close(*img);
		*img = NULL;
		a->nreuse--;
		g->used = -1;
	}
	mo->reuse = a->reuse;
	mo->nreuse = a->nreuse;
	return 0;
}

int sqk_api_attrs_make(struct sqk_api_attrs *a, const struct sqk_build_opts *o,
		       struct sqk_mkfs_opts *mo, const char *path)
{
	const struct sqk_mode **to[3] = {&mo->file_mode, &mo->dir_mode, &mo->root_mode};
	char why[512];
	unsigned line;
	int i, err;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < 3; i++) {
		a->modes[i] = o->modes[i];
		*to[i] = o->has_mode[i] ? &a->modes[i] : NULL;
	}
	if (make_xattrs(a, o, mo))
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	if (o->sort) {
		sqk_api_build_step("sort");
		err = sqk_sort_load(o->sort, &a->sort, &line, why, sizeof(why));
		if (err == SQK_ERR_ARG)
			return sqk_api_fail(err, 0, o->sort, "line %u: %s", line, why);
		if (err)
			return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, o->sort, NULL);
		mo->sort = a->sort;
	}
	return make_reuse(a, o, mo, path);
}

void sqk_api_attrs_release(struct sqk_api_attrs *a)
{
	size_t i;

	sqk_xattr_filter_release(&a->filter);
	for (i = 0; i < a->nadds; i++)
		sqk_xattr_add_release(&a->adds[i]);
	free(a->adds);
	sqk_sort_free(a->sort);
	for (i = 0; i < a->nreuse; i++)
		sqk_image_close(a->reuse[i]);
	free(a->reuse);
	free(a->given);
	memset(a, 0, sizeof(*a));
}
