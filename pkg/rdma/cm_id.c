// SPDX-License-Identifier: Apache-2.0
/*
 * RDMA-CM ids (cm_id.h): RDMA netlink's restrack cm_id dump and the
 * simulated node's JSON.
 */
#include "pkg/rdma/cm_id.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkg/nlparse/nlparse.h"
#include "pkg/rdma/json_flat.h"
#include "pkg/rdma/rdma_nl.h"

void rdma_cm_ids_free(struct rq_cm_id_list *l)
{
	if (!l)
		return;
	free(l->id);
	memset(l, 0, sizeof(*l));
}

struct rq_cm_id *rdma_cm_ids_add(struct rq_cm_id_list *l)
{
	struct rq_cm_id *c;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		if (cap > SIZE_MAX / sizeof(*c))
			return NULL;
		c = realloc(l->id, cap * sizeof(*c));
		if (!c)
			return NULL;
		l->id = c;
		l->cap = cap;
	}
	c = &l->id[l->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

/*
 * A __kernel_sockaddr_storage as nldev.c puts it (the whole 128 bytes; only
 * the family's sockaddr is read): AF_INET's address at byte 4, AF_INET6's at
 * byte 8. Another family (AF_IB) is no address here; a cut one is malformed.
 */
static int sockaddr_get(const struct nlattr *a, struct rq_cm_id *c)
{
	const uint8_t *p = nla_data(a);
	size_t len = (size_t)nla_len(a);
	sa_family_t fam;

	if (len < sizeof(fam))
		return -EBADMSG;
	memcpy(&fam, p, sizeof(fam));
	if (fam == AF_INET) {
		if (len < sizeof(struct sockaddr_in))
			return -EBADMSG;
		memset(c->src, 0, 10);
		c->src[10] = c->src[11] = 0xff;
		memcpy(c->src + 12, p + offsetof(struct sockaddr_in, sin_addr), 4);
		c->has_src = true;
	} else if (fam == AF_INET6) {
		if (len < sizeof(struct sockaddr_in6))
			return -EBADMSG;
		memcpy(c->src, p + offsetof(struct sockaddr_in6, sin6_addr), 16);
		c->has_src = true;
	}
	return 0;
}

static int cm_entry(struct nlattr *e, struct rq_cm_id_list *l)
{
	static const struct nla_policy pol[RDMA_NLDEV_ATTR_RES_DST_ADDR + 1] = {
	    [RDMA_NLDEV_ATTR_RES_LQPN] = {.type = NLA_U32},
	    [RDMA_NLDEV_ATTR_RES_PID] = {.type = NLA_U32},
	    [RDMA_NLDEV_ATTR_RES_KERN_NAME] = {.type = NLA_STRING},
	    [RDMA_NLDEV_ATTR_RES_SRC_ADDR] = {.type = NLA_UNSPEC},
	    [RDMA_NLDEV_ATTR_RES_DST_ADDR] = {.type = NLA_UNSPEC},
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_RES_DST_ADDR + 1];
	struct rq_cm_id *c;

	if (nlparse_nested(e, tb, RDMA_NLDEV_ATTR_RES_DST_ADDR, pol) < 0)
		return -EBADMSG;
	c = rdma_cm_ids_add(l);
	if (!c)
		return -ENOMEM;
	if (tb[RDMA_NLDEV_ATTR_RES_LQPN])
		c->qpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	if (tb[RDMA_NLDEV_ATTR_RES_PID])
		c->pid = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);
	if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME])
		(void)snprintf(c->comm, sizeof(c->comm), "%s",
			       nla_get_string(tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]));
	if (tb[RDMA_NLDEV_ATTR_RES_SRC_ADDR])
		return sockaddr_get(tb[RDMA_NLDEV_ATTR_RES_SRC_ADDR], c);
	return 0;
}

int rdma_cm_ids_parse_msg(const struct nlmsghdr *nlh, size_t len, struct rq_cm_id_list *l)
{
	static const struct nla_policy pol[RDMA_NLDEV_ATTR_RES_CM_ID + 1] = {
	    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
	    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_RES_CM_ID + 1], *e;
	size_t n0 = l->n;
	int rem, r = nlparse_msg(nlh, len, 0, tb, RDMA_NLDEV_ATTR_RES_CM_ID, pol);

	if (r < 0)
		return r;
	if (!tb[RDMA_NLDEV_ATTR_RES_CM_ID])
		return 0;
	if (nlparse_nested(tb[RDMA_NLDEV_ATTR_RES_CM_ID], NULL, 0, NULL) < 0)
		return -EBADMSG;
	nla_for_each_nested(e, tb[RDMA_NLDEV_ATTR_RES_CM_ID], rem)
	{
		r = nla_type(e) == RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY ? cm_entry(e, l) : -EBADMSG;
		if (r < 0) {
			l->n = n0; /* all of the message or none of it */
			return r;
		}
	}
	return 0;
}

static int dump_cm(const struct nlmsghdr *h, size_t len, void *arg)
{
	return rdma_cm_ids_parse_msg(h, len, arg);
}

int rdma_cm_ids_dump(const char *dev, struct rq_cm_id_list *ret)
{
	struct rq_cm_id_list l = {0};
	struct nl_sock *sk = NULL;
	uint32_t idx;
	int r = rdma_nl_open(&sk);

	if (r < 0)
		return r;
	r = rdma_nl_dev_index(sk, dev, &idx);
	if (r == 0)
		r = rdma_nl_dump(sk, RDMA_NLDEV_CMD_RES_CM_ID_GET, (int)idx, dump_cm, &l);
	nl_socket_free(sk);
	if (r < 0) {
		rdma_cm_ids_free(&l);
		return r;
	}
	rdma_cm_ids_sort(&l);
	*ret = l;
	return 0;
}

/*
 * A dotted quad as inet_pton(AF_INET) reads it (four decimal bytes, none with a
 * leading zero) into @ret as ::ffff:a.b.c.d; false: anything else, which the caller
 * gives to inet_pton itself. The census reads one per id: inet_pton took as long as
 * the rest of the id's parsing.
 */
static bool quad(const char *s, uint8_t ret[16])
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++) {
		unsigned v = 0, n = 0;

		while (n < 4 && s[n] >= '0' && s[n] <= '9')
			v = v * 10 + (unsigned)(s[n++] - '0');
		if (!n || n > 3 || v > 255 || (n > 1 && s[0] == '0') ||
		    s[n] != (i < 3 ? '.' : '\0'))
			return false;
		b[i] = (uint8_t)v;
		s += n + 1;
	}
	memset(ret, 0, 10);
	ret[10] = ret[11] = 0xff;
	memcpy(ret + 12, b, 4);
	return true;
}

/* One member of a sim file's entry; false: outside the format. */
static bool cm_member(struct rd *r, struct rq_cm_id *c)
{
	char addr[64];
	const char *key;
	unsigned long v = 0;
	size_t n;
	bool ok;

	/* the key read where it is, not copied: a key of 16 bytes or more is outside the format */
	if (!rd_span(r, &key, &n) || n >= 16 || !rd_eat(r, ':'))
		return false;
	if (RD_KEY(key, n, "qpn")) {
		ok = rd_number(r, 0xffffff, &v); /* a QPN has 24 bits */
		c->qpn = (uint32_t)v;
	} else if (RD_KEY(key, n, "pid")) {
		ok = rd_number(r, 4194304, &v); /* PID_MAX_LIMIT */
		c->pid = (uint32_t)v;
	} else if (RD_KEY(key, n, "comm")) {
		ok = rd_string(r, c->comm, sizeof(c->comm));
	} else if (RD_KEY(key, n, "src_addr")) {
		/* any address, as the kernel lists any: which pod holds it is the census's */
		ok = rd_string(r, addr, sizeof(addr));
		if (ok && quad(addr, c->src)) {
			/* as inet_pton(AF_INET) below */
		} else if (ok && inet_pton(AF_INET, addr, c->src + 12) == 1) {
			memset(c->src, 0, 10);
			c->src[10] = c->src[11] = 0xff;
		} else if (ok) {
			ok = inet_pton(AF_INET6, addr, c->src) == 1;
		}
		c->has_src = ok;
	} else if (RD_KEY(key, n, "dst_addr")) {
		ok = rd_string(r, NULL, 0);
	} else {
		ok = rd_skip(r, 0); /* a field of a later format */
	}
	return ok;
}

/*
 * The same one-pass reader as qps_json.c's (json_flat.h): the census reads
 * this file at every collection beside the QP file, and a cJSON tree of it
 * took longer than the QPs' own reading (docs/benchmarks.md).
 */
static int cm_parse(struct rd *r, struct rq_cm_id_list *l)
{
	if (!rd_eat(r, '['))
		return -EINVAL;
	if (rd_eat(r, ']'))
		return 0;
	do {
		struct rq_cm_id *c;

		if (!rd_eat(r, '{'))
			return -EINVAL;
		c = rdma_cm_ids_add(l);
		if (!c)
			return -ENOMEM;
		if (rd_eat(r, '}'))
			continue;
		do {
			if (!cm_member(r, c))
				return -EINVAL;
		} while (rd_eat(r, ','));
		if (!rd_eat(r, '}'))
			return -EINVAL;
	} while (rd_eat(r, ','));
	if (!rd_eat(r, ']'))
		return -EINVAL;
	rd_ws(r);
	return r->p == r->end ? 0 : -EINVAL;
}

int rdma_cm_ids_parse_json(const char *text, size_t len, struct rq_cm_id_list *ret)
{
	struct rd r = {text, text + len};
	struct rq_cm_id_list l = {0};
	const char *p = text, *end = text + len;
	size_t n = 0, most = len / 3 + 1; /* "{}," */
	int rr;

	/* the list at its size at once: one '{' per id (memchr), no doubling from 16 */
	while (n < most && p < end && (p = memchr(p, '{', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	if (n && n <= SIZE_MAX / sizeof(*l.id) && (l.id = malloc(n * sizeof(*l.id))) != NULL)
		l.cap = n;
	rr = cm_parse(&r, &l);

	if (rr < 0) {
		rdma_cm_ids_free(&l);
		return rr;
	}
	rdma_cm_ids_sort(&l);
	*ret = l;
	return 0;
}

static int by_qpn(const void *a, const void *b)
{
	const struct rq_cm_id *x = a, *y = b;

	return x->qpn < y->qpn ? -1 : x->qpn > y->qpn;
}

void rdma_cm_ids_sort(struct rq_cm_id_list *l)
{
	size_t k = 1;

	/* the kernel lists ids in the order they were made, mostly their QPs' order too */
	while (k < l->n && l->id[k - 1].qpn < l->id[k].qpn)
		k++;
	if (k < l->n)
		qsort(l->id, l->n, sizeof(*l->id), by_qpn);
}

const struct rq_cm_id *rdma_cm_id_of_qp(const struct rq_cm_id_list *l, uint32_t qpn)
{
	struct rq_cm_id key = {.qpn = qpn};

	if (!qpn || !l->n)
		return NULL;
	return bsearch(&key, l->id, l->n, sizeof(*l->id), by_qpn);
}
