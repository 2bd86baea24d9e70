// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-build-steps IMAGE [ARG...]: build IMAGE through the public API, saying
 * at each call what a front end that words its own messages learns. An ARG
 * is NAME or NAME=VALUE for sqk_build_opts_set, pseudo=DEF or
 * pseudo-file=PATH for sqk_build_opts_add_pseudo(_file), "check" for
 * sqk_build_opts_check (and stop there); after them, dir=PATH adds a directory. Prints one
 * line a stage:
 *   "opts CODE MESSAGE" (a refused option, then exit 1), "check CODE MESSAGE",
 *   "create CODE STEP ERRNO MESSAGE" and "failure CODE PATH: WORDS" (the
 *   driver's, in parts), "written N" (right after create),
 *   "source CODE STEP", "finish CODE STEP PATH: WORDS",
 *   "polled N" (the most sqk_build_written gave from another thread while
 *   the build ran), "progress N" (the most it gave in the progress callback).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

struct poll {
	struct sqk_build *b;
	uint64_t most, in_progress;
	int stop;
};

static void *poller(void *arg)
{
	struct poll *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		uint64_t n = sqk_build_written(p->b);

		if (n > p->most)
			p->most = n;
		usleep(1000);
	}
	return NULL;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct poll *p = ctx;
	uint64_t n = p->b ? sqk_build_written(p->b) : 0;

	if (n > p->in_progress)
		p->in_progress = n;
}

static int opt(struct sqk_build_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');
	int err;

	if (!strcmp(arg, "check")) {
		err = sqk_build_opts_check(o);
		printf("check %d %s\n", err, sqk_error_message());
		return 1;
	}
	if (eq)
		*eq++ = '\0';
	if (!strcmp(arg, "pseudo"))
		err = sqk_build_opts_add_pseudo(o, eq);
	else if (!strcmp(arg, "pseudo-file"))
		err = sqk_build_opts_add_pseudo_file(o, eq);
	else
		err = sqk_build_opts_set(o, arg, eq);
	if (err)
		printf("opts %d %s\n", err, sqk_error_message());
	return err;
}

int main(int argc, char **argv)
{
	struct sqk_build_opts *o = sqk_build_opts_create();
	struct poll p = {0};
	const char *path, *words;
	pthread_t t;
	int i = 2, err = 0;

	if (argc < 2 || !o)
		return fprintf(stderr, "usage: api-build-steps IMAGE [ARG...]\n"), 2;
	for (; i < argc && strncmp(argv[i], "dir=", 4) != 0; i++)
		if ((err = opt(o, argv[i])) != 0) {
			sqk_build_opts_destroy(o);
			return err == 1 ? 0 : 1; /* after "check", nothing more */
		}
	sqk_build_opts_progress(o, progress, &p);
	err = sqk_build_create(argv[1], o, &p.b);
	if (!strcmp(sqk_build_failed_step(NULL), "") != !err)
		printf("the step of create disagrees with its code\n");
	/* Definitions belong to the builds made so far: none may be added now. */
	if (!err && !sqk_build_opts_add_pseudo(o, "late d 0755 0 0"))
		printf("a definition added after create was taken\n");
	sqk_build_opts_destroy(o); /* the build keeps what it needs */
	if (err) {
		printf("create %d %s %d %s\n", err, sqk_build_failed_step(NULL), sqk_error_errno(),
		       sqk_error_message());
		err = sqk_build_failure(NULL, &path, &words, NULL, NULL);
		printf("failure %d %s: %s\n", err, path, words);
		return 1;
	}
	printf("written %llu\n", (unsigned long long)sqk_build_written(p.b));
	pthread_create(&t, NULL, poller, &p);
	for (; !err && i < argc; i++) {
		err = sqk_build_add_dir(p.b, argv[i] + 4);
		if (err)
			printf("source %d %s\n", err, sqk_build_failed_step(p.b));
	}
	if (!err) {
		err = sqk_build_finish(p.b);
		sqk_build_failure(p.b, &path, &words, NULL, NULL);
		printf("finish %d %s %s: %s\n", err,
		       *sqk_build_failed_step(p.b) ? sqk_build_failed_step(p.b) : "-", path, words);
	}
	__atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("polled %llu\nprogress %llu\n", (unsigned long long)p.most,
	       (unsigned long long)p.in_progress);
	sqk_build_destroy(p.b);
	return err ? 1 : 0;
}
