// SPDX-License-Identifier: BSD-2-Clause
/*
 * gentar: a tar stream of N entries shaped like a software tree, written to
 * stdout, with no file on disk; the same arguments give the same bytes.
 *
 *   gentar [-s SEED] [-m MEDIAN] [-o ORDER] [-f] N
 *
 * Packages at the top, each a tree of directories a few levels deep; most
 * directories hold a dozen entries, a few hold thousands. Names are words
 * with the extensions of sources, headers, scripts, documents and binaries.
 * File sizes are log-normal around MEDIAN bytes (default 1024), capped at
 * 4 MiB; contents are slices of a text pool (compressible like source) or
 * of a random pool (binaries), a few files are copies of common ones
 * (licences, makefiles) and a few are hard links and symlinks.
 *
 * ORDER is how each directory's entries follow it: "readdir" (default:
 * a hashed order, as tar of a real file system gives), "sorted" (by raw
 * bytes), or "reverse". Directories always come before what they hold.
 * Paths too long for ustar get a pax header.
 *
 * -f: flat instead, N files of a few lines each in one directory, big/
 * (named f00000000 on), for the readers' largest listing.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POOL	 (4u << 20)
#define MAX_SIZE (4u << 20)
#define MAX_PATH 1024
#define MAX_KIDS 6000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t left; /* entries still to write */
static double median = 1024;
static int order; /* 0 readdir, 1 sorted, 2 reverse */
static uint8_t *text_pool, *rand_pool;
static uint8_t obuf[1 << 20];
static size_t olen;
static char last_file[MAX_PATH]; /* a hard link's target */

static void die(const char *msg)
{
	fprintf(stderr, "gentar: %s\n", msg);
	exit(1);
}

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)((rnd() >> 11) % n) : 0;
}

static double unit(void)
{
	return ((rnd() >> 11) + 0.5) / 9007199254740992.0;
}

static void flush_out(void)
{
	size_t off = 0;

	while (off < olen) {
		ssize_t n = write(STDOUT_FILENO, obuf + off, olen - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(errno == EPIPE ? 0 : 1);
		off += (size_t)n;
	}
	olen = 0;
}

static void out(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		size_t k = sizeof(obuf) - olen < n ? sizeof(obuf) - olen : n;

		memcpy(obuf + olen, b, k);
		olen += k;
		b += k;
		n -= k;
		if (olen == sizeof(obuf))
			flush_out();
	}
}

static void pad(uint64_t n)
{
	static const uint8_t zero[512];

	if (n % 512)
		out(zero, 512 - n % 512);
}

/* v in width - 1 octal digits and a NUL (every value here fits its field). */
static void octal(char *field, size_t width, uint64_t v)
{
	size_t i = width - 1;

	field[i] = '\0';
	while (i-- > 0) {
		field[i] = (char)('0' + (v & 7));
		v >>= 3;
	}
}

/* One header block; a path ustar cannot hold goes first in a pax header. */
static void header(const char *path, char type, uint32_t mode, uint64_t size, uint32_t mtime,
		   const char *link)
{
	char h[512] = {0};
	size_t len = strlen(path), split = 0, i;
	unsigned sum = 0;

	if (len > 100) {
		for (i = len - 1; i > 0; i--)
			if (path[i] == '/' && len - i - 1 <= 100 && i <= 155)
				break;
		split = i;
	}
	if (len > 100 && !split) {
		char rec[MAX_PATH + 32];
		int n = (int)strlen(" path=\n") + (int)len, d = 1, k;

		for (k = n + 1; k >= 10; k /= 10)
			d++;
		k = snprintf(rec, sizeof(rec), "%d path=%s\n", n + d, path);
		header("PaxHeader", 'x', 0644, (uint64_t)k, mtime, NULL);
		out(rec, (size_t)k);
		pad((uint64_t)k);
		path = "long";
		len = 4;
	}
	if (split) {
		memcpy(h + 345, path, split);
		memcpy(h, path + split + 1, len - split - 1);
	} else {
		memcpy(h, path, len);
	}
	octal(h + 100, 8, mode);
	octal(h + 108, 8, 1000 + below(3));
	octal(h + 116, 8, 1000);
	octal(h + 124, 12, size);
	octal(h + 136, 12, mtime);
	h[156] = type;
	if (link)
		strncpy(h + 157, link, 100);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "dev", 3);
	memcpy(h + 297, "dev", 3);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += (uint8_t)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	out(h, 512);
}

static const char *const words[] = {
	"core",	  "util",   "net",    "io",	 "test",   "parser", "config", "api",	 "buffer",
	"cache",  "client", "server", "crypto",	 "hash",   "map",    "list",   "tree",	 "queue",
	"thread", "pool",   "log",    "error",	 "format", "string", "file",   "path",	 "time",
	"event",  "signal", "socket", "stream",	 "codec",  "image",  "font",   "render", "shader",
	"audio",  "video",  "plugin", "module",	 "loader", "main",   "common", "base",	 "types",
	"init",	  "setup",  "build",  "install", "data",   "model",  "view",   "widget", "input",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static const char *const exts[] = {".c",    ".h",    ".py",  ".js",  ".txt", ".md",
				   ".json", ".html", ".cpp", ".hpp", ".rs",  ".go",
				   ".so",   ".png",  ".o",   ".sh",  ".xml", ""};
#define NEXTS (sizeof(exts) / sizeof(exts[0]))

static const char *const dirnames[] = {"src",	"include", "lib",    "doc",	 "tests", "share",
				       "tools", "scripts", "bin",    "examples", "data",  "man",
				       "po",	"cmake",   "vendor", "internal"};
#define NDIRNAMES (sizeof(dirnames) / sizeof(dirnames[0]))

struct kid {
	char name[64];
	int dir;
	uint32_t key;
};

static int kid_cmp(const void *x, const void *y)
{
	const struct kid *a = x, *b = y;

	if (order == 0)
		return a->key < b->key ? -1 : a->key > b->key;
	return order == 1 ? strcmp(a->name, b->name) : strcmp(b->name, a->name);
}

static int taken(const struct kid *k, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(k[i].name, name) == 0)
			return 1;
	return 0;
}

static uint64_t file_size(void)
{
	/* Box-Muller: log-normal around the median, sigma 1.5. */
	double z = sqrt(-2.0 * log(unit())) * cos(6.283185307179586 * unit());
	double s = median * exp(1.5 * z);

	if (s < 0.5)
		return 0;
	return s > MAX_SIZE ? MAX_SIZE : (uint64_t)s;
}

static void file(const char *path, const char *name)
{
	uint32_t r = below(1000), mtime = 1600000000u + below(100000000);
	const char *dot = strrchr(name, '.');
	int binary = dot && (!strcmp(dot, ".so") || !strcmp(dot, ".png") || !strcmp(dot, ".o"));
	uint64_t size, off;
	const uint8_t *pool = binary ? rand_pool : text_pool;

	if (r < 20) {
		char t[80];

		snprintf(t, sizeof(t), "%s.%u", name, below(9) + 1);
		header(path, '2', 0777, 0, mtime, t);
		return;
	}
	if (r < 25 && last_file[0]) {
		header(path, '1', 0644, 0, mtime, last_file);
		return;
	}
	if (r < 45) {
		/* A common file: one of a few contents, found again by dedup. */
		uint32_t which = below(8);

		size = 700 + which * 1531;
		off = which * 65536;
		pool = text_pool;
	} else {
		size = file_size();
		off = below(POOL - MAX_SIZE / 4);
		if (size > POOL - off)
			size = POOL - off;
	}
	header(path, '0', binary || r % 7 == 0 ? 0755 : 0644, size, mtime, NULL);
	out(pool + off, (size_t)size);
	pad(size);
	if (strlen(path) < 100)
		strcpy(last_file, path);
}

/* A directory of about want entries below it, at depth. */
static void directory(char *path, size_t plen, uint64_t want, int depth)
{
	struct kid *kids;
	size_t nk = 0, i, nfiles, ndirs = 0;
	uint64_t share;

	header(path, '5', 0755, 0, 1600000000u + below(100000000), NULL);
	left--;
	if (!left)
		return;
	if (want > left)
		want = left;
	/* Most directories hold a dozen files; one in fifty holds hundreds or thousands. */
	nfiles = 2 + below(20);
	if (below(50) == 0)
		nfiles = 200 + below(MAX_KIDS - 400);
	if (nfiles > want)
		nfiles = (size_t)want;
	if (depth < 8 && want > nfiles + 1)
		ndirs = 1 + below(depth < 2 ? 12 : 6);
	kids = calloc(nfiles + ndirs, sizeof(*kids));
	if (!kids)
		die("out of memory");
	for (i = 0; i < nfiles + ndirs; i++) {
		struct kid *k = &kids[nk];
		int dir = i >= nfiles, tries = 0;

		do {
			if (dir && tries == 0)
				snprintf(k->name, sizeof(k->name), "%s",
					 dirnames[below(NDIRNAMES)]);
			else if (dir)
				snprintf(k->name, sizeof(k->name), "%s_%s", words[below(NWORDS)],
					 dirnames[below(NDIRNAMES)]);
			else if (tries < 2)
				snprintf(k->name, sizeof(k->name), "%s_%s%s", words[below(NWORDS)],
					 words[below(NWORDS)], exts[below(NEXTS)]);
			else
				snprintf(k->name, sizeof(k->name), "%s%zu_%u%s",
					 words[below(NWORDS)], i, below(1000), exts[below(NEXTS)]);
			tries++;
		} while (taken(kids, nk, k->name));
		k->dir = dir;
		k->key = (uint32_t)rnd();
		nk++;
	}
	qsort(kids, nk, sizeof(*kids), kid_cmp);
	share = ndirs ? (want - nfiles) / ndirs : 0;
	for (i = 0; i < nk && left; i++) {
		size_t n = strlen(kids[i].name);

		if (plen + 1 + n >= MAX_PATH)
			continue;
		path[plen] = '/';
		memcpy(path + plen + 1, kids[i].name, n + 1);
		if (kids[i].dir) {
			directory(path, plen + 1 + n, share ? share : 1, depth + 1);
		} else {
			file(path, kids[i].name);
			left--;
		}
		path[plen] = '\0';
	}
	free(kids);
}

static void make_pools(void)
{
	size_t i = 0;

	text_pool = malloc(POOL);
	rand_pool = malloc(POOL);
	if (!text_pool || !rand_pool)
		die("out of memory");
	for (i = 0; i < POOL; i += 8) {
		uint64_t v = rnd();

		memcpy(rand_pool + i, &v, 8);
	}
	i = 0;
	while (i < POOL) {
		const char *w = words[below(NWORDS)];
		size_t n = strlen(w);

		if (i + n + 1 > POOL)
			break;
		memcpy(text_pool + i, w, n);
		i += n;
		text_pool[i++] = below(8) ? (below(3) ? ' ' : '_') : '\n';
	}
	memset(text_pool + i, '\n', POOL - i);
}

int main(int argc, char **argv)
{
	char path[MAX_PATH];
	unsigned pkg = 0;
	int c, flat = 0;

	while ((c = getopt(argc, argv, "s:m:o:f")) != -1) {
		switch (c) {
		case 's':
			rng_state ^= strtoull(optarg, NULL, 0) * 0x100000001b3ull;
			if (!rng_state)
				rng_state = 1;
			break;
		case 'm':
			median = strtod(optarg, NULL);
			break;
		case 'o':
			order = !strcmp(optarg, "sorted") ? 1 : !strcmp(optarg, "reverse") ? 2 : 0;
			if (order == 0 && strcmp(optarg, "readdir"))
				die("ORDER is readdir, sorted or reverse");
			break;
		case 'f':
			flat = 1;
			break;
		default:
			die("usage: gentar [-s SEED] [-m MEDIAN] [-o ORDER] [-f] N");
		}
	}
	if (optind != argc - 1)
		die("usage: gentar [-s SEED] [-m MEDIAN] [-o ORDER] [-f] N");
	left = strtoull(argv[optind], NULL, 0);
	make_pools();
	if (flat) {
		uint64_t i;

		header("big", '5', 0755, 0, 1700000000u, NULL);
		for (i = 0; i < left; i++) {
			char text[64];
			int n = snprintf(text, sizeof(text), "file %llu\nof the flat directory\n",
					 (unsigned long long)i);

			snprintf(path, sizeof(path), "big/f%08llu", (unsigned long long)i);
			header(path, '0', 0644, (uint64_t)n, 1700000000u, NULL);
			out(text, (size_t)n);
			pad((uint64_t)n);
		}
		left = 0;
	}
	while (left) {
		/* A package: a few dozen to tens of thousands of entries. */
		uint64_t want = 20 + (uint64_t)(exp(unit() * 7.0) * 4);

		snprintf(path, sizeof(path), "%s-%u", words[below(NWORDS)], pkg++);
		directory(path, strlen(path), want, 0);
	}
	{
		static const uint8_t end[1024];

		out(end, sizeof(end));
	}
	flush_out();
	return 0;
}
