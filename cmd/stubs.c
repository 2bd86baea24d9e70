// SPDX-License-Identifier: GPL-2.0-or-later
/* Commands not built yet: each says so and fails. Removed as they land. */
#include "cmd.h"

#define STUB(fn)                                                                                   \
	int fn(int argc, char **argv)                                                              \
	{                                                                                          \
		sqk_error(NULL, "not implemented yet");                                            \
		return EXIT_FAIL;                                                                  \
	}

