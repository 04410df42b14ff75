// SPDX-License-Identifier: Apache-2.0
#include "pkg/log/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static rq_log_sink_fn log_sink;
static void *log_userdata;
static enum rq_log_level log_level = RQ_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void rq_log_set_sink(rq_log_sink_fn fn, void *userdata)
{
	log_sink = fn;
	log_userdata = userdata;
}

void rq_log_set_level(enum rq_log_level lvl)
{
	log_level = lvl;
}

enum rq_log_level rq_log_get_level(void)
{
	return log_level;
}

int rq_log_level_parse(const char *s, enum rq_log_level *ret)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcmp(s, level_names[i]) == 0) {
			*ret = (enum rq_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rq_log_level_name(enum rq_log_level lvl)
{
	if ((unsigned)lvl >= sizeof(level_names) / sizeof(level_names[0]))
		return "?";
	return level_names[lvl];
}

void rq_log(enum rq_log_level lvl, const char *fmt, ...)
{
	/* ADD's one line carries up to two evidences of 1 KiB and the NUMA source whole */
	char buf[3072];
	va_list ap;

	if (!log_sink || lvl > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_sink(log_userdata, lvl, buf);
}

/* Days since 1970-01-01 to a proleptic Gregorian date, in 400-year eras of 146097 days. */
static void civil(long long days, int *y, int *m, int *d)
{
	long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;

	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

void rq_log_utc_stamp(const struct timespec *ts, char *buf, size_t len)
{
	long long sec = (long long)ts->tv_sec, days;
	int y, m, d;

	days = sec >= 0 ? sec / 86400 : (sec - 86399) / 86400;
	sec -= days * 86400;
	civil(days, &y, &m, &d);
	snprintf(buf, len, "%04d-%02d-%02dT%02lld:%02lld:%02lld.%03ldZ", y, m, d, sec / 3600,
		 sec / 60 % 60, sec % 60, (long)(ts->tv_nsec / 1000000));
}
