// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's <root>/rdma/qps/<dev>.json (qps.h): an array of
 * objects whose values are strings without escapes or whole numbers (a
 * member of a later format may also hold true, false, null, arrays and
 * objects of those, and is skipped). The agent reads one such file per attachment at every
 * census (256 x 64 QPs is 16k objects), so this reads that format and no
 * more in one pass over the bytes: a cJSON tree took 97 ms for them, the
 * validating scanner (pkg/json/jscan.c) 18 ms, against the census's 10 ms.
 * Anything outside the format is -EINVAL (tests/fuzz/fuzz_qps.c holds it
 * to never reading past @len).
 */
#include <errno.h>
#include <string.h>

#include "pkg/rdma/qps.h"

struct rd {
	const char *p, *end;
};

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
		r->p++;
}

/* Expect byte @c after whitespace. */
static bool eat(struct rd *r, char c)
{
	ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

/* A string without escapes into @out (NULL: skipped); false when it does not fit. */
static bool string(struct rd *r, char *out, size_t len)
{
	const char *s, *c;

	if (!eat(r, '"'))
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
static bool number(struct rd *r, unsigned long max, unsigned long *ret)
{
	unsigned long v = 0;
	const char *s;

	ws(r);
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
static bool skip(struct rd *r, int depth)
{
	static const char *const lit[] = {"true", "false", "null"};
	unsigned long v;
	char open;

	ws(r);
	if (r->p >= r->end || depth > 8)
		return false;
	if (*r->p == '"')
		return string(r, NULL, 0);
	if (*r->p == '[' || *r->p == '{') {
		open = *r->p++;
		if (eat(r, open == '[' ? ']' : '}'))
			return true;
		do {
			if (open == '{' && (!string(r, NULL, 0) || !eat(r, ':')))
				return false;
			if (!skip(r, depth + 1))
				return false;
		} while (eat(r, ','));
		return eat(r, open == '[' ? ']' : '}');
	}
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);

		if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, lit[i], n)) {
			r->p += n;
			return true;
		}
	}
	return number(r, ~0UL / 10 - 10, &v);
}

static bool member(struct rd *r, struct rq_qp *q, unsigned *seen, bool *has_ctx)
{
	char key[16];
	unsigned long v = 0;
	bool ok;

	if (!string(r, key, sizeof(key)) || !eat(r, ':'))
		return false;
	if (!strcmp(key, "qpn")) {
		ok = number(r, 0xffffff, &v); /* a QPN has 24 bits */
		q->qpn = (uint32_t)v;
		*seen |= 1;
	} else if (!strcmp(key, "type")) {
		ok = string(r, q->type, sizeof(q->type)) && q->type[0];
		*seen |= 2;
	} else if (!strcmp(key, "state")) {
		ok = string(r, q->state, sizeof(q->state)) && q->state[0];
		*seen |= 4;
	} else if (!strcmp(key, "pid")) {
		ok = number(r, 4194304, &v); /* PID_MAX_LIMIT */
		q->pid = (uint32_t)v;
	} else if (!strcmp(key, "comm")) {
		ok = string(r, q->comm, sizeof(q->comm)) && q->comm[0];
	} else if (!strcmp(key, "sgid_index")) {
		ok = number(r, 255, &v); /* mlx5's src_addr_index has 8 bits */
		q->sgid_index = (int)v;
	} else if (!strcmp(key, "tclass")) {
		ok = number(r, 255, &v);
		q->tclass = (int)v;
		*has_ctx = true;
	} else {
		ok = skip(r, 0); /* a field of a later format */
	}
	return ok;
}

static int parse(struct rd *r, struct rq_qp_list *ret, bool *has_ctx)
{
	if (!eat(r, '['))
		return -EINVAL;
	if (eat(r, ']'))
		return 0;
	do {
		struct rq_qp *q;
		unsigned seen = 0;

		if (!eat(r, '{'))
			return -EINVAL;
		q = rdma_qps_add(ret);
		if (!q)
			return -ENOMEM;
		if (!eat(r, '}')) {
			do {
				if (!member(r, q, &seen, has_ctx))
					return -EINVAL;
			} while (eat(r, ','));
			if (!eat(r, '}'))
				return -EINVAL;
		}
		if (seen != 7)
			return -EINVAL;
	} while (eat(r, ','));
	if (!eat(r, ']'))
		return -EINVAL;
	ws(r);
	return r->p == r->end ? 0 : -EINVAL;
}

int rdma_qps_parse_json(const char *text, size_t len, struct rq_qp_list *ret)
{
	struct rd r = {text, text + len};
	struct rq_qp_list l = {0};
	bool has_ctx = false;
	int rr = parse(&r, &l, &has_ctx);

	if (rr < 0) {
		rdma_qps_free(&l);
		return rr;
	}
	l.has_ctx = has_ctx;
	*ret = l;
	return 0;
}
