// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-verity: dm-verity through the public API (squashkit/verity.h).
 *
 *   api-verity build SRCDIR IMAGE KEY CERT   a build with "verity", a given
 *       salt and a signature; prints "root R", "salt S", "offset N",
 *       "blocks N", "uuid U" (sqk_build_verity); then opens IMAGE with R
 *       and reads every byte of /big through it ("read N"); a root hash one
 *       digit off does not open it ("wrong: CODE" and the message); the
 *       tree alone checks clean with the signature ("check: clean");
 *       sqk_verity_signature_check accepts it and refuses another root
 *       ("sig ok", "sig other: CODE").
 *   api-verity add IMAGE      sqk_verity_add with the same salt: "root R".
 *   api-verity damaged IMAGE ROOT   opens IMAGE with ROOT, reads /big:
 *       "read: CODE ERRNO" and the first failure's words
 *       (sqk_image_verity_failures); then sqk_check_path with the root
 *       hash: one "problem PATH CHECK" line per problem.
 * A failure of a call that must succeed: "error CODE MESSAGE", exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "error %s %d %s\n", what, err, sqk_error_message());
	return 1;
}

static struct sqk_open_opts *with_root(const char *root)
{
	struct sqk_open_opts *o = sqk_open_opts_create();

	if (o && sqk_open_opts_set_root_hash(o, root)) {
		sqk_open_opts_destroy(o);
		return NULL;
	}
	return o;
}

/* Read all of /big of img: 0 and the bytes, or the error. */
static int read_big(struct sqk_image *img, uint64_t *n)
{
	struct sqk_inode *ino;
	char buf[65536];
	size_t got;
	int err = sqk_inode_open(img, "/big", &ino);

	*n = 0;
	while (!err) {
		err = sqk_inode_pread(img, ino, *n, buf, sizeof(buf), &got);
		if (err || !got)
			break;
		*n += got;
	}
	if (ino)
		sqk_inode_destroy(ino);
	return err;
}

static int build(char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_verity_info info;
	struct sqk_open_opts *oo;
	struct sqk_build *b = NULL;
	struct sqk_image *img = NULL;
	struct sqk_report *r = NULL;
	char wrong[200], sig[4200];
	uint64_t n;
	int err;

	err = !o || sqk_build_opts_set(o, "verity", NULL) ||
	      sqk_build_opts_set(o, "verity-salt", "00112233") ||
	      sqk_build_opts_set(o, "verity-sign", argv[4]) ||
	      sqk_build_opts_set(o, "verity-cert", argv[5]);
	if (err)
		return fail("options", err);
	err = sqk_build_create(argv[3], o, &b);
	sqk_build_opts_destroy(o);
	if (!err)
		err = sqk_build_add_dir(b, argv[2]);
	if (!err && sqk_build_verity(b, &info) != SQK_ERR_ARG)
		return fail("verity before the finish", -1);
	if (!err)
		err = sqk_build_finish(b);
	if (!err)
		err = sqk_build_verity(b, &info);
	sqk_build_destroy(b);
	if (err)
		return fail("build", err);
	printf("root %s\nsalt %s\noffset %llu\nblocks %llu\nuuid %s\n", info.root_hash, info.salt,
	       (unsigned long long)info.hash_offset, (unsigned long long)info.data_blocks,
	       info.uuid);
	oo = with_root(info.root_hash);
	err = oo ? sqk_image_open_path(argv[3], oo, &img) : SQK_ERR_NOMEM;
	if (!err)
		err = read_big(img, &n);
	if (err)
		return fail("read", err);
	printf("read %llu\n", (unsigned long long)n);
	sqk_image_destroy(img);
	sqk_open_opts_destroy(oo);
	strcpy(wrong, info.root_hash);
	wrong[0] = wrong[0] == '0' ? '1' : '0';
	oo = with_root(wrong);
	img = NULL;
	err = sqk_image_open_path(argv[3], oo, &img);
	printf("wrong: %d %s\n", err, sqk_error_message());
	sqk_image_destroy(img);
	snprintf(sig, sizeof(sig), "%s.roothash.p7s", argv[3]);
	sqk_open_opts_destroy(oo);
	oo = with_root(info.root_hash);
	err = !oo || sqk_open_opts_set_verity_signature(oo, sig, argv[5]) ||
	      sqk_verity_check_path(argv[3], oo, 2, &r);
	if (err)
		return fail("check", err);
	printf("check: %s\n", sqk_report_clean(r) ? "clean" : "problems");
	sqk_report_destroy(r);
	sqk_open_opts_destroy(oo);
	if (sqk_verity_signature_check(info.root_hash, sig, argv[5]))
		return fail("signature", -1);
	printf("sig ok\nsig other: %d\n", sqk_verity_signature_check(wrong, sig, argv[5]));
	return 0;
}

static int add(char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct sqk_verity_info info;
	int err = !o || sqk_build_opts_set(o, "verity-salt", "00112233");

	if (!err)
		err = sqk_verity_add(argv[2], o, &info);
	sqk_build_opts_destroy(o);
	if (err)
		return fail("add", err);
	printf("root %s\n", info.root_hash);
	return 0;
}

static int damaged(char **argv)
{
	struct sqk_open_opts *oo = with_root(argv[3]);
	struct sqk_verity_block first;
	struct sqk_image *img = NULL;
	struct sqk_report *r = NULL;
	uint64_t n;
	size_t i;
	int err = oo ? sqk_image_open_path(argv[2], oo, &img) : SQK_ERR_NOMEM;

	if (err)
		return fail("open", err);
	err = read_big(img, &n);
	printf("read: %d %d\n", err, sqk_error_errno());
	if (sqk_image_verity_failures(img, &first))
		printf("first: %s\n", first.what);
	sqk_image_destroy(img);
	err = sqk_check_path(argv[2], oo, 2, &r);
	if (err)
		return fail("check", err);
	for (i = 0; i < sqk_report_count(r); i++)
		printf("problem %s %s\n", sqk_report_problem(r, i)->path,
		       sqk_report_problem(r, i)->check);
	sqk_report_destroy(r);
	sqk_open_opts_destroy(oo);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "build"))
		return build(argv);
	if (argc == 3 && !strcmp(argv[1], "add"))
		return add(argv);
	if (argc == 4 && !strcmp(argv[1], "damaged"))
		return damaged(argv);
	fprintf(stderr, "usage: api-verity build SRCDIR IMAGE KEY CERT | add IMAGE | damaged "
			"IMAGE ROOT\n");
	return 2;
}
