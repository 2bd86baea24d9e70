// SPDX-License-Identifier: BSD-2-Clause
/*
 * damage-run: run many cases of the corruption tests in one process.
 *
 *   damage-run [-j FSCK_THREADS] [-p PROBLEMS] IMAGE SEED FLIPS CASES FIRST STEP SCRATCH
 *
 * For the cases FIRST, FIRST + STEP, ... below CASES: damage a copy of
 * IMAGE in memory as corrupt SEED CASE FLIPS does (tests/tools/lib/damage.c),
 * check it as `squashkit fsck -q -j FSCK_THREADS` does and extract it as
 * `squashkit unimage -q -j 1 -d DIR` does, through the same library calls
 * and options, DIR being under SCRATCH and removed after each case. A
 * process start costs far more than a case of an 8 KB image: that is the
 * point.
 *
 * One line per case on stdout, flushed: "CASE FSCK UNIMAGE WHAT", FSCK and
 * UNIMAGE being the exit statuses the commands give (fsck: 0 clean, 4
 * problems, 8 operational error; unimage: 0, or 1 on an error or a
 * warning) and WHAT the damage ("flip 1234 bit 5", "truncate 1234"). Notes
 * start with '#': an fsck status other than 0 or 4, and fsck saying clean
 * where unimage fails, each with the message the command would print.
 * Where fsck says clean, the damaged bytes go to SCRATCH/clean-CASE.img.
 * With -p, fsck's problems are appended to PROBLEMS as "CASE<TAB>PATH:
 * CHECK: DETAIL", escaped as the command prints them.
 *
 * A case that runs longer than 20 s ends the process with status 124 and
 * "damage-run: case N hung in PHASE" on stderr; a crash says its case on
 * stderr and dies of its signal. The sanitizers report their own errors
 * (with their stacks), then abort.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsck/fsck.h"
#include "lib/damage.h"
#include "read/image.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"
#include "walk/extract.h"
#include "walk/walk.h"

#define CASE_SECONDS 20
#define MESSAGE_MAX  2 /* lines of unimage's messages kept, as the tests show them */

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static const char *const phases[] = {"damage", "fsck", "unimage", "output"};
enum { PH_DAMAGE, PH_FSCK, PH_UNIMAGE, PH_OUTPUT };

static volatile sig_atomic_t cur_case = -1, phase;

/* Text for a signal handler: only write(2). */
static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void say_case(const char *what)
{
	char num[24], *p = num + sizeof(num) - 1;
	unsigned long v = (unsigned long)cur_case;

	if (cur_case < 0) {
		/* At exit: a leak report, say. */
		say("damage-run: after the last case\n");
		return;
	}
	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	say("damage-run: case ");
	say(p);
	say(what);
	say(phases[phase]);
	say("\n");
}

static void on_alarm(int sig)
{
	(void)sig;
	say_case(" hung in ");
	_exit(124);
}

static void on_crash(int sig)
{
	say_case(" crashed in ");
	signal(sig, SIG_DFL);
	raise(sig);
}

static void watch(void)
{
	struct sigaction sa;
	static const int crashes[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	unsigned i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++) {
#ifdef SANITIZED
		/* AddressSanitizer's own handler shows where; it then aborts. */
		if (crashes[i] != SIGABRT)
			continue;
#endif
		sigaction(crashes[i], &sa, NULL);
	}
}

/* As the commands print paths and details (cmd/util.c). */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", out);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

static const char *error_text(int err)
{
	if ((err == SQK_ERR_IO || err == SQK_ERR_NOSPACE) && errno)
		return strerror(errno);
	return sqk_strerror(err);
}

struct fsck_result {
	FILE *problems; /* the case's problem lines, or NULL */
	long index;
	const char *message;
};

static void problem(void *ctx, const char *path, const char *check, const char *detail)
{
	struct fsck_result *r = ctx;

	if (!r->problems)
		return;
	fprintf(r->problems, "%ld\t", r->index);
	put_escaped(r->problems, path);
	/* As cmd/fsck.c prints it: a check named as its path is said once. */
	if (strcmp(check, path) != 0)
		fprintf(r->problems, ": %s", check);
	fputs(": ", r->problems);
	put_escaped(r->problems, detail);
	fputc('\n', r->problems);
}

/* cmd/fsck.c without its printing: the exit status. */
static int run_fsck(const uint8_t *buf, size_t len, unsigned threads, struct fsck_result *r)
{
	struct sqk_fsck_opts o = {0};
	struct sqk_fsck_counts c;
	struct sqk_fsck *f = NULL;
	struct sqk_file *file = sqk_file_mem(buf, len);
	int err;

	if (!file) {
		r->message = sqk_strerror(SQK_ERR_NOMEM);
		return 8;
	}
	o.threads = threads;
	o.report = problem;
	o.ctx = r;
	errno = 0;
	err = sqk_fsck_create(file, &o, &f);
	if (!err)
		err = sqk_fsck_run(f);
	if (err) {
		r->message = error_text(err);
		sqk_fsck_destroy(f);
		return 8;
	}
	sqk_fsck_counts(f, &c);
	sqk_fsck_destroy(f);
	return c.errors ? 4 : 0;
}

struct unimage_result {
	pthread_mutex_t lock;
	char *lines[MESSAGE_MAX];
	unsigned n;
};

static void keep_line(struct unimage_result *u, const char *where, int slash, const char *text)
{
	char *s = NULL;
	size_t len;
	FILE *m;

	pthread_mutex_lock(&u->lock);
	if (u->n < MESSAGE_MAX && (m = open_memstream(&s, &len)) != NULL) {
		if (where && *where) {
			fputs(slash ? "/" : "", m);
			put_escaped(m, where);
			fputs(": ", m);
		}
		fputs(text, m);
		if (fclose(m) == 0)
			u->lines[u->n++] = s;
		else
			free(s);
	}
	pthread_mutex_unlock(&u->lock);
}

static void warn_entry(void *ctx, const char *path, const char *what)
{
	keep_line(ctx, path, 1, what);
}

/* cmd/unimage.c's to_directory() with -q -j 1 and its default options. */
static int run_unimage(const uint8_t *buf, size_t len, const char *dest, struct unimage_result *u)
{
	struct sqk_extract_conf xo = {0, 0, 0, warn_entry, u, NULL, 0};
	struct sqk_image_opts io;
	struct sqk_extract *x = NULL;
	struct sqk_image *img;
	struct sqk_pool *pool;
	struct sqk_file *file;
	struct sqk_walk w;
	unsigned warnings = 0;
	int fd, err, werr;

	sqk_image_opts_default(&io);
	io.meta_entries = 16;
	io.frag_entries = 1 + 3;
	io.data_entries = 1 + 1;
	io.decompressors = 1 + 1;
	file = sqk_file_mem(buf, len);
	errno = 0;
	err = file ? sqk_image_open(file, &io, &img) : SQK_ERR_NOMEM;
	if (err) {
		keep_line(u, NULL, 0, error_text(err));
		return 1;
	}
	if (mkdir(dest, 0755) != 0 ||
	    (fd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		keep_line(u, dest, 0, strerror(errno));
		sqk_image_destroy(img);
		return 1;
	}
	memset(&w, 0, sizeof(w));
	w.img = img;
	pool = sqk_pool_create(1, 0);
	err = pool ? sqk_extract_create(img, pool, fd, &xo, &x) : SQK_ERR_NOMEM;
	if (!err) {
		w.sink = sqk_extract_sink(x);
		werr = sqk_walk(&w);
		err = sqk_extract_finish(x, &warnings);
		if (werr) {
			keep_line(u, w.fault.path, 0, error_text(werr));
			err = werr;
		} else if (err) {
			keep_line(u, w.sink->fault.path, 0, error_text(err));
		}
	} else {
		keep_line(u, NULL, 0, error_text(err));
	}
	sqk_extract_destroy(x);
	sqk_pool_destroy(pool);
	close(fd);
	sqk_image_destroy(img);
	return err || warnings ? 1 : 0;
}

static int save(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

struct run {
	const char *scratch;
	uint8_t *image, *buf;
	size_t size;
	unsigned long long seed, flips;
	unsigned threads;
	FILE *problems;
};

static int run_case(struct run *r, long index)
{
	struct fsck_result fr = {NULL, index, NULL};
	struct unimage_result ur = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};
	char what[64], path[4096], *plines = NULL;
	size_t len, plen = 0;
	int f, u, ret = 0;
	unsigned i;

	cur_case = index;
	phase = PH_DAMAGE;
	alarm(CASE_SECONDS);
	memcpy(r->buf, r->image, r->size);
	len = damage_apply(r->buf, r->size, r->seed, (uint64_t)index, r->flips, what, sizeof(what));

	phase = PH_FSCK;
	if (r->problems && !(fr.problems = open_memstream(&plines, &plen)))
		return -1;
	f = run_fsck(r->buf, len, r->threads, &fr);
	if (fr.problems && fclose(fr.problems) != 0)
		return -1;

	phase = PH_UNIMAGE;
	snprintf(path, sizeof(path), "%s/x-%ld", r->scratch, index);
	u = run_unimage(r->buf, len, path, &ur);
	sqk_remove_tree(AT_FDCWD, path);

	phase = PH_OUTPUT;
	if (f == 0) {
		snprintf(path, sizeof(path), "%s/clean-%ld.img", r->scratch, index);
		if (save(path, r->buf, len) != 0) {
			fprintf(stderr, "damage-run: %s: %s\n", path, strerror(errno));
			ret = -1;
		}
	}
	if (plines && fwrite(plines, 1, plen, r->problems) != plen)
		ret = -1;
	free(plines);
	printf("%ld %d %d %s\n", index, f, u, what);
	if (f != 0 && f != 4)
		printf("#   case %ld (%s): fsck exit %d (not 0 or 4)\n#     fsck: %s\n", index,
		       what, f, fr.message ? fr.message : "?");
	if (f == 0 && u != 0) {
		printf("#   case %ld (%s): fsck says clean, unimage fails:\n", index, what);
		for (i = 0; i < ur.n; i++)
			printf("#     unimage: %s\n", ur.lines[i]);
	}
	for (i = 0; i < ur.n; i++)
		free(ur.lines[i]);
	if (fflush(stdout) != 0 || (r->problems && fflush(r->problems) != 0))
		ret = -1;
	alarm(0);
	return ret;
}

static void usage(void)
{
	fputs("usage: damage-run [-j FSCK_THREADS] [-p PROBLEMS] IMAGE SEED FLIPS CASES "
	      "FIRST STEP SCRATCH\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct run r = {0};
	long cases, index, step;
	int opt, ret = 0;

	r.threads = 1;
	while ((opt = getopt(argc, argv, "j:p:")) != -1) {
		if (opt == 'j') {
			r.threads = (unsigned)strtoul(optarg, NULL, 10);
		} else if (opt == 'p') {
			r.problems = fopen(optarg, "a");
			if (!r.problems) {
				fprintf(stderr, "damage-run: %s: %s\n", optarg, strerror(errno));
				return 1;
			}
		} else {
			usage();
		}
	}
	if (argc - optind != 7)
		usage();
	r.seed = strtoull(argv[optind + 1], NULL, 10);
	r.flips = strtoull(argv[optind + 2], NULL, 10);
	cases = strtol(argv[optind + 3], NULL, 10);
	index = strtol(argv[optind + 4], NULL, 10);
	step = strtol(argv[optind + 5], NULL, 10);
	r.scratch = argv[optind + 6];
	if (step < 1)
		usage();
	r.image = damage_load(argv[optind], &r.size);
	r.buf = r.image ? malloc(r.size) : NULL;
	if (!r.buf) {
		fprintf(stderr, "damage-run: %s: cannot read an image\n", argv[optind]);
		free(r.image);
		return 1;
	}
	watch();
	for (; index < cases && !ret; index += step)
		if (run_case(&r, index) != 0) {
			fprintf(stderr, "damage-run: case %ld: cannot write the results\n", index);
			ret = 1;
		}
	cur_case = -1;
	free(r.image);
	free(r.buf);
	if (r.problems && fclose(r.problems) != 0)
		ret = 1;
	return ret;
}
