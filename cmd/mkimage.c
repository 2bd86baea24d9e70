// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit mkimage: build an image from directories, archives or a
 * listing. The image is written to a temporary file beside IMAGE and
 * renamed into place only when complete; on any failure or signal the
 * temporary file is removed and an existing IMAGE is left untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "attropt.h"
#include "cmd.h"
#include "compressors/compressor.h"
#include "format/format.h"
#include "imageopt.h"
#include "mkfs/mkfs.h"
#include "mkimage.h"
#include "progress.h"
#include "read/offset.h"
#include "util/array.h"
#include "util/error.h"
#include "util/file.h"
#include "util/outfile.h"
#include "util/pool.h"

/*
 * The bar first shows the image bytes written (all there is to show while
 * sources are read, and for archives, whose data is stored as they are
 * read); once mkfs places the data of files it has scanned, it reports the
 * bytes placed after each file, and the bar shows them against the total.
 */
static int progress_polling;

static uint64_t image_bytes(void *arg)
{
	struct stat st;

	return fstat((int)(intptr_t)arg, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	if (progress_polling) {
		cli_progress_poll(ctx, NULL, NULL);
		progress_polling = 0;
	}
	cli_progress_set_total(ctx, total);
	cli_progress_set(ctx, done);
}

static void print_stats(const struct sqk_mkfs_stats *st, const struct sqk_mkfs_opts *o,
			const char *image, int json, const struct sqk_reuse_set *reuse)
{
	double ratio = st->uncompressed ? (double)st->bytes_used / (double)st->uncompressed : 0;

	if (json) {
		cli_mkimage_stats_json(st, o, image, ratio, reuse->n ? reuse : NULL);
		return;
	}
	printf("image            %s\n", image);
	printf("compression      %s, block size %u, %u threads\n", o->codec->name, o->block_size,
	       o->threads);
	printf("size             %" PRIu64 " bytes used, %" PRIu64 " on disk\n", st->bytes_used,
	       st->image_size);
	printf("uncompressed     %" PRIu64 " bytes of file data (ratio %.2f%%)\n", st->uncompressed,
	       ratio * 100);
	printf("tables           data %" PRIu64 ", inodes %" PRIu64 ", directories %" PRIu64
	       " bytes\n",
	       st->data_bytes, st->inode_table_bytes, st->dir_table_bytes);
	printf("inodes           %" PRIu64 ": %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
	       " symlinks, %" PRIu64 " devices, %" PRIu64 " fifos, %" PRIu64 " sockets\n",
	       st->inodes, st->files, st->dirs, st->symlinks, st->blkdevs + st->chrdevs, st->fifos,
	       st->sockets);
	printf("hard links       %" PRIu64 "\n", st->hardlinks);
	printf("blocks           %" PRIu64 " (%" PRIu64 " stored raw), %" PRIu64 " fragments\n",
	       st->blocks, st->raw_blocks, st->fragments);
	printf("ids              %" PRIu64 " owner ids, %" PRIu64 " xattr sets\n", st->ids,
	       st->xattr_ids);
	printf("dedup            %" PRIu64 " files (%" PRIu64 " bytes), %" PRIu64 " tails (%" PRIu64
	       " bytes)\n",
	       st->dedup_files, st->dedup_bytes, st->dedup_tails, st->dedup_tail_bytes);
	printf("sparse           %" PRIu64 " blocks (%" PRIu64 " bytes)\n", st->sparse_blocks,
	       st->sparse_bytes);
	printf("lseeks           %" PRIu64 "\n", st->lseeks);
	if (reuse->n)
		cli_mkimage_reuse_print(reuse, st);
}

/* Codec, level and -X options, once the block size is known. */
static int setup_codec(struct args *a)
{
	const struct sqk_codec *codec = sqk_codec_by_name(a->comp_name);
	size_t bad;

	if (!codec)
		return cli_usage_error("unknown compressor '%s' (gzip, lzma, lzo, xz, lz4, zstd)",
				       a->comp_name);
	a->o.codec = codec;
	if (a->level >= 0 && (a->level < codec->level_min || a->level > codec->level_max))
		return cli_usage_error("level %d is out of range for %s (%d..%d)", a->level,
				       codec->name, codec->level_min, codec->level_max);
	if (!sqk_comp_config_setup(&a->o.comp, codec, a->o.block_size, a->level,
				   (const char *const *)a->comp_opts.v, a->comp_opts.n, &bad))
		return 0;
	if (bad < a->comp_opts.n)
		return cli_usage_error("invalid option '%s' for %s", a->comp_opts.v[bad],
				       codec->name);
	/* Options valid one by one may still not go together (xz: lc + lp at most 4). */
	return cli_usage_error("the %s options given do not go together", codec->name);
}

/*
 * A source's failure says where and what (the source's errno in its
 * words); an I/O failure without one was the image's, being written: its
 * file kept the errno.
 */
static void report(struct sqk_mkfs *m, const char *image, struct sqk_file *out, int err)
{
	const char *path = m ? sqk_mkfs_err_path(m) : "";
	const char *msg = m ? sqk_mkfs_err_msg(m) : "";

	if (!*path)
		path = image;
	if (*msg)
		cli_error(path, "%s", msg);
	else if (err == SQK_ERR_IO || err == SQK_ERR_NOSPACE)
		cli_error_errno(image, err,
				out && out->errnum	 ? out->errnum
				: err == SQK_ERR_NOSPACE ? ENOSPC
							 : EIO);
	else
		cli_error_code(path, err);
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

/* The output file; the logic is core/util/outfile's, the messages are these. */
static int open_output(const char *image, int force, struct sqk_mkfs_opts *o,
		       struct sqk_outfile **of)
{
	uint64_t dev[2], ino[2];
	unsigned n, i;
	int err = sqk_outfile_create(image, force, of);

	switch (err) {
	case 0:
		break;
	case SQK_ERR_EXIST:
		cli_error(image, "file exists (use --force to overwrite it)");
		return EXIT_FAIL;
	case SQK_ERR_ARG:
		cli_error(image, "is a directory");
		return EXIT_FAIL;
	case SQK_ERR_OVERFLOW:
		cli_error(image, "path too long");
		return EXIT_FAIL;
	case SQK_ERR_IO:
		cli_error(image, "cannot create a temporary file beside it: %s", strerror(errno));
		return EXIT_FAIL;
	default:
		report(NULL, image, NULL, err);
		return EXIT_FAIL;
	}
	/* Never read the image being written, nor the one it replaces. */
	n = sqk_outfile_ids(*of, dev, ino);
	for (i = 0; i < n; i++) {
		o->skip_dev[o->nskip] = dev[i];
		o->skip_ino[o->nskip++] = ino[i];
	}
	return 0;
}

/* --offset N: the existing IMAGE must hold N bytes, and no more unless --force. */
static int check_leading(const char *image, uint64_t n, int force)
{
	uint64_t size = 0;
	int err = sqk_mkfs_leading_check(image, n, force, &size);

	if (err == SQK_ERR_IO)
		cli_error(image, "--offset needs the existing file: %s", strerror(errno));
	else if (err == SQK_ERR_ARG)
		cli_error(image, "--offset needs a regular file");
	else if (err == SQK_ERR_TRUNCATED)
		cli_error(image, "holds %llu bytes, fewer than the offset %llu",
			  (unsigned long long)size, (unsigned long long)n);
	else if (err)
		cli_error(image, "has bytes after offset %llu (use --force to replace them)",
			  (unsigned long long)n);
	return err ? EXIT_FAIL : 0;
}

/*
 * IMAGE "-": the image on stdout. A regular file open at its start (a
 * redirect) is written in place, superblock last; anything else (a pipe, a
 * terminal, a file open for appending) gets the image from a spool file, an
 * unlinked temporary file in $TMPDIR (default /tmp), copied out in one pass
 * once complete.
 */
static int open_stdout(struct sqk_mkfs_opts *o, struct sqk_file **out, int *spooled)
{
	const char *dir = getenv("TMPDIR");
	int fl = fcntl(1, F_GETFL), fd;
	char path[4096];
	struct stat st;

	if (fstat(1, &st) != 0) {
		cli_error("stdout", "%s", strerror(errno));
		return EXIT_FAIL;
	}
	*spooled = !(S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND) &&
		     lseek(1, 0, SEEK_CUR) == 0 && ftruncate(1, 0) == 0);
	if (*spooled) {
		if (!dir || !*dir)
			dir = "/tmp";
		if (snprintf(path, sizeof(path), "%s/squashkit-XXXXXX", dir) >= (int)sizeof(path)) {
			cli_error(dir, "path too long");
			return EXIT_FAIL;
		}
		fd = mkstemp(path);
		if (fd < 0 || unlink(path) != 0 || fstat(fd, &st) != 0) {
			cli_error(dir, "cannot create a spool file: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_FAIL;
		}
	} else {
		fd = 1;
	}
	/* Never read the image being written. */
	o->skip_dev[o->nskip] = st.st_dev;
	o->skip_ino[o->nskip++] = st.st_ino;
	*out = sqk_file_fdopen(fd, *spooled);
	if (!*out) {
		cli_error_code("stdout", SQK_ERR_NOMEM);
		if (*spooled)
			close(fd);
		return EXIT_FAIL;
	}
	return 0;
}

/* The spooled image to stdout: 0, or -1 after saying why. */
static int copy_out(struct sqk_file *spool)
{
	uint64_t size = spool->size(spool), pos;
	uint8_t *buf = malloc(1u << 20);
	int err = buf ? 0 : SQK_ERR_NOMEM;

	for (pos = 0; !err && pos < size; pos += 1u << 20) {
		size_t len = size - pos < (1u << 20) ? (size_t)(size - pos) : 1u << 20;

		err = spool->read_at(spool, pos, buf, len);
		if (err) {
			cli_error_errno("the spool file", err, spool->errnum);
			break;
		}
		if (sqk_write_full(1, buf, len, SQK_NO_OFFSET) != 0) {
			cli_error("stdout", "%s", strerror(errno));
			err = SQK_ERR_IO;
		}
	}
	if (err == SQK_ERR_NOMEM)
		cli_error_code("stdout", err);
	free(buf);
	return err ? -1 : 0;
}

int cli_mkimage(int argc, char **argv)
{
	struct args a;
	struct sqk_mkfs *m = NULL;
	struct sqk_mkfs_stats st;
	struct sqk_outfile *of = NULL;
	struct sqk_file *out = NULL, *window = NULL, *stream = NULL;
	struct sqk_progress *bar = NULL;
	struct sqk_mkfs_append *at = NULL;
	struct sqk_reuse_set rs = {0};
	const char *image, *epoch;
	int rc, err = 0, nsrc, e, usage = 0, spooled = 0;

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
	if (nsrc < 1 && !a.listings.n && !a.archives.n && !a.pseudo) {
		rc = cli_usage_error("missing SOURCE");
		goto done;
	}
	image = argv[argc - 1];
	rc = image_is_dir(image, argv + optind, nsrc, a.archive_mode);
	if (rc)
		goto done;
	rc = setup_codec(&a);
	if (rc)
		goto done;
	if (a.o.tail_ends && a.o.no_fragments) {
		rc = cli_usage_error("--tail-ends and --no-fragments exclude each other");
		goto done;
	}
	if (a.named_sources + a.full_paths + a.archive_mode > 1) {
		rc = cli_usage_error(
			"--named-sources, --full-paths and --archive exclude each other");
		goto done;
	}
	if (a.attr.nadds && a.o.no_xattrs) {
		rc = cli_usage_error("--xattrs-add and --no-xattrs exclude each other");
		goto done;
	}
	cli_attropt_apply(&a.attr, &a.o);
	epoch = getenv("SOURCE_DATE_EPOCH");
	if (epoch && *epoch) {
		if (cli_mkimage_parse_u32("SOURCE_DATE_EPOCH", epoch, &a.o.epoch)) {
			rc = EXIT_USAGE;
			goto done;
		}
		a.o.have_epoch = 1;
	}
	a.o.excludes = (const char *const *)a.excludes.v;
	a.o.nexcludes = a.excludes.n;

	if (strcmp(image, "-") == 0 && (a.offset || a.stats || a.json)) {
		rc = cli_usage_error("IMAGE '-' (stdout) excludes %s", a.offset	 ? "--offset"
								       : a.stats ? "--stats"
										 : "--json");
		goto done;
	}
	if (a.reuse.n && a.append) {
		rc = cli_usage_error("--reuse and --append exclude each other");
		goto done;
	}
	if (a.offset && !a.append) {
		rc = check_leading(image, a.offset, a.force);
		if (rc)
			goto done;
	}
	/* Read before anything is written: OLD may be the IMAGE this build replaces. */
	cli_offset_quiet(a.quiet);
	rc = cli_mkimage_reuse_open(&a, &rs);
	if (rc)
		goto done;
	if (a.append) {
		rc = cli_mkimage_append_open(&a, image, &at);
		if (rc)
			goto done;
		out = sqk_mkfs_append_file(at);
	} else if (strcmp(image, "-") == 0) {
		if (cli_refuse_terminal("an image", a.force)) {
			rc = EXIT_FAIL;
			goto done;
		}
		/* A reader gone mid-way is an error to report, not a signal to die of. */
		signal(SIGPIPE, SIG_IGN);
		rc = open_stdout(&a.o, &stream, &spooled);
		if (rc)
			goto done;
		out = stream;
	} else {
		rc = open_output(image, a.force || a.offset, &a.o, &of);
		if (rc)
			goto done;
		out = sqk_outfile_file(of);
	}
	if (a.offset && !a.append) {
		err = sqk_mkfs_leading_copy(image, out, a.offset);
		if (!err && !(window = sqk_file_window_rw(out, a.offset)))
			err = SQK_ERR_NOMEM;
		if (err) {
			cli_error_code(image, err);
			rc = EXIT_FAIL;
			goto done;
		}
	}
	bar = cli_progress_start(0, NULL, a.quiet);
	if (bar) {
		progress_polling = 1;
		cli_progress_poll(bar, image_bytes, (void *)(intptr_t)sqk_file_fd(out));
		a.o.progress = progress_cb;
		a.o.progress_ctx = bar;
		a.o.warn_ctx = bar;
	}
	err = sqk_mkfs_create(&a.o, window ? window : out, &m);
	if (err && a.append && *sqk_mkfs_err_msg(m)) {
		/* The image appended to cannot be read back. */
		cli_progress_finish(bar, 0);
		bar = NULL;
		cli_error(image, "%s: %s", sqk_mkfs_err_path(m), sqk_mkfs_err_msg(m));
		rc = EXIT_FAIL;
		goto done;
	}
	if (err)
		goto fail;
	for (int i = optind; i < argc - 1 && !err; i++)
		err = a.archive_mode	? sqk_mkfs_add_archive(m, argv[i])
		      : a.named_sources ? sqk_mkfs_add_entry(m, argv[i])
		      : a.full_paths	? sqk_mkfs_add_full_path(m, argv[i])
					: sqk_mkfs_add_dir(m, argv[i]);
	for (size_t i = 0; i < a.archives.n && !err; i++)
		err = sqk_mkfs_add_archive(m, a.archives.v[i]);
	for (size_t i = 0; i < a.listings.n && !err; i++)
		err = sqk_mkfs_add_listing(m, a.listings.v[i]);
	if (!err && a.pseudo) {
		err = sqk_mkfs_add_pseudo(m, a.pseudo);
		usage = err == SQK_ERR_ARG; /* a definition that clashes with the sources */
	}
	if (!err)
		err = sqk_mkfs_finish(m, &st);
	if (err)
		goto fail;
	cli_mkimage_reuse_done(&rs, m);
	if (stream) {
		if (spooled ? copy_out(stream) != 0 : out->sync(out) != 0) {
			if (!spooled)
				cli_error_errno("stdout", SQK_ERR_IO, out->errnum);
			cli_progress_finish(bar, 0);
			bar = NULL;
			rc = EXIT_FAIL;
			goto done;
		}
		cli_progress_finish(bar, 1);
		bar = NULL;
		rc = EXIT_OK;
		goto done;
	}
	if (a.append) {
		/* mkfs synced it and wrote the superblock last. */
		cli_progress_finish(bar, 1);
		bar = NULL;
		if (a.stats || a.json)
			print_stats(&st, &a.o, image, a.json, &rs);
		rc = EXIT_OK;
		goto done;
	}
	/* The bar completes once the image is in place; the commit's errno outlives it. */
	err = sqk_outfile_commit(of);
	of = NULL;
	e = errno;
	cli_progress_finish(bar, !err);
	bar = NULL;
	errno = e;
	if (err) {
		cli_error_code(image, err);
		rc = EXIT_FAIL;
		goto done;
	}
	if (a.stats || a.json)
		print_stats(&st, &a.o, image, a.json, &rs);
	rc = EXIT_OK;
	goto done;
fail:
	cli_progress_finish(bar, 0);
	bar = NULL;
	if (a.append && sqk_mkfs_err_in_image(m)) {
		cli_error(image, "/%s: already in the image", sqk_mkfs_err_path(m));
		rc = EXIT_FAIL;
	} else if (err == SQK_ERR_EXIST || usage) {
		rc = cli_usage_error("%s: %s", sqk_mkfs_err_path(m), sqk_mkfs_err_msg(m));
	} else {
		report(m, image, window ? window : out, err);
		rc = EXIT_FAIL;
	}
done:
	if (rc == EXIT_OK)
		cli_mkimage_reuse_notes(&rs);
	sqk_mkfs_destroy(m);
	cli_mkimage_reuse_close(&rs);
	sqk_mkfs_append_close(at, rc != EXIT_OK);
	sqk_file_destroy(window);
	sqk_file_destroy(stream);
	sqk_outfile_abort(of);
	cli_mkimage_args_free(&a);
	return rc;
}
