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
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "format.h"
#include "image.h"
#include "imageopt.h"
#include "inode.h"
#include "show.h"
#include "xattr.h"

static const char usage_text[] =
	"Usage: squashkit stat [OPTIONS] IMAGE PATH\n"
	"Show the inode of PATH in IMAGE: number, type (basic or extended), mode,\n"
	"owner, mtime, links, size, block list, fragment, sparse bytes, xattrs,\n"
	"symlink target, device numbers, directory listing position.\n\n"
	"      --json        one JSON object\n"
	"      --stats       print cache counters on stderr at the end\n"
	"  -h, --help        show this help\n";

enum { OPT_JSON = 256, OPT_STATS };

static const struct option longopts[] = {
	{"json", no_argument, NULL, OPT_JSON},
	{"stats", no_argument, NULL, OPT_STATS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

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

/* A block's length in the file: the last one may be short. */
static uint32_t block_len(const struct view *v, uint32_t i)
{
	uint64_t left = v->ino->size - (uint64_t)i * v->block_size;

	return left < v->block_size ? (uint32_t)left : v->block_size;
}

static int is_device(unsigned type)
{
	return type == SQFS_BLKDEV || type == SQFS_CHRDEV;
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

	sqk_mode_string(ino->mode, mode);
	sqk_time_string(ino->mtime, 1, when, sizeof(when));
	fputs("path: ", stdout);
	sqk_print_escaped(stdout, v->path);
	printf("\ninode: %u\ntype: %s\nextended: %s\n", ino->number, sqk_json_type(v->type),
	       sqk_inode_extended(ino) ? "yes" : "no");
	printf("inode position: block %llu offset %u\n",
	       (unsigned long long)SQFS_REF_BLOCK(ino->ref), SQFS_REF_OFFSET(ino->ref));
	printf("mode: %04o %s\nuid: %u\ngid: %u\nmtime: %u (%s UTC)\nnlink: %u\nsize: %llu\n",
	       (unsigned)(ino->mode & 07777), mode, ino->uid, ino->gid, ino->mtime, when,
	       ino->nlink, (unsigned long long)sqk_show_size(ino));
	if (v->type == SQFS_FILE) {
		printf("blocks start: %llu\nblocks: %u\n", (unsigned long long)ino->blocks_start,
		       ino->nblocks);
		for (i = 0; i < ino->nblocks; i++) {
			uint32_t w = ino->blocks[i], size = w & SQFS_BLOCK_SIZE_MASK;

			printf("  %u: start %llu size %u %s\n", i, (unsigned long long)pos, size,
			       size == 0		       ? "sparse"
			       : (w & SQFS_BLOCK_UNCOMPRESSED) ? "uncompressed"
							       : "compressed");
			pos += size;
		}
		if (ino->frag_index == SQFS_INVALID_FRAG)
			printf("fragment: none\n");
		else
			printf("fragment: index %u offset %u (tail %u bytes)\n", ino->frag_index,
			       ino->frag_offset, v->tail);
		printf("sparse: %llu\n", (unsigned long long)v->sparse);
		if (ino->type == SQFS_LFILE)
			printf("sparse field: %llu\n", (unsigned long long)ino->sparse);
	}
	if (v->type == SQFS_DIR)
		printf("listing: block %u offset %u (%llu bytes)\nparent: %u\nindex: %u entries\n",
		       ino->dir_block, ino->dir_offset, (unsigned long long)ino->size, ino->parent,
		       ino->index_count);
	if (ino->target) {
		fputs("target: ", stdout);
		sqk_print_escaped(stdout, ino->target);
		fputc('\n', stdout);
	}
	if (is_device(v->type))
		printf("device: %u, %u\n", sqfs_dev_major(ino->rdev), sqfs_dev_minor(ino->rdev));
	if (ino->xattr != SQFS_INVALID_XATTR)
		printf("xattr index: %u\n", ino->xattr);
	printf("xattrs: %u\n", v->nxattrs);
	for (i = 0; i < v->nxattrs; i++) {
		const struct sqk_xattr *x = &v->xattrs[i];

		fputs("  ", stdout);
		sqk_print_escaped(stdout, x->name);
		fputs(": ", stdout);
		if (sqk_utf8_valid(x->value, x->value_len)) {
			fputc('"', stdout);
			sqk_print_escaped_len(stdout, x->value, x->value_len);
			fputc('"', stdout);
		} else {
			fputs("0x", stdout);
			hex(stdout, x->value, x->value_len);
		}
		fputc('\n', stdout);
	}
}

static void print_json(const struct view *v)
{
	const struct sqk_inode *ino = v->ino;
	uint64_t pos = ino->blocks_start;
	char mode[11];
	uint32_t i;

	sqk_mode_string(ino->mode, mode);
	fputs("{\"path\":", stdout);
	sqk_json_text(stdout, v->path);
	printf(",\"inode\":%u,\"type\":\"%s\",\"extended\":%s,\"mode\":%u,\"mode_string\":\"%s\","
	       "\"uid\":%u,\"gid\":%u,\"mtime\":%u,\"nlink\":%u,\"size\":%llu",
	       ino->number, sqk_json_type(v->type), sqk_inode_extended(ino) ? "true" : "false",
	       (unsigned)(ino->mode & 07777), mode, ino->uid, ino->gid, ino->mtime, ino->nlink,
	       (unsigned long long)sqk_show_size(ino));
	printf(",\"inode_position\":{\"block\":%llu,\"offset\":%u}",
	       (unsigned long long)SQFS_REF_BLOCK(ino->ref), SQFS_REF_OFFSET(ino->ref));
	fputs(",\"blocks\":[", stdout);
	for (i = 0; i < ino->nblocks; i++) {
		uint32_t w = ino->blocks[i], size = w & SQFS_BLOCK_SIZE_MASK;

		printf("%s{\"start\":%llu,\"size\":%u,\"compressed\":%s,\"sparse\":%s}",
		       i ? "," : "", (unsigned long long)pos, size,
		       size && !(w & SQFS_BLOCK_UNCOMPRESSED) ? "true" : "false",
		       size ? "false" : "true");
		pos += size;
	}
	fputc(']', stdout);
	if (v->type == SQFS_FILE)
		printf(",\"blocks_start\":%llu", (unsigned long long)ino->blocks_start);
	if (ino->frag_index == SQFS_INVALID_FRAG)
		fputs(",\"fragment\":null", stdout);
	else
		printf(",\"fragment\":{\"index\":%u,\"offset\":%u,\"size\":%u}", ino->frag_index,
		       ino->frag_offset, v->tail);
	printf(",\"sparse\":%llu", (unsigned long long)v->sparse);
	if (ino->type == SQFS_LFILE)
		printf(",\"sparse_field\":%llu", (unsigned long long)ino->sparse);
	else
		fputs(",\"sparse_field\":null", stdout);
	if (ino->xattr == SQFS_INVALID_XATTR)
		fputs(",\"xattr_index\":null", stdout);
	else
		printf(",\"xattr_index\":%u", ino->xattr);
	fputs(",\"xattrs\":{", stdout);
	for (i = 0; i < v->nxattrs; i++) {
		const struct sqk_xattr *x = &v->xattrs[i];

		if (i)
			fputc(',', stdout);
		sqk_json_text(stdout, x->name);
		fputc(':', stdout);
		if (sqk_utf8_valid(x->value, x->value_len)) {
			sqk_json_bytes(stdout, x->value, x->value_len);
		} else {
			fputs("{\"hex\":\"", stdout);
			hex(stdout, x->value, x->value_len);
			fputs("\"}", stdout);
		}
	}
	fputs("},\"target\":", stdout);
	if (ino->target)
		sqk_json_text(stdout, ino->target);
	else
		fputs("null", stdout);
	if (is_device(v->type))
		printf(",\"major\":%u,\"minor\":%u", sqfs_dev_major(ino->rdev),
		       sqfs_dev_minor(ino->rdev));
	if (v->type == SQFS_DIR)
		printf(",\"directory\":{\"block\":%u,\"offset\":%u,\"listing_size\":%llu,"
		       "\"parent\":%u,\"index_count\":%u}",
		       ino->dir_block, ino->dir_offset, (unsigned long long)ino->size, ino->parent,
		       ino->index_count);
	fputs("}\n", stdout);
}

static int run(struct sqk_image *img, const char *image, const char *path, int json)
{
	struct sqk_inode ino;
	struct view v;
	uint32_t i;
	int err;

	memset(&v, 0, sizeof(v));
	v.path = sqk_show_normalise(path);
	if (!v.path) {
		sqk_error(NULL, "%s", sqk_strerror(SQK_ERR_NOMEM));
		return EXIT_FAIL;
	}
	err = sqk_show_resolve(img, path, 0, &ino);
	if (!err) {
		v.ino = &ino;
		v.type = sqfs_basic_type(ino.type);
		v.block_size = sqk_image_super(img)->block_size;
		v.tail = sqk_inode_tail(&ino, v.block_size);
		for (i = 0; i < ino.nblocks; i++)
			if ((ino.blocks[i] & SQFS_BLOCK_SIZE_MASK) == 0)
				v.sparse += block_len(&v, i);
		err = sqk_xattr_read(img, ino.xattr, &v.xattrs, &v.nxattrs);
		if (!err) {
			if (json)
				print_json(&v);
			else
				print_text(&v);
		}
		sqk_xattr_free(v.xattrs, v.nxattrs);
		sqk_inode_free(&ino);
	}
	if (err)
		sqk_show_path_code(image, v.path, err);
	free((char *)v.path);
	return err ? EXIT_FAIL : EXIT_OK;
}

int cmd_stat(int argc, char **argv)
{
	struct sqk_image_opts io;
	struct sqk_image *img;
	int c, json = 0, stats = 0, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return sqk_show_bad_option(argv);
		}
	}
	if (optind >= argc)
		return sqk_usage_error("missing IMAGE operand");
	if (optind + 1 >= argc)
		return sqk_usage_error("missing PATH operand");
	if (argc - optind > 2)
		return sqk_usage_error("too many operands");
	signal(SIGPIPE, SIG_IGN);
	sqk_image_opts_default(&io);
	img = sqk_open_image(argv[optind], &io);
	if (!img)
		return EXIT_FAIL;
	ret = run(img, argv[optind], argv[optind + 1], json);
	if (sqk_show_flush() != 0)
		ret = EXIT_FAIL;
	if (stats)
		sqk_print_stats(stderr, img, 0);
	sqk_image_close(img);
	return ret;
}
