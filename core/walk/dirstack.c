// SPDX-License-Identifier: BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirstack.h"
#include "util/array.h"
#include "util/error.h"

/* Levels that keep their descriptor, the deepest ones. */
#define OPEN_LEVELS 128

struct sqk_dirstack_level {
	int fd;	       /* -1 while closed */
	char setgid;   /* new entries take the directory's group */
	char owner_ok; /* made with its owner: no chown at the end */
	char *name;    /* in the level above; NULL for the root */
	dev_t dev;     /* the directory, as it was entered: opened again, it must be it */
	ino_t ino;
};

int sqk_dirstack_push(struct sqk_dirstack *s, int fd, const char *name, int setgid, int owner_ok)
{
	struct sqk_dirstack_level *lv;
	struct stat st;
	char *copy = NULL;

	if (fstat(fd, &st) != 0)
		return sqk_err_from_errno();
	if (SQK_ARRAY_GROW(s->levels, s->cap, s->depth + 2) || (name && !(copy = strdup(name))))
		return SQK_ERR_NOMEM;
	lv = &s->levels[++s->depth];
	lv->fd = fd;
	lv->setgid = (char)setgid;
	lv->owner_ok = (char)owner_ok;
	lv->name = copy;
	lv->dev = st.st_dev;
	lv->ino = st.st_ino;
	if (s->depth > OPEN_LEVELS && s->levels[s->depth - OPEN_LEVELS].fd >= 0) {
		close(s->levels[s->depth - OPEN_LEVELS].fd);
		s->levels[s->depth - OPEN_LEVELS].fd = -1;
	}
	return 0;
}

/* Open level t again, and on the way the levels the window holds above it. */
static int reopen(struct sqk_dirstack *s, unsigned t)
{
	struct stat st;
	unsigned a = t, l;
	int err = 0;

	while (a > 0 && s->levels[a].fd < 0)
		a--;
	for (l = a + 1; l <= t; l++) {
		struct sqk_dirstack_level *lv = &s->levels[l];

		lv->fd = l == 1 ? dup(s->root_fd)
				: openat(s->levels[l - 1].fd, lv->name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (lv->fd < 0)
			return errno == ELOOP || errno == ENOTDIR ? SQK_ERR_EXIST
								  : sqk_err_from_errno();
		/* By name, it may be another directory now: someone else's, swapped in. */
		if (fstat(lv->fd, &st) != 0)
			err = sqk_err_from_errno();
		else if (st.st_dev != lv->dev || st.st_ino != lv->ino)
			err = SQK_ERR_EXIST;
		if (err) {
			close(lv->fd);
			lv->fd = -1;
			return err;
		}
		/* The level above goes unless the window holds it or it was open before. */
		if (l - 1 > a && l - 1 + OPEN_LEVELS <= t) {
			close(s->levels[l - 1].fd);
			s->levels[l - 1].fd = -1;
		}
	}
	return 0;
}

int sqk_dirstack_pop(struct sqk_dirstack *s, int *fd, int *owner_ok)
{
	struct sqk_dirstack_level *lv = &s->levels[s->depth--];

	*fd = lv->fd;
	*owner_ok = lv->owner_ok;
	free(lv->name);
	if (s->depth > 0 && s->levels[s->depth].fd < 0)
		return reopen(s, s->depth);
	return 0;
}

int sqk_dirstack_fd(const struct sqk_dirstack *s)
{
	return s->levels[s->depth].fd;
}

int sqk_dirstack_setgid(const struct sqk_dirstack *s)
{
	return s->levels[s->depth].setgid;
}

void sqk_dirstack_release(struct sqk_dirstack *s)
{
	for (; s->depth > 0; s->depth--) {
		if (s->levels[s->depth].fd >= 0)
			close(s->levels[s->depth].fd);
		free(s->levels[s->depth].name);
	}
	free(s->levels);
	s->levels = NULL;
	s->cap = 0;
}
