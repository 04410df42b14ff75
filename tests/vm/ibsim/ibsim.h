/* SPDX-License-Identifier: GPL-2.0 */
/* ibsim (dev.c: the device, hw_counters, tc/; qp.c: QPs for the census) */
#ifndef IBSIM_H
#define IBSIM_H

#include <linux/debugfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define CTR_N	    17 /* dev.c's ctr_descs */
#define SIM_DBG_QPS 16 /* debugfs QPs at once */

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
	struct rdma_cm_id *dbg_cm[SIM_DBG_QPS]; /* the RDMA-CM id owning dbg_qp[i], if any */
	const char *qp_sub; /* under qp_lock: the next IB_QPT_DRIVER QP's kind ("DCI", "DCT") */
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
	const char *sub; /* an IB_QPT_DRIVER QP's kind, as mlx5_ib's RES_SUBTYPE; else NULL */
};

extern struct sim_dev *sim;
extern unsigned int sim_gids; /* the GID table's slots (module parameter gids) */
extern const struct file_operations sim_qp_fops;

int sim_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *init, struct ib_udata *udata);
int sim_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, struct ib_udata *udata);
int sim_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask, struct ib_qp_init_attr *init);
int sim_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int sim_fill_qp_raw(struct sk_buff *msg, struct ib_qp *qp);
int sim_fill_qp_entry(struct sk_buff *msg, struct ib_qp *qp);
/* under sim->qp_lock: destroy debugfs QP @qpn (all for -1); -ENOENT: no such QP */
int sim_qp_del(long qpn);

#endif
