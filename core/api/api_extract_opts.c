// SPDX-License-Identifier: BSD-2-Clause
/* An extraction's options by unimage's long names. */
#include <stdlib.h>
#include <string.h>

#include "api_extract.h"
#include "util/parse.h"
#include "util/pool.h"
#include "walk/archive_sink.h"

struct sqk_extract_opts *sqk_extract_opts_create(void)
{
	struct sqk_extract_opts *o = calloc(1, sizeof(*o));

	if (!o) {
		sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		return NULL;
	}
	o->threads = sqk_online_cpus();
	strcpy(o->format, "pax");
	return o;
}

void sqk_extract_opts_destroy(struct sqk_extract_opts *o)
{
	if (!o)
		return;
	sqk_xattr_filter_release(&o->filter);
	sqk_api_strv_free(&o->paths);
	free(o);
}

static int set_value(struct sqk_extract_opts *o, const char *name, const char *v)
{
	char why[256];
	uint64_t n;

	if (!strcmp(name, "xattrs-include") || !strcmp(name, "xattrs-exclude")) {
		if (sqk_xattr_filter_set(&o->filter, name[7] == 'e', v, why, sizeof(why)))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid %s '%s': %s", name, v,
					    why);
	} else if (!strcmp(name, "threads")) {
		if (sqk_parse_uint(v, 4096, &n) || !n)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid thread count '%s'", v);
		o->threads = (unsigned)n;
	} else if (!strcmp(name, "format")) {
		if (!sqk_archive_format_known(v) || strlen(v) >= sizeof(o->format))
			return sqk_api_fail(
				SQK_ERR_ARG, 0, NULL,
				"unknown archive format '%s' (pax, gnu, ustar, cpio, zip)", v);
		strcpy(o->format, v);
	} else {
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no extract option '%s' with a value",
				    name);
	}
	return sqk_api_ok();
}

int sqk_extract_opts_set(struct sqk_extract_opts *o, const char *name, const char *value)
{
	if (value)
		return set_value(o, name, value);
	if (!strcmp(name, "force"))
		o->force = 1;
	else if (!strcmp(name, "keep-going"))
		o->keep_going = 1;
	else if (!strcmp(name, "no-xattrs"))
		o->no_xattrs = 1;
	else if (!strcmp(name, "no-owner"))
		o->no_owner = 1;
	else if (!strcmp(name, "signals"))
		o->signals = 1;
	else if (!strcmp(name, "fill"))
		o->fill = 1;
	else if (!strcmp(name, "keep-made"))
		o->keep_made = 1;
	else if (!strcmp(name, "pass-over"))
		o->pass_over = 1;
	else
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no extract switch '%s'", name);
	return sqk_api_ok();
}

int sqk_extract_opts_set_entry(struct sqk_extract_opts *o, sqk_entry_fn fn, void *ctx)
{
	if (!o)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no options");
	o->entry = fn;
	o->entry_ctx = ctx;
	return sqk_api_ok();
}

int sqk_extract_opts_set_failure(struct sqk_extract_opts *o, sqk_failure_fn fn, void *ctx)
{
	o->fail = fn;
	o->fail_ctx = ctx;
	return sqk_api_ok();
}

int sqk_extract_opts_set_notice(struct sqk_extract_opts *o, sqk_notice_fn fn, void *ctx)
{
	o->notice = fn;
	o->notice_ctx = ctx;
	return sqk_api_ok();
}

int sqk_extract_opts_add_path(struct sqk_extract_opts *o, const char *path)
{
	/* Kept as given, its trailing "/" too: the run resolves it (api_extract.c). */
	if (sqk_api_strv_add(&o->paths, path))
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	return sqk_api_ok();
}
