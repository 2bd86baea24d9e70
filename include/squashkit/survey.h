/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_SURVEY_H
#define SQUASHKIT_SURVEY_H

/**
 * @file squashkit/survey.h
 * What an image holds and how it is stored, as `squashkit inspect` shows
 * it: where the data area and each table lie, the metadata blocks of each
 * table, inodes by type, how the file data is stored, what dedup and
 * sparse blocks save, how full the fragment blocks are.
 *
 * A survey reads every inode and every metadata block of the image once.
 * Ratios are stored bytes / uncompressed bytes (0 when there are none).
 */
#include <stdint.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A survey: made with sqk_survey_create(), filled by sqk_image_survey(),
 * read with the getters below, freed with sqk_survey_destroy(). It keeps
 * no hold on the image it surveyed and may outlive it.
 */
struct sqk_survey;

/** Figures of the whole image; fields may be added at the end in later versions. */
struct sqk_survey_figures {
	uint64_t file_size;	/**< bytes of the file from the image's first byte */
	uint64_t options_start; /**< the compressor options block (after the superblock) ... */
	uint64_t options_size;	/**< ... with its header, this many bytes; 0: none */
	uint64_t data_start;	/**< the data area: from here ... */
	uint64_t data_size;	/**< ... this many bytes, up to the inode table */
	uint64_t xattr_ids;	/**< entries of the xattr id table */
	int has_xattrs;		/**< the flag no_xattrs is clear and there is an xattr table */

	/** Inodes by type: slot i counts those of sqk_survey_type_name(i); slot 0 is unused. */
	uint64_t types[8];
	uint64_t inodes;     /**< every inode, each once */
	uint64_t extended;   /**< inodes stored in their extended form */
	uint64_t hard_links; /**< directory entries naming an inode seen before */

	uint64_t file_bytes;	  /**< sizes of all regular files, each inode once */
	uint64_t data_blocks;	  /**< distinct stored data blocks */
	uint64_t data_stored;	  /**< their stored bytes */
	uint64_t fragment_stored; /**< stored bytes of every fragment block */
	uint64_t stored;	  /**< data_stored + fragment_stored */
	double data_ratio;	  /**< stored / file_bytes */
	uint64_t tails;		  /**< distinct tails in fragment blocks */
	uint64_t tail_bytes;	  /**< their bytes */
	double fragment_fill;	  /**< tail_bytes / (fragment blocks x block size) */

	uint64_t dedup_blocks;	   /**< data blocks a second file points at */
	uint64_t dedup_bytes;	   /**< their file bytes */
	uint64_t dedup_stored;	   /**< their stored bytes */
	uint64_t dedup_tails;	   /**< tails a second file points at */
	uint64_t dedup_tail_bytes; /**< their bytes */
	uint64_t sparse_blocks;	   /**< blocks stored as holes */
	uint64_t sparse_bytes;	   /**< their file bytes */

	uint64_t metadata_blocks;	/**< metadata blocks of every table together */
	uint64_t metadata_uncompressed; /**< their bytes decompressed */
	uint64_t metadata_stored;	/**< their stored bytes, headers included */
	double metadata_ratio;		/**< metadata_stored / metadata_uncompressed */
};

/** Where one table lies and what its metadata blocks hold. */
struct sqk_survey_table {
	uint64_t start;		  /**< its first byte */
	uint64_t size;		  /**< to its last byte (a lookup table: the end of its list) */
	uint64_t lookup;	  /**< a lookup table's list (the superblock's pointer); else 0 */
	uint32_t lookup_blocks;	  /**< metadata blocks that list names */
	uint64_t metadata_blocks; /**< its metadata blocks */
	uint64_t uncompressed;	  /**< their bytes decompressed */
	uint64_t stored;	  /**< their stored bytes, headers included */
};

/** A new, empty survey; NULL when out of memory. */
SQK_API struct sqk_survey *sqk_survey_create(void);
/** Free a survey. NULL is ignored. */
SQK_API void sqk_survey_destroy(struct sqk_survey *s);

/**
 * Survey @p img into @p s: read every table's metadata blocks, the
 * fragment table, and every inode from the root. 0, or the error of the
 * first failed read (SQK_ERR_CORRUPT, SQK_ERR_IO, ...), with
 * sqk_survey_failed_at() saying where. Other threads may use img meanwhile.
 */
SQK_API int sqk_image_survey(struct sqk_image *img, struct sqk_survey *s);

/**
 * After sqk_image_survey() failed: where. A path in the image, starting with
 * '/', or a structure ("inode table", "fragment 3"); "" when it did not fail.
 */
SQK_API const char *sqk_survey_failed_at(const struct sqk_survey *s);

/** The figures of a filled survey; they live as long as @p s. */
SQK_API const struct sqk_survey_figures *sqk_survey_figures(const struct sqk_survey *s);

/**
 * One table of a filled survey; NULL when the image has none (its pointer
 * is UINT64_MAX, or, for the export table, the superblock's exportable
 * flag is clear: nothing reads it then).
 */
SQK_API const struct sqk_survey_table *sqk_survey_table(const struct sqk_survey *s,
							enum sqk_table_kind kind);

/**
 * The name of the inode type counted in sqk_survey_figures.types[i], in
 * the plural ("directories", "files", "symlinks", "block_devices",
 * "char_devices", "fifos", "sockets" for i = 1 to 7); NULL for another i.
 */
SQK_API const char *sqk_survey_type_name(unsigned i);

#ifdef __cplusplus
}
#endif

#endif
