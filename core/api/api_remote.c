// SPDX-License-Identifier: BSD-2-Clause
/* Images on web servers (squashkit/remote.h): the settings, the file, the counters. */
#include <errno.h>
#include <string.h>

#include "api_int.h"
#include "verity/verity_read.h"

int sqk_path_is_url(const char *s)
{
	return sqk_remote_is_url(s);
}

int sqk_open_opts_add_header(struct sqk_open_opts *o, const char *line)
{
	int err = line ? sqk_remote_opts_header(&o->remote, line) : SQK_ERR_ARG;

	if (err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, NULL, "a header is one line, \"Name: value\"");
	if (err)
		return sqk_api_fail(err, 0, NULL, "the headers take more than %u bytes",
				    (unsigned)sizeof(o->remote.headers));
	return sqk_api_ok();
}

int sqk_open_opts_set_remote_cache(struct sqk_open_opts *o, const char *dir, uint64_t max_bytes)
{
	if (dir && (!*dir || strlen(dir) >= sizeof(o->remote.cache_dir)))
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "the cache directory's name is %s",
				    *dir ? "too long" : "empty");
	strcpy(o->remote.cache_dir, dir ? dir : "");
	o->remote.cache_max = max_bytes ? max_bytes : 1ull << 30;
	return sqk_api_ok();
}

int sqk_open_opts_set_download(struct sqk_open_opts *o, int on)
{
	o->remote.download = !!on;
	return sqk_api_ok();
}

int sqk_open_opts_set_timeout(struct sqk_open_opts *o, unsigned seconds)
{
	if (!seconds)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "a timeout is at least 1 second");
	o->remote.timeout_s = seconds;
	return sqk_api_ok();
}

int sqk_open_opts_set_retries(struct sqk_open_opts *o, unsigned n)
{
	if (n > 100)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "at most 100 retries");
	o->remote.retries = n;
	return sqk_api_ok();
}

int sqk_api_url_file(const char *url, const struct sqk_open_opts *opts, struct sqk_file **out)
{
	struct sqk_open_opts o;
	char why[512];
	int errnum, err;

	if (!sqk_remote_is_url(url))
		return sqk_api_fail(SQK_ERR_ARG, 0, url, "not an http:// or https:// URL");
	sqk_api_open_defaults(opts, &o);
	o.remote.policy = o.image.policy;
	err = sqk_remote_open(url, &o.remote, out, &errnum, why, sizeof(why));
	if (err)
		return why[0] ? sqk_api_fail(err, errnum, url, "%s", why)
			      : sqk_api_fail(err, errnum, url, NULL);
	return 0;
}

int sqk_api_url_read_at(void *ctx, uint64_t pos, void *buf, size_t len)
{
	struct sqk_file *f = ctx;

	return f->read_at(f, pos, buf, len);
}

static uint64_t url_size(void *ctx)
{
	struct sqk_file *f = ctx;

	return f->size(f);
}

static void url_close(void *ctx)
{
	sqk_file_destroy(ctx);
}

int(sqk_io_open_url)(const char *url, const struct sqk_open_opts *opts, struct sqk_io *io,
		     size_t size)
{
	struct sqk_file *f;
	struct sqk_io made;
	int err;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_io, ctx), "sqk_io"))
		return SQK_ERR_ARG;
	err = sqk_api_url_file(url, opts, &f);
	if (err)
		return err;
	made = (struct sqk_io){sqk_api_url_read_at, url_size, url_close, f};
	sqk_api_out(io, size, &made, sizeof(made), 0, NULL);
	return sqk_api_ok();
}

struct sqk_file *sqk_api_remote_under(struct sqk_file *f)
{
	while (f && !sqk_remote_is(f)) {
		if (sqk_verity_is_reader(f))
			f = sqk_verity_reader_inner(f);
		else if (sqk_file_window_inner(f))
			f = sqk_file_window_inner(f);
		else
			f = sqk_api_io_url_file(f);
	}
	return f;
}

int sqk_image_remote_counter(const struct sqk_image *img, const char *name, uint64_t *value)
{
	struct sqk_file *f = img ? sqk_api_remote_under(sqk_image_file(img)) : NULL;
	struct sqk_remote_stats s;

	if (!f)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "the image is not read over HTTP");
	sqk_remote_stats(f, &s);
	if (!name || sqk_remote_stat(&s, name, value) != 0)
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no remote counter '%s'",
				    name ? name : "(null)");
	return sqk_api_ok();
}

const char *const *sqk_remote_counter_names(void)
{
	return sqk_remote_stat_names();
}
