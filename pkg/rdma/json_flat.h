/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one-pass reader of the simulated node's flat JSON files under
 * <root>/rdma/ (qps_json.c: qps/<dev>.json; cm_id.c: cm_ids/<dev>.json):
 * arrays of objects whose values are strings without escapes or whole
 * numbers; a member of a later format may also hold true, false, null,
 * arrays and objects of those, and is skipped. Internal to pkg/rdma. Never
 * reads past @end (tests/fuzz/fuzz_qps.c).
 */
#ifndef RQ_RDMA_JSON_FLAT_H
#define RQ_RDMA_JSON_FLAT_H

#include <stdbool.h>
#include <stddef.h>

struct rd {
	const char *p, *end;
};

void rd_ws(struct rd *r);
/* Expect byte @c after whitespace. */
bool rd_eat(struct rd *r, char c);
/* A string without escapes into @out (NULL: skipped); false when it does not fit. */
bool rd_string(struct rd *r, char *out, size_t len);
/* A whole number 0..@max. */
bool rd_number(struct rd *r, unsigned long max, unsigned long *ret);
/* A value of a member this format does not know (a later format's), skipped: depth <= 8. */
bool rd_skip(struct rd *r, int depth);

#endif
