// SPDX-License-Identifier: Apache-2.0
/*
 * The QP census (qps.h): RDMA netlink's restrack QP dump, mlx5's raw QP
 * context dump for each QP's traffic class, the simulated node's JSON, and
 * the PID-namespace check that says whether the census can see every pod.
 */
#include "pkg/rdma/qps.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pkg/nlparse/nlparse.h"
#include "pkg/rdma/rdma_nl.h"

/*
 * RDMA_NLDEV_ATTR_RES_SUBTYPE (uapi since Linux 6.10: after
 * PRIVILEGED_QKEY_MODE 96 and DRIVER_DETAILS 97). An enum constant cannot
 * be tested with #ifdef, and Debian 12's linux-libc-dev (6.1) lacks it.
 */
#define RQ_NLDEV_ATTR_RES_SUBTYPE 98
/* include/linux/proc_ns.h */
#define RQ_PROC_PID_INIT_INO 0xEFFFFFFCu
/* ib_qp_type's IB_QPT_DRIVER: the driver's own QP kinds, named by RES_SUBTYPE */
#define RQ_QPT_DRIVER 0xff

/*
 * mlx5 resource dump (mlx5_ifc.h resource_dump_*_segment; rsc_dump.c):
 * segments of a be16 length_dw and a be16 segment_type; 0xfff0 and above
 * are control segments (menu, error, notice, info, reference, command,
 * terminate).
 */
#define SEG_HDR	       4
#define SEG_CONTROL    0xfff0
#define SEG_ERROR      0xfffe
#define SEG_TERMINATE  0xfff9
#define RES_SEG_INDEX1 8 /* header, 4 reserved bytes, be32 index1, be32 index2, payload */
#define RES_SEG_HDR    16
/* mlx5_ifc query_qp_out: status u8 at 0, the qpc at 0x18; qpc: state in the top 4 bits of
 * byte 0, primary_address_path (ads) at 0x18; ads: tclass at bit 0x64 (dword 0x0c, bits 27..20),
 * src_addr_index at bit 0x48 (byte 0x09) */
#define QUERY_QP_QPC  0x18
#define QPC_PRI_PATH  0x18
#define ADS_TCLASS_DW 0x0c
#define ADS_SGID      0x09
#define QUERY_QP_NEED (QUERY_QP_QPC + QPC_PRI_PATH + ADS_TCLASS_DW + 4)

static const char *const qp_types[] = {
    "SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6",
    /* IB_QPT_RAW_ETHERTYPE: the full name does not fit rq_qp.type; no driver creates one */
    "RAW_ETHTYPE", NULL, "RAW_PACKET", "XRC_INI", "XRC_TGT"};
static const char *const qp_states[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};

void rdma_qps_free(struct rq_qp_list *l)
{
	if (!l)
		return;
	free(l->qp);
	l->qp = NULL;
	l->n = l->cap = 0;
	l->has_ctx = false;
	l->drv_hidden = false;
}

struct rq_qp *rdma_qps_add(struct rq_qp_list *l)
{
	struct rq_qp *q;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		if (cap > SIZE_MAX / sizeof(*q))
			return NULL;
		q = realloc(l->qp, cap * sizeof(*q));
		if (!q)
			return NULL;
		l->qp = q;
		l->cap = cap;
	}
	q = &l->qp[l->n++];
	memset(q, 0, sizeof(*q));
	q->tclass = -1;
	q->sgid_index = -1;
	return q;
}

static uint16_t be16_at(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t be32_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* The resource segment's payload: QUERY_QP's output. */
static int ctx_resource(const uint8_t *seg, size_t seg_len, uint32_t *ret_qpn, int *ret_state,
			int *ret_tclass, int *ret_sgid)
{
	const uint8_t *out = seg + RES_SEG_HDR, *qpc, *path;

	if (seg_len < RES_SEG_HDR + QUERY_QP_NEED)
		return -EBADMSG;
	if (out[0] != 0) /* the command's status: the firmware refused the query */
		return -EBADMSG;
	qpc = out + QUERY_QP_QPC;
	path = qpc + QPC_PRI_PATH;
	*ret_qpn = be32_at(seg + RES_SEG_INDEX1);
	*ret_state = qpc[0] >> 4;
	*ret_tclass = (int)((be32_at(path + ADS_TCLASS_DW) >> 20) & 0xff);
	*ret_sgid = path[ADS_SGID];
	return 0;
}

int rdma_qp_ctx_parse(const void *raw, size_t len, uint32_t *ret_qpn, int *ret_state,
		      int *ret_tclass)
{
	int sgid;

	return rdma_qp_ctx_parse_sgid(raw, len, ret_qpn, ret_state, ret_tclass, &sgid);
}

int rdma_qp_ctx_parse_sgid(const void *raw, size_t len, uint32_t *ret_qpn, int *ret_state,
			   int *ret_tclass, int *ret_sgid)
{
	const uint8_t *p = raw;
	size_t off = 0, seg_len;
	uint16_t type;

	while (p && len - off >= SEG_HDR) {
		seg_len = (size_t)be16_at(p + off) * 4;
		type = be16_at(p + off + 2);
		/* length_dw counts the header: 0 would never advance */
		if (seg_len < SEG_HDR || seg_len > len - off || type == SEG_ERROR)
			return -EBADMSG;
		if (type == SEG_TERMINATE)
			break;
		if (type < SEG_CONTROL)
			return ctx_resource(p + off, seg_len, ret_qpn, ret_state, ret_tclass,
					    ret_sgid);
		off += seg_len;
	}
	return -EBADMSG; /* no resource segment */
}

/* QP entry attributes (nldev.c fill_res_qp_entry, fill_res_name_pid; mlx5 restrack.c) */
static const struct nla_policy entry_policy[RQ_NLDEV_ATTR_RES_SUBTYPE + 1] = {
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_LQPN] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_TYPE] = {.type = NLA_U8},
    [RDMA_NLDEV_ATTR_RES_STATE] = {.type = NLA_U8},
    [RDMA_NLDEV_ATTR_RES_PID] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_RES_KERN_NAME] = {.type = NLA_STRING},
    [RDMA_NLDEV_ATTR_RES_RAW] = {.type = NLA_UNSPEC},
    [RQ_NLDEV_ATTR_RES_SUBTYPE] = {.type = NLA_STRING},
};

/* The message's RDMA_NLDEV_ATTR_RES_QP nest, checked to hold whole attributes; NULL: none. */
static int qp_table(const struct nlmsghdr *nlh, size_t len, struct nlattr **ret)
{
	static const struct nla_policy pol[RDMA_NLDEV_ATTR_RES_QP + 1] = {
	    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
	    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_RES_QP + 1];
	int r = nlparse_msg(nlh, len, 0, tb, RDMA_NLDEV_ATTR_RES_QP, pol);

	if (r < 0)
		return r;
	*ret = tb[RDMA_NLDEV_ATTR_RES_QP];
	return *ret ? nlparse_nested(*ret, NULL, 0, NULL) : 0;
}

static void name_copy(char *dst, size_t n, const char *what, const char *fallback)
{
	if (what && what[0] && strlen(what) < n)
		memcpy(dst, what, strlen(what) + 1);
	else
		memcpy(dst, fallback, strlen(fallback) + 1);
}

static int qp_entry(struct nlattr *e, struct rq_qp_list *l)
{
	struct nlattr *tb[RQ_NLDEV_ATTR_RES_SUBTYPE + 1];
	struct rq_qp *q;
	unsigned int t, s;
	const char *name;

	if (nlparse_nested(e, tb, RQ_NLDEV_ATTR_RES_SUBTYPE, entry_policy) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_RES_LQPN] || !tb[RDMA_NLDEV_ATTR_RES_TYPE] ||
	    !tb[RDMA_NLDEV_ATTR_RES_STATE])
		return -EBADMSG;
	q = rdma_qps_add(l);
	if (!q)
		return -ENOMEM;
	q->qpn = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	t = nla_get_u8(tb[RDMA_NLDEV_ATTR_RES_TYPE]);
	s = nla_get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]);
	/*
	 * A driver QP: mlx5_ib's fill_res_qp_entry (Linux >= 6.10) adds
	 * RES_SUBTYPE and a second RES_TYPE of IB_QPT_DRIVER after the core's
	 * (the core's is (u8)qp_type: REG_UMR's 0x1000 reads as 0); the last
	 * one counts, as in the kernel's nla_parse. Before 6.10 a DCI was
	 * listed as type 0xff without a subtype: "DRIVER". A name too long
	 * stays DRIVER.
	 */
	if (t == RQ_QPT_DRIVER)
		name_copy(q->type, sizeof(q->type),
			  tb[RQ_NLDEV_ATTR_RES_SUBTYPE]
			      ? nla_get_string(tb[RQ_NLDEV_ATTR_RES_SUBTYPE])
			      : NULL,
			  "DRIVER");
	else
		name_copy(q->type, sizeof(q->type),
			  t < sizeof(qp_types) / sizeof(qp_types[0]) ? qp_types[t] : NULL,
			  "UNKNOWN");
	name_copy(q->state, sizeof(q->state),
		  s < sizeof(qp_states) / sizeof(qp_states[0]) ? qp_states[s] : NULL, "UNKNOWN");
	if (tb[RDMA_NLDEV_ATTR_RES_PID])
		q->pid = nla_get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);
	if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]) {
		/* a module name, shown as it is: cut to fit rather than lose the QP */
		name = nla_get_string(tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]);
		(void)snprintf(q->comm, sizeof(q->comm), "%s", name);
	}
	return 0;
}

int rdma_qps_parse_msg(const struct nlmsghdr *nlh, size_t len, struct rq_qp_list *l)
{
	struct nlattr *table, *e;
	size_t n0 = l->n;
	int rem, r = qp_table(nlh, len, &table);

	if (r < 0 || !table)
		return r;
	nla_for_each_nested(e, table, rem)
	{
		r = nla_type(e) == RDMA_NLDEV_ATTR_RES_QP_ENTRY ? qp_entry(e, l) : -EBADMSG;
		if (r < 0) {
			l->n = n0; /* all of the message or none of it */
			return r;
		}
	}
	return 0;
}

/* The QP numbered @qpn, searched from @from on (the raw dump lists QPs in the QP dump's order). */
static struct rq_qp *qp_find(struct rq_qp_list *l, uint32_t qpn, size_t *from)
{
	for (size_t k = 0; k < l->n; k++) {
		size_t i = (*from + k) % l->n;

		if (l->qp[i].qpn == qpn) {
			*from = i + 1;
			return &l->qp[i];
		}
	}
	return NULL;
}

bool rdma_qp_ctx_class(const char *type)
{
	/* by the first byte: asked of every QP at each census (the judge, the attribution) */
	switch (type[0]) {
	case 'R':
	case 'U':
		return type[1] == 'C' && !type[2];
	case 'X':
		return !strcmp(type, "XRC_INI") || !strcmp(type, "XRC_TGT");
	default:
		return false;
	}
}

int rdma_qps_parse_raw_msg(const struct nlmsghdr *nlh, size_t len, struct rq_qp_list *l)
{
	struct nlattr *table, *e, *tb[RQ_NLDEV_ATTR_RES_SUBTYPE + 1];
	struct rq_qp *q;
	size_t from = 0;
	uint32_t qpn;
	int rem, state, tclass, sgid, r = qp_table(nlh, len, &table);

	if (r < 0 || !table)
		return r;
	/* the whole message is checked before any QP takes a class from it */
	nla_for_each_nested(e, table, rem)
	{
		if (nla_type(e) != RDMA_NLDEV_ATTR_RES_QP_ENTRY ||
		    nlparse_nested(e, tb, RQ_NLDEV_ATTR_RES_SUBTYPE, entry_policy) < 0)
			return -EBADMSG;
	}
	nla_for_each_nested(e, table, rem)
	{
		(void)nlparse_nested(e, tb, RQ_NLDEV_ATTR_RES_SUBTYPE, entry_policy);
		if (!tb[RDMA_NLDEV_ATTR_RES_RAW] ||
		    rdma_qp_ctx_parse_sgid(nla_data(tb[RDMA_NLDEV_ATTR_RES_RAW]),
					   (size_t)nla_len(tb[RDMA_NLDEV_ATTR_RES_RAW]), &qpn,
					   &state, &tclass, &sgid) < 0)
			continue;
		l->has_ctx = true;
		q = qp_find(l, qpn, &from);
		/* a UD QP's or a DCI's source GID is per send (address handle, WQE): none here */
		if (q && rdma_qp_ctx_class(q->type)) {
			q->tclass = tclass;
			q->sgid_index = sgid;
		}
	}
	return 0;
}

static int dump_qps(const struct nlmsghdr *h, size_t len, void *arg)
{
	return rdma_qps_parse_msg(h, len, arg);
}

static int dump_raw(const struct nlmsghdr *h, size_t len, void *arg)
{
	return rdma_qps_parse_raw_msg(h, len, arg);
}

static void ctx_forget(struct rq_qp_list *l)
{
	l->has_ctx = false;
	for (size_t i = 0; i < l->n; i++)
		l->qp[i].tclass = l->qp[i].sgid_index = -1;
}

/* An error the kernel may answer because of the driver QPs asked for: not ours, not a timeout */
static bool retry_plain(int r)
{
	return r < 0 && r != -ENOMEM && r != -EBADMSG && r != -ETIMEDOUT;
}

/* RES_QP_GET with the driver's QPs, else without them (drv_hidden) */
static int dump_list(struct nl_sock *sk, uint32_t idx, struct rq_qp_list *l)
{
	int r = rdma_nl_dump_details(sk, RDMA_NLDEV_CMD_RES_QP_GET, (int)idx, dump_qps, l);

	if (!retry_plain(r))
		return r;
	/*
	 * The dump stops at the first QP whose fill fails: mlx5_ib's query of
	 * a DCT answers -EINVAL until the DCT is in RTR (mlx5_ib_dct_query_qp),
	 * and a DCT's restrack entry is listed only with the driver's QPs (on
	 * kernels that track DCTs at all: a 2026 mlx5 patch stops it, and the
	 * DCI stays what shows a DC pod). The other QPs can still be listed:
	 * without them, saying so.
	 */
	rdma_qps_free(l);
	r = rdma_nl_dump(sk, RDMA_NLDEV_CMD_RES_QP_GET, (int)idx, dump_qps, l);
	l->drv_hidden = r == 0;
	return r;
}

/*
 * The contexts are a second dump: the kernel has no QP dump with both.
 * Drivers without .fill_res_qp_entry_raw answer -EINVAL (nldev.c) or
 * -EOPNOTSUPP, a caller without CAP_NET_ADMIN -EPERM, a firmware query may
 * fail: the census stands without classes then, and a dump cut short leaves
 * none of them (no class for some QPs only). A raw dump that fails with the
 * driver's QPs (their firmware query) is asked again without them, for the
 * other QPs' classes; so is it when the QPs were listed without them.
 */
static void dump_ctx(struct nl_sock *sk, uint32_t idx, struct rq_qp_list *l)
{
	int r = -EINVAL;

	if (!l->drv_hidden)
		r = rdma_nl_dump_details(sk, RDMA_NLDEV_CMD_RES_QP_GET_RAW, (int)idx, dump_raw, l);
	if (retry_plain(r)) {
		ctx_forget(l);
		r = rdma_nl_dump(sk, RDMA_NLDEV_CMD_RES_QP_GET_RAW, (int)idx, dump_raw, l);
	}
	if (r < 0)
		ctx_forget(l);
}

int rdma_qps_dump(const char *dev, struct rq_qp_list *ret)
{
	struct rq_qp_list l = {0};
	struct nl_sock *sk = NULL;
	uint32_t idx;
	int r;

	r = rdma_nl_open(&sk);
	if (r < 0)
		return r;
	r = rdma_nl_dev_index(sk, dev, &idx);
	if (r == 0)
		r = dump_list(sk, idx, &l);
	if (r == 0)
		dump_ctx(sk, idx, &l);
	nl_socket_free(sk);
	if (r < 0) {
		rdma_qps_free(&l);
		return r == -EINVAL ? -ENODEV : r; /* the device went between the two dumps */
	}
	*ret = l;
	return 0;
}

bool rdma_qps_host_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == RQ_PROC_PID_INIT_INO;
}
