// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attropt.h"
#include "cmd.h"
#include "mkfs/mkfs.h"
#include "progress.h"
#include "util/error.h"

static int take_mode(const char *opt, const char *arg, struct sqk_mode *m, int *has)
{
	if (sqk_mode_parse(arg, m) != 0)
		return cli_usage_error("invalid %s '%s' (octal, or symbolic as chmod takes it: "
				       "u+rwX,go-w)",
				       opt, arg);
	*has = 1;
	return 0;
}

static int take_id(const char *opt, const char *arg, uint32_t *id, int *set)
{
	uint64_t v;

	if (sqk_parse_uint(arg, 0xffffffffu, &v))
		return cli_usage_error("invalid %s '%s'", opt, arg);
	*id = (uint32_t)v;
	*set = 1;
	return 0;
}

static int take_add(struct sqk_attropt *a, const char *arg)
{
	struct sqk_xattr_add add, *p;
	const char *why = NULL;
	size_t i;
	int err = sqk_xattr_add_parse(arg, &add, &why);

	if (err == SQK_ERR_NOMEM) {
		cli_error(NULL, "out of memory");
		return EXIT_FAIL;
	}
	if (err)
		return cli_usage_error("invalid --xattrs-add '%s': %s", arg, why);
	for (i = 0; i < a->nadds; i++) {
		if (strcmp(a->adds[i].name, add.name) == 0) {
			sqk_xattr_add_release(&add);
			return cli_usage_error("--xattrs-add gives '%s' twice", a->adds[i].name);
		}
	}
	p = realloc(a->adds, (a->nadds + 1) * sizeof(*p));
	if (!p) {
		sqk_xattr_add_release(&add);
		cli_error(NULL, "out of memory");
		return EXIT_FAIL;
	}
	a->adds = p;
	a->adds[a->nadds++] = add;
	return 0;
}

static int take_sort(struct sqk_attropt *a, const char *file)
{
	char why[512];
	unsigned line = 0;
	int err;

	sqk_sort_free(a->sort);
	a->sort = NULL;
	err = sqk_sort_load(file, &a->sort, &line, why, sizeof(why));
	if (err == SQK_ERR_ARG)
		return cli_usage_error("%s:%u: %s", file, line, why);
	if (err) {
		cli_error_code(file, err);
		return EXIT_FAIL;
	}
	return 0;
}

int cli_attropt_take(struct sqk_attropt *a, int opt, const char *arg)
{
	char why[256];

	switch (opt) {
	case OPT_XATTRS_INCLUDE:
	case OPT_XATTRS_EXCLUDE:
		if (sqk_xattr_filter_set(&a->filter, opt == OPT_XATTRS_EXCLUDE, arg, why,
					 sizeof(why)))
			return cli_usage_error("invalid regular expression '%s' for %s: %s", arg,
					       opt == OPT_XATTRS_EXCLUDE ? "--xattrs-exclude"
									 : "--xattrs-include",
					       why);
		return 0;
	case OPT_XATTRS_ADD:
		return take_add(a, arg);
	case OPT_ROOT_MODE:
		return take_mode("--root-mode", arg, &a->root_mode, &a->has_root_mode);
	case OPT_FILE_MODE:
		return take_mode("--file-mode", arg, &a->file_mode, &a->has_file_mode);
	case OPT_DIR_MODE:
		return take_mode("--dir-mode", arg, &a->dir_mode, &a->has_dir_mode);
	case OPT_ROOT_UID:
		return take_id("--root-uid", arg, &a->root_uid, &a->set_root_uid);
	case OPT_ROOT_GID:
		return take_id("--root-gid", arg, &a->root_gid, &a->set_root_gid);
	case OPT_SORT:
		return take_sort(a, arg);
	}
	return cli_usage_error("unknown option");
}

const struct sqk_xattr_filter *cli_attropt_filter(const struct sqk_attropt *a)
{
	return a->filter.has_include || a->filter.has_exclude ? &a->filter : NULL;
}

/* A sort line that names nothing: said, and the build goes on. */
void cli_attropt_warn(void *ctx, const char *where, const char *what)
{
	cli_progress_clear(ctx);
	cli_error(where, "warning: %s", what);
}

void cli_attropt_release(struct sqk_attropt *a)
{
	size_t i;

	sqk_xattr_filter_release(&a->filter);
	for (i = 0; i < a->nadds; i++)
		sqk_xattr_add_release(&a->adds[i]);
	free(a->adds);
	a->adds = NULL;
	a->nadds = 0;
	sqk_sort_free(a->sort);
	a->sort = NULL;
}
