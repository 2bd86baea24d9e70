/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FMT_TYPE_H
#define SQK_FMT_TYPE_H

/*
 * Inode type numbers (format.h lists them): seven basic types 1..7, and
 * their extended forms 8..14 in the same order. What a type is, its file
 * type bits and its names are written here once; everything else asks.
 */
#include <sys/types.h>

#include "format.h"

/* Arrays indexed by basic type (1..7) have this many slots; slot 0 is unused. */
#define SQK_FMT_BASIC_TYPES (SQK_SOCKET + 1)

/* A type number the format knows: 1..14. */
static inline int sqk_fmt_type_valid(unsigned type)
{
	return type >= SQK_DIR && type <= SQK_LSOCKET;
}

/* The extended form (8..14) of a type. */
static inline int sqk_fmt_type_extended(unsigned type)
{
	return type > SQK_SOCKET;
}

/* The basic type 1..7 of a host file's st_mode, or 0 for none of them. */
unsigned sqk_fmt_type_of_mode(mode_t mode);

/* The file type bits (S_IFDIR, ...) of a type 1..14; 0 for an unknown one. */
unsigned sqk_fmt_type_mode(unsigned type);

/*
 * The names of a type (basic or extended; "unknown" for another number):
 * in words ("block device"), as a JSON value or key ("block_device"), and
 * counted ("block_devices").
 */
const char *sqk_fmt_type_name(unsigned type);
const char *sqk_fmt_type_key(unsigned type);
const char *sqk_fmt_type_plural(unsigned type);

#endif
