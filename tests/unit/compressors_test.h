/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_COMPRESSORS_TEST_H
#define SQK_COMPRESSORS_TEST_H

/* What compressors_options.c and compressors_blocks.c both use. */
#define KiB 1024u
#define MiB (1024u * 1024u)

/* Indexed by the format's compressor id. */
static const char *const codec_names[] = {NULL, "gzip", "lzma", "lzo", "xz", "lz4", "zstd"};

#endif
