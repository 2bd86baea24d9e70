// SPDX-License-Identifier: BSD-2-Clause
/* dm-verity on the command line (verityopt.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "read/image_verity.h"
#include "util/file.h"
#include "util/json.h"
#include "util/parse.h"
#include "verityopt.h"

/* The first line of path, the root hash: 0, or EXIT_FAIL after its line. */
static int read_root(struct cli_verity *v, const char *path)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f) {
		cli_error(path, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	if (!fgets(v->root, sizeof(v->root), f))
		v->root[0] = '\0';
	fclose(f);
	n = strcspn(v->root, "\r\n");
	v->root[n] = '\0';
	if (!n) {
		cli_error(path, "no root hash in it");
		return EXIT_FAIL;
	}
	return 0;
}

int cli_verity_take(struct cli_verity *v, int which, const char *arg)
{
	switch (which) {
	case 0:
		if (strlen(arg) >= sizeof(v->root))
			return cli_usage_error("invalid root hash '%s'", arg);
		strcpy(v->root, arg);
		v->given = 1;
		return 0;
	case 1:
		v->given = 1;
		return read_root(v, arg);
	case 2:
		v->hash_file = arg;
		return 0;
	case 3:
		if (sqk_parse_size(arg, &v->offset))
			return cli_usage_error("invalid offset '%s'", arg);
		v->offset_given = 1;
		return 0;
	case 4:
		v->salt = arg;
		return 0;
	default:
		v->hash = arg;
		return 0;
	}
}

int cli_verity_check(const struct cli_verity *v)
{
	if (!v->given && (v->hash_file || v->offset_given || v->salt || v->hash))
		return cli_usage_error("--verity-hash-file, --verity-hash-offset, --verity-salt "
				       "and --verity-hash need --root-hash");
	if (v->hash && !v->salt)
		return cli_usage_error("--verity-hash is for an area with no superblock: give "
				       "its --verity-salt too (- for none)");
	return 0;
}

int cli_verity_apply(const struct cli_verity *v, struct sqk_open_opts *o, const char *path)
{
	int err;

	if (!v->given)
		return 0;
	err = sqk_open_opts_set_root_hash(o, v->root);
	if (!err && (v->hash_file || v->offset_given))
		err = sqk_open_opts_set_verity_area(
			o, v->hash_file, v->offset_given ? v->offset : SQK_VERITY_AFTER_IMAGE);
	if (!err && v->salt)
		err = sqk_open_opts_set_verity_no_superblock(o, v->hash, v->salt);
	if (err) {
		cli_usage_error("%s", sqk_error_message());
		return -1;
	}
	(void)path;
	return 0;
}

void cli_verity_json_members(struct sqk_json *j, const struct sqk_verity_info *info)
{
	if (info->root_hash[0])
		sqk_json_key_string(j, "root_hash", info->root_hash);
	else
		sqk_json_key_null(j, "root_hash");
	sqk_json_key_string(j, "salt", info->salt);
	sqk_json_key_string(j, "hash", info->hash);
	sqk_json_key_uint(j, "hash_offset", info->hash_offset);
	sqk_json_key_uint(j, "hash_size", info->hash_size);
	sqk_json_key_bool(j, "in_image_file", info->in_image_file);
	sqk_json_key_uint(j, "data_blocks", info->data_blocks);
	sqk_json_key_uint(j, "data_block_size", info->data_block_size);
	sqk_json_key_uint(j, "hash_block_size", info->hash_block_size);
	sqk_json_key_uint(j, "hash_type", info->hash_type);
	sqk_json_key_bool(j, "superblock", info->superblock);
	if (info->superblock)
		sqk_json_key_string(j, "uuid", info->uuid);
}

void cli_verity_text(FILE *out, const char *prefix, const struct sqk_verity_info *info)
{
	if (info->root_hash[0])
		fprintf(out, "%s%-18s%s\n", prefix, "root hash", info->root_hash);
	fprintf(out, "%s%-18s%s, salt %s\n", prefix, "hash", info->hash,
		info->salt[0] ? info->salt : "none");
	fprintf(out, "%s%-18s%llu of %u bytes\n", prefix, "data blocks",
		(unsigned long long)info->data_blocks, info->data_block_size);
	fprintf(out, "%s%-18s%llu bytes at %llu%s, %s\n", prefix, "hash area",
		(unsigned long long)info->hash_size, (unsigned long long)info->hash_offset,
		info->in_image_file ? " in the image's file" : " in its own file",
		info->superblock ? "with a superblock" : "no superblock");
	if (info->superblock)
		fprintf(out, "%s%-18s%s\n", prefix, "uuid", info->uuid);
}

/* The reader options of the command running, and those images are opened with now. */
static struct cli_verity reader;
static const struct cli_verity *current = &reader;

void cli_verity_use(const struct cli_verity *v)
{
	current = v ? v : &reader;
}

int cli_verity_option(int which, const char *arg)
{
	return cli_verity_take(&reader, which, arg);
}

int cli_verity_options_check(void)
{
	return cli_verity_check(&reader);
}

int cli_verity_given(void)
{
	return current->given;
}

int cli_verity_open_opts(struct sqk_open_opts *o, const char *path)
{
	return cli_verity_apply(current, o, path);
}

int cli_verity_wrap(struct sqk_file **f, const char *path)
{
	struct sqk_verity_where w = {.offset = SQK_VERITY_AT_END};
	const char *why = NULL;
	int err;

	if (!reader.given)
		return 0;
	if (sqk_verity_where_root(&w, reader.root)) {
		cli_usage_error("invalid root hash '%s'", reader.root);
		sqk_file_destroy(*f);
		return -1;
	}
	w.hash_path = reader.hash_file;
	if (reader.offset_given)
		w.offset = reader.offset;
	else if (reader.hash_file)
		w.offset = 0;
	if (reader.salt && sqk_verity_where_plain(&w, reader.hash, reader.salt, &why)) {
		cli_usage_error("--verity-salt, --verity-hash: %s", why);
		sqk_file_destroy(*f);
		return -1;
	}
	errno = 0;
	err = sqk_image_verity_file(*f, &w, f, &why);
	if (err) {
		const char *where = reader.hash_file ? reader.hash_file : path;

		if (why)
			cli_error(where, "dm-verity: %s", why);
		else
			cli_error_errno(where, err,
					(err == SQK_ERR_IO || err == SQK_ERR_NOFILE) ? errno : 0);
		return -1;
	}
	return 0;
}

void cli_verity_failures(const char *path, struct sqk_image *img)
{
	struct sqk_verity_block b;
	uint64_t n = sqk_image_verity_failures(img, &b);

	if (n == 1)
		cli_error(path, "dm-verity: %s", b.what);
	else if (n)
		cli_error(path, "dm-verity: %llu reads of blocks failed; the first: %s",
			  (unsigned long long)n, b.what);
}
