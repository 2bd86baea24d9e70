/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SQK_PARSE_H
#define SQK_PARSE_H

/* Numbers from the command line and from codec options, parsed strictly. */
#include <stdint.h>

/* Decimal digits only, no sign or space, at most max: 0 or SQK_ERR_ARG. */
int sqk_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* A size: digits with an optional K, M or G suffix ("128K"): 0 or SQK_ERR_ARG. */
int sqk_parse_size(const char *s, uint64_t *out);

#endif
