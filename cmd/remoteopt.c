// SPDX-License-Identifier: BSD-2-Clause
/* The options that read an image from a web server (see remoteopt.h), through the public API. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "remoteopt.h"
#include "fe.h"

/* What the options said; headers are kept as given, in order. */
static struct {
	const char *headers[64];
	unsigned nheaders;
	const char *cache_dir;
	uint64_t cache_size;
	int download;
	unsigned timeout, retries;
	int timeout_given, retries_given;
	enum sqk_policy policy;
} opt = {.policy = SQK_POLICY_KEYED};

int cli_is_url(const char *path)
{
	return sqk_path_is_url(path);
}

/* Option which (0..CLI_REMOTE_NOPTS-1, the order of CLI_REMOTE_OPTIONS). */
static int remote_option(int which, const char *arg)
{
	uint64_t v;

	switch (which) {
	case 0:
		if (opt.nheaders == sizeof(opt.headers) / sizeof(opt.headers[0]))
			return cli_usage_error("too many --header options");
		if (!strchr(arg, ':') || *arg == ':' || strpbrk(arg, "\r\n"))
			return cli_usage_error("invalid header '%s' (NAME: VALUE)", arg);
		opt.headers[opt.nheaders++] = arg;
		return 0;
	case 1:
		if (!*arg)
			return cli_usage_error("empty --cache-dir");
		opt.cache_dir = arg;
		return 0;
	case 2:
		if (sqk_parse_size(arg, &opt.cache_size) != 0 || opt.cache_size == 0)
			return cli_usage_error("invalid cache size '%s'", arg);
		return 0;
	case 3:
		opt.download = 1;
		return 0;
	case 4:
		if (sqk_parse_uint(arg, 86400, &v) != 0 || v == 0)
			return cli_usage_error("invalid timeout '%s' (seconds, 1 to 86400)", arg);
		opt.timeout = (unsigned)v;
		opt.timeout_given = 1;
		return 0;
	default:
		if (sqk_parse_uint(arg, 100, &v) != 0)
			return cli_usage_error("invalid retries '%s' (0 to 100)", arg);
		opt.retries = (unsigned)v;
		opt.retries_given = 1;
		return 0;
	}
}

int cli_remote_take(int c, int base, const char *arg)
{
	if (c < base || c >= base + CLI_REMOTE_NOPTS)
		return -1;
	return remote_option(c - base, arg);
}

void cli_remote_policy(enum sqk_policy p)
{
	opt.policy = p;
}

int cli_remote_apply(struct sqk_open_opts *o)
{
	unsigned i;
	int err = 0;

	for (i = 0; i < opt.nheaders && !err; i++)
		err = sqk_open_opts_add_header(o, opt.headers[i]);
	if (!err && opt.cache_dir)
		err = sqk_open_opts_set_remote_cache(o, opt.cache_dir, opt.cache_size);
	if (!err && opt.download)
		err = sqk_open_opts_set_download(o, 1);
	if (!err && opt.timeout_given)
		err = sqk_open_opts_set_timeout(o, opt.timeout);
	if (!err && opt.retries_given)
		err = sqk_open_opts_set_retries(o, opt.retries);
	if (err)
		cli_error(NULL, "%s", sqk_error_message());
	return err ? -1 : 0;
}

/* The settings as open options for the reader's images (mount, bench, fsck). */
static struct sqk_open_opts *reader_opts(void)
{
	struct sqk_open_opts *o = sqk_open_opts_create();

	if (!o) {
		cli_error(NULL, "%s", sqk_error_message());
		return NULL;
	}
	if (sqk_open_opts_set_policy(o, opt.policy) != 0 || cli_remote_apply(o) != 0) {
		sqk_open_opts_destroy(o);
		return NULL;
	}
	return o;
}

int cli_remote_io(const char *url, struct sqk_io *io)
{
	struct sqk_open_opts *o = reader_opts();
	int err;

	if (!o)
		return -1;
	err = sqk_io_open_url(url, o, io);
	if (err)
		cli_error(NULL, "%s", sqk_error_message());
	sqk_open_opts_destroy(o);
	return err ? -1 : 0;
}

int cli_remote_find(const char *url, uint64_t limit, uint64_t *found, size_t max)
{
	struct sqk_open_opts *o = reader_opts();
	int n = o ? sqk_image_find_url(url, o, limit, found, max) : SQK_ERR_NOMEM;

	sqk_open_opts_destroy(o);
	return n;
}
