// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit mkimage: build an image from directories, archives or a
 * listing, through the library's build (squashkit/build.h). The image is
 * written to a temporary file beside IMAGE and renamed into place only
 * when complete; on any failure or signal the temporary file is removed
 * and an existing IMAGE is left untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "mkimage.h"
#include "progress.h"

/*
 * The bar first shows the image bytes written (all there is to show while
 * sources are read, and for archives, whose data is stored as they are
 * read); once the build places the data of files it has scanned, it
 * reports the bytes placed after each file, and the bar shows them
 * against the total.
 */
struct bar {
	struct sqk_progress *p;
	struct sqk_build *b;
	int polling;
};

static uint64_t image_bytes(void *arg)
{
	return sqk_build_written(arg);
}

/* What went to temporary files so far: safe from the bar's thread. */
static uint64_t spilled(void *arg)
{
	uint64_t v = 0;

	return sqk_build_stat(arg, "spill_bytes", &v) ? 0 : v;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct bar *bar = ctx;

	if (!bar->p)
		return;
	if (bar->polling) {
		cli_progress_poll(bar->p, NULL, NULL);
		bar->polling = 0;
	}
	cli_progress_set_total(bar->p, total);
	cli_progress_set(bar->p, done);
}

static void warn_cb(void *ctx, const char *where, const char *what)
{
	/* What does not stop a build (a sort line naming nothing), said over the bar. */
	cli_progress_clear(((struct bar *)ctx)->p);
	cli_error(where, "warning: %s", what);
}

static void bar_finish(struct bar *bar, int ok)
{
	cli_progress_finish(bar->p, ok);
	bar->p = NULL;
}

/* Block and character devices together, by the names the library gives the types. */
static uint64_t devices(const struct sqk_build *b)
{
	uint64_t n = 0;
	const char *name;
	unsigned i;

	for (i = 1; (name = sqk_survey_type_name(i)) != NULL; i++)
		if (strstr(name, "devices"))
			n += cli_mkimage_stat(b, name);
	return n;
}

static void print_stats(const struct args *a, const struct sqk_build *b, const char *image)
{
#define S(name) cli_mkimage_stat(b, name)
	double ratio = S("uncompressed") ? (double)S("bytes_used") / (double)S("uncompressed") : 0;

	if (a->json) {
		cli_mkimage_stats_json(a, b, image);
		return;
	}
	printf("image            %s\n", image);
	printf("compression      %s, block size %" PRIu64 ", %" PRIu64 " threads\n",
	       sqk_build_compressor(b), S("block_size"), S("threads"));
	printf("size             %" PRIu64 " bytes used, %" PRIu64 " on disk\n", S("bytes_used"),
	       S("image_size"));
	printf("uncompressed     %" PRIu64 " bytes of file data (ratio %.2f%%)\n",
	       S("uncompressed"), ratio * 100);
	printf("tables           data %" PRIu64 ", inodes %" PRIu64 ", directories %" PRIu64
	       " bytes\n",
	       S("data_bytes"), S("inode_table_bytes"), S("directory_table_bytes"));
	printf("inodes           %" PRIu64 ": %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
	       " symlinks, %" PRIu64 " devices, %" PRIu64 " fifos, %" PRIu64 " sockets\n",
	       S("inodes"), S("files"), S("directories"), S("symlinks"), devices(b), S("fifos"),
	       S("sockets"));
	printf("hard links       %" PRIu64 "\n", S("hardlinks"));
	printf("blocks           %" PRIu64 " (%" PRIu64 " stored raw), %" PRIu64 " fragments\n",
	       S("blocks"), S("raw_blocks"), S("fragments"));
	printf("ids              %" PRIu64 " owner ids, %" PRIu64 " xattr sets\n", S("ids"),
	       S("xattr_ids"));
	printf("dedup            %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64 " tails (%" PRIu64
	       " bytes)\n",
	       S("dedup_files"), S("dedup_bytes"), S("dedup_tails"), S("dedup_tail_bytes"));
	printf("sparse           %" PRIu64 " blocks (%" PRIu64 " bytes)\n", S("sparse_blocks"),
	       S("sparse_bytes"));
	printf("lseeks           %" PRIu64 "\n", S("lseeks"));
	printf("memory           %" PRIu64 " MiB budget; %" PRIu64 " bytes to %" PRIu64
	       " temporary files, %" PRIu64 " sorted runs, %" PRIu64 " merges\n",
	       S("memory") >> 20, S("spill_bytes"), S("spill_files"), S("spill_runs"),
	       S("spill_merges"));
#undef S
	cli_mkimage_verity_stats(b);
	if (a->reuse.n)
		cli_mkimage_reuse_print(a, b);
}

/* The compressor, and its level and -X options with the block size. */
static int setup_codec(struct args *a)
{
	int err;

	if (!a->append || a->comp_given) {
		err = cli_mkimage_set(a, "compressor", a->comp_name);
		if (err)
			return err;
	}
	if (sqk_build_opts_check(a->bo))
		return cli_usage_error("%s", sqk_error_message());
	return 0;
}

/* An I/O failure's line: the errno behind it, else what the code says. */
static void say_io(const char *path, int err, int errnum)
{
	if (err == SQK_ERR_IO || err == SQK_ERR_NOFILE || err == SQK_ERR_NOSPACE)
		cli_error_errno(path, err, errnum ? errnum : err == SQK_ERR_NOSPACE ? ENOSPC : EIO);
	else
		cli_error_errno(path, err, 0);
}

/*
 * A failure of the build's driver: a source's says where and what (the
 * source's errno in its words); an I/O failure without one was the
 * image's, being written.
 */
static int report(const char *image, int err, const char *path, const char *words, int errnum)
{
	if (*words)
		cli_error(*path ? path : image, "%s", words);
	else if (err == SQK_ERR_IO || err == SQK_ERR_NOFILE || err == SQK_ERR_NOSPACE)
		say_io(image, err, errnum);
	else
		cli_error_errno(*path ? path : image, err, 0);
	return EXIT_FAIL;
}

/* Why sqk_build_create failed, in mkimage's words: the exit status. */
static int create_error(const struct args *a, const char *image, int err)
{
	enum sqk_build_step step = sqk_build_failed_step_id(NULL);
	const char *path, *words;
	int e = sqk_error_errno(), errnum;

	if (step == SQK_STEP_DRIVER) {
		sqk_build_failure(NULL, &path, &words, &errnum, NULL);
		/* The image appended to cannot be read back: where and why. */
		if (a->append && *words)
			cli_error(image, "%s: %s", path, words);
		else
			report(image, err, path, words, errnum);
		return EXIT_FAIL;
	}
	if (step >= SQK_STEP_APPEND && step <= SQK_STEP_APPEND_IO)
		return cli_mkimage_append_error(a, image, err);
	if (step == SQK_STEP_OFFSET) {
		/* --offset N: the existing IMAGE must hold N bytes, and no more unless --force. */
		if (err == SQK_ERR_IO || err == SQK_ERR_NOFILE)
			cli_error(image, "--offset needs the existing file: %s", strerror(e));
		else if (err == SQK_ERR_ARG)
			cli_error(image, "--offset needs a regular file");
		else if (err == SQK_ERR_TRUNCATED) /* the library's: the file's or device's size */
			cli_error(NULL, "%s", sqk_error_message());
		else
			cli_error(image,
				  "has bytes after offset %llu (use --force to replace them)",
				  (unsigned long long)a->offset);
	} else if (step == SQK_STEP_OUTPUT && err == SQK_ERR_EXIST) {
		cli_error(image, "file exists (use --force to overwrite it)");
	} else if (step == SQK_STEP_VERITY && err == SQK_ERR_EXIST) {
		/* A file beside the image (the hash file, the root hash, the signature): its path.
		 */
		const char *m = sqk_error_message(), *colon = strstr(m, ": file exists");

		cli_error(NULL, "%.*s: file exists (use --force to overwrite it)",
			  colon ? (int)(colon - m) : (int)strlen(m), m);
	} else if (step == SQK_STEP_OUTPUT && err == SQK_ERR_ARG) {
		cli_error(image, "is a directory");
	} else if (step == SQK_STEP_OUTPUT && err == SQK_ERR_OVERFLOW) {
		cli_error(image, "path too long");
	} else if (step == SQK_STEP_OUTPUT_OPEN) {
		cli_error(image, "%s", strerror(e));
	} else if (step == SQK_STEP_OUTPUT && (err == SQK_ERR_IO || err == SQK_ERR_NOFILE)) {
		cli_error(image, "cannot create a temporary file beside it: %s", strerror(e));
	} else if (step == SQK_STEP_OUTPUT || step == SQK_STEP_OFFSET_COPY) {
		say_io(image, err, e);
	} else {
		cli_error(NULL, "%s", sqk_error_message());
	}
	return EXIT_FAIL;
}

/* Why the build failed once under way, in mkimage's words: the exit status. */
static int build_error(const struct args *a, const char *image, struct sqk_build *b, int err,
		       int to_stdout)
{
	enum sqk_build_step step = sqk_build_failed_step_id(b);
	const char *path, *words;
	int errnum, in_image, e = sqk_error_errno();

	sqk_build_failure(b, &path, &words, &errnum, &in_image);
	if (step == SQK_STEP_COMMIT) {
		/* A device written in place: the words say it holds a partial image. */
		if (*words)
			cli_error(to_stdout ? "stdout" : image, "%s", words);
		else
			say_io(to_stdout ? "stdout" : image, err, e);
		return EXIT_FAIL;
	}
	/* A file of the tree's (the hash file, the root hash, the signature): named by the library. */
	if (step == SQK_STEP_VERITY) {
		cli_error(NULL, "%s", sqk_error_message());
		return EXIT_FAIL;
	}
	if (a->append && in_image) {
		cli_error(image, "/%s: already in the image", path);
		return EXIT_FAIL;
	}
	/* A path given twice, a definition that clashes with the sources: usage errors. */
	if (err == SQK_ERR_EXIST || (err == SQK_ERR_ARG && step == SQK_STEP_PSEUDO))
		return cli_usage_error("%s: %s", path, words);
	return report(image, err, path, words, errnum);
}

/*
 * An IMAGE that is a directory, said at once rather than "file exists"
 * and, with --force, "is a directory". With a file among the sources
 * ("mkimage IMAGE DIR") the operands are most likely swapped: a usage
 * error that says so.
 */
static int image_is_dir(const char *image, char **src, int nsrc, int archives)
{
	struct stat st;

	if (strcmp(image, "-") == 0 || stat(image, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	for (int i = 0; i < nsrc && !archives; i++)
		if (stat(src[i], &st) == 0 && S_ISREG(st.st_mode))
			return cli_usage_error("%s is a directory and %s a file: the operands look "
					       "swapped (the IMAGE comes last: SOURCE... IMAGE)",
					       image, src[i]);
	cli_error(image, "is a directory");
	return EXIT_FAIL;
}

/*
 * IMAGE "-": the image on stdout, through the library, which writes a
 * regular file open for reading and writing at its start (1<>FILE) in
 * place, superblock last, and anything else (a pipe, a terminal, a file
 * open for writing only or for appending) as a stream, spooled and copied
 * out once complete. A redirect's file is cut to nothing first, as ">"
 * does: "1<>" leaves old bytes after the image.
 */
static void stdout_start(void)
{
	int fl = fcntl(1, F_GETFL);
	struct stat st;

	if (fstat(1, &st) == 0 && S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND) &&
	    lseek(1, 0, SEEK_CUR) == 0)
		(void)!ftruncate(1, 0);
}

/* The options the operands settle: where the image goes and what a SOURCE is. */
static int settle_opts(struct args *a)
{
	int rc = 0;

	for (size_t i = 0; i < a->reuse.n && !rc; i++)
		rc = cli_mkimage_set(a, "reuse", a->reuse.v[i]);
	if (!rc && a->reuse.n && a->reuse_offset)
		rc = cli_mkimage_set(a, "reuse-offset", a->reuse_offset);
	/* One that cannot serve is left out with a note, not refused. */
	if (!rc && a->reuse.n)
		rc = cli_mkimage_set(a, "reuse-skip-unfit", NULL);
	if (!rc && a->append)
		rc = cli_mkimage_set(a, "append", NULL);
	if (!rc && a->offset_arg)
		rc = cli_mkimage_set(a, "offset", a->offset_arg);
	if (!rc && a->force)
		rc = cli_mkimage_set(a, "force", NULL);
	if (!rc && (a->named_sources || a->full_paths))
		rc = cli_mkimage_set(a, a->named_sources ? "named-sources" : "full-paths", NULL);
	return rc;
}

/* The SOURCEs, archives and listings, in that order. */
static int add_sources(const struct args *a, struct sqk_build *b, char **src, int nsrc)
{
	int err = 0;

	for (int i = 0; i < nsrc && !err; i++)
		err = a->archive_mode ? sqk_build_add_archive(b, src[i])
				      : sqk_build_add_dir(b, src[i]);
	for (size_t i = 0; i < a->archives.n && !err; i++)
		err = sqk_build_add_archive(b, a->archives.v[i]);
	for (size_t i = 0; i < a->listings.n && !err; i++)
		err = sqk_build_add_listing(b, a->listings.v[i]);
	return err;
}

/* The checks of the command line that need every option: 0, or the exit status. */
static int check_args(struct args *a, const char *image)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	uint32_t v;
	int rc;

	if (a->tail_ends && a->no_fragments)
		return cli_usage_error("--tail-ends and --no-fragments exclude each other");
	if (a->named_sources + a->full_paths + a->archive_mode > 1)
		return cli_usage_error(
			"--named-sources, --full-paths and --archive exclude each other");
	if (a->xattrs_added && a->no_xattrs)
		return cli_usage_error("--xattrs-add and --no-xattrs exclude each other");
	if (epoch && *epoch) {
		if (cli_mkimage_parse_u32("SOURCE_DATE_EPOCH", epoch, &v))
			return EXIT_USAGE;
		rc = cli_mkimage_set(a, "source-date-epoch", epoch);
		if (rc)
			return rc;
	}
	if (strcmp(image, "-") == 0 && (a->offset || a->stats || a->json))
		return cli_usage_error("IMAGE '-' (stdout) excludes %s", a->offset  ? "--offset"
									 : a->stats ? "--stats"
										    : "--json");
	if (a->reuse.n && a->append)
		return cli_usage_error("--reuse and --append exclude each other");
	rc = cli_mkimage_verity_check(a, image);
	if (rc)
		return rc;
	if (a->append)
		return cli_mkimage_append_check(a, image);
	return 0;
}

/* What each build of the command line takes: its SOURCEs, and whether IMAGE is stdout. */
struct run {
	char **src;
	int nsrc;
};

/* One image, at image: 0, or the exit status after the error line. *layers: the OCI image's. */
static int build(struct args *a, const char *image, void *ctx, unsigned *layers)
{
	const struct run *r = ctx;
	struct sqk_build *b = NULL;
	struct bar bar = {0};
	int rc, err, to_stdout = strcmp(image, "-") == 0;
	uint64_t n = 0;

	sqk_build_opts_progress(a->bo, progress_cb, &bar);
	sqk_build_opts_warn(a->bo, warn_cb, &bar);
	if (to_stdout) {
		if (cli_refuse_terminal("an image", a->force))
			return EXIT_FAIL;
		/* A reader gone mid-way is an error to report, not a signal to die of. */
		signal(SIGPIPE, SIG_IGN);
		stdout_start();
		err = sqk_build_create_fd(1, a->bo, &b);
	} else {
		err = sqk_build_create(image, a->bo, &b);
	}
	if (err) {
		rc = create_error(a, image, err);
		goto done;
	}
	cli_mkimage_reuse_refused(a, b);
	bar.b = b;
	bar.p = cli_progress_start(0, NULL, a->quiet);
	if (bar.p) {
		bar.polling = 1;
		cli_progress_poll(bar.p, image_bytes, b);
		cli_progress_aside(bar.p, spilled, b, "to temporary files");
	}
	err = add_sources(a, b, r->src, r->nsrc);
	if (!err)
		err = sqk_build_finish(b);
	if (err) {
		bar_finish(&bar, 0);
		rc = build_error(a, image, b, err, to_stdout);
		goto done;
	}
	/* The bar completes once the image is in place. */
	bar_finish(&bar, 1);
	cli_mkimage_verity_print(a, b);
	if (!to_stdout && (a->stats || a->json))
		print_stats(a, b, image);
	rc = EXIT_OK;
	cli_mkimage_reuse_notes(a, b);
	if (layers && !sqk_build_stat(b, "oci_layers", &n))
		*layers = (unsigned)n;
done:
	sqk_build_destroy(b);
	return rc;
}

int cli_mkimage(int argc, char **argv)
{
	struct args a;
	struct run r;
	const char *image;
	int rc, nsrc;

	memset(&a, 0, sizeof(a));
	rc = cli_mkimage_parse_args(argc, argv, &a);
	if (rc) {
		rc = rc < 0 ? EXIT_OK : rc;
		goto done;
	}
	nsrc = argc - optind - 1;
	if (argc - optind < 1) {
		rc = cli_usage_error("missing IMAGE");
		goto done;
	}
	if (nsrc < 1 && !a.listings.n && !a.archives.n && !a.has_pseudo && !a.oci) {
		rc = cli_usage_error("missing SOURCE");
		goto done;
	}
	image = argv[argc - 1];
	rc = image_is_dir(image, argv + optind, nsrc, a.archive_mode);
	if (!rc)
		rc = cli_mkimage_input_check(&a, nsrc, image);
	if (!rc)
		rc = setup_codec(&a);
	if (!rc)
		rc = check_args(&a, image);
	/* Read before anything is written: OLD may be the IMAGE this build replaces. */
	if (!rc)
		rc = cli_mkimage_reuse_check(&a);
	if (!rc)
		rc = settle_opts(&a);
	if (rc)
		goto done;
	r = (struct run){argv + optind, nsrc};
	rc = a.oci_layers ? cli_mkimage_oci_layers(&a, image, build, &r)
			  : build(&a, image, &r, NULL);
done:
	cli_mkimage_args_free(&a);
	return rc;
}
