/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Logging without printing: pkg/ code calls rq_log(); the sink that actually
 * writes (stderr or the log file) is installed by plugin/. With no sink,
 * messages are dropped.
 */
#ifndef RQ_LOG_H
#define RQ_LOG_H

#include <stddef.h>
#include <time.h>

enum rq_log_level { RQ_LOG_ERROR = 0, RQ_LOG_WARN, RQ_LOG_INFO, RQ_LOG_DEBUG };

typedef void (*rq_log_sink_fn)(void *userdata, enum rq_log_level lvl, const char *msg);

void rq_log_set_sink(rq_log_sink_fn fn, void *userdata);
void rq_log_set_level(enum rq_log_level lvl);
enum rq_log_level rq_log_get_level(void);
/* returns 0 and sets *ret for "error","warn","info","debug"; -EINVAL otherwise */
int rq_log_level_parse(const char *s, enum rq_log_level *ret);
const char *rq_log_level_name(enum rq_log_level lvl);

/*
 * "2026-11-23T08:48:06.455Z" (UTC, milliseconds) into @buf (25 bytes and the
 * NUL). Computed, not gmtime_r: glibc's first gmtime_r reads /etc/localtime
 * (7 syscalls per plugin run) for a time zone a UTC stamp never uses.
 */
void rq_log_utc_stamp(const struct timespec *ts, char *buf, size_t len);

void rq_log(enum rq_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) rq_log(RQ_LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  rq_log(RQ_LOG_WARN, __VA_ARGS__)
#define log_info(...)  rq_log(RQ_LOG_INFO, __VA_ARGS__)
#define log_debug(...) rq_log(RQ_LOG_DEBUG, __VA_ARGS__)

#endif
