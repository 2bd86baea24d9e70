// SPDX-License-Identifier: BSD-2-Clause
/*
 * A time as users type it to touch -d, date -d or tar --mtime, in the
 * forms that say one moment on every machine: seconds since 1970, with or
 * without '@', or an ISO 8601 date and time. A date without a zone is
 * local time (TZ), as those tools take it; 'Z' or +HH:MM says the zone.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "parse.h"

/* Exactly n digits at *s, moving past them; -1 when they are not there. */
static int fixed(const char **s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*s)++) {
		if (**s < '0' || **s > '9')
			return -1;
		v = v * 10 + (**s - '0');
	}
	return v;
}

static int days_in(int year, int month)
{
	static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return days[month - 1] + (month == 2 && leap);
}

/* "Z", "+HH", "+HHMM", "+HH:MM" (or '-'): seconds east of UTC into *east. */
static int zone(const char *s, long *east)
{
	int sign, h, m = 0;

	if (!strcmp(s, "Z") || !strcmp(s, "z")) {
		*east = 0;
		return 0;
	}
	if (*s != '+' && *s != '-')
		return -1;
	sign = *s++ == '-' ? -1 : 1;
	if ((h = fixed(&s, 2)) < 0 || h > 23)
		return -1;
	if (*s == ':')
		s++;
	if (*s && ((m = fixed(&s, 2)) < 0 || m > 59))
		return -1;
	if (*s)
		return -1;
	*east = sign * (h * 3600L + m * 60L);
	return 0;
}

/* YYYY-MM-DD[(T| )HH:MM[:SS]][zone] */
static int iso(const char *s, uint32_t *out)
{
	struct tm tm = {0};
	int local = 1;
	long east = 0;
	time_t t;

	if ((tm.tm_year = fixed(&s, 4)) < 0 || *s++ != '-' || (tm.tm_mon = fixed(&s, 2)) < 1 ||
	    tm.tm_mon > 12 || *s++ != '-' || (tm.tm_mday = fixed(&s, 2)) < 1 ||
	    tm.tm_mday > days_in(tm.tm_year, tm.tm_mon))
		return SQK_ERR_ARG;
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		if ((tm.tm_hour = fixed(&s, 2)) < 0 || tm.tm_hour > 23 || *s++ != ':' ||
		    (tm.tm_min = fixed(&s, 2)) < 0 || tm.tm_min > 59)
			return SQK_ERR_ARG;
		if (*s == ':' && (s++, (tm.tm_sec = fixed(&s, 2)) < 0 || tm.tm_sec > 60))
			return SQK_ERR_ARG;
	}
	if (*s) {
		if (zone(s, &east) != 0)
			return SQK_ERR_ARG;
		local = 0;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	t = local ? mktime(&tm) : timegm(&tm) - east;
	if (t < 0 || (uint64_t)t > 0xffffffffu)
		return SQK_ERR_ARG;
	*out = (uint32_t)t;
	return 0;
}

int sqk_parse_time(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!s)
		return SQK_ERR_ARG;
	if (sqk_parse_uint(s[0] == '@' ? s + 1 : s, 0xffffffffu, &v) == 0) {
		*out = (uint32_t)v;
		return 0;
	}
	return s[0] == '@' ? SQK_ERR_ARG : iso(s, out);
}
