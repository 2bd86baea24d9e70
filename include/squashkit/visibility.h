/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef SQUASHKIT_VISIBILITY_H
#define SQUASHKIT_VISIBILITY_H

/**
 * @file squashkit/visibility.h
 * SQK_API marks a function of the public API. The library is built with
 * -fvisibility=hidden, so only what carries this mark (and its export map
 * names) is exported from libsquashkit.so; for a program that includes the
 * headers it only says where the function comes from.
 */
#if defined(__GNUC__) || defined(__clang__)
#define SQK_API __attribute__((visibility("default")))
#else
#define SQK_API
#endif

#endif
