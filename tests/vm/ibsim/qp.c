// SPDX-License-Identifier: GPL-2.0
/*
 * ibsim's QPs (see dev.c for the device).
 *
 * QPs for the RDMA netlink census (restrack): every QP keeps the state,
 * port and address vector the core's modify_qp gave it, .query_qp returns
 * them (nldev's QP dump calls ib_query_qp for each QP and fails without
 * it), and .fill_res_qp_entry_raw answers RDMA_NLDEV_CMD_RES_QP_GET_RAW as
 * mlx5_ib does (hw/mlx5/restrack.c): RDMA_NLDEV_ATTR_RES_RAW holding a
 * resource dump of segments { be16 length_dw, be16 type }: info (0xfffc),
 * command (0xfffa), one resource segment (index1 = the QPN) whose payload is
 * QUERY_QP's output (mlx5_ifc query_qp_out: qpc state, st, mtu, remote_qpn,
 * primary_address_path with grh, src_addr_index, hop_limit, tclass,
 * flow_label, rgid), terminate (0xfff9). The resource segment's type is
 * firmware's, learnt from its menu; ibsim uses 0x1000 (any value below the
 * control types). ibsim has no userspace provider, so user QPs are refused;
 * kernel RC QPs come from debugfs instead:
 * `echo "rc 106" > /sys/kernel/debug/ibsim/qp` creates one on ibsim's own
 * PD and CQ and moves it RESET->INIT->RTR->RTS through ib_modify_qp with a
 * RoCE GRH address vector whose traffic_class is 106 (the first valid GID
 * of port 1 as the source), so the class takes the driver's modify path
 * and comes back through query_qp and the raw dump; "rc 0 rtr" stops at
 * RTR (a responder); "del <qpn>" destroys one, "clear" all; reading lists
 * "<qpn> <state> tclass <n> <type>".
 *
 * Driver QPs as mlx5_ib makes them (hw/mlx5/qp.c, restrack.c): "dci <tclass>"
 * and "dct <tclass> [init]" create QPs of ib_qp_type IB_QPT_DRIVER, which the
 * core's rdma_restrack_add marks RESTRACK_DD, so nldev lists them only to a
 * dump that carries RDMA_NLDEV_ATTR_DRIVER_DETAILS (Linux >= 6.10: the core
 * does the hiding, not ibsim); .fill_res_qp_entry adds RES_SUBTYPE "DCI" or
 * "DCT" and a second RES_TYPE IB_QPT_DRIVER, as mlx5_ib's. A DCI connects
 * RESET->INIT->RTR->RTS like the RC QPs; a DCT goes RESET->INIT->RTR (or stops
 * in INIT), has QPN 0 until INIT->RTR (mlx5 creates the firmware DCT, and
 * its number, there: restrack tracks only the first DCT, at id 0) and its
 * query fails with -EINVAL outside RTR (mlx5_ib_dct_query_qp), which fails
 * nldev's whole QP dump. The raw dump of a DCI is a qpc of service type DCI
 * (5); of a DCT an error segment (mlx5_ib asks QUERY_QP at the DCT's number:
 * there is no QP there).
 *
 * Shared mode (issue 50: pods reach the device through macvlans on its
 * netdev, and the core's GID table has an entry for each pod's address):
 * "src=<ip>" makes the port's RoCE v2 entry for that address the AV's
 * source GID (-ENOENT when the table has none), so the raw dump's
 * src_addr_index (mlx5_ifc ads, byte 9 of the primary path) names the pod;
 * "rc <tclass> src=<ip> cm" makes the QP through a kernel RDMA-CM id
 * created in the writer's netns (`nsenter --net=<pod netns>`) and bound to
 * the address: the core attaches the id to ibsim (the device whose entry
 * for the address has the address's netdev), lists it in the restrack
 * cm_id dump (`rdma res show cm_id`: src-addr, the QP's number as lqpn,
 * kern-name ibsim), and rdma_create_qp makes the QP. Reading lists
 * " sgid <n>" after a QP's type once it has an AV, and " cm <ip>" for an
 * RDMA-CM id's QP. "user" lists the QP as the writer's, as a process's QP
 * made through uverbs is: restrack's owner is the writing task (its pid in
 * the dump, no kern-name), which must live on (`sh -c "echo ... > qp; exec
 * sleep ..."`): nldev hides a user entry whose task's PID namespace is gone.
 * A QP the kernel makes for itself is no pod's (the census never counts it).
 */
#include <linux/inet.h>
#include <linux/sched/task.h>
#include <linux/unaligned.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <uapi/rdma/rdma_netlink.h>

#include "ibsim.h"

static atomic_t next_qpn = ATOMIC_INIT(16);

static bool is_dct(const struct sim_qp *q)
{
	return q->sub && !strcmp(q->sub, "DCT");
}

/* kernel QPs only (the MAD layer's GSI QP, debugfs's QPs): no provider for user QPs */
int sim_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);

	if (udata || init->qp_type == IB_QPT_SMI)
		return -EOPNOTSUPP;
	/* a driver QP only from debugfs, which names its kind under qp_lock */
	if (init->qp_type == IB_QPT_DRIVER && !sim->qp_sub)
		return -EOPNOTSUPP;
	spin_lock_init(&q->lock);
	q->state = IB_QPS_RESET;
	q->cap = init->cap;
	q->sub = init->qp_type == IB_QPT_DRIVER ? sim->qp_sub : NULL;
	if (is_dct(q))
		qp->qp_num = 0; /* until INIT->RTR, as mlx5's DCT */
	else
		qp->qp_num = init->qp_type == IB_QPT_GSI ? 1 : atomic_inc_return(&next_qpn);
	return 0;
}

/* mlx5_ib_modify_dct: RESET->INIT, INIT->RTR, anything to RESET or ERR */
static bool dct_modify_ok(enum ib_qp_state cur, enum ib_qp_state next)
{
	return (cur == IB_QPS_RESET && next == IB_QPS_INIT) ||
	       (cur == IB_QPS_INIT && next == IB_QPS_RTR) || next == IB_QPS_RESET ||
	       next == IB_QPS_ERR;
}

int sim_fill_qp_entry(struct sk_buff *msg, struct ib_qp *qp)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);

	if (!q->sub)
		return 0;
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUBTYPE, q->sub))
		return -EMSGSIZE;
	return nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, IB_QPT_DRIVER);
}

/* the transitions a driver accepts (mlx5 checks them with the same table) */
int sim_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);
	enum ib_qp_state cur;

	spin_lock(&q->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : q->state;
	/* the core's table knows no driver type: mlx5 checks its DC QPs itself */
	if (mask & IB_QP_STATE &&
	    (qp->qp_type == IB_QPT_DRIVER
		 ? is_dct(q) && !dct_modify_ok(cur, attr->qp_state)
		 : !ib_modify_qp_is_ok(cur, attr->qp_state, qp->qp_type, mask))) {
		spin_unlock(&q->lock);
		return -EINVAL;
	}
	if (mask & IB_QP_STATE && is_dct(q) && cur == IB_QPS_INIT && attr->qp_state == IB_QPS_RTR)
		qp->qp_num = atomic_inc_return(&next_qpn);
	if (mask & IB_QP_STATE) {
		q->state = attr->qp_state;
		if (q->state == IB_QPS_RESET)
			q->has_av = false;
	}
	if (mask & IB_QP_PORT)
		q->port = attr->port_num;
	if (mask & IB_QP_AV) {
		q->ah = attr->ah_attr;
		q->ah.grh.sgid_attr = NULL;
		q->has_av = true;
	}
	if (mask & IB_QP_DEST_QPN)
		q->dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		q->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		q->sq_psn = attr->sq_psn;
	if (mask & IB_QP_PATH_MTU)
		q->mtu = attr->path_mtu;
	if (mask & IB_QP_ACCESS_FLAGS)
		q->access = attr->qp_access_flags;
	spin_unlock(&q->lock);
	return 0;
}

/* ib_query_qp has cleared the sgid_attr pointers; the AV is returned without one */
int sim_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, struct ib_qp_init_attr *init)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock(&q->lock);
	if (is_dct(q) && q->state != IB_QPS_RTR) { /* mlx5_ib_dct_query_qp */
		spin_unlock(&q->lock);
		return -EINVAL;
	}
	attr->qp_state = attr->cur_qp_state = q->state;
	attr->port_num = q->port;
	attr->dest_qp_num = q->dest_qpn;
	attr->rq_psn = q->rq_psn;
	attr->sq_psn = q->sq_psn;
	attr->path_mtu = q->mtu;
	attr->qp_access_flags = q->access;
	attr->path_mig_state = IB_MIG_MIGRATED;
	if (q->has_av)
		attr->ah_attr = q->ah;
	attr->cap = q->cap;
	spin_unlock(&q->lock);
	init->qp_type = qp->qp_type;
	init->send_cq = qp->send_cq;
	init->recv_cq = qp->recv_cq;
	init->srq = qp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	return 0;
}

int sim_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

/*
 * The raw QP dump as mlx5_ib's (see the header comment). Offsets are
 * mlx5_ifc's: query_qp_out has the qpc at byte 0x18; in the qpc, state is
 * the top nibble of byte 0, st byte 1, mtu the top 3 bits of byte 8,
 * remote_qpn the low 24 bits of the be32 at 0x14, primary_address_path
 * (ads, 44 bytes) at 0x18.
 */
#define RAW_SEG_INFO   0xfffc
#define RAW_SEG_CMD    0xfffa
#define RAW_SEG_TERM   0xfff9
#define RAW_SEG_ERROR  0xfffe
#define RAW_SEG_PRM_QP 0x1000 /* firmware's id comes from its menu; any value below 0xfff0 */
#define RAW_QP_OUT_LEN 0x110  /* query_qp_out up to the end of the qpc and its reserved tail */
#define RAW_LEN	       (16 + 20 + 16 + RAW_QP_OUT_LEN + 4)

static void raw_be16(u8 *b, int off, u16 v)
{
	put_unaligned_be16(v, b + off);
}

static void raw_be32(u8 *b, int off, u32 v)
{
	put_unaligned_be32(v, b + off);
}

static u8 raw_state(enum ib_qp_state s)
{
	static const u8 mlx5[] = {
	    [IB_QPS_RESET] = 0, [IB_QPS_INIT] = 1, [IB_QPS_RTR] = 2, [IB_QPS_RTS] = 3,
	    [IB_QPS_SQD] = 7,	[IB_QPS_SQE] = 4,  [IB_QPS_ERR] = 6};

	return s < ARRAY_SIZE(mlx5) ? mlx5[s] : 6;
}

static u8 raw_st(const struct sim_qp *q)
{
	enum ib_qp_type t = q->ib.qp_type;

	/* mlx5 qp.h MLX5_QP_ST_*: RC 0, UC 1, UD 2, DCI 5, QP1 8 */
	if (q->sub)
		return 5;
	return t == IB_QPT_UC ? 1 : t == IB_QPT_UD ? 2 : t == IB_QPT_GSI ? 8 : 0;
}

/* query_qp_out for @q at @out (zeroed): status 0, the qpc */
static void raw_query_qp_out(u8 *out, const struct sim_qp *q)
{
	u8 *qpc = out + 0x18, *ads = qpc + 0x18;
	const struct ib_global_route *grh = &q->ah.grh;

	qpc[0] = raw_state(q->state) << 4;
	qpc[1] = raw_st(q);
	qpc[8] = (q->mtu & 7) << 5;
	raw_be32(qpc, 0x14, q->dest_qpn & 0xffffff);
	if (!q->has_av)
		return;
	if (rdma_ah_get_ah_flags(&q->ah) & IB_AH_GRH) {
		ads[5] = 0x80; /* grh */
		ads[9] = grh->sgid_index;
		ads[11] = grh->hop_limit;
		raw_be32(ads, 0x0c, (u32)grh->traffic_class << 20 | (grh->flow_label & 0xfffff));
		memcpy(ads + 0x10, grh->dgid.raw, 16);
	}
	ads[0x25] = q->port;
	memcpy(ads + 0x26, q->ah.roce.dmac, 6);
}

int sim_fill_qp_raw(struct sk_buff *msg, struct ib_qp *qp)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib), snap;
	u8 *b = kzalloc(RAW_LEN, GFP_KERNEL);
	int err, off = 0;

	if (!b)
		return -ENOMEM;
	spin_lock(&q->lock);
	snap = *q;
	spin_unlock(&q->lock);
	raw_be16(b, off, 4); /* info: dump_version 1 */
	raw_be16(b, off + 2, RAW_SEG_INFO);
	b[off + 7] = 1;
	off += 16;
	raw_be16(b, off, 5); /* command: what was asked, one object at index1 */
	raw_be16(b, off + 2, RAW_SEG_CMD);
	raw_be16(b, off + 4, RAW_SEG_PRM_QP);
	raw_be32(b, off + 8, qp->qp_num);
	raw_be16(b, off + 16, 1);
	off += 20;
	if (is_dct(&snap)) {
		raw_be16(b, off, 4); /* error: firmware's QUERY_QP finds no QP at a DCT's number */
		raw_be16(b, off + 2, RAW_SEG_ERROR);
		off += 16;
	} else {
		raw_be16(b, off,
			 (16 + RAW_QP_OUT_LEN) / 4); /* resource: header, reserved, index1, index2 */
		raw_be16(b, off + 2, RAW_SEG_PRM_QP);
		raw_be32(b, off + 8, qp->qp_num);
		raw_query_qp_out(b + off + 16, &snap);
		off += 16 + RAW_QP_OUT_LEN;
	}
	raw_be16(b, off, 1);
	raw_be16(b, off + 2, RAW_SEG_TERM);
	off += 4;
	err = nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, off, b);
	kfree(b);
	return err;
}

/*
 * The source of a debugfs QP's AV: port 1's RoCEv2 entry for @src (an
 * IPv4-mapped or IPv6 GID, as the core's roce_gid_mgmt makes it for an
 * address of the netdev or of an upper device in any netns), -ENOENT when
 * there is none; without @src its first RoCEv2 GID (else its first GID)
 */
static int sim_qp_sgid(const union ib_gid *src)
{
	const struct ib_gid_attr *ga;
	int i, any = src ? -ENOENT : -ENODATA;

	for (i = 0; i < sim_gids; i++) {
		bool v2;

		ga = rdma_get_gid_attr(&sim->ib, 1, i);
		if (IS_ERR(ga))
			continue;
		v2 = ga->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP;
		if (src ? v2 && !memcmp(ga->gid.raw, src->raw, 16) : v2) {
			rdma_put_gid_attr(ga);
			return i;
		}
		rdma_put_gid_attr(ga);
		if (!src && any < 0)
			any = i;
	}
	return any;
}

/*
 * RESET->INIT->RTR->RTS through the core, as a kernel ULP connects an RC QP;
 * up to @upto, with GID index @sgid as the AV's source (an RDMA-CM id's QP is
 * in INIT already: INIT->INIT is a valid transition)
 */
static int sim_qp_connect(struct ib_qp *qp, u8 tclass, enum ib_qp_state upto, int sgid)
{
	static const u8 dmac[ETH_ALEN] = {0x52, 0x54, 0x00, 0x00, 0x00, 0x99};
	struct ib_qp_attr a = {};
	union ib_gid dgid;
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	err =
	    ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err || upto == IB_QPS_INIT)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.type = rdma_ah_find_type(&sim->ib, 1);
	rdma_ah_set_port_num(&a.ah_attr, 1);
	ipv6_addr_set_v4mapped(htonl(0x0a460063), (struct in6_addr *)dgid.raw); /* 10.70.0.99 */
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, sgid, 64, tclass);
	memcpy(a.ah_attr.roce.dmac, dmac, ETH_ALEN);
	err = ib_modify_qp(qp, &a,
			   IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			       IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err || upto == IB_QPS_RTR)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a,
			    IB_QP_STATE | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
				IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC);
}

/* the kernel's RDMA-CM ids need a handler: ibsim's are bound only, and destroyed by debugfs
 * before the device goes (DEVICE_REMOVAL would wait for them) */
static int sim_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/* what debugfs asks of a new QP */
struct sim_qp_req {
	const char *sub; /* NULL: RC; else the driver QP's kind ("DCI", "DCT") */
	u8 tclass;
	enum ib_qp_state upto;
	bool has_src, cm, user;
	struct sockaddr_storage src; /* src=<ip>: the source address (its GID is the AV's sgid) */
};

/*
 * A kernel RDMA-CM id in the writer's netns bound to @src, as a ULP (or
 * rdma_ucm for a process) binds one: the core picks the device whose RoCE v2
 * entry for the address has the address's netdev (cma_acquire_dev_by_src_ip),
 * adds the id to the restrack cm_id dump, and rdma_create_qp makes the QP on
 * it (RESET->INIT) and names its number in the id
 */
static struct rdma_cm_id *sim_cm_bind(const struct sim_qp_req *r, struct ib_qp_init_attr *init)
{
	struct rdma_cm_id *id;
	int err;

	id = rdma_create_id(current->nsproxy->net_ns, sim_cm_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	err = rdma_bind_addr(id, (struct sockaddr *)&r->src);
	if (!err && id->device != &sim->ib)
		err = -ENODEV; /* the address is another device's */
	if (!err)
		err = rdma_create_qp(id, sim->qp_pd, init);
	if (err) {
		rdma_destroy_id(id);
		return ERR_PTR(err);
	}
	return id;
}

/* under qp_lock: a QP as @r asks, connected up to r->upto, on ibsim's own PD and CQ */
static int sim_qp_new(const struct sim_qp_req *r)
{
	struct ib_qp_init_attr init = {
	    .qp_type = r->sub ? IB_QPT_DRIVER : IB_QPT_RC,
	    .sq_sig_type = IB_SIGNAL_REQ_WR,
	    .cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1},
	};
	struct rdma_cm_id *cm = NULL;
	union ib_gid src;
	struct ib_qp *qp;
	int i, err, sgid;

	for (i = 0; i < SIM_DBG_QPS && sim->dbg_qp[i]; i++)
		;
	if (i == SIM_DBG_QPS)
		return -ENOSPC;
	if (r->has_src)
		rdma_ip2gid((struct sockaddr *)&r->src, &src);
	sgid = sim_qp_sgid(r->has_src ? &src : NULL);
	if (sgid < 0)
		return sgid;
	if (!sim->qp_pd) {
		struct ib_pd *pd = ib_alloc_pd(&sim->ib, 0);
		struct ib_cq *cq;

		if (IS_ERR(pd))
			return PTR_ERR(pd);
		cq = ib_alloc_cq(&sim->ib, NULL, 64, 0, IB_POLL_DIRECT);
		if (IS_ERR(cq)) {
			ib_dealloc_pd(pd);
			return PTR_ERR(cq);
		}
		sim->qp_pd = pd;
		sim->qp_cq = cq;
	}
	init.send_cq = init.recv_cq = sim->qp_cq;
	if (r->cm) {
		cm = sim_cm_bind(r, &init);
		if (IS_ERR(cm)) {
			err = PTR_ERR(cm);
			pr_err("ibsim: RDMA-CM id bound to %pISc: %d\n", &r->src, err);
			goto idle;
		}
		qp = cm->qp;
	} else {
		sim->qp_sub = r->sub;
		qp = ib_create_qp(sim->qp_pd, &init);
		sim->qp_sub = NULL;
		if (IS_ERR(qp)) {
			err = PTR_ERR(qp);
			goto idle;
		}
	}
	/* the writer's, as ib_uverbs lists a process's QP (core/restrack.c: the task holds a
	 * reference, put when the entry is released) */
	if (r->user) {
		get_task_struct(current);
		qp->res.kern_name = NULL;
		qp->res.task = current;
		qp->res.user = true;
	}
	err = sim_qp_connect(qp, r->tclass, r->upto, sgid);
	if (err) {
		pr_err("ibsim: connecting QP %u: %d\n", qp->qp_num, err);
		if (cm) {
			rdma_destroy_qp(cm);
			rdma_destroy_id(cm);
		} else {
			ib_destroy_qp(qp);
		}
		goto idle;
	}
	sim->dbg_qp[i] = qp;
	sim->dbg_cm[i] = cm;
	return 0;

idle:
	sim_qp_del(-2); /* the PD and CQ, if no QP is left */
	return err;
}

/* the PD and CQ go with the last debugfs QP (-2: none is destroyed, only those) */
int sim_qp_del(long qpn)
{
	int i, n = 0, left = 0;

	for (i = 0; i < SIM_DBG_QPS; i++) {
		if (!sim->dbg_qp[i])
			continue;
		if (qpn != -1 && sim->dbg_qp[i]->qp_num != qpn) {
			left++;
			continue;
		}
		if (sim->dbg_cm[i]) { /* the id's QP first, then the id */
			rdma_destroy_qp(sim->dbg_cm[i]);
			rdma_destroy_id(sim->dbg_cm[i]);
			sim->dbg_cm[i] = NULL;
		} else {
			ib_destroy_qp(sim->dbg_qp[i]);
		}
		sim->dbg_qp[i] = NULL;
		n++;
	}
	if (!left && sim->qp_pd) {
		ib_free_cq(sim->qp_cq);
		ib_dealloc_pd(sim->qp_pd);
		sim->qp_cq = NULL;
		sim->qp_pd = NULL;
	}
	return n || qpn < 0 ? 0 : -ENOENT;
}

/* "src=<ip>": IPv4 or IPv6 */
static int parse_src(const char *s, struct sockaddr_storage *ret)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ret;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ret;

	memset(ret, 0, sizeof(*ret));
	if (in4_pton(s, -1, (u8 *)&a4->sin_addr, '\0', NULL)) {
		a4->sin_family = AF_INET;
		return 0;
	}
	if (in6_pton(s, -1, a6->sin6_addr.s6_addr, '\0', NULL)) {
		a6->sin6_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/*
 * debugfs ibsim/qp: "rc <tclass> [rtr] [src=<ip>] [cm] [user]", "dci <tclass> [src=<ip>]",
 * "dct <tclass> [init]" create, "del <qpn>" destroys one, "clear" all
 */
static ssize_t qp_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[128], *cur, *tok, *kind;
	struct sim_qp_req r = {};
	unsigned int v;
	int err = 0;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cur = strim(buf);
	kind = strsep(&cur, " ");
	tok = cur ? strsep(&cur, " ") : NULL;
	mutex_lock(&sim->qp_lock);
	if (!strcmp(kind, "clear") && !tok) {
		err = sim_qp_del(-1);
	} else if (!strcmp(kind, "del") && tok && !cur) {
		err = kstrtouint(tok, 0, &v);
		if (!err)
			err = sim_qp_del(v);
	} else if (tok && !kstrtouint(tok, 0, &v) && v <= 255) {
		r.sub = !strcmp(kind, "dci") ? "DCI" : !strcmp(kind, "dct") ? "DCT" : NULL;
		r.tclass = v;
		r.upto = r.sub && !strcmp(r.sub, "DCT") ? IB_QPS_RTR : IB_QPS_RTS;
		if (!r.sub && strcmp(kind, "rc"))
			err = -EINVAL;
		/* the options this kind takes: rc rtr, src=, cm; dci src=; dct init */
		while (!err && cur && (tok = strsep(&cur, " "))) {
			if (!*tok)
				continue;
			if (!r.sub && !strcmp(tok, "rtr"))
				r.upto = IB_QPS_RTR;
			else if (r.sub && !strcmp(r.sub, "DCT") && !strcmp(tok, "init"))
				r.upto = IB_QPS_INIT;
			else if ((!r.sub || !strcmp(r.sub, "DCI")) && !strncmp(tok, "src=", 4))
				err = parse_src(tok + 4, &r.src) ?: (r.has_src = true, 0);
			else if (!r.sub && !strcmp(tok, "cm"))
				r.cm = true;
			else if (!r.sub && !strcmp(tok, "user"))
				r.user = true;
			else
				err = -EINVAL;
		}
		if (!err && r.cm && !r.has_src)
			err = -EINVAL; /* an RDMA-CM id is bound to an address */
		if (!err)
			err = sim_qp_new(&r);
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&sim->qp_lock);
	return err ? err : len;
}

static int qp_show(struct seq_file *m, void *v)
{
	static const char *const names[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
	struct sim_qp *q;
	int i;

	mutex_lock(&sim->qp_lock);
	for (i = 0; i < SIM_DBG_QPS; i++) {
		if (!sim->dbg_qp[i])
			continue;
		q = container_of(sim->dbg_qp[i], struct sim_qp, ib);
		spin_lock(&q->lock);
		seq_printf(m, "%u %s tclass %u %s", q->ib.qp_num,
			   q->state < ARRAY_SIZE(names) ? names[q->state] : "?",
			   q->ah.grh.traffic_class, q->sub ? q->sub : "RC");
		if (q->has_av)
			seq_printf(m, " sgid %u", q->ah.grh.sgid_index);
		if (sim->dbg_cm[i])
			seq_printf(m, " cm %pISc", &sim->dbg_cm[i]->route.addr.src_addr);
		seq_putc(m, '\n');
		spin_unlock(&q->lock);
	}
	mutex_unlock(&sim->qp_lock);
	return 0;
}

static int qp_open(struct inode *inode, struct file *f)
{
	return single_open(f, qp_show, NULL);
}

const struct file_operations sim_qp_fops = {
    .owner = THIS_MODULE,
    .open = qp_open,
    .read = seq_read,
    .llseek = seq_lseek,
    .release = single_release,
    .write = qp_write,
};
