// SPDX-License-Identifier: Apache-2.0
/* The one-pass reader of the sim's flat JSON files (json_flat.h). */
#include "pkg/rdma/json_flat.h"

#include <string.h>

void rd_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

/* Expect byte @c after whitespace. */
bool rd_eat(struct rd *r, char c)
{
	rd_ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

/* A string without escapes into @out (NULL: skipped); false when it does not fit. */
bool rd_string(struct rd *r, char *out, size_t len)
{
	const char *s, *c;

	if (!rd_eat(r, '"'))
		return false;
	s = r->p;
	/* one pass: the closing quote; no escape, no control byte before it */
	for (c = s; c < r->end && *c != '"'; c++)
		if (*c == '\\' || (unsigned char)*c < 0x20)
			return false;
	if (c == r->end || (out && (size_t)(c - s) >= len))
		return false;
	if (out) {
		memcpy(out, s, (size_t)(c - s));
		out[c - s] = '\0';
	}
	r->p = c + 1;
	return true;
}

/* A whole number 0..@max. */
bool rd_number(struct rd *r, unsigned long max, unsigned long *ret)
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
bool rd_skip(struct rd *r, int depth)
{
	static const char *const lit[] = {"true", "false", "null"};
	unsigned long v;
	char open;

	rd_ws(r);
	if (r->p >= r->end || depth > 8)
		return false;
	if (*r->p == '"')
		return rd_string(r, NULL, 0);
	if (*r->p == '[' || *r->p == '{') {
		open = *r->p++;
		if (rd_eat(r, open == '[' ? ']' : '}'))
			return true;
		do {
			if (open == '{' && (!rd_string(r, NULL, 0) || !rd_eat(r, ':')))
				return false;
			if (!rd_skip(r, depth + 1))
				return false;
		} while (rd_eat(r, ','));
		return rd_eat(r, open == '[' ? ']' : '}');
	}
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);

		if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, lit[i], n)) {
			r->p += n;
			return true;
		}
	}
	return rd_number(r, ~0UL / 10 - 10, &v);
}
