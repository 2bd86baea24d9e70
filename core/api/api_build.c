// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building an image: the mkfs driver over the output (api_build_out.c), fed by
 * the sources (directories, archives, listings, pseudo definitions) and by
 * entries the caller adds one by one (mkfs_entry.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "api_build.h"
#include "format/format.h"
#include "mkfs/mkfs.h"
#include "source/pseudo.h"
#include "util/outfile.h"
#include "util/signals.h"
#include "verity/verity_build.h"

/* The step of sqk_build_create under way in this thread, or that failed. */
static __thread enum sqk_build_step create_step = SQK_STEP_NONE;
/* The driver's failure in parts when create itself failed: no build to hold it. */
static __thread struct {
	int err, errnum, in_image;
	char path[4096], words[512];
} create_failure;

void sqk_api_build_step(enum sqk_build_step step)
{
	create_step = step;
}

/* A failure of the driver: where it says, else the image's path. */
static int mkfs_fail(struct sqk_build *b, int err, const char *entry)
{
	const char *where = b->m ? sqk_mkfs_err_path(b->m) : "";
	const char *msg = b->m ? sqk_mkfs_err_msg(b->m) : "";
	int errnum = b->m ? sqk_mkfs_err_errno(b->m) : 0;

	if (entry && !*where)
		where = entry;
	if ((err == SQK_ERR_IO || err == SQK_ERR_NOSPACE) && !errnum && (b->of || b->append))
		errnum = sqk_api_build_file(b)->errnum;
	err = sqk_api_code(err, errnum);
	b->fail_err = err;
	b->fail_step = b->step;
	b->fail_errnum = errnum;
	b->fail_in_image = b->m && sqk_mkfs_err_in_image(b->m);
	snprintf(b->fail_path, sizeof(b->fail_path), "%s", where);
	snprintf(b->fail_words, sizeof(b->fail_words), "%s", msg);
	if (!*msg)
		msg = errnum ? strerror(errnum) : sqk_strerror(err);
	/* A device written in place keeps what was written: said, in the one line. */
	if (b->device)
		snprintf(b->fail_words, sizeof(b->fail_words), "%s; %s holds a partial image", msg,
			 *where ? b->path : "the device");
	return sqk_api_fail(err, errnum, b->path, "%s%s%s", where, *where ? ": " : "",
			    b->device ? b->fail_words : msg);
}

/*
 * Where the build's temporaries go: "tmpdir", which must be a directory
 * now, or beside the image (path), or for a descriptor, a device or a
 * FIFO (never a place for files: /dev), TMPDIR or /tmp.
 */
static int temporaries(struct sqk_build *b, const struct sqk_build_opts *o, const char *path)
{
	const char *env = getenv("TMPDIR");
	struct stat st;
	char *slash;

	if (o->tmpdir) {
		if (stat(o->tmpdir, &st) != 0)
			return sqk_api_fail(SQK_ERR_IO, errno, o->tmpdir, "tmpdir: %s",
					    strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return sqk_api_fail(SQK_ERR_ARG, 0, o->tmpdir, "tmpdir: not a directory");
		b->tmpdir = strdup(o->tmpdir);
	} else if (path && !(stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		b->tmpdir = strdup(path);
		slash = b->tmpdir ? strrchr(b->tmpdir, '/') : NULL;
		if (slash == b->tmpdir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else if (b->tmpdir)
			strcpy(b->tmpdir, ".");
	} else {
		b->tmpdir = strdup(env && *env ? env : "/tmp");
	}
	if (!b->tmpdir)
		return sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
	b->mo.tmpdir = b->tmpdir;
	return 0;
}

/* What an append cannot go with, said before anything is opened. */
static int append_refusal(const struct sqk_build_opts *o, const char *path)
{
	if (!o->append)
		return 0;
	if (o->force)
		return sqk_api_fail(SQK_ERR_ARG, 0, path, "append and force exclude each other");
	if (o->reuse.n)
		return sqk_api_fail(SQK_ERR_ARG, 0, path, "append and reuse exclude each other");
	if (o->level >= 0 || o->comp_opts.n)
		return sqk_api_fail(SQK_ERR_ARG, 0, path,
				    "append keeps the image's compressor settings; level and "
				    "comp-opt cannot change them");
	return 0;
}

/* A build to path, or with path NULL to the descriptor fd. */
static int create(const char *path, int fd, const struct sqk_build_opts *o, struct sqk_build **out)
{
	char name[32];
	struct sqk_build_opts none;
	struct sqk_build *b;
	size_t i, badopt;
	int err;

	*out = NULL;
	sqk_api_build_step(SQK_STEP_OPTIONS);
	create_failure.err = 0;
	create_failure.path[0] = create_failure.words[0] = '\0';
	create_failure.errnum = create_failure.in_image = 0;
	if (!path) {
		snprintf(name, sizeof(name), "descriptor %d", fd);
		path = name;
	}
	if (!o) {
		struct sqk_build_opts *d = sqk_build_opts_create();

		if (!d)
			return SQK_ERR_NOMEM;
		none = *d;
		free(d);
		o = &none;
	}
	b = calloc(1, sizeof(*b));
	if (!b || !(b->path = strdup(path))) {
		free(b);
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	}
	b->mo = o->mo;
	b->mo.codec = o->codec;
	b->source_mode = o->source_mode;
	err = temporaries(b, o, path == name ? NULL : path);
	if (err) {
		sqk_build_destroy(b);
		return err;
	}
	err = sqk_comp_config_setup(&b->mo.comp, o->codec, b->mo.block_size, o->level,
				    (const char *const *)o->comp_opts.v, o->comp_opts.n, &badopt);
	if (err) {
		sqk_build_destroy(b);
		if (badopt < o->comp_opts.n)
			return sqk_api_fail(err, 0, path, "invalid option '%s' for %s",
					    o->comp_opts.v[badopt], o->codec->name);
		return sqk_api_fail(err, 0, path, "level or options out of range for %s",
				    o->codec->name);
	}
	err = append_refusal(o, path);
	if (!err)
		err = sqk_api_inputs_refuse(o, path);
	if (!err)
		err = sqk_api_attrs_make(&b->attrs, o, &b->mo, path);
	if (!err)
		err = sqk_api_inputs_take(b, o);
	if (err) {
		sqk_build_destroy(b);
		return err;
	}
	sqk_api_build_step(SQK_STEP_OPTIONS);
	if (b->mo.tail_ends && b->mo.no_fragments) {
		sqk_build_destroy(b);
		return sqk_api_fail(SQK_ERR_ARG, 0, path,
				    "tail-ends and no-fragments exclude each other");
	}
	for (i = 0; i < o->excludes.n; i++)
		if (sqk_api_strv_add(&b->excludes, o->excludes.v[i])) {
			sqk_build_destroy(b);
			return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
		}
	b->mo.excludes = (const char *const *)b->excludes.v;
	b->mo.nexcludes = b->excludes.n;
	err = sqk_api_build_open(b, o, path == name ? fd : -1);
	if (!err)
		err = sqk_api_verity_open(&b->verity, o, b->path, sqk_api_build_file(b),
					  b->mo.threads, b->mo.have_epoch, path == name);
	b->mo.verity = sqk_api_verity_vb(b->verity);
	if (err) {
		sqk_build_destroy(b);
		return err;
	}
	sqk_api_build_step(SQK_STEP_DRIVER);
	/* The whole file, bytes kept in front included, as a user sees it grow. */
	b->out_fd = sqk_file_fd(b->window ? sqk_outfile_file(b->of) : sqk_api_build_file(b));
	err = sqk_mkfs_create(
		&b->mo, b->mo.verity ? sqk_verity_build_file(b->mo.verity) : sqk_api_build_file(b),
		&b->m);
	if (err) {
		mkfs_fail(b, err, NULL);
		create_failure.err = b->fail_err;
		create_failure.errnum = b->fail_errnum;
		create_failure.in_image = b->fail_in_image;
		memcpy(create_failure.path, b->fail_path, sizeof(create_failure.path));
		memcpy(create_failure.words, b->fail_words, sizeof(create_failure.words));
		sqk_build_destroy(b);
		return err;
	}
	b->opts_pseudo = sqk_api_pseudo_ref(o->pseudo);
	sqk_api_build_step(SQK_STEP_NONE);
	*out = b;
	return sqk_api_ok();
}

int sqk_build_create(const char *path, const struct sqk_build_opts *o, struct sqk_build **out)
{
	return create(path, -1, o, out);
}

int sqk_build_create_fd(int fd, const struct sqk_build_opts *o, struct sqk_build **out)
{
	return create(NULL, fd, o, out);
}

/* Every adding call: refused once the build failed or finished; a failure fails it. */
static int done(struct sqk_build *b, int err, const char *entry)
{
	if (!err)
		return sqk_api_ok();
	/* A path taken or refused leaves the build as it was; anything else spoils it. */
	if (err != SQK_ERR_EXIST && err != SQK_ERR_NOENT && err != SQK_ERR_BADNAME &&
	    err != SQK_ERR_OVERFLOW && err != SQK_ERR_NOTDIR && err != SQK_ERR_ARG &&
	    err != SQK_ERR_UNSUPPORTED)
		b->failed = 1;
	return mkfs_fail(b, err, entry);
}

static int usable(struct sqk_build *b)
{
	if (b->finished || b->failed)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "the build is %s",
				    b->finished ? "finished" : "failed");
	return 0;
}

/* Usable, and the sources that wait (an OCI image first, archives queued as layers) in. */
static int ready(struct sqk_build *b)
{
	enum sqk_build_step step = b->step;
	int err = usable(b);

	if (err)
		return err;
	b->step = SQK_STEP_SOURCE;
	err = sqk_api_inputs_settle(b);
	if (err) {
		/* A layer applied in part leaves no tree to build on. */
		err = done(b, err, NULL);
		b->failed = 1;
		return err;
	}
	b->step = step;
	return 0;
}

int sqk_build_add_dir(struct sqk_build *b, const char *dir)
{
	int err = ready(b);

	if (err)
		return err;
	b->step = SQK_STEP_SOURCE;
	if (b->source_mode == SQK_API_NAMED_SOURCES)
		return done(b, sqk_mkfs_add_entry(b->m, dir), NULL);
	if (b->source_mode == SQK_API_FULL_PATHS)
		return done(b, sqk_mkfs_add_full_path(b->m, dir), NULL);
	return done(b, sqk_mkfs_add_dir(b->m, dir), NULL);
}

int sqk_build_add_archive(struct sqk_build *b, const char *path)
{
	int err = usable(b);

	b->step = SQK_STEP_SOURCE;
	/* With "whiteouts", a layer: applied with the others before the next source. */
	if (!err && (err = sqk_api_inputs_queue(b, path)) <= 0)
		return err ? sqk_api_fail(err, 0, b->path, NULL) : sqk_api_ok();
	err = ready(b);
	return err ? err : done(b, sqk_mkfs_add_archive(b->m, path), NULL);
}

int sqk_build_add_listing(struct sqk_build *b, const char *path)
{
	int err = ready(b);

	b->step = SQK_STEP_SOURCE;
	return err ? err : done(b, sqk_mkfs_add_listing(b->m, path), NULL);
}

static int add_pseudo(struct sqk_build *b, const char *arg, int file)
{
	int err = usable(b);

	if (!err && !b->pseudo)
		err = sqk_pseudo_create(0, &b->pseudo);
	if (err)
		return err < 0 && err != SQK_ERR_ARG ? sqk_api_fail(err, 0, b->path, NULL) : err;
	return sqk_api_pseudo_add(b->pseudo, arg, file);
}

int sqk_build_add_pseudo(struct sqk_build *b, const char *definition)
{
	return add_pseudo(b, definition, 0);
}

int sqk_build_add_pseudo_file(struct sqk_build *b, const char *path)
{
	return add_pseudo(b, path, 1);
}

/* The caller's attributes of size bytes into *a: 0, or the error, said. */
static int attr_in(struct sqk_build *b, const char *path, const struct sqk_attr *given, size_t size,
		   struct sqk_attr *a)
{
	if (!given)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "%s: no attributes", path);
	return sqk_api_in(a, sizeof(*a), given, size, SQK_API_V1(struct sqk_attr, mtime),
			  "sqk_attr");
}

/* An entry of the given type at path with the caller's attributes (size bytes). */
static int add(struct sqk_build *b, const char *path, const struct sqk_attr *given, size_t size,
	       struct sqk_mkfs_entry *e, sqk_nid *node)
{
	struct sqk_attr attr, *a = &attr;
	sqk_nid n;
	int err = ready(b);

	if (!err)
		err = attr_in(b, path, given, size, &attr);
	if (err)
		return err;
	e->mode = (uint16_t)(a->mode & 07777);
	e->uid = a->uid;
	e->gid = a->gid;
	e->mtime = a->mtime;
	b->step = SQK_STEP_ENTRY;
	err = sqk_mkfs_add_node(b->m, path, e, node ? node : &n);
	return done(b, err, path);
}

int(sqk_build_mkdir)(struct sqk_build *b, const char *path, const struct sqk_attr *a, size_t size)
{
	struct sqk_mkfs_entry e = {.type = SQK_DIR};

	return add(b, path, a, size, &e, NULL);
}

int(sqk_build_add_file)(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			const char *host_path, size_t size)
{
	struct sqk_mkfs_entry e = {.type = SQK_FILE, .host = host_path};
	struct stat st;

	if (stat(host_path, &st) != 0)
		return sqk_api_fail(SQK_ERR_IO, errno, host_path, NULL);
	if (!S_ISREG(st.st_mode))
		return sqk_api_fail(SQK_ERR_ARG, 0, host_path, "not a regular file");
	e.size = (uint64_t)st.st_size;
	return add(b, path, a, size, &e, NULL);
}

struct buffer {
	const uint8_t *data;
};

static int read_buffer(void *ctx, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, ((struct buffer *)ctx)->data + off, len);
	return 0;
}

int(sqk_build_add_file_fn)(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			   uint64_t size, sqk_read_fn read, void *ctx, size_t attr_size)
{
	struct sqk_mkfs_entry e = {.type = SQK_FILE, .size = size};
	sqk_nid n;
	int err;

	if (!read)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "%s: no read callback", path);
	err = add(b, path, a, attr_size, &e, &n);
	if (err)
		return err;
	/* Read when the image's data is written, as build.h promises. */
	err = sqk_mkfs_feed_later(b->m, n, path, read, ctx);
	if (err) {
		b->failed = 1;
		return sqk_api_fail(err, 0, b->path, "%s: %s", path, sqk_strerror(err));
	}
	return sqk_api_ok();
}

int(sqk_build_add_file_data)(struct sqk_build *b, const char *path, const struct sqk_attr *a,
			     const void *data, size_t size, size_t attr_size)
{
	struct sqk_mkfs_entry e = {.type = SQK_FILE, .size = size};
	struct buffer buf = {data};
	sqk_nid n;
	int err = add(b, path, a, attr_size, &e, &n);

	if (err)
		return err;
	/* Placed now: the caller's buffer is free once this returns. */
	err = sqk_mkfs_feed(b->m, n, read_buffer, &buf);
	if (err) {
		b->failed = 1;
		return sqk_api_fail(err, 0, b->path, "%s: %s", path, sqk_strerror(err));
	}
	return sqk_api_ok();
}

int(sqk_build_symlink)(struct sqk_build *b, const char *path, const struct sqk_attr *a,
		       const char *target, size_t size)
{
	struct sqk_mkfs_entry e = {.type = SQK_SYMLINK, .target = target};

	return add(b, path, a, size, &e, NULL);
}

int(sqk_build_mknod)(struct sqk_build *b, const char *path, mode_t type, const struct sqk_attr *a,
		     dev_t rdev, size_t size)
{
	struct sqk_mkfs_entry e = {.major = major(rdev), .minor = minor(rdev)};

	switch (type & S_IFMT) {
	case S_IFBLK:
		e.type = SQK_BLKDEV;
		break;
	case S_IFCHR:
		e.type = SQK_CHRDEV;
		break;
	case S_IFIFO:
		e.type = SQK_FIFO;
		break;
	case S_IFSOCK:
		e.type = SQK_SOCKET;
		break;
	default:
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path,
				    "%s: mknod makes devices, fifos and sockets", path);
	}
	return add(b, path, a, size, &e, NULL);
}

int sqk_build_link(struct sqk_build *b, const char *path, const char *existing)
{
	int err = ready(b);

	if (err)
		return err;
	b->step = SQK_STEP_ENTRY;
	err = sqk_mkfs_link(b->m, path, existing);
	if (err == SQK_ERR_NOENT || err == SQK_ERR_ARG)
		return sqk_api_fail(err, 0, b->path, "%s: %s", existing,
				    err == SQK_ERR_ARG ? "a directory cannot be linked"
						       : sqk_strerror(err));
	return done(b, err, path);
}

int sqk_build_set_xattr(struct sqk_build *b, const char *path, const char *name, const void *value,
			size_t size)
{
	int err = ready(b);

	if (err)
		return err;
	b->step = SQK_STEP_ENTRY;
	err = sqk_mkfs_set_xattr(b->m, path, name, value, size);
	switch (err) {
	case SQK_ERR_ARG:
		return sqk_api_fail(err, 0, b->path, "%s: the build stores no xattrs", path);
	case SQK_ERR_UNSUPPORTED:
		return sqk_api_fail(err, 0, b->path,
				    "%s: %s: only user., trusted. and security. names are stored",
				    path, name);
	case SQK_ERR_EXIST:
		return sqk_api_fail(err, 0, b->path, "%s: %s is set already", path, name);
	}
	return done(b, err, path);
}

/* The driver's failure was the tree's, in a file beside the image: said, naming it. */
static int verity_failed(struct sqk_build *b, int err)
{
	int errnum = 0;
	const char *path = sqk_api_verity_failed(b->verity, &errnum);

	if (!path)
		return 0;
	b->failed = 1;
	b->fail_step = SQK_STEP_VERITY;
	b->fail_err = sqk_api_code(err, errnum);
	b->fail_errnum = errnum;
	sqk_api_fail(err, errnum, path, NULL);
	return 1;
}

int sqk_build_finish(struct sqk_build *b)
{
	sigset_t old;
	int err = ready(b), e, blocked;

	if (err)
		return err;
	b->step = SQK_STEP_PSEUDO;
	if (b->opts_pseudo && (err = sqk_mkfs_add_pseudo(b->m, b->opts_pseudo->p)))
		return done(b, err, NULL);
	if (b->pseudo && (err = sqk_mkfs_add_pseudo(b->m, b->pseudo)))
		return done(b, err, NULL);
	b->step = SQK_STEP_LABEL;
	if ((err = sqk_api_inputs_label(b)))
		return done(b, err, NULL);
	b->step = SQK_STEP_WRITE;
	err = sqk_mkfs_finish(b->m, &b->st);
	if (err)
		return verity_failed(b, err) ? err : done(b, err, NULL);
	if (b->append) {
		/* The driver synced the image and wrote its superblock last, in place. */
		sqk_api_verity_settle(b->verity);
		b->finished = 1;
		return sqk_api_ok();
	}
	/*
	 * The files beside the image are in place: with it, they stay; without
	 * it, they go. No signal between the rename and their settling (a
	 * stream's copy-out stays interruptible: nothing of it can be undone).
	 */
	blocked = sqk_outfile_kind(b->of) == SQK_OUT_FILE;
	if (blocked)
		sqk_sig_block(&old);
	err = sqk_api_build_commit(b);
	e = errno;
	if (err)
		sqk_api_verity_unplace(b->verity);
	else
		sqk_api_verity_settle(b->verity);
	if (blocked)
		sqk_sig_restore(&old);
	if (err) {
		const char *what = e ? strerror(e) : sqk_strerror(err);

		b->failed = 1;
		b->fail_step = SQK_STEP_COMMIT;
		b->fail_err = err;
		b->fail_errnum = e;
		b->fail_path[0] = '\0';
		snprintf(b->fail_words, sizeof(b->fail_words), "%s%s", b->device ? what : "",
			 b->device ? "; the device holds a partial image" : "");
		return sqk_api_fail(err, e, b->path, "%s", b->device ? b->fail_words : what);
	}
	b->finished = 1;
	return sqk_api_ok();
}

void sqk_build_destroy(struct sqk_build *b)
{
	if (!b)
		return;
	sqk_mkfs_destroy(b->m);
	sqk_api_verity_release(b->verity);
	/* An append not finished goes back to its old bytes. */
	sqk_mkfs_append_close(b->append, !b->finished);
	sqk_file_destroy(b->window);
	sqk_outfile_abort(b->of);
	sqk_pseudo_destroy(b->pseudo);
	sqk_api_pseudo_unref(b->opts_pseudo);
	sqk_api_attrs_release(&b->attrs);
	sqk_api_strv_free(&b->excludes);
	sqk_api_inputs_release(b);
	free(b->tmpdir);
	free(b->path);
	free(b);
}

int sqk_build_failure(const struct sqk_build *b, const char **path, const char **words, int *errnum,
		      int *in_image)
{
	if (!b) {
		if (path)
			*path = create_failure.path;
		if (words)
			*words = create_failure.words;
		if (errnum)
			*errnum = create_failure.errnum;
		if (in_image)
			*in_image = create_failure.in_image;
		return create_failure.err;
	}
	if (path)
		*path = b->fail_path;
	if (words)
		*words = b->fail_words;
	if (errnum)
		*errnum = b->fail_errnum;
	if (in_image)
		*in_image = b->fail_in_image;
	return b->fail_err;
}

const char *sqk_build_failed_step(const struct sqk_build *b)
{
	return sqk_api_step_name(sqk_build_failed_step_id(b));
}

enum sqk_build_step sqk_build_failed_step_id(const struct sqk_build *b)
{
	return b ? b->fail_step : create_step;
}

uint64_t sqk_build_written(const struct sqk_build *b)
{
	struct stat st;

	/* Only the descriptor, set before the build was handed out: safe from any thread. */
	return fstat(b->out_fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}
