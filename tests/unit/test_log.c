// SPDX-License-Identifier: Apache-2.0
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pkg/log/log.h"

/* The computed stamp against libc's gmtime_r (TZ does not matter to either). */
static void same_as_libc(time_t t, long nsec)
{
	struct timespec ts = {.tv_sec = t, .tv_nsec = nsec};
	char got[32], want[40];
	struct tm tm;

	ck_assert_ptr_nonnull(gmtime_r(&t, &tm));
	snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nsec / 1000000);
	rq_log_utc_stamp(&ts, got, sizeof(got));
	ck_assert_msg(!strcmp(got, want), "t=%lld: %s, libc %s", (long long)t, got, want);
}

START_TEST(utc_stamp_matches_gmtime)
{
	/* 1901 to 2399 in steps that land on every month, day and hour over the run */
	for (long long t = -2145916800LL; t < 13569465600LL; t += 86400LL * 7 + 3607)
		same_as_libc((time_t)t, 999999999L);
	/* the days around leap-year rules: 1904, 2000 (leap), 2100 (not), 2400 (leap) */
	for (long long t = -2082844800LL; t < -2082844800LL + 400 * 86400LL; t += 86399)
		same_as_libc((time_t)t, 0);
	for (long long t = 946684800LL - 86400LL * 60; t < 946684800LL + 86400LL * 400; t += 43201)
		same_as_libc((time_t)t, 5000000L);
	for (long long t = 4102444800LL - 86400LL * 60; t < 4102444800LL + 86400LL * 400;
	     t += 43201)
		same_as_libc((time_t)t, 123456789L);
	same_as_libc(0, 0);
	same_as_libc(-1, 0);
	same_as_libc(1795422486, 455000000L); /* 2026-11-23T08:28:06.455Z */
}
END_TEST

START_TEST(utc_stamp_example_and_truncation)
{
	struct timespec ts = {.tv_sec = 1795422486, .tv_nsec = 455999999};
	char buf[32], small[11];

	rq_log_utc_stamp(&ts, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-11-23T08:28:06.455Z");
	rq_log_utc_stamp(&ts, small, sizeof(small));
	ck_assert_str_eq(small, "2026-11-23");
}
END_TEST

Suite *suite_log(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, utc_stamp_matches_gmtime);
	tcase_add_test(tc, utc_stamp_example_and_truncation);
	suite_add_tcase(s, tc);
	return s;
}
