/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQK_FE_H
#define SQK_FE_H

/*
 * The front ends' private library, beside the public one: what the
 * commands share that is not about images. cmd/ is compiled with the
 * public headers (include/squashkit) and this folder alone, so that this
 * header and progress.h are all of the library's insides a front end sees.
 *
 * Five utilities are the library's own, shared rather than written
 * twice: growing arrays, the one JSON writer, strict number, size and
 * time parsing, how a path names what it is kept as, and path patterns in
 * the peers' styles. Their headers are named here by
 * their place in core/util; they include nothing of the library in turn
 * (a header of core/util that did would fail cmd/'s build).
 */
#include "../core/util/array.h"
#include "../core/util/json.h"
#include "../core/util/parse.h"
#include "../core/util/path.h"
#include "../core/util/pattern.h"

/* Online CPUs, at least 1: the default for -j. */
unsigned cli_online_cpus(void);

#endif
