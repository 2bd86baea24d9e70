/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_MODE_H
#define SQK_MODE_H

/*
 * A permission mode as chmod(1) takes it: octal ("0755", at most 07777)
 * or symbolic clauses separated by commas ("u+rwX,go-w", "a=r", "g=u").
 * Clauses apply in turn, each to the mode the previous ones left, as GNU
 * chmod does. Two differences, so that an image never depends on the
 * machine or the kind of entry it is built from: the umask is never
 * consulted (a clause without u, g, o or a acts as a), and a directory's
 * setuid and setgid bits change as a file's do (GNU chmod keeps them on a
 * directory unless the mode names them).
 */
#include <stdint.h>

#define SQK_MODE_MAX_OPS 64

struct sqk_mode_op {
	char op;       /* '=', '+' or '-' */
	char copy;     /* 'u', 'g' or 'o': the bits come from that class; 0: from bits */
	uint8_t X;     /* X was given */
	uint16_t who;  /* the bits the clause may change */
	uint16_t bits; /* r, w, x, s and t as given, in every class */
};

struct sqk_mode {
	int octal;	/* set: value replaces the permission bits */
	uint16_t value; /* the octal value */
	unsigned n;
	struct sqk_mode_op ops[SQK_MODE_MAX_OPS];
};

/* 0, or SQK_ERR_ARG for anything chmod would refuse (and "", or too many clauses). */
int sqk_mode_parse(const char *s, struct sqk_mode *m);

/* The permission bits (07777) that m makes of perm, for a directory or not. */
uint16_t sqk_mode_apply(const struct sqk_mode *m, uint16_t perm, int is_dir);

#endif
