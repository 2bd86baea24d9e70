// SPDX-License-Identifier: BSD-2-Clause
/* The front ends' private library (fe.h): what it adds to the utilities it names. */
#include "fe.h"
#include "util/pool.h"

unsigned cli_online_cpus(void)
{
	return sqk_online_cpus();
}
