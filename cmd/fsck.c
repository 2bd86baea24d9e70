// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit fsck: verify every structure and block of an image. Exit
 * status as fsck(8): 0 clean, 4 problems found, 8 the image could not be
 * read at all (or the check could not go on), 16 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fsck/fsck.h"
#include "imageopt.h"
#include "progress.h"
#include "util/array.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

enum { FSCK_CLEAN = 0, FSCK_ERRORS = 4, FSCK_OPERATIONAL = 8, FSCK_USAGE = 16 };

static const char usage_text[] =
	"Usage: squashkit fsck [OPTIONS] IMAGE\n"
	"Check every structure of IMAGE and decompress every block.\n\n"
	"  -j, --threads N   worker threads for data blocks (default: online "
	"CPUs)\n" SQK_HELP_OFFSET "      --json        print the result as one JSON object\n"
	"      --stats       also print the cache and decompression counters\n"
	"  -q, --quiet       no summary line\n"
	"  -h, --help        show this help\n\n"
	"Each problem is printed on stdout as 'PATH: CHECK: what', PATH being the\n"
	"entry's path in the image or the table concerned ('superblock: what' for\n"
	"the superblock itself).\n"
	"Exit status: 0 clean, 4 problems found, 8 cannot read the image, 16 usage.\n";

enum { OPT_JSON = 256, OPT_STATS, OPT_OFFSET };

static const struct option longopts[] = {
	{"threads", required_argument, NULL, 'j'},
	{"json", no_argument, NULL, OPT_JSON},
	{"stats", no_argument, NULL, OPT_STATS},
	{"quiet", no_argument, NULL, 'q'},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct problem {
	char *path, *check, *detail;
};

struct result {
	int json;
	struct problem *p;
	size_t n, cap;
	int nomem;
};

/* "PATH: CHECK: what"; a check named as its path ("superblock") is said once. */
static void print_text(const char *path, const char *check, const char *detail)
{
	cli_print_escaped(stdout, path);
	fputs(": ", stdout);
	if (strcmp(check, path) != 0) {
		fputs(check, stdout);
		fputs(": ", stdout);
	}
	cli_print_escaped(stdout, detail);
	fputc('\n', stdout);
}

/*
 * Problems arrive at the end of the run; they are kept until the progress
 * bar is gone (and, for JSON, until "clean" is known).
 */
static void report(void *ctx, const char *path, const char *check, const char *detail)
{
	struct result *r = ctx;
	struct problem *p;

	if (SQK_ARRAY_GROW(r->p, r->cap, r->n + 1)) {
		r->nomem = 1;
		return;
	}
	p = &r->p[r->n];
	p->path = strdup(path);
	p->check = strdup(check);
	p->detail = strdup(detail);
	if (!p->path || !p->check || !p->detail) {
		free(p->path);
		free(p->check);
		free(p->detail);
		r->nomem = 1;
		return;
	}
	r->n++;
}

static void print_json(const char *image, const struct result *r, const struct sqk_fsck_counts *c,
		       struct sqk_image *img, int stats)
{
	struct sqk_json j;
	size_t i;

	sqk_json_init_file(&j, stdout);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key_bool(&j, "clean", !c->errors);
	sqk_json_key(&j, "errors");
	sqk_json_begin_array(&j, 0);
	for (i = 0; i < r->n; i++) {
		sqk_json_begin_object(&j, 0);
		sqk_json_key_string(&j, "path", r->p[i].path);
		sqk_json_key_string(&j, "check", r->p[i].check);
		sqk_json_key_string(&j, "detail", r->p[i].detail);
		sqk_json_end_object(&j);
	}
	sqk_json_end_array(&j);
	sqk_json_key(&j, "checked");
	sqk_json_begin_object(&j, 0);
	sqk_json_key_uint(&j, "inodes", c->inodes);
	sqk_json_key_uint(&j, "directories", c->directories);
	sqk_json_key_uint(&j, "blocks", c->blocks);
	sqk_json_key_uint(&j, "fragments", c->fragments);
	sqk_json_key_uint(&j, "bytes", c->bytes);
	sqk_json_end_object(&j);
	sqk_json_key_uint(&j, "problems", c->errors);
	if (stats && img) {
		sqk_json_key(&j, "stats");
		cli_print_stats_json(&j, img);
	}
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}

int cli_fsck(int argc, char **argv)
{
	struct sqk_fsck_opts o = {0};
	struct sqk_fsck_counts c;
	struct result r = {0};
	struct sqk_fsck *f;
	struct sqk_file *file;
	struct sqk_progress *bar;
	const char *image;
	int opt, quiet = 0, stats = 0, err, ret, flushed = 1, e = 0;
	size_t i;

	o.threads = sqk_online_cpus();
	while ((opt = cli_getopt(argc, argv, "j:qh", longopts)) != -1) {
		switch (opt) {
		case 'j':
			if (cli_threads_option(optarg, &o.threads) != 0)
				return FSCK_USAGE;
			break;
		case OPT_JSON:
			r.json = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return FSCK_USAGE;
			break;
		case 'q':
			quiet = 1;
			cli_offset_quiet(1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return FSCK_CLEAN;
		default:
			return FSCK_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage_error("missing IMAGE operand");
		return FSCK_USAGE;
	}
	if (argc - optind > 1) {
		cli_usage_error("extra operand '%s'", argv[optind + 1]);
		return FSCK_USAGE;
	}
	image = argv[optind];

	file = cli_open_image_file(image);
	if (!file)
		return FSCK_OPERATIONAL;
	o.report = report;
	o.ctx = &r;
	/* The bar: bytes of the image read (counted by the file) against its size. */
	bar = cli_progress_start(file->size(file), &file->bytes_read, quiet);
	err = sqk_fsck_create(file, &o, &f);
	if (!err)
		err = sqk_fsck_run(f);
	cli_progress_finish(bar, !err);
	if (err) {
		cli_error_errno(image, err,
				err == SQK_ERR_IO ? file->errnum ? file->errnum : EIO : 0);
		sqk_fsck_destroy(f);
		return FSCK_OPERATIONAL;
	}
	sqk_fsck_counts(f, &c);
	if (r.json) {
		print_json(image, &r, &c, sqk_fsck_image(f), stats);
	} else {
		for (i = 0; i < r.n; i++)
			print_text(r.p[i].path, r.p[i].check, r.p[i].detail);
		if (stats && sqk_fsck_image(f))
			cli_print_stats(stdout, sqk_fsck_image(f));
		/* The report is out before the summary: `fsck IMG >log 2>&1` keeps them apart. */
		flushed = fflush(stdout) == 0 && !ferror(stdout);
		e = errno;
		if (!quiet)
			fprintf(stderr,
				"%s: %s: %llu inodes, %llu directories, %llu blocks, %llu "
				"fragments, "
				"%llu bytes checked\n",
				image, c.errors ? "errors found" : "clean",
				(unsigned long long)c.inodes, (unsigned long long)c.directories,
				(unsigned long long)c.blocks, (unsigned long long)c.fragments,
				(unsigned long long)c.bytes);
	}
	if (c.errors && !quiet)
		cli_image_hint(image);
	ret = c.errors ? FSCK_ERRORS : FSCK_CLEAN;
	if (flushed && (fflush(stdout) != 0 || ferror(stdout))) {
		flushed = 0;
		e = errno;
	}
	if (r.nomem) {
		cli_error(image, "cannot keep the report: %s", sqk_strerror(SQK_ERR_NOMEM));
		ret |= FSCK_OPERATIONAL;
	} else if (!flushed) {
		cli_error("stdout", "%s", strerror(e ? e : EIO));
		ret |= FSCK_OPERATIONAL;
	}
	for (i = 0; i < r.n; i++) {
		free(r.p[i].path);
		free(r.p[i].check);
		free(r.p[i].detail);
	}
	free(r.p);
	sqk_fsck_destroy(f);
	return ret;
}
