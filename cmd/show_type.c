// SPDX-License-Identifier: BSD-2-Clause
/*
 * The names of inode types and the size a kernel mount shows, as the
 * format's codec has them, for the listings of ls, stat, diff and the
 * unsquashfs front end: the public API has no call that names a type or
 * takes the reader's inode here.
 */
#include "format/fmt_inode.h"
#include "format/fmt_type.h"
#include "format/format.h"
#include "read/inode.h"
#include "show.h"

const char *cli_mode_type(mode_t mode)
{
	return sqk_fmt_type_key(sqk_fmt_type_of_mode(mode));
}

const char *cli_mode_name(mode_t mode)
{
	return sqk_fmt_type_name(sqk_fmt_type_of_mode(mode));
}
