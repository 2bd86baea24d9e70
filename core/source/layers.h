/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_LAYERS_H
#define SQK_LAYERS_H

/*
 * Layers: tar streams applied one over the other into the build's tree, as
 * container images stack them (the OCI image spec's "Applying
 * Changesets"): an entry replaces what lower layers had at its path (a
 * directory over a directory takes its attributes only), ".wh.NAME"
 * removes NAME and everything under it from the lower layers,
 * ".wh..wh..opq" removes every lower child of its directory, a hard link
 * names the file at its target path as the layers before it left it.
 *
 * No data a later layer removes or replaces is ever written: the first
 * pass reads every layer's headers (its data streams by unused) and makes
 * the whole tree; the second reads again only the layers that hold data
 * the tree still names, and feeds just that data to the pipeline. The
 * top layer is read once: nothing above it can hide its entries, so its
 * data goes to the pipeline in the first pass. Each layer's bytes are
 * checked (a digest) in the first pass, before any data of a lower layer
 * is written; the second pass checks them again.
 */
#include <stddef.h>
#include <sys/types.h>

#include "src.h"

/* One layer's bytes, read from their start each time the layer is opened. */
struct sqk_layer_ops {
	/*
	 * Begin at the start: 0, or the error, said in c. again: the layer
	 * will be opened once more (a stream must keep what it reads).
	 */
	int (*open)(void *ctx, struct sqk_src_ctx *c, int again);
	/* The next bytes: their count (> 0) and *buf, 0 at the end, or an error said in c. */
	ssize_t (*read)(void *ctx, struct sqk_src_ctx *c, const void **buf);
	/*
	 * The archive has ended: the rest read and the whole checked (a
	 * digest against what the image says): 0, or the error, said in c.
	 */
	int (*finish)(void *ctx, struct sqk_src_ctx *c);
	/* Done with this read (the layer may be opened again). */
	void (*close)(void *ctx);
};

/* Which compression a layer may have. */
enum sqk_layer_filter {
	SQK_LAYER_ANY,	/* what --archive reads: tar, cpio, zip, any of its compressions */
	SQK_LAYER_TAR,	/* a tar, uncompressed */
	SQK_LAYER_GZIP, /* a tar, gzip-compressed */
	SQK_LAYER_ZSTD, /* a tar, zstd-compressed */
};

struct sqk_layer {
	const char *name; /* in messages */
	const struct sqk_layer_ops *ops;
	void *ctx;
	enum sqk_layer_filter filter;
};

enum sqk_layers_mode {
	/* Apply the layers in order into the tree, whiteouts removing what they name. */
	SQK_LAYERS_APPLY,
	/*
	 * One layer as an overlayfs lower directory holds it: ".wh.NAME" is a
	 * character device 0/0 named NAME, ".wh..wh..opq" the xattr
	 * trusted.overlay.opaque="y" on its directory.
	 */
	SQK_LAYERS_OVERLAY,
};

/* Apply layers[0..n), the lowest first. 0, or the error, said in c. */
int sqk_src_layers(struct sqk_src_ctx *c, const struct sqk_layer *layers, size_t n,
		   enum sqk_layers_mode mode);

/*
 * A layer read from a file (path "-": standard input, kept in a
 * temporary file as it is first read, to be read again).
 */
struct sqk_layer_file;
int sqk_layer_file_create(const char *path, struct sqk_layer *l, struct sqk_layer_file **out);
void sqk_layer_file_destroy(struct sqk_layer_file *f);

#endif
