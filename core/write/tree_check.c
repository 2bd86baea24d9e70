// SPDX-License-Identifier: BSD-2-Clause
/*
 * The writer's tree against the codec's rules, before anything is written
 * (tree_check.h). The rules are the reader's and fsck's own, from
 * core/format: what they would refuse in the image is refused here, with
 * the path it came from.
 */
#include <stdio.h>
#include <string.h>

#include "format/fmt_inode.h"
#include "format/format.h"
#include "tree_check.h"
#include "util/error.h"
#include "xattr_writer.h"

/* The node's own values as the codec's inode, for the body's rules. */
static int check_inode(const struct sqk_node *n, uint32_t block_size, struct sqk_fmt_report *r)
{
	struct sqk_fmt_limits lim = {block_size, UINT32_MAX, UINT32_MAX, SQK_FMT_MAX_IDS};
	struct sqk_fmt_inode fi;

	memset(&fi, 0, sizeof(fi));
	fi.type = n->type;
	fi.frag_index = SQK_INVALID_FRAG;
	switch (n->type) {
	case SQK_FILE:
		fi.file_size = n->size;
		return sqk_fmt_inode_check_body(&fi, &lim, r);
	case SQK_SYMLINK:
		/* The length the inode writer stores (sqk_mkfs_write_inodes). */
		fi.target_len = n->size > UINT32_MAX ? UINT32_MAX : (uint32_t)n->size;
		return sqk_fmt_inode_check_body(&fi, &lim, r);
	case SQK_BLKDEV:
	case SQK_CHRDEV:
		return sqk_fmt_dev_check(n->dev.major, n->dev.minor, r);
	}
	return 0;
}

static int check_node(const struct sqk_node *n, uint32_t block_size, const char **what,
		      struct sqk_fmt_report *r)
{
	*what = sqk_fmt_type_name(n->type);
	/* Kept from the image appended to: the reader took them there already. */
	if (n->flags & SQK_NODE_KEPT)
		return 0;
	if (check_inode(n, block_size, r))
		return SQK_ERR_OVERFLOW;
	*what = "xattr";
	if (n->xattrs && sqk_xattrs_set_check(n->xattrs, r))
		return SQK_ERR_OVERFLOW;
	return 0;
}

int sqk_tree_check_node(const struct sqk_node *n, uint32_t block_size, char *why, size_t why_len)
{
	struct sqk_fmt_issue issue = {"", 0, ""};
	struct sqk_fmt_report r = {sqk_fmt_keep_first, &issue, 0};
	const char *what;

	if (!check_node(n, block_size, &what, &r))
		return 0;
	snprintf(why, why_len, "%s %s %llu %s: the format cannot hold it", what, issue.field,
		 (unsigned long long)issue.value, issue.why);
	return SQK_ERR_OVERFLOW;
}
