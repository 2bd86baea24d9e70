// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit fsck: verify every structure and block of an image. Exit
 * status as fsck(8): 0 clean, 4 problems found, 8 the image could not be
 * read at all (or the check could not go on), 16 usage error.
 *
 * The check and its problems come from the public API (sqk_check_io() and
 * the report); the image file is opened here, with --offset's messages,
 * and read through the API's callbacks, so that the progress bar can count
 * the bytes read.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "imageopt.h"
#include "progress.h"
#include "imagefile.h"
#include "fe.h"
#include "verityopt.h"
#include "remoteopt.h"

enum { FSCK_CLEAN = 0, FSCK_ERRORS = 4, FSCK_OPERATIONAL = 8, FSCK_USAGE = 16 };

static const char usage_text[] =
	"Usage: squashkit fsck [OPTIONS] IMAGE\n"
	"Check every structure of IMAGE and decompress every block.\n\n"
	"  -j, --threads N   worker threads for data blocks (default: online "
	"CPUs)\n" SQK_HELP_OFFSET
	"      --memory SIZE memory for the records of every inode (K/M/G; default\n"
	"                    a quarter of RAM, at most 256M); the rest goes to\n"
	"                    unnamed temporary files\n"
	"      --tmpdir DIR  where those go (default $TMPDIR, else /tmp)\n"
	"      --json        print the result as one JSON object\n"
	"      --stats       also print the cache and decompression counters\n"
	"  -q, --quiet       no summary line\n"
	"  -h, --help        show this help\n\n"
	"dm-verity: check every data and hash block against the root hash too, and\n"
	"name the files and tables holding a bad one (check 'verity'):\n" SQK_HELP_VERITY
	"      --verity-sig P7S\n"
	"                    check that P7S (PKCS#7, DER) signs the root hash ...\n"
	"      --verity-cert CERT\n"
	"                    ... by the key of CERT (PEM) (check 'verity-signature')\n"
	"      --verity-only check the tree and the signature alone, not the image's\n"
	"                    structures (read to name files only for bad blocks)\n" SQK_HELP_REMOTE
	"\n"
	"Each problem is printed on stderr as 'PATH: CHECK: what', PATH being the\n"
	"entry's path in the image or the table concerned ('superblock: what' for\n"
	"the superblock itself); then a summary line on stdout ('IMAGE: clean: ...').\n"
	"Exit status: 0 clean, 4 problems found, 8 cannot read the image, 16 usage.\n";

/*
 * The verity options take CLI_VERITY_NOPTS values from OPT_VERITY on, the
 * remote ones the CLI_REMOTE_NOPTS after them.
 */
enum { OPT_JSON = 256, OPT_STATS, OPT_OFFSET, OPT_SIG, OPT_CERT, OPT_VERITY_ONLY, OPT_VERITY,
       OPT_MEMORY = OPT_VERITY + CLI_VERITY_NOPTS + CLI_REMOTE_NOPTS, OPT_TMPDIR };

static const struct option longopts[] = {
	{"threads", required_argument, NULL, 'j'},
	{"json", no_argument, NULL, OPT_JSON},
	{"stats", no_argument, NULL, OPT_STATS},
	{"quiet", no_argument, NULL, 'q'},
	{"offset", required_argument, NULL, OPT_OFFSET},
	{"verity-sig", required_argument, NULL, OPT_SIG},
	{"verity-cert", required_argument, NULL, OPT_CERT},
	{"verity-only", no_argument, NULL, OPT_VERITY_ONLY},
	CLI_VERITY_OPTIONS(OPT_VERITY),
	CLI_REMOTE_OPTIONS(OPT_VERITY + CLI_VERITY_NOPTS),
	{"memory", required_argument, NULL, OPT_MEMORY},
	{"tmpdir", required_argument, NULL, OPT_TMPDIR},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* "PATH: CHECK: what"; a check named as its path ("superblock") is said once. */
static void print_text(const struct sqk_problem *p)
{
	cli_print_escaped(stderr, p->path);
	fputs(": ", stderr);
	if (strcmp(p->check, p->path) != 0) {
		fputs(p->check, stderr);
		fputs(": ", stderr);
	}
	cli_print_escaped(stderr, p->detail);
	fputc('\n', stderr);
}

static void print_json(const char *image, const struct sqk_report *r,
		       const struct sqk_check_counts *c, int stats)
{
	struct sqk_verity_info vi;
	struct sqk_json j;
	size_t i, n = sqk_report_count(r);

	sqk_json_init_file(&j, stdout);
	sqk_json_begin_object(&j, 0);
	sqk_json_key_string(&j, "image", image);
	sqk_json_key_bool(&j, "clean", sqk_report_clean(r));
	sqk_json_key(&j, "errors");
	sqk_json_begin_array(&j, 0);
	for (i = 0; i < n; i++) {
		const struct sqk_problem *p = sqk_report_problem(r, i);

		sqk_json_begin_object(&j, 0);
		sqk_json_key_string(&j, "path", p->path);
		sqk_json_key_string(&j, "check", p->check);
		sqk_json_key_string(&j, "detail", p->detail);
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
	sqk_json_key_uint(&j, "problems", c->problems);
	if (!sqk_report_verity(r, &vi)) {
		sqk_json_key(&j, "verity");
		sqk_json_begin_object(&j, 0);
		cli_verity_json_members(&j, &vi);
		sqk_json_end_object(&j);
	}
	if (stats && sqk_report_image(r)) {
		sqk_json_key(&j, "stats");
		cli_print_stats_json(&j, sqk_report_image(r));
	}
	sqk_json_end_object(&j);
	sqk_json_finish(&j);
}

/* What the tree's check covered, on stderr. */
static void verity_summary(const char *image, const struct sqk_report *r, uint64_t problems)
{
	struct sqk_verity_info vi;

	if (sqk_report_verity(r, &vi))
		return;
	printf("%s: dm-verity: %s: %llu data blocks checked against root hash %s\n", image,
		problems ? "errors found" : "clean", (unsigned long long)vi.data_blocks,
		vi.root_hash);
}

/*
 * The check's options with --memory and --tmpdir (mem); the cache sizes are
 * those the check picks for threads workers when it is given no options.
 */
static struct sqk_open_opts *fsck_opts(const struct cli_image_opts *mem, unsigned threads)
{
	struct sqk_open_opts *o = sqk_open_opts_create();

	if (o && !sqk_open_opts_set_memory(o, mem->memory) &&
	    !sqk_open_opts_set_tmpdir(o, mem->tmpdir) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_METADATA, 16) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_FRAGMENT, threads + 2) &&
	    !sqk_open_opts_set_cache(o, SQK_CACHE_DATA, threads + 2))
		return o;
	sqk_open_opts_destroy(o);
	return NULL;
}

int cli_fsck(int argc, char **argv)
{
	struct sqk_check_counts c;
	struct sqk_report *r;
	struct cli_image_file *file;
	struct sqk_progress *bar;
	struct sqk_io io;
	const char *image, *sig = NULL, *cert = NULL;
	unsigned threads = cli_online_cpus();
	int opt, quiet = 0, stats = 0, json = 0, err, ret, tree_only = 0;
	struct sqk_open_opts *oo = NULL;
	struct cli_verity v = {0};
	struct cli_image_opts mem = {0}; /* --memory and --tmpdir */
	size_t i, n;

	while ((opt = cli_getopt(argc, argv, "j:qh", longopts)) != -1) {
		switch (opt) {
		case 'j':
			if (cli_threads_option(optarg, &threads) != 0)
				return FSCK_USAGE;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_OFFSET:
			if (cli_offset_option(optarg) != 0)
				return FSCK_USAGE;
			break;
		case OPT_MEMORY:
			if (cli_memory_option(optarg, &mem) != 0)
				return FSCK_USAGE;
			break;
		case OPT_TMPDIR:
			if (cli_tmpdir_option(optarg, &mem) != 0)
				return FSCK_USAGE;
			break;
		case 'q':
			quiet = 1;
			cli_offset_quiet(1);
			break;
		case OPT_SIG:
			sig = optarg;
			break;
		case OPT_CERT:
			cert = optarg;
			break;
		case OPT_VERITY_ONLY:
			tree_only = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return FSCK_CLEAN;
		default:
			ret = cli_remote_take(opt, OPT_VERITY + CLI_VERITY_NOPTS, optarg);
			if (ret > 0)
				return FSCK_USAGE;
			if (ret == 0)
				break;
			if (opt >= OPT_VERITY && opt < OPT_VERITY + CLI_VERITY_NOPTS) {
				ret = cli_verity_take(&v, opt - OPT_VERITY, optarg);
				if (ret)
					return ret == EXIT_USAGE ? FSCK_USAGE : FSCK_OPERATIONAL;
				break;
			}
			return FSCK_USAGE;
		}
	}
	if (cli_verity_check(&v))
		return FSCK_USAGE;
	if ((sig || cert || tree_only) && !v.given) {
		cli_usage_error("--verity-sig, --verity-cert and --verity-only need --root-hash");
		return FSCK_USAGE;
	}
	if (!sig != !cert) {
		cli_usage_error("--verity-sig and --verity-cert go together");
		return FSCK_USAGE;
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

	if (mem.memory || mem.tmpdir) {
		oo = fsck_opts(&mem, threads);
		if (!oo) {
			cli_error(NULL, "%s", sqk_error_message());
			return FSCK_OPERATIONAL;
		}
	}
	if (v.given) {
		if (!oo)
			oo = sqk_open_opts_create();
		if (!oo || cli_verity_apply(&v, oo, image) ||
		    (sig && sqk_open_opts_set_verity_signature(oo, sig, cert))) {
			sqk_open_opts_destroy(oo);
			return oo ? FSCK_USAGE : FSCK_OPERATIONAL;
		}
	}
	file = cli_image_file_open(image);
	if (!file) {
		sqk_open_opts_destroy(oo);
		return FSCK_OPERATIONAL;
	}
	io = cli_image_file_io(file);
	/* The bar: bytes of the image read (counted by the file) against its size. */
	bar = cli_progress_start(file->size, &file->bytes_read, quiet);
	err = tree_only ? sqk_verity_check_io(&io, oo, threads, &r)
			: sqk_check_io(&io, oo, threads, &r);
	cli_progress_finish(bar, !err);
	sqk_open_opts_destroy(oo);
	if (err) {
		/* A hash file, a signature or a certificate is named by the library. */
		if (v.given && strncmp(sqk_error_message(), "the image read through", 22))
			cli_error(NULL, "%s", sqk_error_message());
		/* Not the image's read but a temporary file's: the library words it. */
		else if ((err == SQK_ERR_IO || err == SQK_ERR_NOSPACE) && !file->errnum &&
			 sqk_error_errno())
			cli_error(image, "%s", sqk_error_message());
		else
			cli_error_errno(image, err,
					err == SQK_ERR_IO ? file->errnum ? file->errnum : EIO : 0);
		cli_image_file_close(file);
		return FSCK_OPERATIONAL;
	}
	sqk_report_counts(r, &c);
	n = sqk_report_count(r);
	if (json) {
		print_json(image, r, &c, stats);
	} else {
		for (i = 0; i < n; i++)
			print_text(sqk_report_problem(r, i));
		if (stats && sqk_report_image(r))
			cli_print_stats(stdout, sqk_report_image(r));
		/* The summary last, on stdout; the problems went to stderr, as fsck(8) tools do. */
		if (!quiet && v.given)
			verity_summary(image, r, c.problems);
		if (!quiet && !tree_only)
			printf("%s: %s: %llu inodes, %llu directories, %llu blocks, %llu fragments, "
			       "%llu bytes checked\n",
			       image, c.problems ? "errors found" : "clean",
			       (unsigned long long)c.inodes, (unsigned long long)c.directories,
			       (unsigned long long)c.blocks, (unsigned long long)c.fragments,
			       (unsigned long long)c.bytes);
	}
	if (c.problems && !quiet)
		cli_image_hint(image);
	ret = c.problems ? FSCK_ERRORS : FSCK_CLEAN;
	if (cli_stdout_flush() != 0)
		ret |= FSCK_OPERATIONAL;
	sqk_report_destroy(r);
	cli_image_file_close(file);
	return ret;
}
