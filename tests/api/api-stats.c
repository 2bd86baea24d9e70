// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-stats IMAGE FILE: the cache counters and rates through the public API
 * (sqk_counter_names, sqk_image_counter, sqk_rate_names, sqk_image_rate)
 * and the fragment cache's size in bytes (sqk_open_opts_set_fragment_bytes),
 * on an image of 4 KiB blocks whose FILE (a path in it) is read whole.
 * Prints the fragment cache's entries with and without the bytes asked
 * for, and exits 1 when a check does not hold: the names come in the order
 * --stats prints, each rate is what its counters make, an unknown name and
 * a cache the image has not are refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <squashkit/squashkit.h>

static int failed;

static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "api-stats: %s (%s)\n", what, sqk_error_message());
		failed = 1;
	}
}

static struct sqk_image *open_with(const char *path, size_t frag_bytes)
{
	struct sqk_open_opts *o = sqk_open_opts_create();
	struct sqk_image *img = NULL;

	check(o && !sqk_open_opts_set_cache(o, SQK_CACHE_FRAGMENT, 3) &&
		      !sqk_open_opts_set_fragment_bytes(o, frag_bytes) &&
		      !sqk_image_open_path(path, o, &img),
	      "open");
	sqk_open_opts_destroy(o);
	if (!img)
		exit(1);
	return img;
}

static uint64_t counter(struct sqk_image *img, const char *name)
{
	uint64_t v = 0;

	check(!sqk_image_counter(img, SQK_CACHE_METADATA, name, &v), name);
	return v;
}

static double rate(struct sqk_image *img, const char *name)
{
	double v = -1;

	check(!sqk_image_rate(img, SQK_CACHE_METADATA, name, &v), name);
	return v;
}

int main(int argc, char **argv)
{
	const char *const *n;
	struct sqk_image *img;
	struct sqk_inode *ino;
	uint64_t v, entries;
	char buf[65536];
	size_t got;
	double r;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: api-stats IMAGE FILE\n");
		return 2;
	}
	img = open_with(argv[1], 0);
	check(!sqk_image_counter(img, SQK_CACHE_FRAGMENT, "entries", &entries), "entries");
	printf("fragment entries %llu\n", (unsigned long long)entries);
	sqk_image_destroy(img);
	img = open_with(argv[1], 64 << 10);
	check(!sqk_image_counter(img, SQK_CACHE_FRAGMENT, "entries", &entries), "entries");
	printf("fragment entries for 64 KiB %llu\n", (unsigned long long)entries);

	check(!sqk_inode_open(img, argv[2], &ino), "open the file");
	v = 0;
	do
		i = sqk_inode_pread(img, ino, v, buf, sizeof(buf), &got);
	while (!i && got && (v += got));
	check(i == 0 && v == 20000, "read the file whole");
	sqk_inode_destroy(ino);

	n = sqk_counter_names();
	check(!strcmp(n[0], "entries"), "entries first");
	for (i = 0; n[i] && strcmp(n[i], "wakeups"); i++)
		;
	check(n[i] && i > 1 && !strcmp(n[i - 1], "wake_calls") && n[i + 1] &&
		      !strcmp(n[i + 1], "wakeups_capacity"),
	      "wakeups, the three kinds together, between wake_calls and its kinds");
	check(counter(img, "wakeups") == counter(img, "wakeups_capacity") +
						 counter(img, "wakeups_publish") +
						 counter(img, "wakeups_handoff"),
	      "wakeups is its three kinds");

	n = sqk_rate_names();
	check(n[0] && !strcmp(n[0], "unclaimed_free_ms") && n[1] &&
		      !strcmp(n[1], "decompressions_per_block") && n[2] &&
		      !strcmp(n[2], "wakeups_per_release") && !n[3],
	      "the three rates --stats prints, in its order");
	check(counter(img, "distinct_blocks") > 0 &&
		      rate(img, "decompressions_per_block") ==
			      (double)counter(img, "fills") /
				      (double)counter(img, "distinct_blocks"),
	      "decompressions per block: fills per distinct block");
	check(rate(img, "hit_ratio") == (double)(counter(img, "hits") + counter(img, "shares")) /
						(double)counter(img, "lookups"),
	      "the hit ratio: hits and shares per lookup");
	check(rate(img, "unclaimed_free_ms") >= 0, "unclaimed time");
	check(sqk_image_rate(img, SQK_CACHE_METADATA, "nonsense", &r) == SQK_ERR_ARG,
	      "an unknown rate is refused");
	check(sqk_image_rate(img, SQK_CACHE_COMPRESSED, "hit_ratio", &r) == SQK_ERR_NOENT,
	      "a cache the image has not");
	check(sqk_image_rate(img, (enum sqk_cache_kind)9, "hit_ratio", &r) == SQK_ERR_ARG,
	      "a cache kind that is none");
	sqk_image_destroy(img);
	return failed;
}
