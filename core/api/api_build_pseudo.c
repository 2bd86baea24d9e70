// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a front end checks while it parses its command line, before
 * anything is opened: pseudo definitions read where they stand among the
 * options (a link, L, names an earlier one), and the compressor's level
 * and options.
 */
#include <errno.h>
#include <stdlib.h>

#include "api_build.h"
#include "source/pseudo.h"

struct sqk_api_pseudo *sqk_api_pseudo_ref(struct sqk_api_pseudo *h)
{
	if (h)
		__atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
	return h;
}

void sqk_api_pseudo_unref(struct sqk_api_pseudo *h)
{
	if (!h || __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	sqk_pseudo_destroy(h->p);
	free(h);
}

int sqk_api_pseudo_add(struct sqk_pseudo *p, const char *arg, int file)
{
	int err;

	errno = 0;
	err = file ? sqk_pseudo_add_file(p, arg) : sqk_pseudo_add_def(p, arg);
	if (err == SQK_ERR_ARG || err == SQK_ERR_IO)
		return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, sqk_pseudo_err_where(p),
				    "%s", sqk_pseudo_err_msg(p));
	if (err)
		return sqk_api_fail(err, 0, arg, NULL);
	return sqk_api_ok();
}

static int opts_pseudo(struct sqk_build_opts *o, const char *arg, int file)
{
	struct sqk_api_pseudo *h = o->pseudo;

	if (h && __atomic_load_n(&h->refs, __ATOMIC_RELAXED) > 1)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "pseudo definitions are added before a build is created");
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h || sqk_pseudo_create(0, &h->p)) {
			free(h);
			return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
		}
		h->refs = 1;
		o->pseudo = h;
	}
	return sqk_api_pseudo_add(h->p, arg, file);
}

int sqk_build_opts_add_pseudo(struct sqk_build_opts *o, const char *definition)
{
	return opts_pseudo(o, definition, 0);
}

int sqk_build_opts_add_pseudo_file(struct sqk_build_opts *o, const char *path)
{
	return opts_pseudo(o, path, 1);
}

int sqk_build_opts_check(const struct sqk_build_opts *o)
{
	const struct sqk_codec *c = o->codec;
	struct sqk_comp_config cfg;
	size_t bad;

	if (o->level >= 0 && (o->level < c->level_min || o->level > c->level_max))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
				    "level %d is out of range for %s (%d..%d)", o->level, c->name,
				    c->level_min, c->level_max);
	if (!sqk_comp_config_setup(&cfg, c, o->mo.block_size, o->level,
				   (const char *const *)o->comp_opts.v, o->comp_opts.n, &bad))
		return sqk_api_ok();
	if (bad < o->comp_opts.n)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "invalid option '%s' for %s",
				    o->comp_opts.v[bad], c->name);
	/* Options valid one by one may still not go together (xz: lc + lp at most 4). */
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "the %s options given do not go together",
			    c->name);
}
