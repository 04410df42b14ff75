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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/rdma/json_flat.h"
#include "pkg/rdma/qps.h"

static bool member(struct rd *r, struct rq_qp *q, unsigned *seen, bool *has_ctx)
{
	const char *key;
	unsigned long v = 0;
	size_t n;
	bool ok;

	/* the key read where it is, not copied: a key of 16 bytes or more is outside the format */
	if (!rd_span(r, &key, &n) || n >= 16 || !rd_eat(r, ':'))
		return false;
	if (RD_KEY(key, n, "qpn")) {
		ok = rd_number(r, 0xffffff, &v); /* a QPN has 24 bits */
		q->qpn = (uint32_t)v;
		*seen |= 1;
	} else if (RD_KEY(key, n, "type")) {
		ok = rd_string(r, q->type, sizeof(q->type)) && q->type[0];
		*seen |= 2;
	} else if (RD_KEY(key, n, "state")) {
		ok = rd_string(r, q->state, sizeof(q->state)) && q->state[0];
		*seen |= 4;
	} else if (RD_KEY(key, n, "pid")) {
		ok = rd_number(r, 4194304, &v); /* PID_MAX_LIMIT */
		q->pid = (uint32_t)v;
	} else if (RD_KEY(key, n, "comm")) {
		ok = rd_string(r, q->comm, sizeof(q->comm)) && q->comm[0];
	} else if (RD_KEY(key, n, "sgid_index")) {
		ok = rd_number(r, 255, &v); /* mlx5's src_addr_index has 8 bits */
		q->sgid_index = (int)v;
	} else if (RD_KEY(key, n, "tclass")) {
		ok = rd_number(r, 255, &v);
		q->tclass = (int)v;
		*has_ctx = true;
	} else {
		ok = rd_skip(r, 0); /* a field of a later format */
	}
	return ok;
}

static int parse(struct rd *r, struct rq_qp_list *ret, bool *has_ctx)
{
	if (!rd_eat(r, '['))
		return -EINVAL;
	if (rd_eat(r, ']'))
		return 0;
	do {
		struct rq_qp *q;
		unsigned seen = 0;

		if (!rd_eat(r, '{'))
			return -EINVAL;
		q = rdma_qps_add(ret);
		if (!q)
			return -ENOMEM;
		if (!rd_eat(r, '}')) {
			do {
				if (!member(r, q, &seen, has_ctx))
					return -EINVAL;
			} while (rd_eat(r, ','));
			if (!rd_eat(r, '}'))
				return -EINVAL;
		}
		if (seen != 7)
			return -EINVAL;
	} while (rd_eat(r, ','));
	if (!rd_eat(r, ']'))
		return -EINVAL;
	rd_ws(r);
	return r->p == r->end ? 0 : -EINVAL;
}

/*
 * Room for the QPs of @text: its '{' (memchr: a pass at memory speed), no more than
 * the objects @len bytes can hold ({"qpn":0,"type":"X","state":"X"} and a comma)
 */
static size_t objects(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 0, most = len / 34 + 1;

	while (n < most && p < end && (p = memchr(p, '{', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

int rdma_qps_parse_json(const char *text, size_t len, struct rq_qp_list *ret)
{
	struct rd r = {text, text + len};
	struct rq_qp_list l = {0};
	size_t n = objects(text, len);
	bool has_ctx = false;
	int rr;

	/* the list at its size at once: no copy per doubling, no heap grown and trimmed */
	if (n && n <= SIZE_MAX / sizeof(*l.qp) && (l.qp = malloc(n * sizeof(*l.qp))) != NULL)
		l.cap = n;
	rr = parse(&r, &l, &has_ctx);

	if (rr < 0) {
		rdma_qps_free(&l);
		return rr;
	}
	l.has_ctx = has_ctx;
	*ret = l;
	return 0;
}
