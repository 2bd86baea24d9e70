// SPDX-License-Identifier: BSD-2-Clause
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

char *sqk_path_abs_nofollow(const char *path)
{
	char *copy = strdup(path), *slash, *dir, *res = NULL;
	const char *base;
	size_t len;

	if (!copy)
		return NULL;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(copy, "/")) {
		res = realpath(copy, NULL);
		free(copy);
		return res;
	}
	if (slash)
		*slash = '\0';
	dir = realpath(slash ? (slash == copy ? "/" : copy) : ".", NULL);
	if (dir && asprintf(&res, "%s/%s", strcmp(dir, "/") ? dir : "", base) < 0)
		res = NULL;
	free(dir);
	free(copy);
	return res;
}

size_t sqk_path_kept(const char *path, char *out, size_t cap)
{
	size_t n = 0, need = 0;
	char last = '/';

	while (*path == '/' || (path[0] == '.' && path[1] == '/'))
		path += *path == '/' ? 1 : 2;
	for (; *path; path++) {
		if (*path == '/' && last == '/')
			continue;
		if (n + 1 < cap)
			out[n++] = *path;
		need++;
		last = *path;
	}
	while (n && out[n - 1] == '/') {
		n--;
		need--;
	}
	if (cap)
		out[n] = '\0';
	return need;
}
