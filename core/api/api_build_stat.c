// SPDX-License-Identifier: BSD-2-Clause
/* A finished build's figures, by the names mkimage --stats --json gives them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api_build.h"
#include "format/fmt_type.h"
#include "mkfs/mkfs.h"
#include "write/reuse.h"

int sqk_build_stat(const struct sqk_build *b, const char *name, uint64_t *value)
{
#define STAT(n, f)                                                                                 \
	{                                                                                          \
		n, offsetof(struct sqk_mkfs_stats, f)                                              \
	}
	static const struct {
		const char *name;
		size_t at;
	} stats[] = {
		STAT("bytes_used", bytes_used),
		STAT("image_size", image_size),
		STAT("uncompressed", uncompressed),
		STAT("data_bytes", data_bytes),
		STAT("inode_table_bytes", inode_table_bytes),
		STAT("directory_table_bytes", dir_table_bytes),
		STAT("inodes", inodes),
		STAT("hardlinks", hardlinks),
		STAT("blocks", blocks),
		STAT("raw_blocks", raw_blocks),
		STAT("compressed_blocks", compressed_blocks),
		STAT("fragments", fragments),
		STAT("ids", ids),
		STAT("xattr_ids", xattr_ids),
		STAT("dedup_files", dedup_files),
		STAT("dedup_bytes", dedup_bytes),
		STAT("dedup_tails", dedup_tails),
		STAT("dedup_tail_bytes", dedup_tail_bytes),
		STAT("sparse_blocks", sparse_blocks),
		STAT("sparse_bytes", sparse_bytes),
		STAT("lseeks", lseeks),
		STAT("xattrs_skipped", xattrs_skipped),
		STAT("reused_blocks", reused_blocks),
		STAT("reused_bytes", reused_bytes),
		STAT("memory", memory),
		STAT("spill_bytes", spill_bytes),
		STAT("spill_files", spill_files),
		STAT("spill_runs", spill_runs),
		STAT("spill_merges", spill_merges),
	};
#undef STAT
	/* The counts per type take the codec's names for the types. */
#define COUNT(t, f)                                                                                \
	{                                                                                          \
		t, offsetof(struct sqk_mkfs_stats, f)                                              \
	}
	static const struct {
		unsigned type;
		size_t at;
	} counts[] = {
		COUNT(SQK_FILE, files),	      COUNT(SQK_DIR, dirs),
		COUNT(SQK_SYMLINK, symlinks), COUNT(SQK_BLKDEV, blkdevs),
		COUNT(SQK_CHRDEV, chrdevs),   COUNT(SQK_FIFO, fifos),
		COUNT(SQK_SOCKET, sockets),
	};
#undef COUNT
	size_t i;

	/* What went to disk so far: safe from any thread while the build runs (a progress bar). */
	if (!b->finished && b->m && !strncmp(name, "spill_", 6)) {
		*value = sqk_mkfs_spilled(b->m, name + 6);
		return sqk_api_ok();
	}
	if (!b->finished)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "the build is not finished");
	if (!strcmp(name, "oci_layers")) {
		*value = b->oci_layers;
		return sqk_api_ok();
	}
	if (!strcmp(name, "verity_reread_blocks")) {
		*value = sqk_api_verity_reread(b->verity);
		return sqk_api_ok();
	}
	if (!strcmp(name, "mkfs_time") || !strcmp(name, "block_size") || !strcmp(name, "threads")) {
		*value = name[0] == 'm'	  ? b->st.mkfs_time
			 : name[0] == 'b' ? b->mo.block_size
					  : b->mo.threads;
		return sqk_api_ok();
	}
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (!strcmp(name, stats[i].name)) {
			*value = *(const uint64_t *)((const char *)&b->st + stats[i].at);
			return sqk_api_ok();
		}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (!strcmp(name, sqk_fmt_type_plural(counts[i].type))) {
			*value = *(const uint64_t *)((const char *)&b->st + counts[i].at);
			return sqk_api_ok();
		}
	return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no build figure '%s'", name);
}

const char *sqk_build_compressor(const struct sqk_build *b)
{
	return b->mo.codec->name;
}

int sqk_build_reuse_stat(const struct sqk_build *b, size_t i, const char *name, uint64_t *value)
{
	const struct sqk_reuse_stats *r;

	if (!b->finished)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "the build is not finished");
	if (i >= b->attrs.ngiven)
		return sqk_api_fail(SQK_ERR_ARG, 0, b->path, "no earlier image %zu", i);
	if (b->attrs.given[i].used < 0)
		return sqk_api_fail(SQK_ERR_NOENT, 0, b->path, "earlier image %zu: not used (%s)",
				    i, b->attrs.given[i].why);
	r = sqk_mkfs_reuse(b->m, (size_t)b->attrs.given[i].used);
	if (!strcmp(name, "errno")) {
		/* A failed read says its errno; what read but did not decode is damage. */
		*value = (uint64_t)__atomic_load_n(
			&sqk_image_file(b->attrs.reuse[b->attrs.given[i].used])->errnum,
			__ATOMIC_RELAXED);
		return sqk_api_ok();
	}
	if (!strcmp(name, "same_compression")) {
		if (r->differs < 0)
			return sqk_api_fail(SQK_ERR_NOENT, 0, b->path,
					    "%s: no block copied from earlier image %zu", name, i);
		*value = !r->differs;
		return sqk_api_ok();
	}
	if (!strcmp(name, "blocks"))
		*value = r->blocks;
	else if (!strcmp(name, "bytes"))
		*value = r->bytes;
	else if (!strcmp(name, "stored_bytes"))
		*value = r->stored;
	else if (!strcmp(name, "rejected"))
		*value = r->rejected;
	else if (!strcmp(name, "unreadable"))
		*value = r->unreadable;
	else if (!strcmp(name, "skipped"))
		*value = r->skipped;
	else
		return sqk_api_fail(SQK_ERR_ARG, 0, NULL, "no reuse figure '%s'", name);
	return sqk_api_ok();
}

const char *sqk_build_reuse_why(const struct sqk_build *b, size_t i)
{
	if (i >= b->attrs.ngiven)
		return NULL;
	return b->attrs.given[i].used < 0 ? b->attrs.given[i].why : "";
}
