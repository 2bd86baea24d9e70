/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_PARSE_H
#define SQK_PARSE_H

/* Numbers from the command line and from codec options, parsed strictly. */
#include <stdint.h>

/* Decimal digits only, no sign or space, at most max: 0 or SQK_ERR_ARG. */
int sqk_parse_uint(const char *s, uint64_t max, uint64_t *out);
/* A size: digits with an optional K, M or G suffix ("128K"): 0 or SQK_ERR_ARG. */
int sqk_parse_size(const char *s, uint64_t *out);
/*
 * A time (parse_time.c): seconds since 1970 ("1704067200" or "@1704067200"),
 * or "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS]" (or a space for the T), local
 * time unless a zone follows ("Z", "+HH", "+HHMM", "+HH:MM"). In range of
 * the image's 32-bit times: 0 or SQK_ERR_ARG.
 */
int sqk_parse_time(const char *s, uint32_t *out);

/* The value of a hex digit (either case), or -1. */
int sqk_parse_hex_digit(int c);

#endif
