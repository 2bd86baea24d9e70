// SPDX-License-Identifier: BSD-2-Clause
/*
 * api-threads IMAGE HOSTDIR: 16 threads read random ranges of the image's
 * files through the public API, all through one open inode per file and
 * the image's shared caches, while another thread walks the whole tree
 * again and again; every range must hold the bytes of the same file in
 * HOSTDIR (the tree the image was built from), and every walk must see
 * the same entries. Run under ThreadSanitizer as well. Exits 1 after
 * saying what went wrong.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <squashkit/squashkit.h>

#define READERS 16
#define READS	400
#define WALKS	4

struct file {
	struct sqk_inode *ino;
	uint64_t size;
	char *host; /* the same file in HOSTDIR */
};

static struct sqk_image *img;
static const char *hostdir;
static struct file *files;
static size_t nfiles, cap;
static uint32_t block_size;
/* Files of more than a block, where the data cache is busy: half the reads. */
static size_t *big, nbig;
static int failed;

static int collect(void *ctx, const char *path, const struct sqk_stat *st, const char *link_to)
{
	char host[PATH_MAX];
	struct file *f;

	(*(uint64_t *)ctx)++;
	if (!S_ISREG(st->mode) || !st->size || link_to)
		return 0;
	if (nfiles == cap) {
		cap = cap ? 2 * cap : 256;
		files = realloc(files, cap * sizeof(*files));
		if (!files)
			return SQK_ERR_NOMEM;
	}
	f = &files[nfiles];
	snprintf(host, sizeof(host), "%s%s", hostdir, path);
	f->host = strdup(host);
	if (!f->host)
		return SQK_ERR_NOMEM;
	if (sqk_inode_open_ref(img, st->ref, &f->ino))
		return SQK_ERR_IO;
	f->size = st->size;
	nfiles++;
	return 0;
}

static int count(void *ctx, const char *path, const struct sqk_stat *st, const char *link_to)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static uint64_t entries;

static void *walker(void *arg)
{
	int i;

	for (i = 0; i < WALKS; i++) {
		uint64_t n = 0;

		if (sqk_walk_tree(img, "", count, &n) || n != entries) {
			fprintf(stderr, "api-threads: walk %d saw %llu entries of %llu: %s\n", i,
				(unsigned long long)n, (unsigned long long)entries,
				sqk_error_message());
			__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	size_t cap = 3 * (size_t)block_size + 7;
	char *a = malloc(cap), *b = malloc(cap);
	int i;

	for (i = 0; a && b && i < READS; i++) {
		int pick_big = nbig && rand_r(&seed) % 2;
		struct file *f =
			&files[pick_big ? big[rand_r(&seed) % nbig] : rand_r(&seed) % nfiles];
		uint64_t off = ((uint64_t)rand_r(&seed) << 16 ^ (uint64_t)rand_r(&seed)) % f->size;
		size_t len = (size_t)rand_r(&seed) % cap + 1, got = 0;
		int fd = open(f->host, O_RDONLY);
		ssize_t want = fd < 0 ? -1 : pread(fd, b, len, (off_t)off);

		if (fd >= 0)
			close(fd);
		if (sqk_inode_pread(img, f->ino, off, a, len, &got) || want < 0 ||
		    got != (size_t)want || memcmp(a, b, got)) {
			fprintf(stderr, "api-threads: %zu bytes at %llu differ (got %zu): %s\n",
				len, (unsigned long long)off, got, sqk_error_message());
			__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	free(a);
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[READERS + 1];
	struct sqk_image_info info;
	uint64_t v;
	size_t i;

	if (argc != 3)
		return 2;
	hostdir = argv[2];
	if (sqk_image_open_path(argv[1], NULL, &img) || sqk_image_info(img, &info) ||
	    sqk_walk_tree(img, "/", collect, &entries) || !nfiles) {
		fprintf(stderr, "api-threads: %s: %s\n", argv[1], sqk_error_message());
		return 1;
	}
	block_size = info.block_size;
	big = calloc(nfiles, sizeof(*big));
	for (i = 0; big && i < nfiles; i++)
		if (files[i].size > block_size)
			big[nbig++] = i;
	if (pthread_create(&t[READERS], NULL, walker, NULL))
		return 1;
	for (i = 0; i < READERS; i++)
		if (pthread_create(&t[i], NULL, reader, (void *)(uintptr_t)(i + 1)))
			return 1;
	for (i = 0; i <= READERS; i++)
		pthread_join(t[i], NULL);
	if (sqk_image_counter(img, SQK_CACHE_DATA, "lookups", &v) || !v) {
		fprintf(stderr, "api-threads: no data block was looked up\n");
		failed = 1;
	}
	free(big);
	printf("%zu files (%zu of more than a block), %llu entries, %d threads of %d reads, %d "
	       "walks\n",
	       nfiles, nbig, (unsigned long long)entries, READERS, READS, WALKS);
	for (i = 0; i < nfiles; i++) {
		sqk_inode_destroy(files[i].ino);
		free(files[i].host);
	}
	free(files);
	sqk_image_destroy(img);
	return failed;
}
