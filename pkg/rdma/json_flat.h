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
#include <string.h>

struct rd {
	const char *p, *end;
};

/*
 * The token readers are inline: the census calls them for every key and value of
 * every QP (256 x 64 QPs at most), and a call per token was a third of its parsing.
 */
static inline void rd_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

/* Expect byte @c after whitespace. */
static inline bool rd_eat(struct rd *r, char c)
{
	rd_ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

/* A string without escapes: its *@n bytes at *@s in the text, not copied (no NUL in it). */
static inline bool rd_span(struct rd *r, const char **s, size_t *n)
{
	const char *c;

	if (!rd_eat(r, '"'))
		return false;
	/* one pass: the closing quote; no escape, no control byte before it */
	for (c = r->p; c < r->end && *c != '"'; c++)
		if (*c == '\\' || (unsigned char)*c < 0x20)
			return false;
	if (c == r->end)
		return false;
	*s = r->p;
	*n = (size_t)(c - r->p);
	r->p = c + 1;
	return true;
}

/* Whether the span @s of @n bytes (rd_span) is the key @lit. */
#define RD_KEY(s, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

/* A string without escapes into @out (NULL: skipped); false when it does not fit. */
static inline bool rd_string(struct rd *r, char *out, size_t len)
{
	const char *s;
	size_t n;

	if (!rd_span(r, &s, &n) || (out && n >= len))
		return false;
	if (out) {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return true;
}

/* A whole number 0..@max. */
static inline bool rd_number(struct rd *r, unsigned long max, unsigned long *ret)
{
	unsigned long v = 0;
	const char *s;

	rd_ws(r);
	s = r->p;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		v = v * 10 + (unsigned long)(*r->p - '0');
		if (v > max)
			return false;
		r->p++;
	}
	*ret = v;
	return r->p > s && (r->p - s == 1 || *s != '0');
}

/* A value of a member this format does not know (a later format's), skipped: depth <= 8. */
bool rd_skip(struct rd *r, int depth);

#endif
