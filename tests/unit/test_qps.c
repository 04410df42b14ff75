// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/rdma/qps: hand-built QP dump messages (nests without NLA_F_NESTED, as nldev.c sends
 * them), mlx5 resource dumps in raw messages, the sim's JSON, the PID-namespace check in a
 * real new PID namespace. Cut buffers are copied to exact-size allocations for ASan.
 */
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pkg/rdma/qps.h"

#define T_RES_SUBTYPE 98 /* RDMA_NLDEV_ATTR_RES_SUBTYPE (uapi >= 6.10) */

/* A nest as the kernel's nla_nest_start_noflag makes it. */
static struct nlattr *nest(struct nl_msg *m, int type)
{
	struct nlattr *a = nla_nest_start(m, type);

	ck_assert_ptr_nonnull(a);
	a->nla_type &= (uint16_t)~NLA_F_NESTED;
	return a;
}

static struct nl_msg *qp_msg(int cmd)
{
	struct nl_msg *m = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), NLM_F_MULTI);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, 3), 0);
	ck_assert_int_eq(nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_2"), 0);
	return m;
}

struct qp_def {
	uint32_t qpn;
	int type, state; /* -1: left out */
	uint32_t pid;	 /* 0: left out */
	const char *kern, *subtype;
};

static void put_qp(struct nl_msg *m, const struct qp_def *d)
{
	struct nlattr *e = nest(m, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1), 0);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, d->qpn), 0);
	if (d->pid)
		ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_PID, d->pid), 0);
	if (d->kern)
		ck_assert_int_eq(nla_put_string(m, RDMA_NLDEV_ATTR_RES_KERN_NAME, d->kern), 0);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_SQ_PSN, 77), 0); /* not read */
	if (d->type >= 0)
		ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, (uint8_t)d->type), 0);
	if (d->state >= 0)
		ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_STATE, (uint8_t)d->state), 0);
	if (d->subtype) /* mlx5 puts the subtype and RES_TYPE DRIVER again */
		ck_assert_int_eq(nla_put_string(m, T_RES_SUBTYPE, d->subtype), 0);
	nla_nest_end(m, e);
}

static const struct qp_def qp_rc = {17, 2, 3, 4242, NULL, NULL};
static const struct qp_def qp_gsi = {1, 1, 3, 0, "ib_core", NULL};
static const struct qp_def qp_dci = {0x1234, 0xff, 1, 4242, NULL, "DCI"};

static struct nl_msg *three_qps(void)
{
	struct nl_msg *m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET);
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_QP);

	put_qp(m, &qp_rc);
	put_qp(m, &qp_gsi);
	put_qp(m, &qp_dci);
	nla_nest_end(m, t);
	return m;
}

static int parse(struct nl_msg *m, struct rq_qp_list *l)
{
	struct nlmsghdr *h = nlmsg_hdr(m);

	return rdma_qps_parse_msg(h, h->nlmsg_len, l);
}

START_TEST(msg_good)
{
	struct rq_qp_list l = {0};
	struct nl_msg *m = three_qps();

	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.qp[0].qpn, 17);
	ck_assert_str_eq(l.qp[0].type, "RC");
	ck_assert_str_eq(l.qp[0].state, "RTS");
	ck_assert_uint_eq(l.qp[0].pid, 4242);
	ck_assert_str_eq(l.qp[0].comm, "");
	ck_assert_int_eq(l.qp[0].tclass, -1);
	ck_assert_uint_eq(l.qp[1].qpn, 1);
	ck_assert_str_eq(l.qp[1].type, "GSI");
	ck_assert_uint_eq(l.qp[1].pid, 0);
	ck_assert_str_eq(l.qp[1].comm, "ib_core");
	ck_assert_uint_eq(l.qp[2].qpn, 0x1234);
	ck_assert_str_eq(l.qp[2].type, "DCI");
	ck_assert_str_eq(l.qp[2].state, "INIT");
	ck_assert(!l.has_ctx);
	/* the next message of the dump appends */
	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 6);
	ck_assert_uint_eq(l.qp[5].qpn, 0x1234);
	nlmsg_free(m);
	rdma_qps_free(&l);
	ck_assert(l.n == 0 && !l.qp);
	rdma_qps_free(NULL);
}
END_TEST

START_TEST(msg_names)
{
	static const struct qp_def defs[] = {
	    {5, 7, 9, 0, NULL, NULL},			  /* a reserved type, a state past ERR */
	    {6, 0xff, 6, 0, NULL, NULL},		  /* a driver QP without a subtype */
	    {7, 0xff, 2, 0, NULL, "A_VERY_LONG_SUBTYPE"}, /* one that does not fit */
	    {8, 0, 0, 0, "a_kernel_module_name_longer_than_32", NULL},
	    {9, 10, 4, 0, NULL, NULL},
	    {10, 8, 5, 1, NULL, "DCT"}, /* a subtype on a non-driver QP is not its type */
	};
	static const char *const want[][2] = {{"UNKNOWN", "UNKNOWN"}, {"DRIVER", "ERR"},
					      {"DRIVER", "RTR"},      {"SMI", "RESET"},
					      {"XRC_TGT", "SQD"},     {"RAW_PACKET", "SQE"}};
	struct rq_qp_list l = {0};
	struct nl_msg *m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET);
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_QP);

	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		put_qp(m, &defs[i]);
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 6);
	for (size_t i = 0; i < 6; i++) {
		ck_assert_str_eq(l.qp[i].type, want[i][0]);
		ck_assert_str_eq(l.qp[i].state, want[i][1]);
	}
	ck_assert_str_eq(l.qp[3].comm, "a_kernel_module_name_longer_tha");
	nlmsg_free(m);
	rdma_qps_free(&l);
}
END_TEST

/* @m's message with a bad entry: the list keeps only what it had. */
static void expect_bad(struct nl_msg *m, struct rq_qp_list *l)
{
	size_t n = l->n;

	ck_assert_int_eq(parse(m, l), -EBADMSG);
	ck_assert_uint_eq(l->n, n);
	nlmsg_free(m);
}

struct raw_attr {
	uint16_t type;
	int len;
	const char *data;
};

/* A good entry, then one of @n attributes: the message is refused whole. */
static void bad_entry(struct rq_qp_list *l, const struct raw_attr *a, size_t n)
{
	struct nl_msg *m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET);
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_QP), *e;

	put_qp(m, &qp_rc);
	e = nest(m, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(nla_put(m, a[i].type, a[i].len, a[i].data), 0);
	nla_nest_end(m, e);
	nla_nest_end(m, t);
	expect_bad(m, l);
}

#define BAD_ENTRY(l, ...)                                                                          \
	do {                                                                                       \
		const struct raw_attr a_[] = {__VA_ARGS__};                                        \
		bad_entry(l, a_, sizeof(a_) / sizeof(a_[0]));                                      \
	} while (0)
#define A_QPN                                                                                      \
	{                                                                                          \
		RDMA_NLDEV_ATTR_RES_LQPN, 4, "\143\0\0\0"                                          \
	}
#define A_TYPE                                                                                     \
	{                                                                                          \
		RDMA_NLDEV_ATTR_RES_TYPE, 1, "\2"                                                  \
	}
#define A_STATE                                                                                    \
	{                                                                                          \
		RDMA_NLDEV_ATTR_RES_STATE, 1, "\3"                                                 \
	}

START_TEST(msg_malformed)
{
	struct rq_qp_list l = {0};
	struct nl_msg *m;
	struct nlattr *t, *e;
	struct nlmsghdr *h;

	m = three_qps();
	ck_assert_int_eq(parse(m, &l), 0);
	nlmsg_free(m);
	/* an entry without its QPN, type or state */
	BAD_ENTRY(&l, A_TYPE, A_STATE);
	BAD_ENTRY(&l, A_QPN, A_STATE);
	BAD_ENTRY(&l, A_QPN, A_TYPE);
	/* a QPN of two bytes, a kernel name without its NUL, a state of none */
	BAD_ENTRY(&l, {RDMA_NLDEV_ATTR_RES_LQPN, 2, "\1\0"}, A_TYPE, A_STATE);
	BAD_ENTRY(&l, A_QPN, A_TYPE, A_STATE, {RDMA_NLDEV_ATTR_RES_KERN_NAME, 4, "rdma"});
	BAD_ENTRY(&l, A_QPN, A_TYPE, {RDMA_NLDEV_ATTR_RES_STATE, 0, ""});
	/* something other than an entry in the table */
	m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET);
	t = nest(m, RDMA_NLDEV_ATTR_RES_QP);
	put_qp(m, &qp_rc);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, 5), 0);
	nla_nest_end(m, t);
	expect_bad(m, &l);
	/* an entry whose header claims more than its table holds */
	m = three_qps();
	h = nlmsg_hdr(m);
	t = nlmsg_find_attr(h, 0, RDMA_NLDEV_ATTR_RES_QP);
	ck_assert_ptr_nonnull(t);
	e = nla_data(t);
	e->nla_len = (uint16_t)(nla_len(t) + 8);
	expect_bad(m, &l);
	/* a table whose last bytes are a cut attribute header */
	m = three_qps();
	h = nlmsg_hdr(m);
	t = nlmsg_find_attr(h, 0, RDMA_NLDEV_ATTR_RES_QP);
	t->nla_len = (uint16_t)(t->nla_len + 4);
	ck_assert_int_eq(nlmsg_append(m, "\10\0\0\0", 4, 0), 0);
	expect_bad(m, &l);
	/* a message with no table is a device without QPs */
	m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET);
	ck_assert_int_eq(parse(m, &l), 0);
	nlmsg_free(m);
	ck_assert_uint_eq(l.n, 3);
	rdma_qps_free(&l);
}
END_TEST

/* Every cut of the message, as the length and as nlmsg_len, in a buffer of exactly that size. */
START_TEST(msg_cut)
{
	struct nl_msg *m = three_qps();
	struct nlmsghdr *h = nlmsg_hdr(m);
	size_t full = h->nlmsg_len;
	struct rq_qp_list l = {0};
	int r;

	for (size_t k = 0; k < full; k++) {
		struct nlmsghdr *c = malloc(k ? k : 1);

		ck_assert_ptr_nonnull(c);
		memcpy(c, h, k);
		ck_assert_int_eq(rdma_qps_parse_msg(c, k, &l), -EBADMSG);
		if (k >= NLMSG_HDRLEN) {
			c->nlmsg_len = (uint32_t)k;
			r = rdma_qps_parse_msg(c, k, &l);
			ck_assert_msg(r == 0 || r == -EBADMSG, "cut at %zu: %d", k, r);
		}
		free(c);
	}
	/* only a cut that left no table behind parses, and it adds nothing */
	ck_assert_uint_eq(l.n, 0);
	nlmsg_free(m);
}
END_TEST

/* A hand-built mlx5 resource dump of QP @qpn (PRM_QUERY_QP) in @buf; its length. */
static size_t mlx5_dump(uint8_t *buf, uint32_t qpn, int state, int tclass, uint8_t status)
{
	size_t off = 0, res;
	uint8_t *out, *path;

	memset(buf, 0, 512);
	/* info segment 0xfffc: 4 dwords (dump_version, hw and fw versions) */
	buf[0] = 0, buf[1] = 4, buf[2] = 0xff, buf[3] = 0xfc;
	buf[7] = 1;
	off = 16;
	/* command segment 0xfffa: 5 dwords, the query as it was asked */
	buf[off + 1] = 5, buf[off + 2] = 0xff, buf[off + 3] = 0xfa;
	buf[off + 4] = 0, buf[off + 5] = 16; /* segment_called PRM_QUERY_QP */
	buf[off + 8] = (uint8_t)(qpn >> 24), buf[off + 9] = (uint8_t)(qpn >> 16);
	buf[off + 10] = (uint8_t)(qpn >> 8), buf[off + 11] = (uint8_t)qpn;
	off += 20;
	/* resource segment: header, reserved, index1 = qpn, index2, query_qp_out (0x18 + qpc 0x100)
	 */
	res = off;
	buf[res + 1] = (uint8_t)((16 + 0x118) / 4), buf[res + 2] = 0x00, buf[res + 3] = 0x10;
	buf[res + 8] = (uint8_t)(qpn >> 24), buf[res + 9] = (uint8_t)(qpn >> 16);
	buf[res + 10] = (uint8_t)(qpn >> 8), buf[res + 11] = (uint8_t)qpn;
	out = buf + res + 16;
	out[0] = status;
	out[0x18] = (uint8_t)(state << 4 | 0x3); /* lag_tx_port_affinity 3 beside it */
	path = out + 0x18 + 0x18;
	/* ads dword 0x0c: reserved 4 bits, tclass 8, flow_label 20 (set, to be masked off) */
	path[0x0c] = (uint8_t)(0xf0 | (tclass >> 4));
	path[0x0d] = (uint8_t)((tclass & 0xf) << 4 | 0xa);
	path[0x0e] = 0xbc, path[0x0f] = 0xde;
	path[0x08] = 0xff, path[0x10] = 0xff; /* hop_limit, the next dword's bytes */
	off += 16 + 0x118;
	/* terminate segment 0xfff9: its header alone */
	buf[off + 1] = 1, buf[off + 2] = 0xff, buf[off + 3] = 0xf9;
	return off + 4;
}

static int ctx(const uint8_t *buf, size_t len, uint32_t *qpn, int *state, int *tclass)
{
	uint8_t *c = malloc(len ? len : 1);
	int r;

	ck_assert_ptr_nonnull(c);
	memcpy(c, buf, len);
	r = rdma_qp_ctx_parse(c, len, qpn, state, tclass);
	free(c);
	return r;
}

START_TEST(ctx_good)
{
	uint8_t buf[512];
	uint32_t qpn = 0;
	int state = -1, tclass = -1;
	size_t n = mlx5_dump(buf, 0x1234, 3, 106, 0);

	ck_assert_int_eq(ctx(buf, n, &qpn, &state, &tclass), 0);
	ck_assert_uint_eq(qpn, 0x1234);
	ck_assert_int_eq(state, 3);
	ck_assert_int_eq(tclass, 106);
	n = mlx5_dump(buf, 17, 2, 0, 0);
	ck_assert_int_eq(ctx(buf, n, &qpn, &state, &tclass), 0);
	ck_assert_uint_eq(qpn, 17);
	ck_assert_int_eq(state, 2);
	ck_assert_int_eq(tclass, 0);
	n = mlx5_dump(buf, 0xffffff, 6, 255, 0);
	ck_assert_int_eq(ctx(buf, n, &qpn, &state, &tclass), 0);
	ck_assert_int_eq(tclass, 255);
	/* without the terminate segment (a dump that fills its buffer) */
	ck_assert_int_eq(ctx(buf, n - 4, &qpn, &state, &tclass), 0);
	/* the resource segment alone */
	ck_assert_int_eq(ctx(buf + 36, n - 36, &qpn, &state, &tclass), 0);
	ck_assert_uint_eq(qpn, 0xffffff);
}
END_TEST

/* Where mlx5_dump puts the primary path: the resource segment (36), its header (16), qpc, path */
#define T_PATH (36 + 16 + 0x18 + 0x18)

/* issue 50 item 3: the source GID index of the primary path, mlx5_ifc ads bit 0x48 */
START_TEST(ctx_sgid)
{
	uint8_t buf[512];
	uint32_t qpn = 0;
	int state = -1, tclass = -1, sgid = -1;
	size_t n = mlx5_dump(buf, 0x1234, 3, 106, 0);
	uint8_t *c;

	/* ack_timeout in the byte before it, log_rtm/stat_rate and hop_limit after: masked off */
	buf[T_PATH + 0x08] = 0xff;
	buf[T_PATH + 0x09] = 5;
	buf[T_PATH + 0x0a] = 0xff;
	buf[T_PATH + 0x0b] = 0x40;
	c = malloc(n);
	ck_assert_ptr_nonnull(c);
	memcpy(c, buf, n);
	ck_assert_int_eq(rdma_qp_ctx_parse_sgid(c, n, &qpn, &state, &tclass, &sgid), 0);
	ck_assert_uint_eq(qpn, 0x1234);
	ck_assert_int_eq(tclass, 106);
	ck_assert_int_eq(sgid, 5);
	c[T_PATH + 0x09] = 254;
	ck_assert_int_eq(rdma_qp_ctx_parse_sgid(c, n, &qpn, &state, &tclass, &sgid), 0);
	ck_assert_int_eq(sgid, 254);
	ck_assert_int_eq(tclass, 106);
	/* refused as rdma_qp_ctx_parse refuses: the output untouched */
	sgid = 7;
	ck_assert_int_eq(rdma_qp_ctx_parse_sgid(c, T_PATH + 0x0c, &qpn, &state, &tclass, &sgid),
			 -EBADMSG);
	ck_assert_int_eq(sgid, 7);
	free(c);
}
END_TEST

/* The dump of QP 0x1234 with @v at byte @at (and @v2 at @at2, when @at2) is refused. */
static void ctx_refused(size_t at, uint8_t v, size_t at2, uint8_t v2)
{
	uint8_t buf[512];
	uint32_t qpn = 7;
	int state = 7, tclass = 7;
	size_t n = mlx5_dump(buf, 0x1234, 3, 106, 0);

	buf[at] = v;
	if (at2)
		buf[at2] = v2;
	ck_assert_msg(ctx(buf, n, &qpn, &state, &tclass) == -EBADMSG, "byte %zu = %#x", at, v);
	ck_assert_uint_eq(qpn, 7);
	ck_assert_int_eq(state, 7);
	ck_assert_int_eq(tclass, 7);
}

START_TEST(ctx_bad)
{
	uint8_t buf[512];
	uint32_t qpn = 7;
	int state = 7, tclass = 7;
	size_t n = mlx5_dump(buf, 0x1234, 3, 106, 0);

	/* every cut short of the resource segment's end */
	for (size_t k = 0; k < n - 4; k++)
		ck_assert_int_eq(ctx(buf, k, &qpn, &state, &tclass), -EBADMSG);
	ck_assert_int_eq(rdma_qp_ctx_parse(NULL, 0, &qpn, &state, &tclass), -EBADMSG);
	ck_assert_uint_eq(qpn, 7);
	/* the firmware's status (query_qp_out byte 0): the query failed */
	ctx_refused(36 + 16, 0x05, 0, 0);
	/* an error segment in place of the command segment */
	ctx_refused(16 + 3, 0xfe, 0, 0);
	/* length_dw 0 (would never advance), in the first and in a later segment */
	ctx_refused(1, 0, 0, 0);
	ctx_refused(16 + 1, 0, 0, 0);
	/* a segment claiming more than is there */
	ctx_refused(36, 0x01, 0, 0);
	/* a resource segment too short to hold the path */
	ctx_refused(36 + 1, 4 + 0x18 / 4, 0, 0);
	/* control segments only (the resource segment made an info segment), then terminate */
	ctx_refused(36 + 2, 0xff, 36 + 3, 0xfc);
}
END_TEST

static void put_raw(struct nl_msg *m, const uint8_t *raw, size_t len)
{
	struct nlattr *e = nest(m, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

	ck_assert_int_eq(nla_put(m, RDMA_NLDEV_ATTR_RES_RAW, (int)len, raw), 0);
	nla_nest_end(m, e);
}

/* An entry with QP @qpn's resource dump (in RTS, class @tclass); @fail: an error segment in it. */
static void put_dump(struct nl_msg *m, uint32_t qpn, int tclass, bool fail)
{
	uint8_t buf[512];
	size_t n = mlx5_dump(buf, qpn, 3, tclass, 0);

	if (fail)
		buf[16 + 3] = 0xfe;
	put_raw(m, buf, n);
}

static int parse_raw(struct nl_msg *m, struct rq_qp_list *l)
{
	struct nlmsghdr *h = nlmsg_hdr(m);

	return rdma_qps_parse_raw_msg(h, h->nlmsg_len, l);
}

START_TEST(raw_match)
{
	struct rq_qp_list l = {0};
	struct nl_msg *m = three_qps(), *raw;
	struct nlattr *t;

	ck_assert_int_eq(parse(m, &l), 0);
	nlmsg_free(m);
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	put_dump(raw, 17, 106, false);
	put_dump(raw, 1, 0, false);
	put_dump(raw, 99, 96, false);	 /* a QP made after the QP dump */
	put_dump(raw, 0x1234, 96, true); /* its query failed: no class */
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), 0);
	ck_assert(l.has_ctx);
	ck_assert_int_eq(l.qp[0].tclass, 106);
	ck_assert_int_eq(l.qp[1].tclass, -1); /* GSI: the MAD layer's, not what it sends */
	ck_assert_int_eq(l.qp[2].tclass, -1);
	ck_assert_uint_eq(l.n, 3);
	nlmsg_free(raw);
	/* entries in another order than the list's */
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	put_dump(raw, 0x1234, 26, false);
	put_dump(raw, 17, 48, false);
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), 0);
	/* the DCI's dumped context is not what it sends with (each WQE's address vector) */
	ck_assert_int_eq(l.qp[2].tclass, -1);
	ck_assert_int_eq(l.qp[0].tclass, 48);
	nlmsg_free(raw);
	rdma_qps_free(&l);
}
END_TEST

/*
 * An entry as Linux >= 6.10 fills a driver QP (nldev.c fill_res_qp_entry_query,
 * then mlx5_ib's fill_res_qp_entry): RES_TYPE (u8)qp_type, RES_STATE, then
 * RES_SUBTYPE and RES_TYPE IB_QPT_DRIVER again.
 */
static void put_qp_mlx5(struct nl_msg *m, uint32_t qpn, uint8_t core_type, int state,
			const char *sub)
{
	struct nlattr *e = nest(m, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, qpn), 0);
	ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, core_type), 0);
	ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_STATE, (uint8_t)state), 0);
	if (sub) {
		ck_assert_int_eq(nla_put_string(m, T_RES_SUBTYPE, sub), 0);
		ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, 0xff), 0);
	}
	nla_nest_end(m, e);
}

/*
 * The driver's QPs and the responders (#37 item 5): names from the last RES_TYPE,
 * and a class from the raw dump only for the types that send with their context's.
 */
START_TEST(driver_qps)
{
	static const char *const want[][3] = {
	    {"RC", "RTR", "106"},   {"XRC_TGT", "RTR", "106"}, {"XRC_INI", "RTS", "106"},
	    {"UC", "RTS", "106"},   {"DCI", "RTS", "-1"},	   {"DCT", "RTR", "-1"},
	    {"REG_UMR", "RTS", "-1"}, {"UD", "RTS", "-1"},	   {"DRIVER", "RTS", "-1"}};
	struct rq_qp_list l = {0};
	struct nl_msg *m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET), *raw;
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_QP);

	put_qp_mlx5(m, 20, 2, 2, NULL);	   /* an RC responder in RTR */
	put_qp_mlx5(m, 21, 10, 2, NULL);   /* XRC_TGT */
	put_qp_mlx5(m, 22, 9, 3, NULL);	   /* XRC_INI */
	put_qp_mlx5(m, 23, 3, 3, NULL);	   /* UC */
	put_qp_mlx5(m, 24, 0xff, 3, "DCI"); /* mlx5's DCI: the core's type is IB_QPT_DRIVER */
	put_qp_mlx5(m, 25, 0xff, 2, "DCT");
	put_qp_mlx5(m, 26, 0x00, 3, "REG_UMR"); /* (u8)MLX5_IB_QPT_REG_UMR (0x1000) reads as SMI */
	put_qp_mlx5(m, 27, 4, 3, NULL);
	put_qp_mlx5(m, 28, 0xff, 3, NULL); /* Linux < 6.10: a DCI without its subtype */
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 9);
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	for (uint32_t q = 20; q <= 28; q++)
		put_dump(raw, q, 106, false);
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), 0);
	ck_assert(l.has_ctx);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_uint_eq(l.qp[i].qpn, 20 + i);
		ck_assert_str_eq(l.qp[i].type, want[i][0]);
		ck_assert_str_eq(l.qp[i].state, want[i][1]);
		ck_assert_int_eq(l.qp[i].tclass, atoi(want[i][2]));
		ck_assert(rdma_qp_ctx_class(l.qp[i].type) == (atoi(want[i][2]) >= 0));
	}
	ck_assert(!l.drv_hidden);
	nlmsg_free(raw);
	nlmsg_free(m);
	rdma_qps_free(&l);
}
END_TEST

/* issue 50 item 3: src_addr_index for the connected QPs only (a UD QP's and a DCI's are per send) */
START_TEST(raw_sgid)
{
	struct rq_qp_list l = {0};
	struct nl_msg *m = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET), *raw;
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_QP);
	uint8_t buf[512];

	put_qp_mlx5(m, 30, 2, 3, NULL);	    /* RC */
	put_qp_mlx5(m, 31, 4, 3, NULL);	    /* UD */
	put_qp_mlx5(m, 32, 9, 3, NULL);	    /* XRC_INI */
	put_qp_mlx5(m, 33, 0xff, 3, "DCI"); /* DC initiator */
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), 0);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_int_eq(l.qp[i].sgid_index, -1); /* no context dump yet */
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	for (uint32_t q = 30; q <= 33; q++) {
		size_t n = mlx5_dump(buf, q, 3, 106, 0);

		buf[T_PATH + 0x09] = (uint8_t)(q - 27); /* GID 3, 4, 5, 6 */
		put_raw(raw, buf, n);
	}
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), 0);
	ck_assert_int_eq(l.qp[0].sgid_index, 3);
	ck_assert_int_eq(l.qp[1].sgid_index, -1);
	ck_assert_int_eq(l.qp[2].sgid_index, 5);
	ck_assert_int_eq(l.qp[3].sgid_index, -1);
	nlmsg_free(raw);
	nlmsg_free(m);
	rdma_qps_free(&l);
}
END_TEST

START_TEST(raw_bad)
{
	struct rq_qp_list l = {0};
	struct nl_msg *m = three_qps(), *raw;
	struct nlattr *t, *e;
	uint8_t buf[512];
	size_t n = mlx5_dump(buf, 17, 3, 106, 0);

	ck_assert_int_eq(parse(m, &l), 0);
	nlmsg_free(m);
	/* no entry parses: the driver's dump says nothing, has_ctx stays false */
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	put_raw(raw, buf, n - 40);
	e = nest(raw, RDMA_NLDEV_ATTR_RES_QP_ENTRY); /* an entry without RES_RAW */
	nla_nest_end(raw, e);
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), 0);
	ck_assert(!l.has_ctx);
	ck_assert_int_eq(l.qp[0].tclass, -1);
	nlmsg_free(raw);
	/* a broken entry after a good one: nothing from the message is taken */
	raw = qp_msg(RDMA_NLDEV_CMD_RES_QP_GET_RAW);
	t = nest(raw, RDMA_NLDEV_ATTR_RES_QP);
	put_dump(raw, 17, 106, false);
	ck_assert_int_eq(nla_put_u32(raw, RDMA_NLDEV_ATTR_RES_LQPN, 17), 0); /* not an entry */
	e = nest(raw, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	ck_assert_int_eq(nla_put(raw, RDMA_NLDEV_ATTR_RES_LQPN, 1, "\1"), 0); /* a 1-byte u32 */
	nla_nest_end(raw, e);
	nla_nest_end(raw, t);
	ck_assert_int_eq(parse_raw(raw, &l), -EBADMSG);
	ck_assert(!l.has_ctx);
	ck_assert_int_eq(l.qp[0].tclass, -1);
	t = nlmsg_find_attr(nlmsg_hdr(raw), 0, RDMA_NLDEV_ATTR_RES_QP);
	e = nla_next(nla_data(t), &(int){nla_len(t)});
	e->nla_type = RDMA_NLDEV_ATTR_RES_QP_ENTRY; /* the bare u32 made an entry: 4 bytes that are
						       no attribute */
	ck_assert_int_eq(parse_raw(raw, &l), -EBADMSG);
	ck_assert_int_eq(l.qp[0].tclass, -1);
	/* every cut of it, in a buffer of exactly that size */
	for (size_t k = NLMSG_HDRLEN; k < nlmsg_hdr(raw)->nlmsg_len; k++) {
		struct nlmsghdr *c = malloc(k);
		int r;

		ck_assert_ptr_nonnull(c);
		memcpy(c, nlmsg_hdr(raw), k);
		c->nlmsg_len = (uint32_t)k;
		r = rdma_qps_parse_raw_msg(c, k, &l);
		ck_assert_msg(r == 0 || r == -EBADMSG, "cut at %zu: %d", k, r);
		ck_assert_int_eq(rdma_qps_parse_raw_msg(c, k - 1, &l), -EBADMSG);
		free(c);
	}
	ck_assert_int_eq(l.qp[1].tclass, -1);
	ck_assert_int_eq(l.qp[2].tclass, -1);
	nlmsg_free(raw);
	rdma_qps_free(&l);
}
END_TEST

static int json(const char *s, struct rq_qp_list *l)
{
	return rdma_qps_parse_json(s, strlen(s), l);
}

START_TEST(json_good)
{
	struct rq_qp_list l = {0};

	ck_assert_int_eq(json("[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"pid\": 4242, "
			      "\"comm\": \"python3\", \"tclass\": 106},"
			      " {\"qpn\": 1, \"type\": \"GSI\", \"state\": \"RTS\"},"
			      " {\"qpn\": 16777215, \"type\": \"RAW_PACKET\", \"state\": \"ERR\","
			      " \"tclass\": 0, \"extra\": [1]}]",
			      &l),
			 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert(l.has_ctx);
	ck_assert_uint_eq(l.qp[0].qpn, 17);
	ck_assert_str_eq(l.qp[0].type, "RC");
	ck_assert_str_eq(l.qp[0].state, "RTS");
	ck_assert_uint_eq(l.qp[0].pid, 4242);
	ck_assert_str_eq(l.qp[0].comm, "python3");
	ck_assert_int_eq(l.qp[0].tclass, 106);
	ck_assert_uint_eq(l.qp[1].pid, 0);
	ck_assert_str_eq(l.qp[1].comm, "");
	ck_assert_int_eq(l.qp[1].tclass, -1);
	ck_assert_uint_eq(l.qp[2].qpn, 0xffffff);
	ck_assert_int_eq(l.qp[2].tclass, 0);
	rdma_qps_free(&l);
	/* no tclass anywhere: no context dump */
	ck_assert_int_eq(json("[{\"qpn\": 0, \"type\": \"SMI\", \"state\": \"INIT\"}]", &l), 0);
	ck_assert(!l.has_ctx);
	ck_assert_uint_eq(l.n, 1);
	rdma_qps_free(&l);
	ck_assert_int_eq(json("[]", &l), 0);
	ck_assert_uint_eq(l.n, 0);
	rdma_qps_free(&l);
	/* issue 50: the source GID index of a shared device's QP, beside its class */
	ck_assert_int_eq(json("[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": 0, "
			      "\"sgid_index\": 255}, {\"qpn\": 18, \"type\": \"RC\", \"state\": \"RTS\"}]",
			      &l),
			 0);
	ck_assert_int_eq(l.qp[0].sgid_index, 255);
	ck_assert_int_eq(l.qp[1].sgid_index, -1);
	rdma_qps_free(&l);
	ck_assert_int_eq(json("[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"sgid_index\": 256}]", &l),
			 -EINVAL);
	ck_assert_int_eq(json("[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"sgid_index\": -1}]", &l),
			 -EINVAL);
}
END_TEST

START_TEST(json_bad)
{
	static const char *const bad[] = {
	    "",
	    "{}",
	    "[1]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\"}",
	    "[{\"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": \"17\", \"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": -1, \"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 1.5, \"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 16777216, \"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 1e999, \"type\": \"RC\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 17, \"state\": \"RTS\"}]",
	    "[{\"qpn\": 17, \"type\": \"RC\"}]",
	    "[{\"qpn\": 17, \"type\": 2, \"state\": \"RTS\"}]",
	    "[{\"qpn\": 17, \"type\": \"\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 17, \"type\": \"RAW_ETHERTYPE\", \"state\": \"RTS\"}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"SQ_DRAINING\"}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"pid\": -1}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"pid\": \"4242\"}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"pid\": 99999999999}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"comm\": 5}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", "
	    "\"comm\": \"a_name_of_thirty_two_characters_\"}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": 256}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": -1}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": 10.5}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": null}]",
	    "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": 106}, 7]",
	};
	struct rq_qp_list l = {0};
	const char *good = "[{\"qpn\": 17, \"type\": \"RC\", \"state\": \"RTS\", \"tclass\": 106}]";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(json(bad[i], &l) == -EINVAL, "accepted: %s", bad[i]);
	ck_assert(l.n == 0 && !l.qp);
	/* the text is read to @len only */
	ck_assert_int_eq(rdma_qps_parse_json(good, strlen(good) - 1, &l), -EINVAL);
	ck_assert_int_eq(rdma_qps_parse_json(good, strlen(good), &l), 0);
	ck_assert_uint_eq(l.n, 1);
	rdma_qps_free(&l);
}
END_TEST

/* In this PID namespace: what the inode says; in a new one (a forked child): false. */
START_TEST(host_pidns)
{
	struct stat st;
	int status;
	pid_t pid;

	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	ck_assert(rdma_qps_host_pidns() == (st.st_ino == 0xEFFFFFFCu));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWPID) < 0)
			_exit(2);
		pid = fork(); /* the first child of unshare(CLONE_NEWPID) is in the new namespace */
		if (pid < 0)
			_exit(3);
		if (pid == 0)
			_exit(rdma_qps_host_pidns() ? 1 : 0);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			_exit(4);
		_exit(WEXITSTATUS(status));
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) == 0, "new PID ns: exit %d", WEXITSTATUS(status));
}
END_TEST

/* The live dump: this machine may have no RDMA device, or no RDMA netlink at all. */
START_TEST(dump_no_device)
{
	struct rq_qp_list l = {.n = 5};
	int r = rdma_qps_dump("rq-no-such-dev", &l);

	ck_assert_msg(r == -ENODEV || r == -EPROTONOSUPPORT,
		      "expected -ENODEV (or -EPROTONOSUPPORT without ib_core), got %d", r);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_int_eq(rdma_qps_dump("", &l), r == -EPROTONOSUPPORT ? r : -ENODEV);
}
END_TEST

/* Growth keeps what was added: every QP's number survives the reallocations. */
START_TEST(add_grows)
{
	struct rq_qp_list l = {0};
	struct rq_qp *q;

	for (uint32_t i = 0; i < 1000; i++) {
		ck_assert_ptr_nonnull(q = rdma_qps_add(&l));
		ck_assert(q->tclass == -1 && !q->type[0] && !q->pid);
		q->qpn = i;
	}
	ck_assert(l.n == 1000 && l.cap >= 1000);
	for (uint32_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(l.qp[i].qpn, i);
	rdma_qps_free(&l);
}
END_TEST

Suite *suite_qps(void);
Suite *suite_qps(void)
{
	Suite *s = suite_create("qps");
	TCase *nl = tcase_create("netlink");
	TCase *c = tcase_create("mlx5_ctx");
	TCase *j = tcase_create("json");

	tcase_add_test(nl, msg_good);
	tcase_add_test(nl, msg_names);
	tcase_add_test(nl, msg_malformed);
	tcase_add_test(nl, msg_cut);
	tcase_add_test(nl, raw_match);
	tcase_add_test(nl, raw_bad);
	tcase_add_test(nl, driver_qps);
	tcase_add_test(nl, raw_sgid);
	tcase_add_test(nl, dump_no_device);
	tcase_add_test(nl, add_grows);
	suite_add_tcase(s, nl);
	tcase_add_test(c, ctx_good);
	tcase_add_test(c, ctx_bad);
	tcase_add_test(c, ctx_sgid);
	suite_add_tcase(s, c);
	tcase_add_test(j, json_good);
	tcase_add_test(j, json_bad);
	tcase_add_test(j, host_pidns);
	suite_add_tcase(s, j);
	return s;
}
