// SPDX-License-Identifier: GPL-2.0
/*
 * ibsim: a test fixture for rdma-qos's QEMU guest. It registers one RoCE
 * ib_device on an existing netdev (an igbvf VF), parented to that netdev's
 * PCI function as a hardware driver's would be, with:
 *
 * - .disassociate_ucontext, which the RDMA core requires before it lets
 *   `rdma dev set <dev> netns <ns>` move a device (rxe has none), so the
 *   exclusive RDMA netns mode that rdma-cni uses can be exercised;
 * - <dev>/tc/1/traffic_class as MOFED/DOCA's mlx5_ib has it: it reads
 *   "Global tclass=<n>" while a global class is set and nothing while unset,
 *   and a written -1 unsets it.
 *
 * It moves no data: the objects the core asks for (PD, CQ, the GSI QP of the
 * MAD layer, user contexts) are accepted and do nothing; memory registration
 * and posting sends fail. /sys/module/ibsim/parameters/tc_writes counts the
 * writes to traffic_class; each is logged with the writer's netns inode.
 *
 * Port 1 has hw_counters under mlx5_ib's names (hw/mlx5/counters.c: the
 * Q-counters, the RoCE retransmission ones and, unless cc=0, the congestion
 * counters that firmware shows only where cc_query_allowed). They are 32-bit
 * like mlx5's Q-counters (a value wraps at 2^32) and start at zero whenever
 * the device registers. A test sets them through debugfs:
 * `echo "np_cnp_sent 40" > /sys/kernel/debug/ibsim/hw_counters` ("NAME +N"
 * adds); reading the file lists them. The device caches a read for
 * `lifespan` ms as every driver's does (the lifespan module parameter; 0 in
 * the tests so a value set is read at once).
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
 * and comes back through query_qp and the raw dump; "del <qpn>" destroys
 * one, "clear" all; reading lists "<qpn> <state> tclass <n>". The restrack
 * shows kernel QPs only to a caller in the initial PID namespace.
 *
 *   insmod ibsim.ko ifname=<netdev> [name=ibsim%d] [cc=0] [lifespan=MS]
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/unaligned.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_netlink.h>

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "netdev that carries port 1");

static char *name = "ibsim%d";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "ib_device name (may hold %d)");

static int tc_writes;
module_param(tc_writes, int, 0444);
MODULE_PARM_DESC(tc_writes, "writes to tc/1/traffic_class so far");

static bool cc = true;
module_param(cc, bool, 0444);
MODULE_PARM_DESC(cc, "the congestion counters exist (mlx5: cc_query_allowed)");

static unsigned int lifespan = 10;
module_param(lifespan, uint, 0444);
MODULE_PARM_DESC(lifespan, "hw_counters read cache, ms (the core's default 10)");

/* mlx5_ib's names: Q-counters, retransmissions, RoCE acceleration; then congestion (cc=1) */
static const struct rdma_stat_desc ctr_descs[] = {
	{ .name = "rx_write_requests" },
	{ .name = "rx_read_requests" },
	{ .name = "out_of_buffer" },
	{ .name = "out_of_sequence" },
	{ .name = "duplicate_request" },
	{ .name = "rnr_nak_retry_err" },
	{ .name = "packet_seq_err" },
	{ .name = "implied_nak_seq_err" },
	{ .name = "local_ack_timeout_err" },
	{ .name = "req_cqe_error" },
	{ .name = "roce_adp_retrans" },
	{ .name = "roce_adp_retrans_to" },
	{ .name = "roce_slow_restart" },
	/* congestion: only where firmware allows */
	{ .name = "rp_cnp_ignored" },
	{ .name = "rp_cnp_handled" },
	{ .name = "np_ecn_marked_roce_packets" },
	{ .name = "np_cnp_sent" },
};
#define CTR_NCC 4
#define CTR_N ARRAY_SIZE(ctr_descs)
#define SIM_DBG_QPS 16

static int ctr_count(void)
{
	return cc ? CTR_N : CTR_N - CTR_NCC;
}

struct sim_dev {
	struct ib_device ib;
	struct kobject *tc_dir, *tc_port;
	struct mutex tc_lock;
	int tclass; /* -1: no global class (MOFED's initial state) */
	spinlock_t ctr_lock;
	u32 ctr[CTR_N]; /* 32-bit, as mlx5's Q-counters */
	struct dentry *dbg;
	struct mutex qp_lock; /* the debugfs QPs and their PD/CQ */
	struct ib_pd *qp_pd;
	struct ib_cq *qp_cq;
	struct ib_qp *dbg_qp[SIM_DBG_QPS];
};

struct sim_pd {
	struct ib_pd ib;
};

struct sim_cq {
	struct ib_cq ib;
};

/* what the core's modify_qp set, for query_qp and the raw dump */
struct sim_qp {
	struct ib_qp ib;
	spinlock_t lock;
	enum ib_qp_state state;
	u32 port, dest_qpn, rq_psn, sq_psn;
	enum ib_mtu mtu;
	int access;
	bool has_av;
	struct rdma_ah_attr ah; /* grh.sgid_attr not kept (not referenced) */
	struct ib_qp_cap cap;
};

struct sim_ucontext {
	struct ib_ucontext ib;
};

static struct sim_dev *sim;
static atomic_t next_qpn = ATOMIC_INIT(16);

static int sim_query_device(struct ib_device *ib, struct ib_device_attr *a, struct ib_udata *udata)
{
	memset(a, 0, sizeof(*a));
	a->vendor_id = 0x15b3;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = PAGE_SIZE;
	a->max_qp = 32;
	a->max_qp_wr = 256;
	a->max_send_sge = 1;
	a->max_recv_sge = 1;
	a->max_sge_rd = 1;
	a->max_cq = 32;
	a->max_cqe = 1024;
	a->max_mr = 32;
	a->max_pd = 32;
	a->max_qp_rd_atom = 1;
	a->max_qp_init_rd_atom = 1;
	a->max_ah = 32;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

/* the core zeroes @a first and fills RoCE's GID prefix itself */
static int sim_query_port(struct ib_device *ib, u32 port, struct ib_port_attr *a)
{
	a->state = IB_PORT_ACTIVE;
	a->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = IB_MTU_1024;
	a->gid_tbl_len = 8;
	a->pkey_tbl_len = 1;
	a->port_cap_flags = IB_PORT_CM_SUP;
	a->max_msg_sz = 1U << 30;
	a->max_vl_num = 1;
	a->active_width = IB_WIDTH_4X;
	a->active_speed = IB_SPEED_HDR;
	return 0;
}

static int sim_port_immutable(struct ib_device *ib, u32 port, struct ib_port_immutable *imm)
{
	/* RoCE v2 only: the MAD layer then opens the GSI QP and no SMI */
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->gid_tbl_len = 8;
	imm->pkey_tbl_len = 1;
	imm->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sim_link_layer(struct ib_device *ib, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sim_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sim_alloc_ucontext(struct ib_ucontext *uc, struct ib_udata *udata)
{
	return 0;
}

static void sim_dealloc_ucontext(struct ib_ucontext *uc)
{
}

/* nothing is mapped to user space, so there is nothing to revoke */
static void sim_disassociate_ucontext(struct ib_ucontext *uc)
{
}

static int sim_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int sim_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int sim_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct uverbs_attr_bundle *attrs)
{
	cq->cqe = attr->cqe;
	return 0;
}

static int sim_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int sim_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int sim_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

/* kernel QPs only (the MAD layer's GSI QP, debugfs's RC QPs): no provider for user QPs */
static int sim_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init, struct ib_udata *udata)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);

	if (udata || init->qp_type == IB_QPT_SMI)
		return -EOPNOTSUPP;
	spin_lock_init(&q->lock);
	q->state = IB_QPS_RESET;
	q->cap = init->cap;
	qp->qp_num = init->qp_type == IB_QPT_GSI ? 1 : atomic_inc_return(&next_qpn);
	return 0;
}

/* the transitions a driver accepts (mlx5 checks them with the same table) */
static int sim_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_udata *udata)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);
	enum ib_qp_state cur;

	spin_lock(&q->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : q->state;
	if (mask & IB_QP_STATE && !ib_modify_qp_is_ok(cur, attr->qp_state, qp->qp_type, mask)) {
		spin_unlock(&q->lock);
		return -EINVAL;
	}
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
static int sim_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	struct sim_qp *q = container_of(qp, struct sim_qp, ib);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	spin_lock(&q->lock);
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

static int sim_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int sim_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}

/* the MAD layer posts its receive buffers at port open: they never complete */
static int sim_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	return 0;
}

static struct ib_mr *sim_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *sim_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int sim_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static struct rdma_hw_stats *sim_alloc_port_stats(struct ib_device *ib, u32 port)
{
	return rdma_alloc_hw_stats_struct(ctr_descs, ctr_count(), lifespan);
}

static int sim_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port,
			    int index)
{
	struct sim_dev *d = container_of(ib, struct sim_dev, ib);
	int i;

	if (!port)
		return -EINVAL;
	spin_lock(&d->ctr_lock);
	for (i = 0; i < stats->num_counters; i++)
		stats->value[i] = d->ctr[i];
	spin_unlock(&d->ctr_lock);
	return stats->num_counters;
}

/*
 * The raw QP dump as mlx5_ib's (see the header comment). Offsets are
 * mlx5_ifc's: query_qp_out has the qpc at byte 0x18; in the qpc, state is
 * the top nibble of byte 0, st byte 1, mtu the top 3 bits of byte 8,
 * remote_qpn the low 24 bits of the be32 at 0x14, primary_address_path
 * (ads, 44 bytes) at 0x18.
 */
#define RAW_SEG_INFO 0xfffc
#define RAW_SEG_CMD 0xfffa
#define RAW_SEG_TERM 0xfff9
#define RAW_SEG_PRM_QP 0x1000 /* firmware's id comes from its menu; any value below 0xfff0 */
#define RAW_QP_OUT_LEN 0x110  /* query_qp_out up to the end of the qpc and its reserved tail */
#define RAW_LEN (16 + 20 + 16 + RAW_QP_OUT_LEN + 4)

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
	static const u8 mlx5[] = { [IB_QPS_RESET] = 0, [IB_QPS_INIT] = 1, [IB_QPS_RTR] = 2,
				   [IB_QPS_RTS] = 3,   [IB_QPS_SQD] = 7,  [IB_QPS_SQE] = 4,
				   [IB_QPS_ERR] = 6 };

	return s < ARRAY_SIZE(mlx5) ? mlx5[s] : 6;
}

static u8 raw_st(enum ib_qp_type t)
{
	/* mlx5 qp.h MLX5_QP_ST_*: RC 0, UC 1, UD 2, QP1 8 */
	return t == IB_QPT_UC ? 1 : t == IB_QPT_UD ? 2 : t == IB_QPT_GSI ? 8 : 0;
}

/* query_qp_out for @q at @out (zeroed): status 0, the qpc */
static void raw_query_qp_out(u8 *out, const struct sim_qp *q)
{
	u8 *qpc = out + 0x18, *ads = qpc + 0x18;
	const struct ib_global_route *grh = &q->ah.grh;

	qpc[0] = raw_state(q->state) << 4;
	qpc[1] = raw_st(q->ib.qp_type);
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

static int sim_fill_qp_raw(struct sk_buff *msg, struct ib_qp *qp)
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
	raw_be16(b, off, (16 + RAW_QP_OUT_LEN) / 4); /* resource: header, reserved, index1, index2 */
	raw_be16(b, off + 2, RAW_SEG_PRM_QP);
	raw_be32(b, off + 8, qp->qp_num);
	raw_query_qp_out(b + off + 16, &snap);
	off += 16 + RAW_QP_OUT_LEN;
	raw_be16(b, off, 1);
	raw_be16(b, off + 2, RAW_SEG_TERM);
	off += 4;
	err = nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, off, b);
	kfree(b);
	return err;
}

static const struct ib_device_ops sim_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,
	.alloc_hw_port_stats = sim_alloc_port_stats,
	.alloc_pd = sim_alloc_pd,
	.alloc_ucontext = sim_alloc_ucontext,
	.create_cq = sim_create_cq,
	.create_qp = sim_create_qp,
	.dealloc_pd = sim_dealloc_pd,
	.dealloc_ucontext = sim_dealloc_ucontext,
	.dereg_mr = sim_dereg_mr,
	.fill_res_qp_entry_raw = sim_fill_qp_raw,
	.destroy_cq = sim_destroy_cq,
	.destroy_qp = sim_destroy_qp,
	.disassociate_ucontext = sim_disassociate_ucontext,
	.get_dma_mr = sim_get_dma_mr,
	.get_hw_stats = sim_get_hw_stats,
	.get_link_layer = sim_link_layer,
	.get_port_immutable = sim_port_immutable,
	.modify_qp = sim_modify_qp,
	.poll_cq = sim_poll_cq,
	.post_recv = sim_post_recv,
	.post_send = sim_post_send,
	.query_device = sim_query_device,
	.query_pkey = sim_query_pkey,
	.query_qp = sim_query_qp,
	.query_port = sim_query_port,
	.reg_user_mr = sim_reg_user_mr,
	.req_notify_cq = sim_req_notify_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, sim_cq, ib),
	INIT_RDMA_OBJ_SIZE(ib_pd, sim_pd, ib),
	INIT_RDMA_OBJ_SIZE(ib_qp, sim_qp, ib),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sim_ucontext, ib),
};

/* MOFED prints the global class only while one is set (then its rules, which ibsim has none of) */
static ssize_t traffic_class_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t n = 0;

	mutex_lock(&sim->tc_lock);
	if (sim->tclass >= 0)
		n = sysfs_emit(buf, "Global tclass=%d\n", sim->tclass);
	mutex_unlock(&sim->tc_lock);
	return n;
}

static ssize_t traffic_class_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	int v, err = kstrtoint(buf, 0, &v);

	if (err)
		return err;
	if (v < -1 || v > 255)
		return -EINVAL;
	mutex_lock(&sim->tc_lock);
	sim->tclass = v;
	tc_writes++;
	mutex_unlock(&sim->tc_lock);
	pr_info("ibsim: %s tc/1/traffic_class = %d, written from netns %u\n",
		dev_name(&sim->ib.dev), v, current->nsproxy->net_ns->ns.inum);
	return count;
}

static struct kobj_attribute traffic_class_attr = __ATTR_RW(traffic_class);

/* debugfs ibsim/hw_counters: "NAME VALUE" sets, "NAME +N" adds, both modulo 2^32 */
static ssize_t ctr_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[256], *line, *cur, *sp;
	int i, err;
	u64 v;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cur = buf;
	while ((line = strsep(&cur, "\n"))) {
		bool add;

		if (!*line)
			continue;
		sp = strchr(line, ' ');
		if (!sp)
			return -EINVAL;
		*sp++ = '\0';
		add = *sp == '+';
		err = kstrtou64(sp + add, 0, &v);
		if (err)
			return err;
		for (i = 0; i < ctr_count(); i++)
			if (!strcmp(line, ctr_descs[i].name))
				break;
		if (i == ctr_count())
			return -ENOENT;
		spin_lock(&sim->ctr_lock);
		sim->ctr[i] = add ? sim->ctr[i] + (u32)v : (u32)v;
		spin_unlock(&sim->ctr_lock);
	}
	return len;
}

static int ctr_show(struct seq_file *m, void *v)
{
	int i;

	spin_lock(&sim->ctr_lock);
	for (i = 0; i < ctr_count(); i++)
		seq_printf(m, "%s %u\n", ctr_descs[i].name, sim->ctr[i]);
	spin_unlock(&sim->ctr_lock);
	return 0;
}

static int ctr_open(struct inode *inode, struct file *f)
{
	return single_open(f, ctr_show, NULL);
}

static const struct file_operations ctr_fops = {
	.owner = THIS_MODULE,
	.open = ctr_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = ctr_write,
};

/* port 1's first RoCEv2 GID (else its first GID): the source of a debugfs QP's AV */
static int sim_qp_sgid(void)
{
	const struct ib_gid_attr *ga;
	int i, any = -ENODATA;

	for (i = 0; i < 8; i++) {
		ga = rdma_get_gid_attr(&sim->ib, 1, i);
		if (IS_ERR(ga))
			continue;
		if (ga->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
			rdma_put_gid_attr(ga);
			return i;
		}
		rdma_put_gid_attr(ga);
		if (any < 0)
			any = i;
	}
	return any;
}

/* RESET->INIT->RTR->RTS through the core, as a kernel ULP connects an RC QP */
static int sim_qp_connect(struct ib_qp *qp, u8 tclass)
{
	static const u8 dmac[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x99 };
	struct ib_qp_attr a = {};
	union ib_gid dgid;
	int sgid = sim_qp_sgid(), err;

	if (sgid < 0)
		return sgid;
	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	err = ib_modify_qp(qp, &a,
			   IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
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
	if (err)
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

/* under qp_lock: an RC QP in RTS with @tclass in its AV, on ibsim's own PD and CQ */
static int sim_qp_new(u8 tclass)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ib_qp *qp;
	int i, err;

	for (i = 0; i < SIM_DBG_QPS && sim->dbg_qp[i]; i++)
		;
	if (i == SIM_DBG_QPS)
		return -ENOSPC;
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
	qp = ib_create_qp(sim->qp_pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	err = sim_qp_connect(qp, tclass);
	if (err) {
		pr_err("ibsim: connecting QP %u: %d\n", qp->qp_num, err);
		ib_destroy_qp(qp);
		return err;
	}
	sim->dbg_qp[i] = qp;
	return 0;
}

/* under qp_lock: destroy the debugfs QP @qpn (every one for -1), and the PD/CQ with the last */
static int sim_qp_del(long qpn)
{
	int i, n = 0, left = 0;

	for (i = 0; i < SIM_DBG_QPS; i++) {
		if (!sim->dbg_qp[i])
			continue;
		if (qpn >= 0 && sim->dbg_qp[i]->qp_num != qpn) {
			left++;
			continue;
		}
		ib_destroy_qp(sim->dbg_qp[i]);
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

/* debugfs ibsim/qp: "rc <tclass>" creates, "del <qpn>" destroys one, "clear" all */
static ssize_t qp_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[64];
	unsigned int v;
	int err;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	mutex_lock(&sim->qp_lock);
	if (!strcmp(buf, "clear"))
		err = sim_qp_del(-1);
	else if (sscanf(buf, "rc %u", &v) == 1)
		err = v > 255 ? -EINVAL : sim_qp_new(v);
	else if (sscanf(buf, "del %u", &v) == 1)
		err = sim_qp_del(v);
	else
		err = -EINVAL;
	mutex_unlock(&sim->qp_lock);
	return err ? err : len;
}

static int qp_show(struct seq_file *m, void *v)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	struct sim_qp *q;
	int i;

	mutex_lock(&sim->qp_lock);
	for (i = 0; i < SIM_DBG_QPS; i++) {
		if (!sim->dbg_qp[i])
			continue;
		q = container_of(sim->dbg_qp[i], struct sim_qp, ib);
		spin_lock(&q->lock);
		seq_printf(m, "%u %s tclass %u\n", q->ib.qp_num,
			   q->state < ARRAY_SIZE(names) ? names[q->state] : "?",
			   q->ah.grh.traffic_class);
		spin_unlock(&q->lock);
	}
	mutex_unlock(&sim->qp_lock);
	return 0;
}

static int qp_open(struct inode *inode, struct file *f)
{
	return single_open(f, qp_show, NULL);
}

static const struct file_operations qp_fops = {
	.owner = THIS_MODULE,
	.open = qp_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = qp_write,
};

static void sim_tc_remove(void)
{
	kobject_put(sim->tc_port);
	kobject_put(sim->tc_dir);
	sim->tc_port = sim->tc_dir = NULL;
}

/* under the ib_device's own kobject, so it follows the device from netns to netns */
static int sim_tc_add(void)
{
	sim->tc_dir = kobject_create_and_add("tc", &sim->ib.dev.kobj);
	if (sim->tc_dir)
		sim->tc_port = kobject_create_and_add("1", sim->tc_dir);
	if (!sim->tc_port || sysfs_create_file(sim->tc_port, &traffic_class_attr.attr)) {
		sim_tc_remove();
		return -ENOMEM;
	}
	return 0;
}

static int __init ibsim_init(void)
{
	struct net_device *ndev;
	int err;

	if (!ifname)
		return -EINVAL;
	ndev = dev_get_by_name(&init_net, ifname);
	if (!ndev) {
		pr_err("ibsim: no netdev %s in the initial netns\n", ifname);
		return -ENODEV;
	}
	sim = ib_alloc_device(sim_dev, ib);
	if (!sim) {
		err = -ENOMEM;
		goto put;
	}
	mutex_init(&sim->tc_lock);
	spin_lock_init(&sim->ctr_lock);
	mutex_init(&sim->qp_lock);
	sim->tclass = -1;
	strscpy(sim->ib.node_desc, "ibsim", sizeof(sim->ib.node_desc));
	sim->ib.node_type = RDMA_NODE_IB_CA;
	sim->ib.phys_port_cnt = 1;
	sim->ib.num_comp_vectors = 1;
	addrconf_addr_eui48((unsigned char *)&sim->ib.node_guid, ndev->dev_addr);
	/* /sys/bus/pci/devices/<vf>/infiniband/<dev>, as mlx5 has it */
	sim->ib.dev.parent = ndev->dev.parent;
	ib_set_device_ops(&sim->ib, &sim_ops);
	err = ib_device_set_netdev(&sim->ib, ndev, 1);
	if (!err)
		err = ib_register_device(&sim->ib, name, NULL);
	if (err) {
		pr_err("ibsim: registering on %s: %d\n", ifname, err);
		goto dealloc;
	}
	err = sim_tc_add();
	if (err) {
		ib_unregister_device(&sim->ib);
		goto dealloc;
	}
	sim->dbg = debugfs_create_dir("ibsim", NULL);
	if (!IS_ERR_OR_NULL(sim->dbg)) {
		debugfs_create_file("hw_counters", 0600, sim->dbg, NULL, &ctr_fops);
		debugfs_create_file("qp", 0600, sim->dbg, NULL, &qp_fops);
	}
	pr_info("ibsim: %s on %s, parent %s\n", dev_name(&sim->ib.dev), ifname,
		ndev->dev.parent ? dev_name(ndev->dev.parent) : "none");
	dev_put(ndev);
	return 0;

dealloc:
	ib_dealloc_device(&sim->ib);
put:
	dev_put(ndev);
	return err;
}

static void __exit ibsim_exit(void)
{
	debugfs_remove(sim->dbg);
	mutex_lock(&sim->qp_lock);
	sim_qp_del(-1);
	mutex_unlock(&sim->qp_lock);
	sim_tc_remove();
	ib_unregister_device(&sim->ib);
	ib_dealloc_device(&sim->ib);
}

module_init(ibsim_init);
module_exit(ibsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdma-qos test fixture: a movable RoCE ib_device with MOFED-like tc/");
