// SPDX-License-Identifier: BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mounttab.h"

/* The table writes a space, tab, newline and backslash in a path as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

int sqk_mounts_each(int (*fn)(void *arg, const char *mnt, const char *type, const char *opts),
		    void *arg)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!fp)
		return SQK_ERR_IO;
	while (!ret && getline(&line, &cap, fp) > 0) {
		/* id parent dev root MOUNTPOINT options [optional...] - TYPE source superoptions */
		char *save = NULL, *tok, *mnt = NULL, *type = NULL, *opts = NULL;
		int field = 0, after = -1;

		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (field == 4)
				mnt = tok;
			if (after < 0 && field > 5 && strcmp(tok, "-") == 0)
				after = field;
			if (after > 0 && field == after + 1)
				type = tok;
			if (after > 0 && field == after + 3)
				opts = tok;
			field++;
		}
		if (mnt && type && opts) {
			unescape(mnt);
			ret = fn(arg, mnt, type, opts);
		}
	}
	free(line);
	fclose(fp);
	return ret;
}
