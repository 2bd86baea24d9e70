/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_TEST_EXTRACT_ARGS_H
#define SQK_TEST_EXTRACT_ARGS_H

/*
 * An extraction option from the command line of a test program of
 * tests/api: NAME (a switch), NAME=VALUE, or /PATH (a path to extract).
 */
#include <string.h>

#include <squashkit/squashkit.h>

static inline int extract_arg(struct sqk_extract_opts *o, char *arg)
{
	char *eq = strchr(arg, '=');

	if (arg[0] == '/')
		return sqk_extract_opts_add_path(o, arg);
	if (eq)
		*eq++ = '\0';
	return sqk_extract_opts_set(o, arg, eq);
}

#endif
