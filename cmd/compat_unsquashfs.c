// SPDX-License-Identifier: GPL-2.0-or-later
/* squashkit unsquashfs: a stub until the front end is written. */
#include <stdio.h>

#include "compat.h"

int compat_unsquashfs_main(int argc, char **argv)
{
	return compat_fail("not built yet");
}
