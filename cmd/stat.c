// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * squashkit stat: everything one inode says, as text or as JSON.
 *
 * PATH is resolved like lstat(2): symlinks on the way are followed inside
 * the image, the last component is not (unless PATH ends with "/").
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
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "format/fmt_block.h"
#include "format/format.h"
#include "read/image.h"
#include "read/inode.h"
#include "read/xattr.h"
#include "show.h"
#include "util/error.h"
#include "util/json.h"

static const char usage_text[] =
	"Usage: squashkit stat [OPTIONS] IMAGE PATH\n"
	"Show the inode of PATH in IMAGE: number, type (basic or extended), mode,\n"
	"owner, mtime, links, size, block list, fragment, sparse bytes, xattrs,\n"
	"symlink target, device numbers, directory listing position.\n\n"
	"      --json        one JSON object\n" SQK_HELP_INSPECTOR_TAIL;

struct view {
	const char *path; /* normalised */
	struct sqk_inode *ino;
	unsigned type; /* basic */
	uint32_t block_size;
	uint64_t sparse; /* file bytes in sparse blocks */
	uint32_t tail;
	struct sqk_xattr *xattrs;
	uint32_t nxattrs;
};

static int is_device(unsigned type)
{
	return type == SQK_BLKDEV || type == SQK_CHRDEV;
}

static void hex(FILE *out, const uint8_t *b, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		fprintf(out, "%02x", b[i]);
}

static void print_text(const struct view *v)
{
	const struct sqk_inode *ino = v->ino;
	char mode[11], when[32];
	uint64_t pos = ino->blocks_start;
	uint32_t i;

	cli_mode_string(ino->mode, mode);
	cli_time_string(ino->mtime, 1, when, sizeof(when));
	fputs("path: ", stdout);
	cli_print_escaped(stdout, v->path);
	printf("\ninode: %u\ntype: %s\nextended: %s\n", ino->number, cli_json_type(v->type),
	       sqk_inode_extended(ino) ? "yes" : "no");
	printf("inode position: block %llu offset %u\n",
	       (unsigned long long)SQK_REF_BLOCK(ino->ref), SQK_REF_OFFSET(ino->ref));
	printf("mode: %04o %s\nuid: %u\ngid: %u\nmtime: %u (%s UTC)\nnlink: %u\nsize: %llu\n",
	       (unsigned)(ino->mode & 07777), mode, ino->uid, ino->gid, ino->mtime, when,
	       ino->nlink, (unsigned long long)cli_show_size(ino));
	if (v->type == SQK_FILE) {
		printf("blocks start: %llu\nblocks: %u\n", (unsigned long long)ino->blocks_start,
		       ino->nblocks);
		for (i = 0; i < ino->nblocks; i++) {
			uint32_t w = ino->blocks[i], size = sqk_fmt_block_size(w);

			printf("  %u: start %llu size %u %s\n", i, (unsigned long long)pos, size,
			       size == 0	      ? "sparse"
			       : sqk_fmt_block_raw(w) ? "uncompressed"
						      : "compressed");
			pos += size;
		}
		if (ino->frag_index == SQK_INVALID_FRAG)
			printf("fragment: none\n");
		else
			printf("fragment: index %u offset %u (tail %u bytes)\n", ino->frag_index,
			       ino->frag_offset, v->tail);
		printf("sparse: %llu\n", (unsigned long long)v->sparse);
		if (ino->type == SQK_LFILE)
			printf("sparse field: %llu\n", (unsigned long long)ino->sparse);
	}
	if (v->type == SQK_DIR)
		printf("listing: block %u offset %u (%llu bytes)\nparent: %u\nindex: %u entries\n",
		       ino->dir_block, ino->dir_offset, (unsigned long long)ino->size, ino->parent,
		       ino->index_count);
	if (ino->target) {
		fputs("target: ", stdout);
		cli_print_escaped(stdout, ino->target);
		fputc('\n', stdout);
	}
	if (is_device(v->type))
		printf("device: %u, %u\n", sqk_dev_major(ino->rdev), sqk_dev_minor(ino->rdev));
	if (ino->xattr != SQK_INVALID_XATTR)
		printf("xattr index: %u\n", ino->xattr);
	printf("xattrs: %u\n", v->nxattrs);
	for (i = 0; i < v->nxattrs; i++) {
		const struct sqk_xattr *x = &v->xattrs[i];

		fputs("  ", stdout);
		cli_print_escaped(stdout, x->name);
		fputs(": ", stdout);
		if (sqk_utf8_valid(x->value, x->value_len)) {
			fputc('"', stdout);
			cli_print_escaped_len(stdout, x->value, x->value_len);
			fputc('"', stdout);
		} else {
			fputs("0x", stdout);
			hex(stdout, x->value, x->value_len);
		}
		fputc('\n', stdout);
	}
}

/* Bytes as lower-case hex, malloc'd. */
static char *hex_string(const uint8_t *b, uint32_t len)
{
	char *s = malloc(2 * (size_t)len + 1), *p = s;
	uint32_t i;

	for (i = 0; s && i < len; i++, p += 2)
		snprintf(p, 3, "%02x", b[i]);
	if (s)
		*p = '\0';
	return s;
}

static int json_xattrs(struct sqk_json *j, const struct view *v)
{
	uint32_t i;

	sqk_json_begin_object(j, 0);
	for (i = 0; i < v->nxattrs; i++) {
		const struct sqk_xattr *x = &v->xattrs[i];
		char *hex;

		sqk_json_key(j, x->name);
		if (sqk_utf8_valid(x->value, x->value_len)) {
			sqk_json_bytes(j, x->value, x->value_len);
			continue;
		}
		hex = hex_string(x->value, x->value_len);
		if (!hex)
			return SQK_ERR_NOMEM;
		sqk_json_begin_object(j, 0);
		sqk_json_key_string(j, "hex", hex);
		sqk_json_end_object(j);
		free(hex);
	}
	sqk_json_end_object(j);
	return 0;
}

static int print_json(struct sqk_json *j, const struct view *v)
{
	const struct sqk_inode *ino = v->ino;
	uint64_t pos = ino->blocks_start;
	char mode[11];
	uint32_t i;
	int err;

	cli_mode_string(ino->mode, mode);
	sqk_json_begin_object(j, 0);
	sqk_json_key_string(j, "path", v->path);
	sqk_json_key_uint(j, "inode", ino->number);
	sqk_json_key_string(j, "type", cli_json_type(v->type));
	sqk_json_key_bool(j, "extended", sqk_inode_extended(ino));
	sqk_json_key_uint(j, "mode", ino->mode & 07777);
	sqk_json_key_string(j, "mode_string", mode);
	sqk_json_key_uint(j, "uid", ino->uid);
	sqk_json_key_uint(j, "gid", ino->gid);
	sqk_json_key_uint(j, "mtime", ino->mtime);
	sqk_json_key_uint(j, "nlink", ino->nlink);
	sqk_json_key_uint(j, "size", cli_show_size(ino));
	sqk_json_key(j, "inode_position");
	sqk_json_begin_object(j, 0);
	sqk_json_key_uint(j, "block", SQK_REF_BLOCK(ino->ref));
	sqk_json_key_uint(j, "offset", SQK_REF_OFFSET(ino->ref));
	sqk_json_end_object(j);
	sqk_json_key(j, "blocks");
	sqk_json_begin_array(j, 0);
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t w = ino->blocks[i], size = sqk_fmt_block_size(w);

		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "start", pos);
		sqk_json_key_uint(j, "size", size);
		sqk_json_key_bool(j, "compressed", size && !sqk_fmt_block_raw(w));
		sqk_json_key_bool(j, "sparse", !size);
		sqk_json_end_object(j);
		pos += size;
	}
	sqk_json_end_array(j);
	if (v->type == SQK_FILE)
		sqk_json_key_uint(j, "blocks_start", ino->blocks_start);
	sqk_json_key(j, "fragment");
	if (ino->frag_index == SQK_INVALID_FRAG) {
		sqk_json_null(j);
	} else {
		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "index", ino->frag_index);
		sqk_json_key_uint(j, "offset", ino->frag_offset);
		sqk_json_key_uint(j, "size", v->tail);
		sqk_json_end_object(j);
	}
	sqk_json_key_uint(j, "sparse", v->sparse);
	if (ino->type == SQK_LFILE)
		sqk_json_key_uint(j, "sparse_field", ino->sparse);
	else
		sqk_json_key_null(j, "sparse_field");
	if (ino->xattr == SQK_INVALID_XATTR)
		sqk_json_key_null(j, "xattr_index");
	else
		sqk_json_key_uint(j, "xattr_index", ino->xattr);
	sqk_json_key(j, "xattrs");
	err = json_xattrs(j, v);
	if (err)
		return err;
	if (ino->target)
		sqk_json_key_string(j, "target", ino->target);
	else
		sqk_json_key_null(j, "target");
	if (is_device(v->type)) {
		sqk_json_key_uint(j, "major", sqk_dev_major(ino->rdev));
		sqk_json_key_uint(j, "minor", sqk_dev_minor(ino->rdev));
	}
	if (v->type == SQK_DIR) {
		sqk_json_key(j, "directory");
		sqk_json_begin_object(j, 0);
		sqk_json_key_uint(j, "block", ino->dir_block);
		sqk_json_key_uint(j, "offset", ino->dir_offset);
		sqk_json_key_uint(j, "listing_size", ino->size);
		sqk_json_key_uint(j, "parent", ino->parent);
		sqk_json_key_uint(j, "index_count", ino->index_count);
		sqk_json_end_object(j);
	}
	sqk_json_end_object(j);
	/* A writer error is the driver's to report. */
	sqk_json_finish(j);
	return 0;
}

static int run(struct sqk_show *s)
{
	struct sqk_inode ino;
	struct view v;
	uint32_t i;
	int err;

	memset(&v, 0, sizeof(v));
	v.path = cli_show_normalise(s->paths[0]);
	if (!v.path) {
		cli_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	err = cli_show_lookup(s, s->paths[0], 0, v.path, &ino);
	if (err) {
		free((char *)v.path);
		return EXIT_FAIL;
	}
	v.ino = &ino;
	v.type = sqk_basic_type(ino.type);
	v.block_size = sqk_image_super(s->img)->block_size;
	v.tail = sqk_inode_tail(&ino, v.block_size);
	for (i = 0; i < ino.nblocks; i++)
		if (sqk_fmt_block_size(ino.blocks[i]) == 0)
			v.sparse += sqk_fmt_block_len(ino.size, i, v.block_size);
	err = sqk_xattr_read(s->img, ino.xattr, &v.xattrs, &v.nxattrs);
	if (!err) {
		if (s->json)
			err = print_json(&s->out, &v);
		else
			print_text(&v);
	}
	sqk_xattr_free(v.xattrs, v.nxattrs);
	sqk_inode_free(&ino);
	if (err)
		cli_show_path_code(s->image, s->img, v.path, err);
	free((char *)v.path);
	return err ? EXIT_FAIL : EXIT_OK;
}

int cli_stat(int argc, char **argv)
{
	static const struct sqk_show_cmd stat_cmd = {
		.usage = usage_text,
		.shortopts = "",
		.json = 1,
		.min_paths = 1,
		.max_paths = 1,
		.run = run,
	};

	return cli_show_main(argc, argv, &stat_cmd, NULL);
}
