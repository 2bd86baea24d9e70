/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_IMAGEFILE_H
#define SQK_IMAGEFILE_H

/*
 * The image file fsck checks, opened here (it reads any file, image or
 * not) and handed to the library's check as read callbacks (struct
 * sqk_io): the bytes from --offset on, and how many were read, for the
 * progress bar.
 */
#include <stdint.h>

#include <squashkit/squashkit.h>

struct cli_image_file {
	int fd;		      /* -1 for a remote image */
	struct sqk_io remote; /* a URL's callbacks (sqk_io_open_url) */
	uint64_t base;	      /* where the image starts in the file (--offset) */
	uint64_t size;	      /* the bytes from there to the end */
	uint64_t bytes_read;  /* counted as the check reads, from its threads */
	int errnum;	      /* the errno of the last read that failed */
};

/* Open path (a file, a device or a URL) after --offset; prints the error line and returns NULL on
 * failure. */
struct cli_image_file *cli_image_file_open(const char *path);
/* The callbacks that read f (f stays the caller's: no close callback). */
struct sqk_io cli_image_file_io(struct cli_image_file *f);
void cli_image_file_close(struct cli_image_file *f);

#endif
