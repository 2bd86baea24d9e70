// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-entry list IMAGE [OPTION...] | api-entry dir IMAGE DEST [OPTION...]:
 * walk (sqk_extract_list) or extract (sqk_extract_dir) with an entry
 * callback that prints what it hears, one a line: "begin PATH MODE [LINK]",
 * "made PATH [LINK]", "end PATH", "passed PATH OUTPUT WHAT" (PATH "/" for
 * the root). OPTION is "skip=PATH" (answer SQK_ENTRY_SKIP there),
 * "stop=PATH" (answer -100 there) or an extract switch ("fill",
 * "pass-over", "keep-made", "force"). Then "error CODE STAGE PATH" when
 * the failure callback heard of one, and "return CODE". Exit 0, or 1.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <squashkit/squashkit.h>

static const char *skip[16], *stop[16];
static int nskip, nstop;

static int listed(const char *const *v, int n, const char *path)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], path))
			return 1;
	return 0;
}

static const char *shown(const char *path)
{
	return *path ? path : "/";
}

static int entry(void *ctx, const struct sqk_entry *e)
{
	switch (e->event) {
	case SQK_ENTRY_BEGIN:
		printf("begin %s %o%s%s\n", shown(e->path), (unsigned)e->st->mode,
		       e->link_to ? " " : "", e->link_to ? e->link_to : "");
		if (listed(stop, nstop, e->path))
			return -100;
		return listed(skip, nskip, e->path) ? SQK_ENTRY_SKIP : SQK_ENTRY_EXTRACT;
	case SQK_ENTRY_MADE:
		printf("made %s%s%s\n", shown(e->path), e->link_to ? " " : "",
		       e->link_to ? e->link_to : "");
		break;
	case SQK_ENTRY_END:
		printf("end %s\n", shown(e->path));
		break;
	case SQK_ENTRY_PASSED_OVER:
		printf("passed %s %d %s\n", shown(e->path), e->failure->output, e->failure->what);
		break;
	}
	return 0;
}

static void failure(void *ctx, const struct sqk_extract_failure *f)
{
	printf("error %d %d %s\n", f->err, (int)f->stage, shown(f->path));
}

int main(int argc, char **argv)
{
	struct sqk_extract_opts *o;
	struct sqk_image *img;
	int dir, first, i, err;

	if (argc < 3 || (strcmp(argv[1], "list") && strcmp(argv[1], "dir")) ||
	    (!strcmp(argv[1], "dir") && argc < 4))
		return fprintf(stderr, "usage: api-entry list|dir IMAGE [DEST] [OPTION...]\n"), 2;
	dir = !strcmp(argv[1], "dir");
	first = dir ? 4 : 3;
	o = sqk_extract_opts_create();
	if (!o || sqk_extract_opts_set_entry(o, entry, NULL) ||
	    sqk_extract_opts_set_failure(o, failure, NULL) ||
	    sqk_extract_opts_set(o, "threads", "2"))
		return 1;
	for (i = first; i < argc; i++) {
		if (!strncmp(argv[i], "skip=", 5) && nskip < 16)
			skip[nskip++] = argv[i] + 5;
		else if (!strncmp(argv[i], "stop=", 5) && nstop < 16)
			stop[nstop++] = argv[i] + 5;
		else if (sqk_extract_opts_set(o, argv[i], NULL))
			return fprintf(stderr, "%s\n", sqk_error_message()), 2;
	}
	err = sqk_image_open_path(argv[2], NULL, &img);
	if (err)
		return printf("error %d %s\n", err, sqk_error_message()), 1;
	err = dir ? sqk_extract_dir(img, argv[3], o, NULL, NULL)
		  : sqk_extract_list(img, o, NULL, NULL);
	printf("return %d\n", err);
	sqk_image_destroy(img);
	sqk_extract_opts_destroy(o);
	return err ? 1 : 0;
}
