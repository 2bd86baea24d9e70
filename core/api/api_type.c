// SPDX-License-Identifier: BSD-2-Clause
/* The names of the file types, as the format's codec has them. */
#include "api_int.h"
#include "format/fmt_type.h"

const char *sqk_type_name(mode_t mode)
{
	return sqk_fmt_type_name(sqk_fmt_type_of_mode(mode));
}

const char *sqk_type_key(mode_t mode)
{
	return sqk_fmt_type_key(sqk_fmt_type_of_mode(mode));
}
