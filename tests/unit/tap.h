/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TAP_H
#define SQK_TAP_H

/* A minimal TAP producer for the C unit tests; prove reads its output. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define is_int(got, want, ...)                                                                     \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);                           \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                                                \
			printf("#   got %lld, want %lld\n", g_, w_);                               \
	} while (0)
#define is_mem(got, want, len, ...) tap_ok(memcmp((got), (want), (len)) == 0, __VA_ARGS__)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
