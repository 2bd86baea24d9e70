// SPDX-License-Identifier: BSD-2-Clause
/* The inspector driver, and the helpers inspect, ls, cat and stat share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "imageopt.h"
#include "show.h"
#include "verityopt.h"
#include "remoteopt.h"

/* Room for a command's own long options, the driver's and the end. */
#define MAX_LONGOPTS 32

static const struct option common_opts[] = {
	{"json", no_argument, NULL, SQK_SHOW_OPT_JSON},
	{"stats", no_argument, NULL, SQK_SHOW_OPT_STATS},
	{"offset", required_argument, NULL, SQK_SHOW_OPT_OFFSET},
	CLI_VERITY_OPTIONS(SQK_SHOW_OPT_VERITY),
	CLI_REMOTE_OPTIONS(SQK_SHOW_OPT_REMOTE),
	{"help", no_argument, NULL, 'h'},
};

static int build_options(const struct sqk_show_cmd *cmd, struct option *opts, char *shortopts,
			 size_t len)
{
	size_t n = 0, i;

	for (i = 0; cmd->longopts && cmd->longopts[i].name; i++) {
		if (n + sizeof(common_opts) / sizeof(common_opts[0]) + 1 > MAX_LONGOPTS)
			return -1;
		opts[n++] = cmd->longopts[i];
	}
	for (i = 0; i < sizeof(common_opts) / sizeof(common_opts[0]); i++)
		if (common_opts[i].val != SQK_SHOW_OPT_JSON || cmd->json)
			opts[n++] = common_opts[i];
	memset(&opts[n], 0, sizeof(opts[n]));
	return snprintf(shortopts, len, "%sh", cmd->shortopts) < (int)len ? 0 : -1;
}

int cli_show_main(int argc, char **argv, const struct sqk_show_cmd *cmd, void *ctx)
{
	struct option opts[MAX_LONGOPTS + 1];
	struct sqk_show s;
	char shortopts[32];
	int c, stats = 0, ret;

	memset(&s, 0, sizeof(s));
	s.ctx = ctx;
	sqk_json_init_file(&s.out, stdout);
	if (build_options(cmd, opts, shortopts, sizeof(shortopts)) != 0) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_OVERFLOW));
		return EXIT_FAIL;
	}
	while ((c = cli_getopt(argc, argv, shortopts, opts)) != -1) {
		switch (c) {
		case SQK_SHOW_OPT_JSON:
			s.json = 1;
			break;
		case SQK_SHOW_OPT_STATS:
			stats = 1;
			break;
		case SQK_SHOW_OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(cmd->usage, stdout);
			return EXIT_OK;
		case '?':
			return EXIT_USAGE;
		default:
			ret = cli_remote_take(c, SQK_SHOW_OPT_REMOTE, optarg);
			if (ret >= 0) {
				if (ret)
					return ret;
				break;
			}
			if (c >= SQK_SHOW_OPT_VERITY &&
			    c < SQK_SHOW_OPT_VERITY + CLI_VERITY_NOPTS) {
				ret = cli_verity_option(c - SQK_SHOW_OPT_VERITY, optarg);
				if (ret)
					return ret;
				break;
			}
			ret = cmd->option ? cmd->option(&s, c, optarg) : EXIT_USAGE;
			if (ret)
				return ret;
			break;
		}
	}
	if (optind >= argc)
		return cli_usage_error("missing IMAGE operand");
	if (cli_verity_options_check())
		return EXIT_USAGE;
	s.image = argv[optind];
	s.paths = argv + optind + 1;
	s.npaths = (unsigned)(argc - optind - 1);
	if (s.npaths < cmd->min_paths)
		return cli_usage_error("missing PATH operand");
	if (s.npaths > cmd->max_paths)
		return cli_usage_error("too many operands");
	/* The kernel's cache sizes: each command reads what it shows once. */
	s.img = cli_open_image(s.image, NULL);
	if (!s.img)
		return EXIT_FAIL;
	ret = cmd->run(&s);
	cli_verity_failures(s.image, s.img);
	if (s.out.err) {
		/* A JSON document the writer refused: a bug, never half of one silently. */
		cli_error("stdout", "%s", sqk_strerror(s.out.err));
		ret = EXIT_FAIL;
	}
	if (cli_stdout_flush() != 0)
		ret = EXIT_FAIL;
	if (stats)
		cli_print_stats(stderr, s.img);
	sqk_image_destroy(s.img);
	return ret;
}

/* "/path" for messages: image paths are shown from the root. */
static void print_image_path(FILE *out, const char *path)
{
	if (*path != '/')
		fputc('/', out);
	cli_print_escaped(out, path);
}
void cli_show_path_error(const char *image, const char *path, const char *what)
{
	fprintf(stderr, "squashkit %s: ", cli_cmd_name);
	cli_print_escaped(stderr, image);
	fputs(": ", stderr);
	print_image_path(stderr, path);
	fprintf(stderr, ": %s\n", what);
}

void cli_mode_string(mode_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	switch (mode & S_IFMT) {
	case S_IFDIR:
		out[0] = 'd';
		break;
	case S_IFLNK:
		out[0] = 'l';
		break;
	case S_IFBLK:
		out[0] = 'b';
		break;
	case S_IFCHR:
		out[0] = 'c';
		break;
	case S_IFIFO:
		out[0] = 'p';
		break;
	case S_IFSOCK:
		out[0] = 's';
		break;
	default:
		out[0] = '-';
		break;
	}
	for (i = 0; i < 9; i++)
		out[1 + i] = (mode & (0400 >> i)) ? rwx[i] : '-';
	/* setuid, setgid, sticky replace an execute bit: lower case when it is set too. */
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}

void cli_time_string(uint32_t t, int seconds, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm)) {
		snprintf(out, len, "%u", t);
		return;
	}
	strftime(out, len, seconds ? "%Y-%m-%d %H:%M:%S" : "%Y-%m-%d %H:%M", &tm);
}

const char *cli_api_text(int err, int errnum)
{
	if (!errnum && (err == SQK_ERR_IO || err == SQK_ERR_NOFILE))
		errnum = EIO;
	return errnum ? strerror(errnum) : sqk_strerror(err);
}

const char *cli_api_why(int err)
{
	return cli_api_text(err, sqk_error_errno());
}

/* PATH shown from the root, without repeated or trailing slashes. */
char *cli_show_normalise(const char *path)
{
	char *out = malloc(strlen(path) + 2), *q = out;
	const char *p;

	if (!out)
		return NULL;
	for (p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		*q++ = '/';
		while (*p && *p != '/')
			*q++ = *p++;
	}
	if (q == out)
		*q++ = '/';
	*q = '\0';
	return out;
}
