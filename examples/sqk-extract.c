// SPDX-License-Identifier: BSD-2-Clause
/*
 * sqk-extract IMAGE DIR [PATH...]: extract the SquashFS image IMAGE (or
 * only PATH... and their parents) into the new directory DIR, every entry
 * that can be read, naming each one that cannot.
 *
 * Build it with libsquashkit's pkg-config file:
 *
 *   cc -o sqk-extract sqk-extract.c $(pkg-config --cflags --libs squashkit)
 */
#include <stdio.h>

#include <squashkit/squashkit.h>

static void problem(void *ctx, const char *path, int err, const char *message)
{
	fprintf(stderr, "%s: /%s: %s\n", (const char *)ctx, path, message);
}

int main(int argc, char **argv)
{
	struct sqk_extract_opts *o = sqk_extract_opts_create();
	struct sqk_image *img = NULL;
	int i, err = o ? 0 : SQK_ERR_NOMEM;

	if (argc < 3) {
		fprintf(stderr, "usage: sqk-extract IMAGE DIR [PATH...]\n");
		return 2;
	}
	if (!err)
		err = sqk_extract_opts_set(o, "keep-going", NULL);
	for (i = 3; !err && i < argc; i++)
		err = sqk_extract_opts_add_path(o, argv[i]);
	if (!err)
		err = sqk_image_open_path(argv[1], NULL, &img);
	if (!err)
		err = sqk_extract_dir(img, argv[2], o, problem, argv[1]);
	if (err)
		fprintf(stderr, "sqk-extract: %s\n", sqk_error_message());
	sqk_image_destroy(img);
	sqk_extract_opts_destroy(o);
	return err ? 1 : 0;
}
