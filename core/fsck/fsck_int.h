/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FSCK_INT_H
#define SQK_FSCK_INT_H

/*
 * What the fsck files share. The run goes in passes:
 *   fsck_super.c   the superblock, the table layout and the lookup lists,
 *                  then opens the image
 *   fsck_tables.c  the metadata blocks of the lookup tables, the fragment,
 *                  export and xattr tables
 *   fsck_inode.c   the inode table, read once from start to end
 *   fsck_data.c    data and fragment blocks, on the worker pool
 *   fsck_dir.c     every listing, in the order of the directory table
 *   fsck.c         the tree (reachability, loops, link counts), the
 *                  problems and their paths
 *   fsck_recs.c    the records of every inode and directory, in stores
 *   fsck_fmt.c     the format codec's broken rules, recorded as problems
 *   fsck_verity.c  the files, fragments and tables holding bytes a dm-verity
 *                  check found bad
 * Metadata tables are read with fsck_meta.c's stream, which decompresses
 * each block exactly once and checks its size on the way.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>

#include "format/fmt_check.h"
#include "format/fmt_dir.h"
#include "format/format.h"
#include "fsck.h"
#include "read/meta.h"
#include "util/u64set.h"

#define FSCK_NONE   UINT32_MAX
#define FSCK_NO_REF UINT64_MAX

enum fsck_check {
	C_SUPER,
	C_COMP,
	C_META,
	C_INODE,
	C_NUMBER,
	C_ORPHAN,
	C_NLINK,
	C_DIR_HEADER,
	C_DIR_NAME,
	C_DIR_ORDER,
	C_DIR_ENTRY,
	C_DIR_TYPE,
	C_DIR_SIZE,
	C_DIR_PARENT,
	C_DIR_LOOP,
	C_DIR_INDEX,
	C_DATA,
	C_FRAGMENT,
	C_SPARSE,
	C_ID,
	C_XATTR,
	C_EXPORT,
	C_KERNEL, /* a block only the readers' decoder reads (compressor.h) */
	C_VERITY, /* bytes that do not match the image's dm-verity tree */
	C_COUNT
};

/* The detail of every C_KERNEL problem, after where the block is. */
#define FSCK_REFUSED                                                                               \
	"the kernel's decoder refuses this block (reading it there fails with EIO); its data "     \
	"is intact (its checksum matches) and unimage recovers it"

/* Table names, used as the path of table-level problems. */
#define T_SUPER	 "superblock"
#define T_COMP	 "compressor options"
#define T_INODE	 "inode table"
#define T_DIR	 "directory table"
#define T_FRAG	 "fragment table"
#define T_EXPORT "export table"
#define T_ID	 "id table"
#define T_XATTR	 "xattr table"

/* A byte stream over metadata: the sequential stream or a cache cursor. */
struct fsck_rd {
	/* 0, SQK_ERR_TRUNCATED at the table's end, or another negative code. */
	int (*read)(struct fsck_rd *r, void *buf, size_t len);
	/* Where the next byte comes from, as a reference relative to the table. */
	uint64_t (*tell)(struct fsck_rd *r);
};

/*
 * The sequential stream: reads a chained table (inodes, directories, xattr
 * key/values) block by block from start to end, decompressing each block
 * once and checking that every block but the last is full.
 */
struct fsck_ms {
	struct fsck_rd rd;
	struct sqk_fsck *f;
	const char *table;
	uint64_t start, end; /* absolute; the chain must end exactly at end */
	uint64_t pos;	     /* the current block (absolute) */
	uint64_t next;	     /* the block after it */
	uint32_t len, off;   /* decompressed bytes of the current block; read offset */
	int loaded;	     /* buf holds the block at pos */
	int failed;	     /* a block was bad: nothing further can be read */
	uint8_t buf[SQK_META_SIZE];
	/* Block starts seen, relative to start (sorted: the stream only moves on). */
	uint64_t *starts;
	size_t nstarts, cap;
};

/* Random access through the metadata cache, for whatever is out of order. */
struct fsck_cur {
	struct fsck_rd rd;
	struct sqk_meta_cursor m;
	int open;
};

/* One inode found in the inode table (or, after a damaged stretch, by reference). */
struct fsck_rec {
	uint64_t ref;	/* where it is */
	uint64_t entry; /* first directory entry naming it: directory table reference */
	uint32_t number;
	uint32_t nlink;
	uint32_t links; /* directory entries naming it */
	uint32_t up;	/* record of the directory holding that first entry */
	uint32_t dir;	/* its directory record, or FSCK_NONE */
	uint8_t type;	/* on-disk type 1..14 */
	uint8_t state;	/* reachability, see fsck.c */
};

struct fsck_dir {
	uint32_t rec;
	uint32_t block; /* listing start, relative to the directory table */
	uint32_t offset;
	uint32_t size;	 /* as stored: listing bytes + 3; 0 when the listing cannot be read */
	uint32_t parent; /* as stored */
	uint32_t entries, subdirs;
	uint32_t tree_parent; /* record of the directory listing it, or FSCK_NONE */
	uint32_t nindex;      /* index entries, read whole with the inode */
	uint32_t listed;
	uint64_t index_at; /* where the index starts: inode table reference */
};

/* A lookup-indexed table: the list of its metadata blocks, read before open. */
struct fsck_table {
	const char *name;
	uint64_t list;	  /* position of the lookup list; SQK_INVALID_TABLE when absent */
	uint64_t entries; /* entries the superblock (or the xattr header) announces */
	uint32_t entry_size;
	uint32_t nblocks;
	uint64_t *pos;
	uint64_t first, end; /* the table's extent: its first block up to the list's end */
	int ok;		     /* present and usable */
};

struct fsck_frag {
	uint32_t index;
	uint32_t len;	 /* decompressed bytes, set by the worker that checked it */
	uint8_t refused; /* by the kernel's decoder, though readers read it */
	uint8_t bad;	 /* its block does not decompress */
	uint64_t start;	 /* where its block lies, and its stored bytes (0: not placed) */
	uint32_t size;
};

struct sqk_fsck_err {
	uint64_t key; /* sort key: the order the problems were met in the image */
	uint32_t rec; /* the inode it concerns, or FSCK_NONE */
	const char *table;
	enum fsck_check check;
	char *detail;
};

struct sqk_pool;
struct sqk_store;
struct sqk_spill;

struct sqk_fsck {
	struct sqk_fsck_opts o;
	struct sqk_file *file; /* the real file (the image reads through a wrapper) */
	struct sqk_image *img;
	struct sqk_pool *pool;
	struct sqk_compressor *comp; /* the main thread's, for metadata */
	struct sqk_super sb;	     /* as stored */
	uint64_t file_size;
	uint64_t data_start; /* first byte after the superblock and the options block */
	int fatal;	     /* an operational error: stop everything */
	int fatal_err;

	/* The lookup tables. */
	struct fsck_table frag, exp, ids, xids;
	uint64_t xattr_kv; /* start of the xattr key/value area */
	uint64_t dir_end;  /* where the directory table ends */

	/* Problems. */
	pthread_mutex_t lock;
	struct sqk_fsck_err *errs;
	size_t nerrs, errcap;
	uint64_t per_check[C_COUNT];
	uint64_t seq; /* next sort key */

	/* Inodes, in stores within the image's budget (fsck_recs.c). */
	struct sqk_spill *budget;
	struct sqk_store *recs; /* struct fsck_rec, in the order found */
	uint32_t nrecs;
	struct sqk_store *map;	/* by inode number: record index + 1 (uint32_t) */
	struct sqk_store *dirs; /* struct fsck_dir */
	uint32_t ndirs;
	uint32_t root;	       /* record of the root, or FSCK_NONE */
	int scan_cut;	       /* the inode table could not be read to its end */
	uint64_t scan_cut_ref; /* where the scan stopped: the last inode it began */
	/*
	 * The inode the scan read whole just before the cut, or UINT64_MAX when
	 * there was none: its length may be what is wrong, so the scan vouches
	 * only for the table before it.
	 */
	uint64_t scan_last_ref;
	int listing_cut;	  /* some listing could not be read to its end */
	uint64_t fallback_left;	  /* bytes out-of-order inode decoding may still read */
	uint64_t cursor_left;	  /* listing bytes out-of-order reading may still read */
	struct fsck_ms *inode_ms; /* the inode table's stream, for its block starts */
	uint64_t inode_bytes;	  /* decompressed bytes of the inode table */
	/* Extra (hard link) edges: directory record -> child record (uint32_t pairs). */
	struct sqk_store *links;
	uint64_t nlinks;

	/* Fragments read from the table, by index; len 0 = unusable. */
	struct fsck_frag *frags;
	uint32_t nfrags;

	/*
	 * Blocks handed out for checking (duplicate files share them): records
	 * in a store, found by position through a map (fsck_data.c).
	 */
	struct sqk_store *dups;
	struct sqk_store_hash *dup_at;
	uint64_t ndups;
	/* Files met sharing a block checked for another, named if it is bad or refused. */
	struct sqk_store *shared;
	uint64_t nshared;
	/* Under lock: data blocks that do not decompress; those only the readers' decoder reads. */
	struct sqk_u64set bad, refused;
	uint64_t data_bytes; /* compressed bytes of the distinct blocks handed out */
	int data_overflow;   /* more than the data area: the rest is not checked */

	/* Counters (updated by the workers too). */
	struct sqk_fsck_counts counts;
	/* Per bad stretch of opts.verity_bad: some file or table was named for it. */
	uint8_t *verity_named;
};

/* An operational error stopped the run? (Workers set it too.) */
static inline int fsck_stopped(struct sqk_fsck *f)
{
	return __atomic_load_n(&f->fatal, __ATOMIC_RELAXED);
}

/*
 * The codec's reports (fmt_check.h) recorded as problems, for every part
 * of the checker: each broken rule under the table and check its field
 * belongs to (map; the report's own for fields map does not name), with
 * the path of rec when there is one, and the check goes on. The message is
 * prefix, then the rule in words (sqk_fsck_issue_text()).
 */
struct fsck_field_check {
	const char *field;
	enum fsck_check check;
	const char *table; /* NULL: the report's own */
	int soft;	   /* the checks after it can go on (hard: counted) */
};

struct fsck_fmt {
	struct sqk_fmt_report rep;
	struct sqk_fsck *f;
	uint32_t rec;
	const char *table;
	enum fsck_check check;		    /* for fields map does not name */
	const struct fsck_field_check *map; /* NULL, or ends with a NULL field */
	char prefix[2 * SQK_NAME_MAX + 64];
	struct sqk_fmt_issue last; /* the last broken rule */
	int quiet;		   /* keep it in last only: the caller words the message */
	unsigned hard;		   /* broken rules map does not mark soft */
};

void sqk_fsck_fmt_init(struct fsck_fmt *ff, struct sqk_fsck *f, uint32_t rec, const char *table,
		       enum fsck_check check, const struct fsck_field_check *map);
void sqk_fsck_fmt_prefix(struct fsck_fmt *ff, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A broken rule in words: "field value why". */
void sqk_fsck_issue_text(const struct sqk_fmt_issue *i, char *buf, size_t len);

/* fsck.c */
void sqk_fsck_err(struct sqk_fsck *f, uint32_t rec, const char *table, enum fsck_check check,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void sqk_fsck_err_key(struct sqk_fsck *f, uint64_t key, uint32_t rec, const char *table,
		      enum fsck_check check, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Keys for problems found later by workers, in the order the work was handed out. */
uint64_t sqk_fsck_reserve_keys(struct sqk_fsck *f, uint64_t n);
/* Why a block failed, for a message. */
const char *sqk_fsck_why(int err);
/* Record an operational error; returns 1 when err is one (IO, NOMEM). */
int sqk_fsck_fatal(struct sqk_fsck *f, int err);

/*
 * fsck_recs.c: records and directories by index, read and written back
 * whole; a failure of their store stops the run (what is read is then zeros).
 */
int sqk_fsck_recs_init(struct sqk_fsck *f);
/* A store's failure (err, when not 0) stops the run; what it was is the budget's to tell. */
void sqk_fsck_fail(struct sqk_fsck *f, int err);
void sqk_fsck_recs_free(struct sqk_fsck *f);
struct fsck_rec sqk_fsck_rec(struct sqk_fsck *f, uint32_t i);
void sqk_fsck_rec_set(struct sqk_fsck *f, uint32_t i, const struct fsck_rec *r);
/* The record of inode number, or FSCK_NONE. */
uint32_t sqk_fsck_rec_find(struct sqk_fsck *f, uint32_t number);
/* Add a record; its number must not be there yet. */
int sqk_fsck_rec_add(struct sqk_fsck *f, const struct fsck_rec *r, uint32_t *index);
struct fsck_dir sqk_fsck_dir(struct sqk_fsck *f, uint32_t i);
void sqk_fsck_dir_set(struct sqk_fsck *f, uint32_t i, const struct fsck_dir *d);
int sqk_fsck_dir_add(struct sqk_fsck *f, const struct fsck_dir *d, uint32_t *index);
void sqk_fsck_link_add(struct sqk_fsck *f, uint32_t from, uint32_t to);
void sqk_fsck_link(struct sqk_fsck *f, uint64_t k, uint32_t *from, uint32_t *to);

/* fsck_meta.c */
void sqk_fsck_ms_init(struct fsck_ms *ms, struct sqk_fsck *f, const char *table, uint64_t start,
		      uint64_t end);
void sqk_fsck_ms_free(struct fsck_ms *ms);
/* Move forward to (rel_block, offset): 0, 1 when that is behind us, or an error. */
int sqk_fsck_ms_seek(struct fsck_ms *ms, uint64_t rel_block, uint32_t offset);
/* Read the rest of the chain; reports a chain that does not end at the table's end. */
void sqk_fsck_ms_finish(struct fsck_ms *ms);
/* At the end of the last block (nothing more to read)? */
int sqk_fsck_ms_at_end(struct fsck_ms *ms);
/*
 * Load one metadata block at pos of table: 0, and its length and the next
 * block's position. A block only the readers' decoder reads is loaded, and
 * reported.
 */
int sqk_fsck_meta_load(struct sqk_fsck *f, const char *table, uint64_t pos, uint8_t *buf,
		       uint32_t *len, uint64_t *next, char *why, size_t whylen);
int sqk_fsck_cur_open(struct fsck_cur *c, struct sqk_fsck *f, uint64_t table, uint64_t ref);
void sqk_fsck_cur_close(struct fsck_cur *c);

/* fsck_super.c */
int sqk_fsck_super(struct sqk_fsck *f);

/* fsck_tables.c */
void sqk_fsck_fragments(struct sqk_fsck *f);
void sqk_fsck_export(struct sqk_fsck *f);
void fsck_ids(struct sqk_fsck *f);
void sqk_fsck_xattrs(struct sqk_fsck *f);
void sqk_fsck_xattr_index(struct sqk_fsck *f, uint32_t rec, uint32_t index);
const struct fsck_frag *sqk_fsck_frag_find(const struct sqk_fsck *f, uint32_t index);
/* Walk a lookup table's blocks, calling fn for each entry (fn may be NULL). */
void sqk_fsck_table_walk(struct sqk_fsck *f, struct fsck_table *t,
			 void (*fn)(struct sqk_fsck *f, uint64_t idx, const uint8_t *entry,
				    void *arg),
			 void *arg);

/* fsck_inode.c */
void sqk_fsck_inodes(struct sqk_fsck *f);
/* Decode the inode at ref out of order (a reference into a damaged stretch). */
int sqk_fsck_inode_at(struct sqk_fsck *f, uint64_t ref, uint32_t number, uint32_t *index);
const char *sqk_fsck_ref_str(uint64_t ref, char *buf, size_t len);

/* fsck_data.c */
struct fsck_file {
	uint32_t rec;
	uint64_t blocks_start, size, sparse;
	uint32_t frag_index, frag_offset;
	uint32_t nblocks;
	const uint32_t *blocks;
	int extended;
};
void sqk_fsck_file_data(struct sqk_fsck *f, const struct fsck_file *file);
/* Decompress fragment block f->frags[slot] on the pool. */
void sqk_fsck_fragment_block(struct sqk_fsck *f, uint32_t slot, uint64_t start, uint32_t size);
void sqk_fsck_data_wait(struct sqk_fsck *f);
/*
 * After the last wait: name every file sharing a block that did not
 * decompress, or that the kernel's decoder refused.
 */
void sqk_fsck_data_shared(struct sqk_fsck *f);
void sqk_fsck_data_free(struct sqk_fsck *f);

/* fsck_verity.c */
/* The bad stretches bytes [a, b) of rec (a file: what says which bytes) overlap, named. */
void sqk_fsck_verity_file(struct sqk_fsck *f, uint32_t rec, uint64_t a, uint64_t b,
			  const char *what);
/* At the end: the fragments, tables and other bytes holding a bad stretch. */
void sqk_fsck_verity_rest(struct sqk_fsck *f);

/* fsck_dir.c */
void sqk_fsck_directories(struct sqk_fsck *f);
/* The name of the entry at ref in the directory table, for paths. */
int sqk_fsck_entry_name(struct sqk_fsck *f, uint64_t ref, char *name, uint32_t *len);

#endif
