/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_API_BUILD_H
#define SQK_API_BUILD_H

/* A build's options (api_build_opts.c), used by the build (api_build.c). */
#include <stddef.h>

#include "api_int.h"
#include "compressors/compressor.h"
#include "util/mode.h"
#include "util/xattr_filter.h"
#include "write/mkfs_opts.h"

struct sqk_outfile;
struct sqk_mkfs;
struct sqk_mkfs_append;
struct sqk_pseudo;

struct sqk_image;
struct sqk_sort;

/* Pseudo definitions read with the options, shared by the builds made from them. */
struct sqk_api_pseudo {
	struct sqk_pseudo *p;
	int refs;
};

enum { SQK_API_NAMED_SOURCES = 1, SQK_API_FULL_PATHS };

/* The "verity" options as set (api_build_verity.c). */
struct sqk_api_verity_opts {
	int on;
	char *hash_file; /* NULL: the hash area after the image */
	int salt_mode;	 /* 0: not given; else enum sqk_verity_salt + 1 */
	uint8_t salt[256];
	uint16_t salt_size;
	char algorithm[8]; /* "": sha256 */
	int no_superblock;
	char *root_hash_file, *key, *cert, *sig, *sig_json;
};

/* The inputs of container pipelines, as set (api_build_inputs.c). */
struct sqk_api_inputs {
	char *oci, *platform; /* "oci", "platform" */
	unsigned oci_layer;   /* "oci-layer": that layer alone (from 1), 0: all */
	int whiteouts;	      /* "whiteouts": the archives are layers */
	char *file_contexts, *selinux_root;
	int keep_labels; /* "keep-source-labels" */
};
/* The least "memory" a build takes: every structure works in a share of it. */
#define SQK_API_MEMORY_MIN (8u << 20)

struct sqk_build_opts {
	/* Without the codec's config, excludes, skips, modes, xattr filter and adds, sort, reuse.
	 */
	struct sqk_mkfs_opts mo;
	const struct sqk_codec *codec;
	int level; /* -1: the codec's default */
	struct sqk_api_strv comp_opts, excludes;
	int codec_given, block_given; /* set by name: an append checks them against the image */
	int force;
	int append;	 /* add to the existing image at the build's path */
	uint64_t offset; /* the image goes after this many bytes of the existing file */
	int source_mode; /* what sqk_build_add_dir does with a path (0: its contents to the root) */
	/* Checked when set, made into a build's own by sqk_api_attrs_make. */
	struct sqk_mode modes[3]; /* file, dir, root */
	int has_mode[3];
	char *sort, *xattrs_include, *xattrs_exclude;
	struct sqk_api_strv xattrs_add, reuse;
	uint64_t reuse_offset;
	int reuse_auto;
	int reuse_skip_unfit;	       /* an image that cannot serve is left out, not refused */
	struct sqk_api_pseudo *pseudo; /* sqk_build_opts_add_pseudo, _pseudo_file */
	struct sqk_api_verity_opts verity;
	struct sqk_api_inputs in;
	char *tmpdir;		       /* "tmpdir", or NULL: beside the image */
};

/* What a build owns of its options: the mkfs options point into it. */
struct sqk_api_attrs {
	struct sqk_mode modes[3];
	struct sqk_xattr_filter filter;
	struct sqk_xattr_add *adds;
	size_t nadds;
	struct sqk_sort *sort;
	struct sqk_image **reuse;
	size_t nreuse;
	/* Each image of "reuse" as given: its index in reuse, or -1 and why not. */
	struct sqk_api_given {
		long used;
		char why[128];
	} * given;
	size_t ngiven;
};

/* *to becomes a copy of v (the old one freed): 0, or SQK_ERR_NOMEM, said. */
int sqk_api_set_string(char **to, const char *v);
/* Options that take a value, of those the attrs hold: 1 when name is not one. */
int sqk_api_attrs_set(struct sqk_build_opts *o, const char *name, const char *value);
void sqk_api_attrs_opts_free(struct sqk_build_opts *o);
/*
 * Make a's from o and point mo at them (mo's codec, comp and block size
 * set): the sort file loaded, the images to reuse opened and checked.
 * path names the build in messages. 0, or the error, said.
 */
int sqk_api_attrs_make(struct sqk_api_attrs *a, const struct sqk_build_opts *o,
		       struct sqk_mkfs_opts *mo, const char *path);
void sqk_api_attrs_release(struct sqk_api_attrs *a);

/* The step of sqk_build_create now under way, for sqk_build_failed_step. */
void sqk_api_build_step(enum sqk_build_step step);
/* The name of a step, as sqk_build_failed_step() gives it (api_build_step.c). */
const char *sqk_api_step_name(enum sqk_build_step step);
/* A holder of pseudo definitions: one reference more, one less (freed at none). */
struct sqk_api_pseudo *sqk_api_pseudo_ref(struct sqk_api_pseudo *h);
void sqk_api_pseudo_unref(struct sqk_api_pseudo *h);
/* One definition, or a file of them, into p: 0, or the error, said with where it stands. */
int sqk_api_pseudo_add(struct sqk_pseudo *p, const char *arg, int file);

/* A verity option: 0, 1 when name is none, or the error, said. */
int sqk_api_verity_set(struct sqk_build_opts *o, const char *name, const char *value);
void sqk_api_verity_opts_free(struct sqk_build_opts *o);
/*
 * With "verity" in o: *out, the tree made as the image at path is written
 * through image (the build's output, the caller's), and the files beside
 * it created. 0, or the error, said.
 */
struct sqk_api_verity_build;
struct sqk_verity_build;
int sqk_api_verity_open(struct sqk_api_verity_build **out, const struct sqk_build_opts *o,
			const char *path, struct sqk_file *image, unsigned threads, int have_epoch,
			int fd_build);
/* The tree being made (NULL for none): the driver writes through its file. */
struct sqk_verity_build *sqk_api_verity_vb(struct sqk_api_verity_build *v);
/*
 * The files beside the image are put in place once the tree is written,
 * and removed by a signal or a failure until the image is in place too:
 * then they are settled. NULL is allowed.
 */
void sqk_api_verity_settle(struct sqk_api_verity_build *v);
/* The image could not be put in place: the files beside it go. */
void sqk_api_verity_unplace(struct sqk_api_verity_build *v);
/* The file the tree's failure was about (its hash file, a file beside the image), or NULL. */
const char *sqk_api_verity_failed(const struct sqk_api_verity_build *v, int *errnum);
/* What was made: 0, or SQK_ERR_NOENT. */
struct sqk_verity_info;
int sqk_api_verity_result(const struct sqk_api_verity_build *v, struct sqk_verity_info *info);
/* Blocks of the image read back to hash them (sqk_build_stat's "verity_reread_blocks"). */
uint64_t sqk_api_verity_reread(const struct sqk_api_verity_build *v);
void sqk_api_verity_release(struct sqk_api_verity_build *v);

/* An input option: 0, 1 when name is none, or the error, said. */
int sqk_api_inputs_set(struct sqk_build_opts *o, const char *name, const char *value);
void sqk_api_inputs_free(struct sqk_api_inputs *in);
/* What the inputs cannot go with, said about path before anything is opened: 0 or the error. */
int sqk_api_inputs_refuse(const struct sqk_build_opts *o, const char *path);
/* The build's own copy of o's inputs, the file_contexts opened: 0, or the error, said. */
struct sqk_build;
int sqk_api_inputs_take(struct sqk_build *b, const struct sqk_build_opts *o);
/*
 * The sources that wait: the OCI image (before any other), the archives
 * queued as layers. 0, or the driver's error (not said: the caller's done()).
 */
int sqk_api_inputs_settle(struct sqk_build *b);
/* An archive added under "whiteouts": queued as a layer (0), or 1 when it is no layer. */
int sqk_api_inputs_queue(struct sqk_build *b, const char *path);
/* The labels, once every source and definition is in: 0, or the driver's error. */
int sqk_api_inputs_label(struct sqk_build *b);
void sqk_api_inputs_release(struct sqk_build *b);

/* A build (api_build.c), its figures read by api_build_stat.c. */
struct sqk_build {
	char *path;
	struct sqk_mkfs_opts mo;
	struct sqk_api_strv excludes;
	struct sqk_outfile *of;
	struct sqk_mkfs_append *append; /* "append": the image added to, in place */
	struct sqk_file *window;	/* "offset": the image's part of the output */
	struct sqk_mkfs *m;
	struct sqk_api_pseudo *opts_pseudo; /* the options' definitions, applied first */
	struct sqk_pseudo *pseudo;	    /* applied at finish, on top of everything */
	int out_fd;			    /* the output's descriptor, for sqk_build_written */
	struct sqk_mkfs_stats st;
	struct sqk_api_attrs attrs; /* what mo points at */
	int source_mode;	    /* of struct sqk_build_opts */
	/* The driver's last failure, in parts (sqk_build_failure). */
	int fail_err, fail_errnum, fail_in_image;
	char fail_path[4096], fail_words[512];
	enum sqk_build_step step, fail_step; /* under way, and of the last failure */
	int finished, failed;
	int device;			     /* the output is a block device, written in place */
	struct sqk_api_verity_build *verity; /* "verity" (api_build_verity.c) */
	struct sqk_api_inputs in;	     /* api_build_inputs.c */
	struct sqk_api_strv layers;	     /* archives queued as layers */
	int oci_done;
	unsigned oci_layers; /* the OCI image's, once read */
	struct sqk_labels *labels;
	char *tmpdir; /* where the build's temporaries go (mo.tmpdir) */
};

/*
 * Where a build writes (api_build_out.c). Open it: the descriptor fd
 * (sqk_build_create_fd), else b->path as "append" or a new image; 0, or
 * the error, said.
 */
int sqk_api_build_open(struct sqk_build *b, const struct sqk_build_opts *o, int fd);
/* The file the driver writes: the output, its window after "offset", the image appended to. */
struct sqk_file *sqk_api_build_file(struct sqk_build *b);
/* Put the output in place (util/outfile.h, sqk_outfile_commit): 0 or the error, errno kept. */
int sqk_api_build_commit(struct sqk_build *b);

#endif
