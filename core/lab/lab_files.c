// SPDX-License-Identifier: BSD-2-Clause
/* The files a workload chooses from: every regular file of the image, found by one walk. */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "lab.h"
#include "read/image.h"
#include "read/inode.h"
#include "util/array.h"
#include "util/error.h"
#include "walk/walk.h"

struct index_sink {
	struct sqk_sink sink;
	struct sqk_lab_files *f;
	size_t path_cap, size_cap;
};

static int ix_dir(struct sqk_sink *s, const char *path, struct sqk_inode *ino)
{
	return 0;
}

static int ix_node(struct sqk_sink *s, const char *path, struct sqk_inode *ino, const char *link_to)
{
	struct index_sink *x = (struct index_sink *)s;
	struct sqk_lab_files *f = x->f;

	if (sqk_basic_type(ino->type) != SQK_FILE)
		return 0;
	if (SQK_ARRAY_GROW(f->path, x->path_cap, f->count + 1) ||
	    SQK_ARRAY_GROW(f->size, x->size_cap, f->count + 1))
		return SQK_ERR_NOMEM;
	/* Relative to the root, so that a mount point can be put in front. */
	while (*path == '/')
		path++;
	f->path[f->count] = strdup(path);
	if (!f->path[f->count])
		return SQK_ERR_NOMEM;
	f->size[f->count++] = ino->size;
	return 0;
}

int sqk_lab_index(struct sqk_image *img, struct sqk_lab_files *f)
{
	struct index_sink x = {.sink = {.dir_begin = ix_dir, .dir_end = ix_dir, .node = ix_node},
			       .f = f};
	struct sqk_walk w;
	size_t i;
	int err;

	memset(f, 0, sizeof(*f));
	f->block_size = sqk_image_super(img)->block_size;
	memset(&w, 0, sizeof(w));
	w.img = img;
	w.sink = &x.sink;
	err = sqk_walk(&w);
	if (err)
		return err;
	f->small = calloc(f->count + 1, sizeof(*f->small));
	f->large = calloc(f->count + 1, sizeof(*f->large));
	if (!f->small || !f->large)
		return SQK_ERR_NOMEM;
	for (i = 0; i < f->count; i++) {
		if (f->size[i] <= f->block_size)
			f->small[f->nsmall++] = i;
		else
			f->large[f->nlarge++] = i;
	}
	return 0;
}

void sqk_lab_files_free(struct sqk_lab_files *f)
{
	size_t i;

	for (i = 0; i < f->count; i++)
		free(f->path[i]);
	free(f->path);
	free(f->size);
	free(f->small);
	free(f->large);
	memset(f, 0, sizeof(*f));
}
