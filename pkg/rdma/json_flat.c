// SPDX-License-Identifier: Apache-2.0
/* The one-pass reader of the sim's flat JSON files (json_flat.h). */
#include "pkg/rdma/json_flat.h"

#include <string.h>

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
