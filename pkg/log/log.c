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
	char buf[1024];
	va_list ap;

	if (!log_sink || lvl > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_sink(log_userdata, lvl, buf);
}
