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
 * Port 1's GID table is the core's (roce_gid_mgmt fills it from the
 * addresses of the netdev and of its upper devices, a pod's macvlan among
 * them, in RDMA netns mode shared) with `gids` slots (default 8).
 *
 * QPs for the RDMA netlink census, and debugfs qp: qp.c.
 *
 *   insmod ibsim.ko ifname=<netdev> [name=ibsim%d] [cc=0] [lifespan=MS] [gids=N]
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_mad.h>

#include "ibsim.h"

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

/* slots of port 1's GID table: 8 for a VF; a device shared by pods (issue 50) needs more */
unsigned int sim_gids = 8;
module_param_named(gids, sim_gids, uint, 0444);
MODULE_PARM_DESC(gids, "GID table slots of port 1 (1-256)");

static unsigned int lifespan = 10;
module_param(lifespan, uint, 0444);
MODULE_PARM_DESC(lifespan, "hw_counters read cache, ms (the core's default 10)");

/* mlx5_ib's names: Q-counters, retransmissions, RoCE acceleration; then congestion (cc=1) */
static const struct rdma_stat_desc ctr_descs[] = {
    {.name = "rx_write_requests"},
    {.name = "rx_read_requests"},
    {.name = "out_of_buffer"},
    {.name = "out_of_sequence"},
    {.name = "duplicate_request"},
    {.name = "rnr_nak_retry_err"},
    {.name = "packet_seq_err"},
    {.name = "implied_nak_seq_err"},
    {.name = "local_ack_timeout_err"},
    {.name = "req_cqe_error"},
    {.name = "roce_adp_retrans"},
    {.name = "roce_adp_retrans_to"},
    {.name = "roce_slow_restart"},
    /* congestion: only where firmware allows */
    {.name = "rp_cnp_ignored"},
    {.name = "rp_cnp_handled"},
    {.name = "np_ecn_marked_roce_packets"},
    {.name = "np_cnp_sent"},
};
static_assert(ARRAY_SIZE(ctr_descs) == CTR_N);
#define CTR_NCC 4

static int ctr_count(void)
{
	return cc ? CTR_N : CTR_N - CTR_NCC;
}

struct sim_pd {
	struct ib_pd ib;
};

struct sim_cq {
	struct ib_cq ib;
};

struct sim_ucontext {
	struct ib_ucontext ib;
};

struct sim_dev *sim;

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
	a->gid_tbl_len = sim_gids;
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
	imm->gid_tbl_len = sim_gids;
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

static int sim_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats, u32 port, int index)
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
    .fill_res_qp_entry = sim_fill_qp_entry,
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

	if (!ifname || !sim_gids || sim_gids > 256)
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
		debugfs_create_file("qp", 0600, sim->dbg, NULL, &sim_qp_fops);
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
