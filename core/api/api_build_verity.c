// SPDX-License-Identifier: BSD-2-Clause
/*
 * A build's dm-verity tree (core/verity): its options by mkimage's names,
 * the files it writes beside the image (a hash file, the root hash, the
 * signature and its JSON form), each written to a temporary file and
 * renamed into place only once every one of them and the image are
 * complete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_build.h"
#include "util/outfile.h"
#include "util/signals.h"
#include "verity/verity_build.h"
#include "verity/verity_sign.h"

/* The files beside the image, in the order they are renamed into place. */
enum { F_HASH, F_ROOT, F_SIG, F_JSON, F_COUNT };

struct sqk_api_verity_build {
	const char *image; /* the image's path, for messages (the caller's) */
	struct sqk_verity_build *vb;
	struct sqk_verity_signer *signer;
	char *path[F_COUNT];
	struct sqk_outfile *of[F_COUNT];
	int placed[F_COUNT]; /* renamed into place */
	int slot[F_COUNT];   /* the signal action removing it until the image is in place */
	/* The file a failure was about (NULL: the image's), and its errno. */
	const char *fail_path;
	int fail_errnum;
};

static int dup_into(char **to, const char *v)
{
	free(*to);
	*to = strdup(v);
	return *to ? 0 : sqk_api_fail(SQK_ERR_NOMEM, 0, NULL, NULL);
}

int sqk_api_verity_set(struct sqk_build_opts *o, const char *name, const char *v)
{
	struct sqk_api_verity_opts *vo = &o->verity;
	size_t n;

	if (strncmp(name, "verity", 6) != 0)
		return 1;
	if (!strcmp(name, "verity")) {
		vo->on = 1;
		if (!v || !strcmp(v, "appended")) {
			free(vo->hash_file);
			vo->hash_file = NULL;
			return 0;
		}
		if (!*v)
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "verity: an empty file name");
		return dup_into(&vo->hash_file, v);
	}
	if (!strcmp(name, "verity-no-superblock")) {
		if (v)
			return 1;
		vo->no_superblock = 1;
		return 0;
	}
	if (!v)
		return 1;
	if (!strcmp(name, "verity-salt")) {
		if (!strcmp(v, "random")) {
			vo->salt_mode = SQK_VERITY_SALT_RANDOM + 1;
			return 0;
		}
		if (sqk_verity_unhex(v, vo->salt, sizeof(vo->salt), &n))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "invalid verity salt '%s' (hex of at most 256 bytes, "
					    "random, or - for none)",
					    v);
		vo->salt_size = (uint16_t)n;
		vo->salt_mode = SQK_VERITY_SALT_GIVEN + 1;
		return 0;
	}
	if (!strcmp(name, "verity-hash")) {
		if (strcmp(v, "sha256") && strcmp(v, "sha512"))
			return sqk_api_fail(SQK_ERR_ARG, 0, NULL,
					    "unknown verity hash '%s' (sha256, sha512)", v);
		strcpy(vo->algorithm, v);
		return 0;
	}
	if (!strcmp(name, "verity-root-hash-file"))
		return dup_into(&vo->root_hash_file, v);
	if (!strcmp(name, "verity-sign"))
		return dup_into(&vo->key, v);
	if (!strcmp(name, "verity-cert"))
		return dup_into(&vo->cert, v);
	if (!strcmp(name, "verity-sig"))
		return dup_into(&vo->sig, v);
	if (!strcmp(name, "verity-sig-json"))
		return dup_into(&vo->sig_json, v);
	return 1;
}

void sqk_api_verity_opts_free(struct sqk_build_opts *o)
{
	struct sqk_api_verity_opts *vo = &o->verity;

	free(vo->hash_file);
	free(vo->root_hash_file);
	free(vo->key);
	free(vo->cert);
	free(vo->sig);
	free(vo->sig_json);
	memset(vo, 0, sizeof(*vo));
}

/* What the verity options cannot go with, said before anything is opened. */
static int refusal(const struct sqk_build_opts *o, const char *path, int fd_build)
{
	const struct sqk_api_verity_opts *vo = &o->verity;
	int extra = vo->no_superblock || vo->salt_mode || vo->algorithm[0] || vo->root_hash_file ||
		    vo->key || vo->cert || vo->sig || vo->sig_json;

	if (!vo->on && extra)
		return sqk_api_fail(SQK_ERR_ARG, 0, path, "the verity options need \"verity\"");
	if (!vo->on)
		return 0;
	if (o->mo.no_pad)
		return sqk_api_fail(SQK_ERR_ARG, 0, path,
				    "verity and no-pad exclude each other (the tree covers 4 KiB "
				    "blocks)");
	if (!!vo->key != !!vo->cert)
		return sqk_api_fail(SQK_ERR_ARG, 0, path,
				    "verity-sign and verity-cert go together");
	if ((vo->sig || vo->sig_json) && !vo->key)
		return sqk_api_fail(SQK_ERR_ARG, 0, path,
				    "verity-sig and verity-sig-json need verity-sign");
	if (vo->key && fd_build && !vo->sig && !vo->sig_json)
		return sqk_api_fail(
			SQK_ERR_ARG, 0, path,
			"a build to a descriptor names its signature file (verity-sig)");
	return 0;
}

/* IMAGE.roothash.p7s, as systemd looks for it beside IMAGE (a ".raw" suffix replaced). */
static char *sig_beside(const char *image)
{
	size_t n = strlen(image);
	char *s;

	if (n > 4 && !strcmp(image + n - 4, ".raw"))
		n -= 4;
	s = malloc(n + sizeof(".roothash.p7s"));
	if (s) {
		memcpy(s, image, n);
		strcpy(s + n, ".roothash.p7s");
	}
	return s;
}

/* The temporary file of each file beside the image. */
static int create_files(struct sqk_api_verity_build *v, const struct sqk_build_opts *o)
{
	static const char *const what[F_COUNT] = {"the hash file", "the root hash file",
						  "the signature file", "the signature's JSON"};
	struct sqk_outfile_how how = {o->force || o->append, 1, NULL, NULL};
	int i, err;

	for (i = 0; i < F_COUNT; i++) {
		if (!v->path[i])
			continue;
		errno = 0;
		err = sqk_outfile_create(v->path[i], &how, &v->of[i], NULL);
		if (err == SQK_ERR_EXIST)
			return sqk_api_fail(err, 0, v->path[i],
					    "file exists (set \"force\" to replace it)");
		if (err == SQK_ERR_ARG)
			return sqk_api_fail(err, 0, v->path[i], "is a directory");
		if (err)
			return sqk_api_fail(err, err == SQK_ERR_IO ? errno : 0, v->path[i],
					    "cannot create %s: %s", what[i],
					    err == SQK_ERR_IO ? strerror(errno)
							      : sqk_strerror(err));
	}
	return 0;
}

static int load_signer(struct sqk_api_verity_build *v, const struct sqk_api_verity_opts *vo)
{
	const char *why = NULL;
	int which, err = sqk_verity_signer_load(vo->key, vo->cert, &v->signer, &why, &which);
	const char *file = which ? vo->cert : vo->key;

	if (err == SQK_ERR_IO)
		return sqk_api_fail(err, errno, file, NULL);
	if (err)
		return sqk_api_fail(err, 0, file, "%s", why ? why : sqk_strerror(err));
	return 0;
}

static int paths(struct sqk_api_verity_build *v, const struct sqk_api_verity_opts *vo,
		 const char *image)
{
	const char *given[F_COUNT] = {vo->hash_file, vo->root_hash_file, vo->sig, vo->sig_json};
	int i;

	for (i = 0; i < F_COUNT; i++)
		if (given[i] && !(v->path[i] = strdup(given[i])))
			return SQK_ERR_NOMEM;
	if (vo->key && !vo->sig && !vo->sig_json && !(v->path[F_SIG] = sig_beside(image)))
		return SQK_ERR_NOMEM;
	return 0;
}

static int commit(void *ctx);

int sqk_api_verity_open(struct sqk_api_verity_build **out, const struct sqk_build_opts *o,
			const char *path, struct sqk_file *image, unsigned threads, int have_epoch,
			int fd_build)
{
	const struct sqk_api_verity_opts *vo = &o->verity;
	struct sqk_verity_build_opts bo = {.threads = threads};
	struct sqk_api_verity_build *v;
	int err = refusal(o, path, fd_build), i;

	*out = NULL;
	if (err || !vo->on)
		return err;
	sqk_api_build_step(SQK_STEP_VERITY);
	v = *out = calloc(1, sizeof(*v));
	if (!v || paths(v, vo, path))
		return sqk_api_fail(SQK_ERR_NOMEM, 0, path, NULL);
	v->image = path;
	for (i = 0; i < F_COUNT; i++)
		v->slot[i] = -1;
	if (vo->key && (err = load_signer(v, vo)))
		return err;
	err = create_files(v, o);
	if (err)
		return err;
	strcpy(bo.p.algorithm, vo->algorithm[0] ? vo->algorithm : "sha256");
	bo.p.superblock = !vo->no_superblock;
	bo.hash_out = v->of[F_HASH] ? sqk_outfile_file(v->of[F_HASH]) : NULL;
	bo.done = commit;
	bo.ctx = v;
	/* Unless given, the salt is random; with a source date epoch, the image's bytes make it. */
	bo.salt = vo->salt_mode ? (enum sqk_verity_salt)(vo->salt_mode - 1)
		  : have_epoch	? SQK_VERITY_SALT_DERIVED
				: SQK_VERITY_SALT_RANDOM;
	bo.p.salt_size = vo->salt_size;
	memcpy(bo.p.salt, vo->salt, vo->salt_size);
	errno = 0;
	err = sqk_verity_build_create(image, &bo, &v->vb);
	/* The image's first block, which an image appended to holds already, unreadable. */
	if (err && v->vb)
		return sqk_api_fail(err, sqk_verity_build_file(v->vb)->errnum, path, NULL);
	if (err == SQK_ERR_IO)
		return sqk_api_fail(err, errno, path, "no random bytes for the verity salt: %s",
				    strerror(errno));
	if (err)
		return sqk_api_fail(err, 0, path, NULL);
	return 0;
}

struct sqk_verity_build *sqk_api_verity_vb(struct sqk_api_verity_build *v)
{
	return v ? v->vb : NULL;
}

/* Write all of buf to the temporary file of kind i: 0, or the error, said. */
static int put(struct sqk_api_verity_build *v, int i, const void *buf, size_t len)
{
	struct sqk_file *f = sqk_outfile_file(v->of[i]);
	int err = f->write_at(f, 0, buf, len);

	if (err) {
		v->fail_path = v->path[i];
		v->fail_errnum = f->errnum;
	}
	return err;
}

/* The root hash, the signature and its JSON, into their temporary files. */
static int write_files(struct sqk_api_verity_build *v, const char *root_hex)
{
	char line[SQK_VERITY_HEX_MAX + 1], fpr[65];
	uint8_t *sig = NULL, *json = NULL;
	size_t sig_len = 0, json_len = 0;
	int err = 0;

	if (v->of[F_ROOT]) {
		snprintf(line, sizeof(line), "%s\n", root_hex);
		err = put(v, F_ROOT, line, strlen(line));
	}
	if (!err && v->signer) {
		err = sqk_verity_sign(v->signer, root_hex, &sig, &sig_len);
		if (err)
			sqk_api_fail(err, 0, v->image, "the root hash could not be signed");
	}
	if (!err && v->of[F_SIG])
		err = put(v, F_SIG, sig, sig_len);
	if (!err && v->of[F_JSON]) {
		sqk_verity_signer_fingerprint(v->signer, fpr);
		err = sqk_verity_sig_json(root_hex, fpr, sig, sig_len, &json, &json_len);
		if (!err)
			err = put(v, F_JSON, json, json_len);
		else
			sqk_api_fail(err, 0, v->image, NULL);
	}
	free(sig);
	free(json);
	return err;
}

/*
 * The tree is written: the files beside the image written and renamed into
 * place, each removed again by a signal or a failure until the image is in
 * place too (sqk_api_verity_settle). Called by the tree's build.
 */
static int commit(void *ctx)
{
	struct sqk_api_verity_build *v = ctx;
	const struct sqk_verity_result *r = sqk_verity_build_result(v->vb);
	char hex[SQK_VERITY_HEX_MAX];
	int i, err;

	sqk_verity_hex(r->root, r->digest, hex);
	err = write_files(v, hex);
	for (i = 0; !err && i < F_COUNT; i++) {
		if (!v->of[i])
			continue;
		errno = 0;
		err = sqk_outfile_place(v->of[i], &v->slot[i]);
		v->of[i] = NULL;
		if (err) {
			v->fail_path = v->path[i];
			v->fail_errnum = errno;
		} else {
			v->placed[i] = 1;
		}
	}
	if (err)
		sqk_api_verity_unplace(v);
	return err;
}

void sqk_api_verity_settle(struct sqk_api_verity_build *v)
{
	int i;

	for (i = 0; v && i < F_COUNT; i++)
		if (v->placed[i]) {
			sqk_sig_forget(v->slot[i]);
			v->slot[i] = -1;
			v->placed[i] = 0;
		}
}

void sqk_api_verity_unplace(struct sqk_api_verity_build *v)
{
	int i;

	for (i = 0; v && i < F_COUNT; i++)
		if (v->placed[i]) {
			unlink(v->path[i]);
			sqk_sig_forget(v->slot[i]);
			v->slot[i] = -1;
			v->placed[i] = 0;
		}
}

const char *sqk_api_verity_failed(const struct sqk_api_verity_build *v, int *errnum)
{
	struct sqk_file *f;

	if (!v)
		return NULL;
	if (v->vb && sqk_verity_build_hash_failed(v->vb) && v->path[F_HASH]) {
		f = sqk_verity_build_file(v->vb);
		*errnum = f->errnum;
		return v->path[F_HASH];
	}
	*errnum = v->fail_errnum;
	return v->fail_path;
}

int sqk_api_verity_result(const struct sqk_api_verity_build *v, struct sqk_verity_info *info)
{
	const struct sqk_verity_result *r = v ? sqk_verity_build_result(v->vb) : NULL;

	if (!r)
		return SQK_ERR_NOENT;
	sqk_api_verity_info(&r->p, r->root, r->digest, r->hash_size, !v->path[F_HASH], info);
	return 0;
}

int(sqk_build_verity)(const struct sqk_build *b, struct sqk_verity_info *given, size_t size)
{
	struct sqk_verity_info info;

	if (sqk_api_size(size, SQK_API_V1(struct sqk_verity_info, hash_type), "sqk_verity_info"))
		return SQK_ERR_ARG;
	if (!b->finished)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "the build is not finished");
	if (sqk_api_verity_result(b->verity, &info))
		return sqk_api_fail(SQK_ERR_NOENT, 0, b->path, "the build made no verity tree");
	sqk_api_out(given, size, &info, sizeof(info), 0, NULL);
	return sqk_api_ok();
}

uint64_t sqk_api_verity_reread(const struct sqk_api_verity_build *v)
{
	const struct sqk_verity_result *r = v ? sqk_verity_build_result(v->vb) : NULL;

	return r ? r->reread_blocks : 0;
}

void sqk_api_verity_release(struct sqk_api_verity_build *v)
{
	int i;

	if (!v)
		return;
	/* Placed but never settled: the image did not follow them. */
	sqk_api_verity_unplace(v);
	for (i = 0; i < F_COUNT; i++) {
		sqk_outfile_abort(v->of[i]);
		free(v->path[i]);
	}
	sqk_verity_signer_free(v->signer);
	sqk_verity_build_destroy(v->vb);
	free(v);
}
