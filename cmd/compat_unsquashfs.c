// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit unsquashfs: unsquashfs's command line (4.5.1) on squashkit's
 * reader. Extraction is the native extract sink driven by the native walk,
 * -cat is `squashkit cat`, -pf is `unimage --describe`; what is the peer's
 * own is the option syntax, the extract/exclude name matching (a sink
 * between the walk and the extract sink) and the text it prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "compat.h"
#include "compat_unsq.h"
#include "imageopt.h"
#include "fe.h"

enum {
	U_VERSION,
	U_CAT,
	U_DEST,
	U_MAX_DEPTH,
	U_EXCLUDES,
	U_EXCLUDE_LIST,
	U_FOLLOW,
	U_MISSING,
	U_QUIET,
	U_NO_PROGRESS,
	U_NO_XATTRS,
	U_XATTRS,
	U_USER_XATTRS,
	U_PROCESSORS,
	U_INFO,
	U_LINFO,
	U_LS,
	U_LLS,
	U_LLN,
	U_LC,
	U_LLC,
	U_OFFSET,
	U_FORCE,
	U_IGNORE_ERRORS,
	U_STRICT_ERRORS,
	U_NO_EXIT_CODE,
	U_STAT,
	U_UTC,
	U_MKFS_TIME,
	U_EXTRACT_FILE,
	U_EXCLUDE_FILE,
	U_PF,
	U_QUEUE,
	U_NO_WILDCARDS,
	U_REGEX,
	U_HELP,
};

/* Every option of unsquashfs 4.5.1, with the spellings it accepts. */
static const struct compat_opt options[] = {
	{"version|v", 0, COMPAT_MAPPED, U_VERSION},
	{"cat", 0, COMPAT_MAPPED, U_CAT},
	{"dest|d", 1, COMPAT_MAPPED, U_DEST},
	{"max-depth|max", 1, COMPAT_MAPPED, U_MAX_DEPTH},
	{"excludes", 0, COMPAT_MAPPED, U_EXCLUDES},
	{"exclude-list|ex", 0, COMPAT_MAPPED, U_EXCLUDE_LIST},
	{"follow-symlinks|follow|L", 0, COMPAT_MAPPED, U_FOLLOW},
	{"missing-symlinks|missing", 0, COMPAT_MAPPED, U_MISSING},
	{"quiet|q", 0, COMPAT_MAPPED, U_QUIET},
	{"no-progress|n", 0, COMPAT_MAPPED, U_NO_PROGRESS},
	{"no-xattrs|no", 0, COMPAT_MAPPED, U_NO_XATTRS},
	{"xattrs|x", 0, COMPAT_MAPPED, U_XATTRS},
	{"user-xattrs|u", 0, COMPAT_MAPPED, U_USER_XATTRS},
	{"processors|p", 1, COMPAT_MAPPED, U_PROCESSORS},
	{"info|i", 0, COMPAT_MAPPED, U_INFO},
	{"linfo|li", 0, COMPAT_MAPPED, U_LINFO},
	{"ls|l", 0, COMPAT_MAPPED, U_LS},
	{"lls|ll", 0, COMPAT_MAPPED, U_LLS},
	{"llnumeric|lln", 0, COMPAT_MAPPED, U_LLN},
	{"lc", 0, COMPAT_MAPPED, U_LC},
	{"llc", 0, COMPAT_MAPPED, U_LLC},
	{"offset|o", 1, COMPAT_MAPPED, U_OFFSET},
	{"force|f", 0, COMPAT_MAPPED, U_FORCE},
	{"ignore-errors|ig", 0, COMPAT_MAPPED, U_IGNORE_ERRORS},
	{"strict-errors|st", 0, COMPAT_MAPPED, U_STRICT_ERRORS},
	{"no-exit-code|no-exit", 0, COMPAT_MAPPED, U_NO_EXIT_CODE},
	{"stat|s", 0, COMPAT_MAPPED, U_STAT},
	{"UTC", 0, COMPAT_MAPPED, U_UTC},
	{"mkfs-time|fstime", 0, COMPAT_MAPPED, U_MKFS_TIME},
	{"extract-file|e|ef", 1, COMPAT_MAPPED, U_EXTRACT_FILE},
	{"exclude-file|exc|excf", 1, COMPAT_MAPPED, U_EXCLUDE_FILE},
	{"pf|pseudo-file", 1, COMPAT_MAPPED, U_PF},
	{"data-queue|da|frag-queue|fr", 1, COMPAT_NOEFFECT, U_QUEUE},
	{"no-wildcards|no-wild", 0, COMPAT_MAPPED, U_NO_WILDCARDS},
	{"regex|r", 0, COMPAT_MAPPED, U_REGEX},
	{"help|h", 0, COMPAT_MAPPED, U_HELP},
	{NULL, 0, 0, 0},
};

const struct compat_opt *cli_compat_unsq_table(void)
{
	return options;
}

static const char usage_text[] =
	"Usage: squashkit unsquashfs [OPTIONS] FILESYSTEM [PATH...]\n"
	"unsquashfs's command line (4.5.1) on squashkit's reader: the same options,\n"
	"listings and exit codes. Every option and its mapping: squashkit-compat(1).\n\n";

static int read_list_file(struct usq *u, int exclude, const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!f)
		return cli_compat_fail("%s: %s", file, strerror(errno));
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > 0 && cli_usq_filter_add(&u->filter, exclude, line) != 0)
			err = cli_compat_fail("%s: invalid name '%s'", file, line);
	}
	free(line);
	fclose(f);
	return err;
}

/*
 * Run a native command: its options opts (NULL-ended), the image's offset
 * as --offset, the image and paths. Its messages say "squashkit
 * unsquashfs:", as cli_cmd_name stays.
 */
static int native(struct usq *u, int (*cmd)(int, char **), const char *name,
		  const char *const *opts, char **paths, int npaths)
{
	char **argv = calloc((size_t)npaths + 9, sizeof(*argv));
	int argc = 0, i, ret;

	if (!argv)
		return cli_compat_fail("%s", sqk_strerror(SQK_ERR_NOMEM));
	argv[argc++] = (char *)name;
	for (i = 0; opts && opts[i] && i < 3; i++)
		argv[argc++] = (char *)opts[i];
	if (u->offset) {
		argv[argc++] = "--offset";
		argv[argc++] = (char *)u->offset;
	}
	/* The image and the paths are operands, whatever they start with. */
	argv[argc++] = "--";
	argv[argc++] = (char *)u->image;
	for (i = 0; i < npaths; i++)
		argv[argc++] = paths[i];
	optind = 0;
	ret = cmd(argc, argv);
	free(argv);
	return ret;
}

static int take(struct usq *u, const struct compat_opt *o, const char *val)
{
	uint64_t v;

	switch (o->id) {
	case U_CAT:
		u->cat = 1;
		break;
	case U_DEST:
		u->dest = val;
		break;
	case U_MAX_DEPTH:
		if (cli_compat_uint(val, INT32_MAX, &v) != 0)
			return cli_compat_fail("-max-depth: invalid levels '%s'", val);
		u->filter.max_depth = (int)v;
		break;
	case U_EXCLUDES:
		u->excludes = 1;
		break;
	case U_FOLLOW:
		/* Following gives one path a name: no wildcards, as the peer. */
		u->follow = 1;
		u->filter.no_wildcards = 1;
		break;
	case U_MISSING:
		u->missing = 1;
		break;
	case U_QUIET:
		u->quiet = 1;
		break;
	case U_NO_PROGRESS:
		u->progress = 0;
		break;
	case U_NO_XATTRS:
		u->no_xattrs = 1;
		break;
	case U_XATTRS:
		u->no_xattrs = 0;
		break;
	case U_USER_XATTRS:
		u->no_xattrs = 0;
		u->user_xattrs = 1;
		break;
	case U_PROCESSORS:
		if (cli_compat_uint(val, 1024, &v) != 0 || v == 0)
			return cli_compat_fail("-processors: invalid number '%s'", val);
		u->threads = (unsigned)v;
		break;
	case U_INFO:
		u->info = 1;
		break;
	case U_LINFO:
		u->info = 1, u->lng = 1;
		break;
	case U_LS:
		u->ls = 1;
		break;
	case U_LLS:
		u->ls = 1, u->lng = 1;
		break;
	case U_LLN:
		u->ls = 1, u->lng = 1, u->numeric = 1;
		break;
	case U_LC:
		u->ls = 1, u->concise = 1;
		break;
	case U_LLC:
		u->ls = 1, u->lng = 1, u->concise = 1;
		break;
	case U_OFFSET: {
		static char buf[24];

		if (cli_compat_size(val, &v) != 0)
			return cli_compat_fail("-offset: invalid offset '%s'", val);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		u->offset = buf;
		if (cli_offset_option(buf) != 0)
			return COMPAT_FATAL;
		break;
	}
	case U_FORCE:
		u->force = 1;
		break;
	case U_IGNORE_ERRORS:
		u->ignore_errors = 1;
		break;
	case U_STRICT_ERRORS:
		u->strict_errors = 1;
		break;
	case U_NO_EXIT_CODE:
		u->exit_code = 0;
		break;
	case U_STAT:
		u->stat = 1;
		break;
	case U_UTC:
		u->utc = 1;
		break;
	case U_MKFS_TIME:
		u->mkfs_time = 1;
		break;
	case U_EXTRACT_FILE:
		return read_list_file(u, 0, val);
	case U_EXCLUDE_FILE:
		return read_list_file(u, 1, val);
	case U_PF:
		u->pf = val;
		break;
	case U_NO_WILDCARDS:
		u->filter.no_wildcards = 1;
		break;
	case U_REGEX:
		u->filter.regex = 1;
		break;
	}
	return 0;
}

static int parse(struct usq *u, int argc, char **argv, int *first)
{
	const char *bad = NULL;
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const struct compat_opt *o = cli_compat_find(options, argv[i]);
		const char *val = NULL;

		if (!o)
			return cli_compat_fail("unknown option '%s' (see squashkit-compat(1))",
					       argv[i]);
		if (o->kind == COMPAT_REFUSED)
			return cli_compat_unsupported(argv[i]);
		if (o->id == U_VERSION || o->id == U_HELP) {
			if (o->id == U_VERSION)
				printf("squashkit unsquashfs %s (unsquashfs 4.5.1 command line)\n",
				       SQK_VERSION);
			else
				fputs(usage_text, stdout);
			cli_compat_print_options(stdout, options);
			return -1;
		}
		if (o->id == U_EXCLUDE_LIST) {
			/* Names up to ";", each an exclude. */
			for (i++; i < argc && strcmp(argv[i], ";") != 0; i++)
				if (cli_usq_filter_add(&u->filter, 1, argv[i]) != 0)
					return cli_compat_fail("-exclude-list: invalid name '%s'",
							       argv[i]);
			if (i == argc)
				return cli_compat_fail("-exclude-list: missing ';'");
			continue;
		}
		if (o->nargs && !(val = cli_compat_value(argc, argv, &i)))
			return COMPAT_FATAL;
		ret = take(u, o, val);
		if (ret)
			return ret;
	}
	if (i >= argc)
		return cli_compat_fail("missing FILESYSTEM operand (see squashkit-compat(1))");
	*first = i;
	/* The peer's checks, in its order, once every option is known. */
	if (!*u->dest && !u->ls)
		return cli_compat_fail("-dest: the directory name is empty (use '.' for this one)");
	if (u->strict_errors && u->ignore_errors)
		return cli_compat_fail("-strict-errors and -ignore-errors exclude each other");
	if (u->strict_errors && !u->exit_code)
		return cli_compat_fail("-strict-errors and -no-exit-code exclude each other");
	if (u->filter.no_wildcards && u->filter.regex)
		return cli_compat_fail(
			"-no-wildcards (or -follow-symlinks) and -regex exclude each "
			"other");
	if (u->missing && !u->follow)
		u->follow = 1, u->filter.no_wildcards = 1;
	/* Names read before an option that changes how they match (-ef, then -regex). */
	if (cli_usq_filter_restyle(&u->filter, &bad) != 0)
		return cli_compat_fail("invalid name '%s'", bad);
	return 0;
}

static int run(struct usq *u, int argc, char **argv)
{
	struct cli_image_opts io = {0};
	struct sqk_image_info info;
	struct sqk_image *img;
	int first = 0, i, ret;

	ret = parse(u, argc, argv, &first);
	if (ret)
		return ret < 0 ? COMPAT_OK : ret;
	u->image = argv[first];
	if (u->pf) {
		/*
		 * As the peer's: extended attributes are left out (its pseudo
		 * files have none) and the file is replaced.
		 */
		const char *opts[] = {NULL, "--no-xattrs", "--force", NULL};
		char *opt;

		/* "-" is a file of that name for the peer, not stdout. */
		if (asprintf(&opt, "--describe=%s%s", strcmp(u->pf, "-") ? "" : "./", u->pf) < 0)
			return cli_compat_fail("%s", sqk_strerror(SQK_ERR_NOMEM));
		opts[0] = opt;
		ret = native(u, cli_unimage, "unimage", opts, argv + first + 1, argc - first - 1);
		free(opt);
		return ret == EXIT_OK ? COMPAT_OK : COMPAT_FATAL;
	}
	/* Extract names are added once the image is open (cli_usq_follow, cli_usq_through). */
	for (i = first + 1; i < argc && !u->cat && u->excludes; i++)
		if (cli_usq_filter_add(&u->filter, u->excludes, argv[i]) != 0)
			return cli_compat_fail("%s: invalid name", argv[i]);
	io.threads = u->threads;
	io.extract = 1;
	img = cli_open_image(u->image, &io);
	if (!img)
		return COMPAT_FATAL;
	if (u->cat) {
		/* The image opens: a name that cannot be written is non-fatal, as with the peer. */
		sqk_image_destroy(img);
		ret = native(u, cli_cat, "cat", NULL, argv + first + 1, argc - first - 1);
		return ret == EXIT_OK || !u->exit_code ? COMPAT_OK : COMPAT_NONFATAL;
	}
	sqk_image_info(img, &info);
	u->block_size = info.block_size;
	u->fmt.dest = u->dest;
	u->fmt.utc = u->utc;
	u->fmt.lng = u->lng;
	u->fmt.numeric = u->numeric;
	ret = COMPAT_OK;
	if (u->follow && !u->excludes)
		ret = cli_usq_follow(u, img, argv + first + 1, argc - first - 1);
	else if (!u->excludes)
		ret = cli_usq_through(u, img, argv + first + 1, argc - first - 1);
	if (ret) {
		/* -missing-symlinks: nothing listed or written. */
	} else if (u->stat) {
		ret = cli_usq_print_stat(stdout, img, u->image, u->utc) ? COMPAT_FATAL : COMPAT_OK;
	} else if (u->mkfs_time) {
		printf("%u\n", info.mkfs_time);
		ret = COMPAT_OK;
	} else if (u->ls) {
		ret = cli_usq_list(u, img);
	} else {
		ret = cli_usq_extract(u, img);
	}
	sqk_image_destroy(img);
	if (cli_stdout_flush() != 0)
		ret = COMPAT_FATAL;
	return ret;
}

int cli_compat_unsquashfs_main(int argc, char **argv)
{
	struct usq u;
	int ret;

	memset(&u, 0, sizeof(u));
	u.dest = "squashfs-root";
	u.progress = 1;
	u.exit_code = 1;
	u.filter.max_depth = -1;
	u.threads = cli_online_cpus();
	/* A closed stdout ends unsquashfs by SIGPIPE: the same here, quietly. */
	cli_die_of_sigpipe = 1;
	ret = run(&u, argc, argv);
	free(u.pending);
	cli_usq_filter_release(&u.filter);
	return ret;
}
