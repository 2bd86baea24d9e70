// SPDX-License-Identifier: BSD-2-Clause
/*
 * The steps of a build that can fail: the one table of their names.
 * The API records a step as its value (enum sqk_build_step);
 * sqk_build_failed_step() gives its name from here.
 */
#include "api_build.h"

static const char *const step_names[] = {
	[SQK_STEP_NONE] = "",
	[SQK_STEP_OPTIONS] = "options",
	[SQK_STEP_SORT] = "sort",
	[SQK_STEP_REUSE] = "reuse",
	[SQK_STEP_OFFSET] = "offset",
	[SQK_STEP_OUTPUT] = "output",
	[SQK_STEP_OUTPUT_OPEN] = "output-open",
	[SQK_STEP_OUTPUT_SPOOL] = "output-spool",
	[SQK_STEP_OFFSET_COPY] = "offset-copy",
	[SQK_STEP_APPEND] = "append",
	[SQK_STEP_APPEND_OPEN] = "append-open",
	[SQK_STEP_APPEND_NOT_REGULAR] = "append-not-regular",
	[SQK_STEP_APPEND_LOCKED] = "append-locked",
	[SQK_STEP_APPEND_PAST_END] = "append-past-end",
	[SQK_STEP_APPEND_NOT_IMAGE] = "append-not-image",
	[SQK_STEP_APPEND_IO] = "append-io",
	[SQK_STEP_DESCRIPTOR] = "descriptor",
	[SQK_STEP_DRIVER] = "driver",
	[SQK_STEP_VERITY] = "verity",
	[SQK_STEP_SOURCE] = "source",
	[SQK_STEP_ENTRY] = "entry",
	[SQK_STEP_PSEUDO] = "pseudo",
	[SQK_STEP_WRITE] = "write",
	[SQK_STEP_COMMIT] = "commit",
	[SQK_STEP_LABEL] = "label",
};

const char *sqk_api_step_name(enum sqk_build_step step)
{
	if ((unsigned)step >= sizeof(step_names) / sizeof(step_names[0]) || !step_names[step])
		return "";
	return step_names[step];
}
