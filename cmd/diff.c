// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit diff: compare two trees, each an image or a directory. The
 * comparison is the library's (squashkit/diff.h); here are the options,
 * the opening of the two sides and the exit status (0 the same, 1
 * different, 2 trouble), as diff(1) and sqfsdiff give it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "diff_cmd.h"
#include "imageopt.h"
#include "remoteopt.h"
#include "show.h"
#include "fe.h"
#include "verityopt.h"

/* diff(1)'s statuses: usage errors are trouble too. */
enum { DIFF_SAME = 0, DIFF_DIFFERENT = 1, DIFF_TROUBLE = 2 };

static const char usage_text[] =
	"Usage: squashkit diff [OPTIONS] A B [PATH...]\n"
	"Compare A with B, each an image or a directory: one line per difference, in\n"
	"the order of the tree. Exit status: 0 the same, 1 different, 2 trouble.\n"
	"Times are not compared unless asked for. PATH... limits the comparison to\n"
	"those subtrees.\n\n"
	"  -C, --no-contents      compare the sizes of files, not their contents\n"
	"  -O, --no-owner         leave owners and groups out\n"
	"  -P, --no-permissions   leave permission bits out\n"
	"      --no-xattrs        leave extended attributes out\n"
	"  -T, --times            compare mtimes too\n"
	"  -S, --super            compare the superblocks of two images too\n"
	"  -e, --exclude GLOB     leave out what matches, as mkimage --exclude does\n"
	"  -j, --threads N        compare contents on N threads (default: online CPUs)\n"
	"      --memory SIZE      memory for what is kept about the whole trees (K/M/G;\n"
	"                         default a quarter of RAM, at most 256M); the rest\n"
	"                         goes to unnamed temporary files\n"
	"      --tmpdir DIR       where those go (default $TMPDIR, else /tmp)\n"
	"      --stat             print a summary instead of the differences\n"
	"      --json             one JSON object: the differences and the summary\n"
	"  -q, --quiet            print nothing: the exit status says it (a usage\n"
	"                         error with --stat or --json)\n" SQK_HELP_OFFSET
	"                    (every image operand)\n"
	"      --offset-a N|auto  the same for A alone\n"
	"      --offset-b N|auto  the same for B alone\n"
	"      --root-hash-a HEX  read A through its dm-verity hash tree, every block\n"
	"                         checked (the hash area after the image)\n"
	"      --root-hash-b HEX  the same for B\n"
	"      --verity-hash-file-a F\n"
	"                         A's hash area is in F\n"
	"      --verity-hash-file-b F\n"
	"                         B's hash area is in F\n"
	"  -h, --help             show this help\n" SQK_HELP_REMOTE;

enum {
	OPT_NO_XATTRS = 0x100,
	OPT_STAT,
	OPT_JSON,
	OPT_OFFSET,
	OPT_OFFSET_A,
	OPT_OFFSET_B,
	OPT_ROOT_HASH_A,
	OPT_ROOT_HASH_B,
	OPT_HASH_FILE_A,
	OPT_HASH_FILE_B,
	OPT_MEMORY,
	OPT_TMPDIR,
	OPT_REMOTE, /* and the CLI_REMOTE_NOPTS - 1 values after it */
};

static const struct option longopts[] = {
	{"no-contents", no_argument, NULL, 'C'},
	{"no-owner", no_argument, NULL, 'O'},
	{"no-permissions", no_argument, NULL, 'P'},
	{"no-xattrs", no_argument, NULL, OPT_NO_XATTRS},
	{"times", no_argument, NULL, 'T'},
	{"super", no_argument, NULL, 'S'},
	{"exclude", required_argument, NULL, 'e'},
	{"threads", required_argument, NULL, 'j'},
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"tmpdir", required_argument, NULL, OPT_TMPDIR},
	{"stat", no_argument, NULL, OPT_STAT},
	{"json", no_argument, NULL, OPT_JSON},
	{"quiet", no_argument, NULL, 'q'},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"offset-a", required_argument, NULL, OPT_OFFSET_A},
	{"offset-b", required_argument, NULL, OPT_OFFSET_B},
	{"root-hash-a", required_argument, NULL, OPT_ROOT_HASH_A},
	{"root-hash-b", required_argument, NULL, OPT_ROOT_HASH_B},
	{"verity-hash-file-a", required_argument, NULL, OPT_HASH_FILE_A},
	{"verity-hash-file-b", required_argument, NULL, OPT_HASH_FILE_B},
	CLI_REMOTE_OPTIONS(OPT_REMOTE),
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* One operand. */
struct side {
	const char *arg;
	struct sqk_offset off;
	int off_own;		  /* --offset-a or --offset-b given */
	struct cli_verity verity; /* --root-hash-a, --verity-hash-file-a, ... */
	struct sqk_image *img;
};

struct diff_cmd {
	struct sqk_diff_opts *opts;
	unsigned threads;
	struct cli_image_opts mem; /* --memory and --tmpdir, for the images too */
	int super;
	struct side side[2];
	struct diff_out out;
	struct sqk_diff *d;
};

static int open_side(struct diff_cmd *dc, int s, const struct cli_image_opts *io)
{
	struct side *sd = &dc->side[s];
	struct stat st;

	/* A URL is an image. */
	if (cli_is_url(sd->arg))
		st.st_mode = S_IFREG;
	else if (stat(sd->arg, &st) != 0) {
		cli_error(sd->arg, "%s", strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (sd->verity.given) {
			cli_usage_error("--root-hash-%c: %s is a directory, not an image",
					s ? 'b' : 'a', sd->arg);
			return -1;
		}
		if (sd->off_own) {
			cli_usage_error("--offset-%c: %s is a directory, not an image",
					s ? 'b' : 'a', sd->arg);
			return -1;
		}
		return 0;
	}
	cli_verity_use(&sd->verity);
	sd->img = cli_open_image_at(sd->arg, &sd->off, io);
	cli_verity_use(NULL);
	return sd->img ? 0 : -1;
}

/* Open the comparison of the two sides: 0, or -1 after the error line. */
static int open_diff(struct diff_cmd *dc)
{
	struct sqk_diff_side ab[2];
	int err, s, dirs = 0;

	for (s = 0; s < 2; s++) {
		ab[s].img = dc->side[s].img;
		ab[s].dir = dc->side[s].img ? NULL : dc->side[s].arg;
		dirs += !ab[s].img;
	}
	err = sqk_diff_open(&ab[0], &ab[1], dc->opts, &dc->d);
	if (!err)
		return 0;
	/*
	 * Short of memory, or a directory that would not open: the one there
	 * is, or (two) in the library's words, which name it.
	 */
	if (dirs == 1 && err != SQK_ERR_NOMEM)
		cli_error_errno(ab[0].dir ? ab[0].dir : ab[1].dir, err,
				(err == SQK_ERR_IO || err == SQK_ERR_NOFILE) ? sqk_error_errno()
									     : 0);
	else
		cli_error(NULL, "%s", sqk_error_message());
	return -1;
}

/* The error line, and its words for the JSON document. */
static const char *report(struct diff_cmd *dc, int err)
{
	const char *path, *what;
	int side, errnum;

	sqk_diff_failure(dc->d, &side, &path, &errnum);
	/* An errno: the I/O error's, or ELOOP for a path through too many symlinks. */
	what = errnum && (err == SQK_ERR_IO || err == SQK_ERR_NOFILE || err == SQK_ERR_LOOP)
		       ? strerror(errnum)
		       : sqk_strerror(err);
	if (side == 2) {
		what = "no such path in A or B";
		cli_error(path, "%s", what);
	} else if (side < 0 && *path) {
		/* A temporary file, in the directory path names. */
		what = errnum ? strerror(errnum) : sqk_strerror(err);
		cli_error(NULL, "temporary file in %s: %s", path, what);
	} else if (side < 0) {
		cli_error(err == SQK_ERR_IO ? "stdout" : NULL, "%s", what);
	} else if (dc->side[side].img) {
		cli_show_path_error(dc->side[side].arg, path, what);
	} else {
		const char *dir = dc->side[side].arg;
		size_t len = strlen(dir);

		fprintf(stderr, "squashkit %s: ", cli_cmd_name);
		cli_print_escaped(stderr, dir);
		if (strcmp(path, "/") != 0)
			cli_print_escaped(stderr, path + (len && dir[len - 1] == '/'));
		fprintf(stderr, ": %s\n", what);
	}
	return what;
}

static int compare(struct diff_cmd *dc)
{
	const char *why = NULL;
	int err, ret;

	cli_diff_out_begin(&dc->out, dc->side[0].arg, dc->side[1].arg);
	err = sqk_diff_run(dc->d, cli_diff_out_change, &dc->out);
	if (err < 0) {
		why = report(dc, err);
		for (int s = 0; s < 2; s++)
			if (dc->side[s].img)
				cli_verity_failures(dc->side[s].arg, dc->side[s].img);
	}
	ret = cli_diff_out_end(&dc->out, dc->d, why);
	if (cli_stdout_flush() != 0)
		return DIFF_TROUBLE;
	if (ret) {
		/* A JSON document the writer refused: a bug, never half of one silently. */
		if (err >= 0)
			cli_error("stdout", "%s", sqk_strerror(ret));
		return DIFF_TROUBLE;
	}
	if (err < 0)
		return DIFF_TROUBLE;
	return dc->out.differ ? DIFF_DIFFERENT : DIFF_SAME;
}

static int take_offset(struct diff_cmd *dc, int c, const char *arg)
{
	int s;

	for (s = 0; s < 2; s++) {
		if (c == OPT_OFFSET && dc->side[s].off_own)
			continue; /* a side's own offset wins */
		if ((c == OPT_OFFSET_A && s == 1) || (c == OPT_OFFSET_B && s == 0))
			continue;
		if (cli_offset_parse(arg, &dc->side[s].off) != 0)
			return -1;
		if (c != OPT_OFFSET)
			dc->side[s].off_own = 1;
	}
	return 0;
}

/* A comparison option for the library: 0, or -1 after the error line (memory). */
static int set(struct diff_cmd *dc, const char *name, const char *value)
{
	int err = sqk_diff_opts_set(dc->opts, name, value);

	if (err)
		cli_error(NULL, "%s", sqk_error_message());
	return err ? -1 : 0;
}

/* The switches the library takes by the name of their long option. */
static const char *switch_name(int c)
{
	switch (c) {
	case 'C':
		return "no-contents";
	case 'O':
		return "no-owner";
	case 'P':
		return "no-permissions";
	case OPT_NO_XATTRS:
		return "no-xattrs";
	case 'T':
		return "times";
	case 'S':
		return "super";
	default:
		return NULL;
	}
}

static int parse(struct diff_cmd *dc, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, "COPTSe:j:qh", longopts)) != -1) {
		if (switch_name(c)) {
			dc->super |= c == 'S';
			if (set(dc, switch_name(c), NULL) != 0)
				return -1;
			continue;
		}
		switch (c) {
		case 'e':
			if (set(dc, "exclude", optarg) != 0)
				return -1;
			break;
		case 'j':
			if (cli_threads_option(optarg, &dc->threads) != 0 ||
			    set(dc, "threads", optarg) != 0)
				return -1;
			break;
		case OPT_MEMORY:
			if (cli_memory_option(optarg, &dc->mem) != 0)
				return -1;
			if (set(dc, "memory", optarg) != 0)
				return -1;
			break;
		case OPT_TMPDIR:
			if (cli_tmpdir_option(optarg, &dc->mem) != 0)
				return -1;
			if (set(dc, "tmpdir", optarg) != 0)
				return -1;
			break;
		case OPT_STAT:
			dc->out.stat = 1;
			break;
		case OPT_JSON:
			dc->out.json = 1;
			break;
		case 'q':
			dc->out.quiet = 1;
			cli_offset_quiet(1);
			break;
		case OPT_OFFSET:
		case OPT_OFFSET_A:
		case OPT_OFFSET_B:
			if (take_offset(dc, c, optarg) != 0)
				return -1;
			break;
		case OPT_ROOT_HASH_A:
		case OPT_ROOT_HASH_B:
		case OPT_HASH_FILE_A:
		case OPT_HASH_FILE_B:
			if (cli_verity_take(&dc->side[(c - OPT_ROOT_HASH_A) & 1].verity,
					    c < OPT_HASH_FILE_A ? 0 : 2, optarg) != 0)
				return -1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		default: /* cli_getopt said what was wrong */
			if (cli_remote_take(c, OPT_REMOTE, optarg) == 0)
				break;
			return -1;
		}
	}
	/* -q prints nothing: with an option that asks for output, one of them is a mistake. */
	if (dc->out.quiet && (dc->out.json || dc->out.stat)) {
		cli_usage_error("--quiet prints nothing: not with %s",
				dc->out.json ? "--json" : "--stat");
		return -1;
	}
	if (argc - optind < 2) {
		cli_usage_error(argc - optind ? "missing operand B" : "missing operands A and B");
		return -1;
	}
	for (c = 0; c < 2; c++)
		if (dc->side[c].verity.hash_file && !dc->side[c].verity.given) {
			cli_usage_error("--verity-hash-file-%c needs --root-hash-%c", 'a' + c,
					'a' + c);
			return -1;
		}
	return 0;
}

static int run(struct diff_cmd *dc, int argc, char **argv)
{
	struct cli_image_opts io = {0};
	int i, s, rc;

	dc->threads = cli_online_cpus(); /* the library's default too */
	dc->opts = sqk_diff_opts_create();
	if (!dc->opts) {
		cli_error(NULL, "%s", sqk_error_message());
		return DIFF_TROUBLE;
	}
	rc = parse(dc, argc, argv);
	if (rc)
		return rc > 0 ? DIFF_SAME : DIFF_TROUBLE;
	dc->side[0].arg = argv[optind];
	dc->side[1].arg = argv[optind + 1];
	for (i = optind + 2; i < argc; i++)
		if (sqk_diff_opts_add_path(dc->opts, argv[i]) != 0) {
			cli_error(NULL, "%s", sqk_error_message());
			return DIFF_TROUBLE;
		}
	/* As unimage: enough cache entries that workers never queue for one. */
	io.threads = dc->threads;
	io.memory = dc->mem.memory;
	io.tmpdir = dc->mem.tmpdir;
	for (s = 0; s < 2; s++)
		if (open_side(dc, s, &io) != 0)
			return DIFF_TROUBLE;
	if (open_diff(dc) != 0)
		return DIFF_TROUBLE;
	if (dc->super && !(dc->side[0].img && dc->side[1].img)) {
		cli_usage_error("--super compares two images; %s is a directory",
				dc->side[dc->side[0].img ? 1 : 0].arg);
		return DIFF_TROUBLE;
	}
	return compare(dc);
}

int cli_diff(int argc, char **argv)
{
	struct diff_cmd dc;
	int ret, s;

	memset(&dc, 0, sizeof(dc));
	ret = run(&dc, argc, argv);
	sqk_diff_destroy(dc.d);
	for (s = 0; s < 2; s++)
		sqk_image_destroy(dc.side[s].img);
	sqk_diff_opts_destroy(dc.opts);
	return ret;
}
