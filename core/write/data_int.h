/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_DATA_INT_H
#define SQK_DATA_INT_H

/*
 * The parts of the block pipeline (data_writer.h), one idea a file:
 *   data_writer.c  the driver: files and pieces in, results placed in order
 *   data_ring.c    the items in flight, their buffers, the workers' side
 *   block_hash.c   what a block is: its hash, whether it is all zero
 *   data_out.c     buffered output that can be read back and rewound
 *   frag_pack.c    tails packed into fragment blocks, and read back
 *   dedup.c        whole files and tails found again
 *   data_results.c every file's result by its id, kept within the budget
 *   data_adopt.c   the data of an image appended to, for dedup and fragments
 *   data_reuse.c   blocks of earlier images (reuse.h) copied, once proven equal
 * Only the main thread touches the writer, except a slot's fields after it
 * is pushed (the worker that claims it) and lock/cond/waiting.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "data_writer.h"
#include "reuse.h"
#include "util/hash.h"
#include "util/pool.h"
#include "util/smap.h"
#include "util/spill.h"
#include "util/store.h"

enum { K_BLOCK, K_FRAG, K_END };

/* --reuse: files of earlier images a file may share blocks with, candidates of a block. */
#define REUSE_FILES 4
#define REUSE_CANDS 4

/* A stored block of an earlier image that may hold an item's bytes. */
struct reuse_cand {
	uint64_t pos;
	uint32_t word;
	uint16_t img;
};

/* What became of a candidate (the worker's), counted when the item is placed. */
enum { CAND_UNTRIED, CAND_COPIED, CAND_REJECTED, CAND_UNREADABLE };

/* One item in flight, in submission order. */
struct slot {
	struct sqk_data_writer *dw;
	int kind;
	int hole;
	uint8_t *in, *out;
	uint32_t len;
	/* Candidates from earlier images (data_reuse.c), tried in order before compressing. */
	struct reuse_cand cand[REUSE_CANDS];
	uint8_t ncand;
	/* Set by the worker. */
	uint8_t result[REUSE_CANDS]; /* CAND_* */
	uint8_t reused;		     /* out holds the stored bytes of candidate reused - 1 */
	uint8_t compressed;	     /* the compressor was run */
	uint32_t out_len;
	int raw, sparse, err;
	uint64_t hash;
	int done;    /* atomic: the result is ready */
	int claimed; /* atomic: a worker or the main thread has taken it */
	/* What the result belongs to. */
	struct sqk_file_data *fd;
	uint32_t block_no;
	uint32_t frag_index;
};

/*
 * A tail already packed: where its bytes are, and a short one's bytes too,
 * so that finding it again compares them without reading its block back.
 */
#define TAIL_INLINE 20
struct tail_ref {
	uint32_t len, idx, off;
	uint8_t bytes[TAIL_INLINE];
};

/* A file kept for dedup: its layout, to compare before its words are read back. */
struct file_ref {
	uint64_t id, blocks_start, size;
	uint32_t nblocks, frag_index, frag_offset, pad;
};

/* A result as the writer keeps it, by file id; its words in the words heap. */
struct result {
	uint64_t size, blocks_start, sparse, words;
	uint32_t nblocks, frag_index, frag_offset, pad;
};

#define OBUF_SIZE (1u << 20)
/* Shares of the build's budget (percent). */
#define RESULTS_SHARE 4
#define WORDS_SHARE   2
#define FRAGS_SHARE   1
#define FILES_SHARE   6
#define TAILS_SHARE   6
#define OLD_SHARE     2
/* Fragment blocks kept decompressed for tail dedup: at most this many, and 8 MiB. */
#define RB_SLOTS 32
#define RB_BYTES (8u << 20)

struct sqk_data_writer {
	struct sqk_data_opts o;
	uint32_t bs;
	struct sqk_pool *pool;
	struct sqk_compressor **comps, *main;
	struct sqk_file *out;

	/* Output: everything before obuf_start is in the file. */
	uint8_t *obuf;
	uint64_t obuf_start;
	uint32_t obuf_len;

	/*
	 * The ring of items in flight. Only blocks and fragment blocks need
	 * buffers; file ends do not, so the ring is long and the buffers few:
	 * many small files must not starve the workers.
	 */
	struct slot *ring;
	unsigned cap, head, count;
	uint8_t **free_bufs; /* pairs: in, out */
	unsigned nbufs, nfree;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct slot *waiting;

	/* The file the source is handing in. */
	struct sqk_file_data *cur;
	uint64_t cur_size;
	uint32_t cur_blocks; /* pieces that are blocks */
	uint32_t cur_tail;   /* tail length, 0 for none */
	uint32_t piece;
	uint8_t *tail_buf;

	/* Fragment packing. */
	uint8_t *frag_buf;
	uint32_t frag_len, frag_idx;
	struct sqk_store *frag_table; /* 16-byte entries */
	/*
	 * Fragments read back for tail dedup to compare, the most recently
	 * used kept: a tail found again is most often one of a few popular
	 * ones, whose blocks are read back and decompressed once, not each time.
	 */
	struct rb_slot {
		uint8_t *buf;
		uint32_t idx;
		uint64_t used;
	} rb[RB_SLOTS];
	unsigned nrb;
	uint64_t rb_clock;
	uint8_t *rb_tmp;

	/* Every file's result, by id, and their size words (data_results.c). */
	struct sqk_store *results, *words;
	uint64_t nfiles; /* ids given */
	uint32_t *cand_words;
	size_t cand_cap;

	/* Tail dedup: every packed tail (struct tail_ref), by the hash of its bytes. */
	struct sqk_smap tails;
	/* Whole-file dedup: files kept (struct file_ref), by content hash. */
	struct sqk_smap files;
	uint8_t *cmp_a, *cmp_b;
	/* Files of the image appended to (data_adopt.c), ids by size: no content hash is known. */
	struct sqk_smap old_files;

	/* --reuse (data_reuse.c): the earlier images, and a buffer per worker (and main). */
	struct sqk_reuse *reuse;
	uint8_t **reuse_buf;
	unsigned nthreads;
	uint64_t next_key; /* the path key of the next file begun */
	/* The current file's candidate files, and where their next block is. */
	struct sqk_reuse_file rfile[REUSE_FILES];
	uint64_t rpos[REUSE_FILES];
	unsigned nrfile;
	/* Fragment blocks of earlier images that held tails of the filling one, where it does. */
	struct {
		uint32_t idx;
		uint16_t img;
	} rfrag[REUSE_CANDS];
	unsigned nrfrag;

	struct sqk_data_stats st;
	struct sqk_spill own_spill; /* when the caller gave none */
	uint64_t last_frag_pos;	    /* where the latest fragment block went */
	uint32_t frags_placed;	    /* fragment blocks below this index are in the output */
	uint64_t progress;
	int err;
};

/* Hashing (block_hash.c): fast, and equality is always confirmed byte by byte. */
#define HM1 0x9e3779b185ebca87ull
#define HM2 0xc2b2ae3d27d4eb4full
#define HM3 0x165667b19e3779f9ull

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= HM2;
	h ^= h >> 29;
	h *= HM3;
	h ^= h >> 32;
	return h;
}

int sqk_dw_all_zero(const uint8_t *p, size_t len);
/* The hash of len zero bytes, without reading any. */
uint64_t sqk_dw_zero_hash(uint32_t len);

/* The ring (data_ring.c). */
int sqk_dw_ring_init(struct sqk_data_writer *dw, unsigned threads);
void sqk_dw_ring_free(struct sqk_data_writer *dw);
/* Make room for one more item (with buffers when heavy); *out is its slot. */
int sqk_dw_reserve(struct sqk_data_writer *dw, int heavy, struct slot **out);
/* The reserved slot is filled in: count it and hand it to the pool. */
int sqk_dw_push(struct sqk_data_writer *dw, struct slot *s);
/* Take the oldest item, wait for it and place it (sqk_dw_place). */
int sqk_dw_consume_one(struct sqk_data_writer *dw);
/* The driver's: put a finished item where it belongs (data_writer.c). */
int sqk_dw_place(struct sqk_data_writer *dw, struct slot *s, struct sqk_file_data *fd);

/* Output (data_out.c): a small write buffer; rewinding drops bytes after pos. */
static inline uint64_t sqk_dw_out_pos(const struct sqk_data_writer *dw)
{
	return dw->obuf_start + dw->obuf_len;
}

int sqk_dw_out_flush(struct sqk_data_writer *dw);
int sqk_dw_out_write(struct sqk_data_writer *dw, const uint8_t *p, uint32_t n);
void sqk_dw_out_rewind(struct sqk_data_writer *dw, uint64_t pos);
int sqk_dw_out_read(struct sqk_data_writer *dw, uint64_t off, uint8_t *buf, size_t n);

/* Fragments (frag_pack.c). */
int sqk_dw_frag_entry(struct sqk_data_writer *dw, uint32_t idx, uint64_t start, uint32_t word);
/* Send the filling fragment block to the pool. */
int sqk_dw_close_frag(struct sqk_data_writer *dw);
/* The uncompressed contents of fragment block idx, wherever it is now. */
int sqk_dw_frag_content(struct sqk_data_writer *dw, uint32_t idx, const uint8_t **data);
/* The current file's tail is in tail_buf (or a hole): share or pack it. */
int sqk_dw_tail(struct sqk_data_writer *dw, int hole);

/* Results (data_results.c). */
/* The file is done: its result kept by its id, its memory freed. */
int sqk_dw_result_put(struct sqk_data_writer *dw, struct sqk_file_data *fd);
int sqk_dw_result_get(struct sqk_data_writer *dw, uint64_t id, struct sqk_file_data *fd,
		      uint32_t **words, size_t *cap);
void sqk_dw_file_free(struct sqk_file_data *fd);

/* Dedup (dedup.c). */
/* A file's blocks are all placed: find an earlier copy or remember this one. */
int sqk_dw_file_done(struct sqk_data_writer *dw, struct sqk_file_data *fd);
/* A packed tail equal to tail_buf[0..len): *found, and the current file points at it. */
int sqk_dw_tail_find(struct sqk_data_writer *dw, uint64_t hash, uint32_t len, int *found);
/* Remember a tail packed at frag idx, offset off (the current file's, or an adopted one). */
int sqk_dw_tail_remember(struct sqk_data_writer *dw, const uint8_t *tail, uint64_t hash,
			 uint32_t len, uint32_t idx, uint32_t off);
/* An adopted file (data_adopt.c) whose stored blocks equal fd's: *found, fd points at it. */
int sqk_dw_old_find(struct sqk_data_writer *dw, struct sqk_file_data *fd, uint64_t stored,
		    int *found);

/* Reuse (data_reuse.c); the main thread's, but for sqk_dw_reuse_try. */
/* A file of size bytes begins: find its candidate files. */
void sqk_dw_reuse_file(struct sqk_data_writer *dw, uint64_t size);
/* Block i of the current file, its len set: its candidates, the cursors moved past it. */
void sqk_dw_reuse_block(struct sqk_data_writer *dw, struct slot *s, uint32_t i);
/* The current file's tail went to the filling fragment block at offset. */
void sqk_dw_reuse_tail(struct sqk_data_writer *dw, uint32_t offset, uint32_t len);
/* The filling fragment block is closed into s: its candidates. */
void sqk_dw_reuse_frag(struct sqk_data_writer *dw, struct slot *s);
/* A worker's: prove a candidate equal with buf (a block's room) and copy it; 1 if one was. */
int sqk_dw_reuse_try(struct sqk_data_writer *dw, struct slot *s, uint8_t *buf);
/* The item is placed: count what was compressed and what copied. */
void sqk_dw_reuse_placed(struct sqk_data_writer *dw, struct slot *s);
void sqk_dw_reuse_release(struct sqk_data_writer *dw);

#endif
