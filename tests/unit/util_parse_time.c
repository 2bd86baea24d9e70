// SPDX-License-Identifier: BSD-2-Clause
/*
 * sqk_parse_time: the times mkimage --mtime and --fstime take. The
 * expected values are worked out by hand: 2024-01-01T00:00:00Z is
 * 19723 days of 86400 seconds after 1970-01-01.
 */
#include <stdlib.h>
#include <time.h>

#include "tap.h"
#include "util/error.h"
#include "util/parse.h"

#define NEW_YEAR_2024 (19723u * 86400u)

static long long parsed(const char *s)
{
	uint32_t t = 0;

	return sqk_parse_time(s, &t) == 0 ? (long long)t : -1;
}

int main(void)
{
	static const char *const bad[] = {
		"",
		"@",
		"-5",
		"1e5",
		"4294967296",
		"@4294967296",
		"2024-1-01",
		"2024-02-30",
		"2023-02-29",
		"2024-13-01",
		"2024-01-01T",
		"2024-01-01T25:00",
		"2024-01-01T12:60",
		"2024-01-01T12",
		"2024-01-01Q",
		"2024-01-01T12:00+5",
		"1969-12-31Z",
		"2106-02-08T00:00Z",
		"2024-01-01T12:00:00.5Z",
		"yesterday",
	};

	is_int(parsed("0"), 0, "seconds: 0");
	is_int(parsed("4294967295"), 4294967295ll, "seconds: the last 32-bit time");
	is_int(parsed("@1700000000"), 1700000000, "@seconds, as date -d takes them");
	is_int(parsed("2024-01-01Z"), NEW_YEAR_2024, "a date in UTC");
	is_int(parsed("2024-01-01T12:30:15Z"), NEW_YEAR_2024 + 12 * 3600 + 30 * 60 + 15,
	       "a date and time in UTC");
	is_int(parsed("2024-01-01 12:30Z"), NEW_YEAR_2024 + 12 * 3600 + 30 * 60,
	       "a space for the T, no seconds");
	is_int(parsed("2024-01-01T12:00+02:00"), NEW_YEAR_2024 + 10 * 3600, "+HH:MM: east of UTC");
	is_int(parsed("2024-01-01T12:00-0130"), NEW_YEAR_2024 + 13 * 3600 + 30 * 60,
	       "-HHMM: west of UTC");
	is_int(parsed("2024-02-29T00:00Z"), NEW_YEAR_2024 + 59 * 86400u,
	       "29 February of a leap year");
	is_int(parsed("2106-02-07T06:28:15Z"), 4294967295ll, "the last 32-bit time as a date");

	/* No zone: local time, as touch and date take it. */
	setenv("TZ", "UTC", 1);
	tzset();
	is_int(parsed("2024-01-01"), NEW_YEAR_2024, "a date without a zone in TZ=UTC");
	setenv("TZ", "EST5", 1);
	tzset();
	is_int(parsed("2024-01-01"), NEW_YEAR_2024 + 5 * 3600, "and in TZ=EST5, five hours later");
	is_int(parsed("2024-01-01T00:00Z"), NEW_YEAR_2024, "a zone wins over TZ");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parsed(bad[i]), -1, "refused: '%s'", bad[i]);
	return tap_done();
}
