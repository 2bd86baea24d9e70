// SPDX-License-Identifier: BSD-2-Clause
#include <string.h>

#include "error.h"
#include "mode.h"

/* The bits each class letter reaches: its rwx, and its special bit. */
static uint16_t class_bits(char c)
{
	switch (c) {
	case 'u':
		return 04700;
	case 'g':
		return 02070;
	case 'o':
		return 01007;
	case 'a':
		return 07777;
	}
	return 0;
}

static int parse_octal(const char *s, struct sqk_mode *m)
{
	unsigned v = 0;

	for (; *s; s++) {
		if (*s < '0' || *s > '7')
			return SQK_ERR_ARG;
		v = v * 8 + (unsigned)(*s - '0');
		if (v > 07777)
			return SQK_ERR_ARG;
	}
	m->octal = 1;
	m->value = (uint16_t)v;
	return 0;
}

/* One clause, [ugoa]*([-+=]([rwxXst]*|[ugo]))+, ending at a comma or the end. */
static int parse_clause(const char **sp, struct sqk_mode *m)
{
	const char *s = *sp;
	uint16_t who = 0;

	for (; class_bits(*s); s++)
		who |= class_bits(*s);
	if (!who)
		who = 07777;
	if (*s != '=' && *s != '+' && *s != '-')
		return SQK_ERR_ARG;
	while (*s == '=' || *s == '+' || *s == '-') {
		struct sqk_mode_op *op;

		if (m->n == SQK_MODE_MAX_OPS)
			return SQK_ERR_ARG;
		op = &m->ops[m->n++];
		memset(op, 0, sizeof(*op));
		op->op = *s++;
		op->who = who;
		if (*s == 'u' || *s == 'g' || *s == 'o') {
			op->copy = *s++;
			continue;
		}
		for (;; s++) {
			if (*s == 'r')
				op->bits |= 0444;
			else if (*s == 'w')
				op->bits |= 0222;
			else if (*s == 'x')
				op->bits |= 0111;
			else if (*s == 'X')
				op->X = 1;
			else if (*s == 's')
				op->bits |= 06000;
			else if (*s == 't')
				op->bits |= 01000;
			else
				break;
		}
	}
	if (*s && *s != ',')
		return SQK_ERR_ARG;
	*sp = s;
	return 0;
}

int sqk_mode_parse(const char *s, struct sqk_mode *m)
{
	memset(m, 0, sizeof(*m));
	if (!s || !*s)
		return SQK_ERR_ARG;
	if (*s >= '0' && *s <= '9')
		return parse_octal(s, m);
	for (;;) {
		int err = parse_clause(&s, m);

		if (err)
			return err;
		if (!*s)
			return 0;
		s++; /* the comma: a clause must follow it */
		if (!*s || *s == ',')
			return SQK_ERR_ARG;
	}
}

uint16_t sqk_mode_apply(const struct sqk_mode *m, uint16_t perm, int is_dir)
{
	unsigned mode = perm & 07777, i;

	if (m->octal)
		return m->value;
	for (i = 0; i < m->n; i++) {
		const struct sqk_mode_op *op = &m->ops[i];
		unsigned v;

		if (op->copy) {
			unsigned shift = op->copy == 'u' ? 6 : op->copy == 'g' ? 3 : 0;

			v = ((mode >> shift) & 7) * 0111;
		} else {
			v = op->bits;
			/* X: search for a directory, execute where someone may already. */
			if (op->X && (is_dir || (mode & 0111)))
				v |= 0111;
		}
		v &= op->who;
		if (op->op == '=')
			mode = (mode & ~(unsigned)op->who) | v;
		else if (op->op == '+')
			mode |= v;
		else
			mode &= ~v;
	}
	return (uint16_t)(mode & 07777);
}
