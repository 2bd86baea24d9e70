// SPDX-License-Identifier: BSD-2-Clause
/*
 * codec-blocks: the codecs against real images, without the reader.
 *
 *   codec-blocks options NAME BLOCK_SIZE [KEY=VALUE...]
 *	print the options block our codec writes for those -X options, in
 *	hex ("none" for no block)
 *   codec-blocks decode IMAGE FILE
 *	IMAGE holds one regular file, without fragments, as the first inode
 *	(what mksquashfs writes for a directory holding only that file):
 *	decode the options block and every data block with our codecs and
 *	compare them with FILE
 *   codec-blocks recompress IMAGE
 *	the same kind of image made with -noI -noD (inodes and data stored
 *	raw): compress each data block with our codec, as the image's
 *	options block says, pack them in place and patch the block sizes in
 *	the raw inode table. The space freed stays as a gap before the
 *	inode table, which readers never look at.
 *
 * Prints what it saw ("options ...", "blocks N compressed M") on stdout;
 * exit 0 on success, 1 on a mismatch or error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compressors/compressor.h"
#include "format/format.h"
#include "util/error.h"
#include "util/le.h"

static const char *prog = "codec-blocks";

static int fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", prog, what);
	return 1;
}

static int read_at(int fd, uint64_t pos, void *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len, (off_t)pos);

	return n == (ssize_t)len ? 0 : -1;
}

static void print_hex(const char *label, const uint8_t *p, size_t n)
{
	printf("%s ", label);
	if (!n)
		printf("none");
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static int cmd_options(int argc, char **argv)
{
	const struct sqk_codec *codec;
	struct sqk_comp_config cfg;
	uint8_t buf[64];
	size_t len;

	if (argc < 4)
		return fail("usage: options NAME BLOCK_SIZE [KEY=VALUE...]");
	codec = sqk_codec_by_name(argv[2]);
	if (!codec)
		return fail("unknown codec");
	sqk_comp_config_init(&cfg, codec->id, (uint32_t)strtoul(argv[3], NULL, 0));
	for (int i = 4; i < argc; i++)
		if (sqk_comp_config_option(&cfg, argv[i]))
			return fail("bad -X option");
	if (codec->write_options(&cfg, buf, sizeof(buf), &len))
		return fail("write_options failed");
	print_hex("options", buf, len);
	return 0;
}

struct image {
	int fd;
	uint32_t block_size;
	uint16_t flags;
	struct sqk_comp_config cfg;
	struct sqk_compressor *comp;
	uint64_t data_start; /* just past the superblock and options block */
	uint64_t inode_table;
	/* The file inode, from the first metadata block(s) of the inode table. */
	uint8_t meta[4 * SQK_META_SIZE];
	size_t meta_len;
	int meta_raw;	       /* the first inode block was stored raw */
	uint64_t blocks_start; /* file data */
	uint64_t file_size;
	size_t list_off; /* offset of the block list in meta */
	size_t nblocks;
};

/* One metadata block at *pos: header, then payload; *pos moves past it. */
static int read_meta(struct image *im, uint64_t *pos, uint8_t *out, size_t *outlen, int *raw)
{
	uint8_t hdr[2], in[SQK_META_SIZE];
	uint16_t h;
	size_t size;

	if (read_at(im->fd, *pos, hdr, 2))
		return -1;
	h = get_le16(hdr);
	size = h & SQK_META_SIZE_MASK;
	*raw = !!(h & SQK_META_UNCOMPRESSED);
	if (size == 0 || size > SQK_META_SIZE || read_at(im->fd, *pos + 2, in, size))
		return -1;
	*pos += 2 + size;
	if (*raw) {
		memcpy(out, in, size);
		*outlen = size;
		return 0;
	}
	if (!im->comp)
		return -1;
	return im->comp->decompress(im->comp, in, size, out, SQK_META_SIZE, outlen) ? -1 : 0;
}

static int open_image(struct image *im, const char *path, int writable)
{
	uint8_t sb[SQK_SUPER_SIZE], opts[SQK_META_SIZE];
	uint64_t pos = SQK_SUPER_SIZE;
	size_t len;
	int raw;

	memset(im, 0, sizeof(*im));
	im->fd = open(path, writable ? O_RDWR : O_RDONLY);
	if (im->fd < 0 || read_at(im->fd, 0, sb, sizeof(sb)))
		return fail("cannot read the superblock");
	if (get_le32(sb) != SQK_MAGIC)
		return fail("not a squashfs image");
	im->block_size = get_le32(sb + 12);
	im->flags = get_le16(sb + 24);
	im->inode_table = get_le64(sb + 64);
	if (sqk_comp_config_init(&im->cfg, get_le16(sb + 20), im->block_size))
		return fail("unknown compressor");
	/* Metadata is read with a default instance: decoding needs no options. */
	im->comp = sqk_comp_create(&im->cfg);
	if (!im->comp)
		return fail("cannot make a codec instance");
	len = 0;
	if (im->flags & SQK_FLAG_COMPRESSOR_OPTIONS) {
		const struct sqk_codec *codec = sqk_codec_by_id(im->cfg.id);

		if (read_meta(im, &pos, opts, &len, &raw))
			return fail("cannot read the options block");
		if (codec->read_options(&im->cfg, opts, len))
			return fail("our codec refuses the image's options block");
	}
	print_hex("options", opts, len);
	im->data_start = pos;

	/* The file is the first inode: read enough of the table for its block list. */
	pos = im->inode_table;
	while (im->meta_len + SQK_META_SIZE <= sizeof(im->meta)) {
		size_t n;

		if (read_meta(im, &pos, im->meta + im->meta_len, &n, &raw))
			break;
		if (im->meta_len == 0)
			im->meta_raw = raw;
		im->meta_len += n;
	}
	if (im->meta_len < 32)
		return fail("cannot read the inode table");
	switch (get_le16(im->meta)) {
	case SQK_FILE:
		im->blocks_start = get_le32(im->meta + 16);
		if (get_le32(im->meta + 20) != SQK_INVALID_FRAG)
			return fail("the file has a fragment: make the image with -no-fragments");
		im->file_size = get_le32(im->meta + 28);
		im->list_off = 32;
		break;
	case SQK_LFILE:
		im->blocks_start = get_le64(im->meta + 16);
		im->file_size = get_le64(im->meta + 24);
		if (get_le32(im->meta + 44) != SQK_INVALID_FRAG)
			return fail("the file has a fragment: make the image with -no-fragments");
		im->list_off = 56;
		break;
	default:
		return fail("the first inode is not a regular file");
	}
	im->nblocks = (size_t)((im->file_size + im->block_size - 1) / im->block_size);
	if (im->list_off + 4 * im->nblocks > im->meta_len)
		return fail("the block list is longer than this tool reads");
	return 0;
}

static void close_image(struct image *im)
{
	if (im->comp)
		im->comp->destroy(im->comp);
	close(im->fd);
}

static int cmd_decode(int argc, char **argv)
{
	struct image im;
	uint8_t *in, *out, *want;
	uint64_t pos;
	size_t compressed = 0;
	FILE *f;

	if (argc != 4)
		return fail("usage: decode IMAGE FILE");
	if (open_image(&im, argv[2], 0))
		return 1;
	f = fopen(argv[3], "rb");
	in = malloc(im.block_size);
	out = malloc(im.block_size);
	want = malloc(im.block_size);
	if (!f || !in || !out || !want)
		return fail("cannot open FILE");
	pos = im.blocks_start;
	for (size_t i = 0; i < im.nblocks; i++) {
		uint32_t w = get_le32(im.meta + im.list_off + 4 * i);
		uint32_t size = w & SQK_BLOCK_SIZE_MASK;
		size_t expect = im.file_size - (uint64_t)i * im.block_size;
		size_t outlen;

		if (expect > im.block_size)
			expect = im.block_size;
		if (fread(want, 1, expect, f) != expect)
			return fail("FILE is shorter than the file in the image");
		if (size == 0) {
			memset(out, 0, expect); /* sparse */
			outlen = expect;
		} else if (size > im.block_size || read_at(im.fd, pos, in, size)) {
			return fail("bad block size or short image");
		} else if (w & SQK_BLOCK_UNCOMPRESSED) {
			memcpy(out, in, size);
			outlen = size;
		} else {
			int r = im.comp->decompress(im.comp, in, size, out, im.block_size, &outlen);

			if (r) {
				fprintf(stderr, "%s: block %zu: %s\n", prog, i, sqk_strerror(r));
				return 1;
			}
			compressed++;
		}
		if (outlen != expect || memcmp(out, want, expect)) {
			fprintf(stderr, "%s: block %zu differs from FILE\n", prog, i);
			return 1;
		}
		pos += size;
	}
	if (fgetc(f) != EOF)
		return fail("FILE is longer than the file in the image");
	printf("blocks %zu compressed %zu\n", im.nblocks, compressed);
	fclose(f);
	free(in);
	free(out);
	free(want);
	close_image(&im);
	return 0;
}

static int cmd_recompress(int argc, char **argv)
{
	struct image im;
	struct sqk_compressor *enc;
	uint8_t *in, *out, sbflags[2];
	uint64_t rpos, wpos, list_pos;
	size_t compressed = 0;

	if (argc != 3)
		return fail("usage: recompress IMAGE");
	if (open_image(&im, argv[2], 1))
		return 1;
	if (!im.meta_raw || im.list_off + 4 * im.nblocks > SQK_META_SIZE)
		return fail("the inode table must be stored raw (-noI) and the file short");
	/* Compress with the settings the image states. */
	enc = sqk_comp_create(&im.cfg);
	in = malloc(im.block_size);
	out = malloc(im.block_size);
	if (!enc || !in || !out)
		return fail("out of memory");
	rpos = wpos = im.blocks_start;
	/* The first inode's bytes sit right after the first block's 2-byte header. */
	list_pos = im.inode_table + 2 + im.list_off;
	for (size_t i = 0; i < im.nblocks; i++) {
		uint32_t w = get_le32(im.meta + im.list_off + 4 * i);
		uint32_t size = w & SQK_BLOCK_SIZE_MASK;
		uint8_t word[4];
		size_t len;
		int r;

		if (size == 0)
			continue; /* sparse */
		if (!(w & SQK_BLOCK_UNCOMPRESSED) || size > im.block_size)
			return fail("data must be stored raw: make the image with -noD");
		if (read_at(im.fd, rpos, in, size))
			return fail("short image");
		rpos += size;
		r = enc->compress(enc, in, size, out, size, &len);
		if (r == SQK_ERR_OVERFLOW) {
			memcpy(out, in, size);
			len = size;
			put_le32(word, size | SQK_BLOCK_UNCOMPRESSED);
		} else if (r) {
			fprintf(stderr, "%s: block %zu: %s\n", prog, i, sqk_strerror(r));
			return 1;
		} else {
			put_le32(word, (uint32_t)len);
			compressed++;
		}
		/* Writing behind the read position never clobbers unread data. */
		if (pwrite(im.fd, out, len, (off_t)wpos) != (ssize_t)len ||
		    pwrite(im.fd, word, 4, (off_t)(list_pos + 4 * i)) != 4)
			return fail("write failed");
		wpos += len;
	}
	/* The data is no longer all raw. */
	put_le16(sbflags, im.flags & ~SQK_FLAG_UNCOMPRESSED_DATA);
	if (pwrite(im.fd, sbflags, 2, 24) != 2 || fsync(im.fd))
		return fail("write failed");
	printf("blocks %zu compressed %zu\n", im.nblocks, compressed);
	enc->destroy(enc);
	close_image(&im);
	free(in);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "options"))
		return cmd_options(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "decode"))
		return cmd_decode(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "recompress"))
		return cmd_recompress(argc, argv);
	return fail("usage: options NAME BLOCK_SIZE [KEY=VALUE...] | decode IMAGE FILE | "
		    "recompress IMAGE");
}
