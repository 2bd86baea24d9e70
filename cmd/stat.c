// SPDX-License-Identifier: BSD-2-Clause
/*
 * squashkit stat: everything one inode says, as text or as JSON.
 *
 * PATH is resolved like lstat(2), as stat(1) does: symlinks on the way are
 * followed inside the image, the last component is not, unless PATH ends
 * with "/" or -L (--dereference) is given, as with stat -L. PATH is shown
 * as given (from the root, a trailing "/" kept).
 * Xattr values that are valid UTF-8 are shown as text; any other value is
 * shown as hex (text: 0x..., JSON: {"hex":"..."}).
 *
 * "sparse" is counted from the block list: the file bytes of zero-size
 * blocks. An extended file inode also stores a sparse count of its own,
 * shown as "sparse_field" as it is (mksquashfs stores one byte less when
 * the whole file is a hole), null for other inodes.
 *
 * A directory's "size" is what a mounted image reports (the listing plus 3
 * bytes for "." and ".."); "listing_size" is the listing's real length.
 *
 * Past the inspectors' driver, this uses the public API alone.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <squashkit/squashkit.h>

#include "cmd.h"
#include "show.h"
#include "fe.h"

static const char usage_text[] =
	"Usage: squashkit stat [OPTIONS] IMAGE PATH\n"
	"Show the inode of PATH in IMAGE: number, type (basic or extended), mode,\n"
	"owner, mtime, links, size, block list, fragment, sparse bytes, xattrs,\n"
	"symlink target, device numbers, directory listing position.\n\n"
	"  -L, --dereference follow a symlink PATH names (those on the way always are)\n"
	"      --json        one JSON object\n" SQK_HELP_INSPECTOR_TAIL;

static const struct option longopts[] = {
	{"dereference", no_argument, NULL, 'L'},
	{NULL, 0, NULL, 0},
};

struct view {
	const char *path; /* as given, from the root */
	struct sqk_inode *ino;
	struct sqk_stat st;
	struct sqk_inode_layout lay;
	struct sqk_block *blocks; /* st.blocks of them */
	char *target;		  /* a symlink's, else NULL */
	struct sqk_xattr_pair *xattrs;
	size_t nxattrs;
};

static int is_device(mode_t mode)
{
	return S_ISBLK(mode) || S_ISCHR(mode);
}

static void hex(FILE *out, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		fprintf(out, "%02x", b[i]);
}

static void print_text(const struct view *v)
{
	const struct sqk_stat *st = &v->st;
	const struct sqk_inode_layout *l = &v->lay;
	char mode[11], when[32];
	uint32_t i;

	cli_mode_string(st->mode, mode);
	cli_time_string(st->mtime, 1, when, sizeof(when));
	fputs("path: ", stdout);
	cli_print_escaped(stdout, v->path);
	printf("\ninode: %u\ntype: %s\nextended: %s\n", st->ino, sqk_type_key(st->mode),
	       st->extended ? "yes" : "no");
	printf("inode position: block %llu offset %u\n", (unsigned long long)l->inode_block,
	       l->inode_offset);
	printf("mode: %04o %s\nuid: %u\ngid: %u\nmtime: %u (%s UTC)\nnlink: %u\nsize: %llu\n",
	       (unsigned)(st->mode & 07777), mode, st->uid, st->gid, st->mtime, when, st->nlink,
	       (unsigned long long)l->size_mounted);
	if (S_ISREG(st->mode)) {
		printf("blocks start: %llu\nblocks: %u\n", (unsigned long long)l->blocks_start,
		       st->blocks);
		for (i = 0; i < st->blocks; i++) {
			const struct sqk_block *b = &v->blocks[i];

			printf("  %u: start %llu size %u %s\n", i, (unsigned long long)b->start,
			       b->size,
			       b->size == 0	? "sparse"
			       : !b->compressed ? "uncompressed"
						: "compressed");
		}
		if (l->fragment == UINT32_MAX)
			printf("fragment: none\n");
		else
			printf("fragment: index %u offset %u (tail %u bytes)\n", l->fragment,
			       l->fragment_offset, l->tail);
		printf("sparse: %llu\n", (unsigned long long)l->sparse_bytes);
		if (l->has_sparse_field)
			printf("sparse field: %llu\n", (unsigned long long)l->sparse_field);
	}
	if (S_ISDIR(st->mode))
		printf("listing: block %u offset %u (%llu bytes)\nparent: %u\nindex: %u entries\n",
		       l->listing_block, l->listing_offset, (unsigned long long)st->size, l->parent,
		       l->index_count);
	if (v->target) {
		fputs("target: ", stdout);
		cli_print_escaped(stdout, v->target);
		fputc('\n', stdout);
	}
	if (is_device(st->mode))
		printf("device: %u, %u\n", major(st->rdev), minor(st->rdev));
	if (l->xattr_index != UINT32_MAX)
		printf("xattr index: %u\n", l->xattr_index);
	printf("xattrs: %zu\n", v->nxattrs);
	for (i = 0; i < v->nxattrs; i++) {
		const struct sqk_xattr_pair *x = &v->xattrs[i];

		fputs("  ", stdout);
		cli_print_escaped(stdout, x->name);
		fputs(": ", stdout);
		if (sqk_utf8_valid(x->value, x->size)) {
			fputc('"', stdout);
			cli_print_escaped_len(stdout, x->value, x->size);
			fputc('"', stdout);
		} else {
			fputs("0x", stdout);
			hex(stdout, x->value, x->size);
		}
		fputc('\n', stdout);
	}
}

static void json_xattrs(struct sqk_json *j, const struct view *v)
{
	size_t i;

	sqk_json_begin_object(j, 0);
	for (i = 0; i < v->nxattrs; i++) {
		sqk_json_key(j, v->xattrs[i].name);
		sqk_json_blob(j, v->xattrs[i].value, v->xattrs[i].size);
	}
	sqk_json_end_object(j);
}

static int print_json(struct sqk_json *j, const struct view *v)
{
	const struct sqk_stat *st = &v->st;
	const struct sqk_inode_layout *l = &v->lay;
	char mode[11];
	uint32_t i;

	cli_mode_string(st->mode, mode);
	sqk_json_begin_object(j, 0);
	sqk_json_key_string(j, "path", v->path);
	sqk_json_key_uint(j, "inode", st->ino);
	sqk_json_key_string(j, "type", sqk_type_key(st->mode));
	sqk_json_key_bool(j, "extended", st->extended);
	sqk_json_key_uint(j, "mode", st->mode & 07777);
	sqk_json_key_string(j, "mode_string", mode);
	sqk_json_key_uint(j, "uid", st->uid);
	sqk_json_key_uint(j, "gid", st->gid);
	sqk_json_key_uint(j, "mtime", st->mtime);
	sqk_json_key_uint(j, "nlink", st->nlink);
	sqk_json_key_uint(j, "size", l->size_mounted);
	sqk_json_key(j, "inode_position");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "block", l->inode_block);
	sqk_json_key_uint(j, "offset", l->inode_offset);
	sqk_json_end_object(j);
	sqk_json_key(j, "blocks");
	sqk_json_begin_array(j, 0);
	for (i = 0; i < st->blocks; i++) {
		const struct sqk_block *b = &v->blocks[i];

		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "start", b->start);
		sqk_json_key_uint(j, "size", b->size);
		sqk_json_key_bool(j, "compressed", b->compressed);
		sqk_json_key_bool(j, "sparse", !b->size);
		sqk_json_end_object(j);
	}
	sqk_json_end_array(j);
	if (S_ISREG(st->mode))
		sqk_json_key_uint(j, "blocks_start", l->blocks_start);
	sqk_json_key(j, "fragment");
	if (l->fragment == UINT32_MAX) {
		sqk_json_null(j);
	} else {
		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "index", l->fragment);
		sqk_json_key_uint(j, "offset", l->fragment_offset);
		sqk_json_key_uint(j, "size", l->tail);
		sqk_json_end_object(j);
	}
	sqk_json_key_uint(j, "sparse", l->sparse_bytes);
	if (l->has_sparse_field)
		sqk_json_key_uint(j, "sparse_field", l->sparse_field);
	else
		sqk_json_key_null(j, "sparse_field");
	if (l->xattr_index == UINT32_MAX)
		sqk_json_key_null(j, "xattr_index");
	else
		sqk_json_key_uint(j, "xattr_index", l->xattr_index);
	sqk_json_key(j, "xattrs");
	json_xattrs(j, v);
	if (v->target)
		sqk_json_key_string(j, "target", v->target);
	else
		sqk_json_key_null(j, "target");
	if (is_device(st->mode)) {
		sqk_json_key_uint(j, "major", major(st->rdev));
		sqk_json_key_uint(j, "minor", minor(st->rdev));
	}
	if (S_ISDIR(st->mode)) {
		sqk_json_key(j, "directory");
		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "block", l->listing_block);
		sqk_json_key_uint(j, "offset", l->listing_offset);
		sqk_json_key_uint(j, "listing_size", st->size);
		sqk_json_key_uint(j, "parent", l->parent);
		sqk_json_key_uint(j, "index_count", l->index_count);
		sqk_json_end_object(j);
	}
	sqk_json_end_object(j);
	/* A writer error is the driver's to report. */
	sqk_json_finish(j);
	return 0;
}

/* What stat shows beside the inode's stat: its layout, blocks, target and xattrs. */
static int gather(struct sqk_show *s, struct view *v)
{
	int err;

	sqk_inode_stat(v->ino, &v->st);
	err = sqk_inode_layout(s->img, v->ino, &v->lay);
	if (!err && S_ISREG(v->st.mode) && v->st.blocks) {
		v->blocks = calloc(v->st.blocks, sizeof(*v->blocks));
		if (!v->blocks)
			return SQK_ERR_NOMEM;
		err = sqk_inode_blocks(v->ino, v->blocks, v->st.blocks);
		err = err < 0 ? err : 0;
	}
	if (!err && S_ISLNK(v->st.mode)) {
		v->target = malloc(v->st.size + 1);
		if (!v->target)
			return SQK_ERR_NOMEM;
		err = sqk_inode_readlink(v->ino, v->target, v->st.size + 1);
		err = err < 0 ? err : 0;
	}
	if (!err)
		err = sqk_inode_xattrs(s->img, v->ino, &v->xattrs, &v->nxattrs);
	return err;
}

/* PATH from the root, its trailing "/" (which follows a symlink) kept. */
static char *shown(const char *path)
{
	char *norm = cli_show_normalise(path), *out;
	size_t len = strlen(path);

	if (!norm || !len || path[len - 1] != '/' || !strcmp(norm, "/"))
		return norm;
	out = realloc(norm, strlen(norm) + 2);
	if (!out) {
		free(norm);
		return NULL;
	}
	strcat(out, "/");
	return out;
}

static int run(struct sqk_show *s)
{
	int *deref = s->ctx;
	struct view v;
	int err;

	memset(&v, 0, sizeof(v));
	v.path = shown(s->paths[0]);
	if (!v.path) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	err = *deref ? sqk_inode_open_follow(s->img, s->paths[0], &v.ino)
		     : sqk_inode_open_lstat(s->img, s->paths[0], &v.ino);
	if (!err) {
		err = gather(s, &v);
		if (!err && s->json)
			err = print_json(&s->out, &v);
		else if (!err)
			print_text(&v);
	}
	if (err)
		cli_show_path_error(s->image, v.path, cli_api_why(err));
	sqk_inode_xattrs_destroy(v.xattrs, v.nxattrs);
	free(v.target);
	free(v.blocks);
	sqk_inode_destroy(v.ino);
	free((char *)v.path);
	return err ? EXIT_FAIL : EXIT_OK;
}

static int option(struct sqk_show *s, int opt, const char *arg)
{
	*(int *)s->ctx = opt == 'L';
	return opt == 'L' ? 0 : EXIT_USAGE;
}

int cli_stat(int argc, char **argv)
{
	static const struct sqk_show_cmd stat_cmd = {
		.usage = usage_text,
		.shortopts = "L",
		.longopts = longopts,
		.json = 1,
		.min_paths = 1,
		.max_paths = 1,
		.option = option,
		.run = run,
	};
	int deref = 0;

	return cli_show_main(argc, argv, &stat_cmd, &deref);
}
