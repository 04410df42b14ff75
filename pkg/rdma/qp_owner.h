/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whose is each QP of a shared RDMA device (DESIGN.md "Shared RDMA
 * devices"): every pod reaches the PF's one device through a macvlan, an
 * ipvlan or the host network, so the device's QP list mixes them all. A QP
 * is given to an attachment by, in order:
 *   cm_id   the RDMA-CM id bound to it: its source address, in the
 *           attachment's "ips" (prevResult's addresses of its interface);
 *   sgid    its context's source GID index (mlx5's src_addr_index), in the
 *           attachment's "gids"; not for UD QPs and DC initiators, whose
 *           source GID is per send (rdma_qp_ctx_class);
 *   cgroup  its process's cgroup (the caller's @uid_of: /proc/<pid>/cgroup ->
 *           pod UID, kubelet_cgroup_pod_uid), the attachment's "podUID";
 *           only where the QP has a pid (the agent sees the pod's PIDs).
 * A method that names two attachments of different pods names none (the
 * next method is tried); the cgroup method names the pod, so between two
 * attachments of one pod on the device it takes the first. Kernel QPs
 * (rdma_qp_kernel) are nobody's and never counted.
 * The attachments are cJSON objects: state records of shared attachments,
 * and the agent's in-memory objects for host-network pods of the same shape
 * ("ips": [], no "gids": attributed by cgroup only).
 */
#ifndef RQ_RDMA_QP_OWNER_H
#define RQ_RDMA_QP_OWNER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/rdma/cm_id.h"
#include "pkg/rdma/qps.h"

enum rq_qp_by {
	RQ_QP_BY_NONE = 0, /* a user QP no attachment owns: rdma_qos_dev_qps_unattributed */
	RQ_QP_BY_CM_ID,
	RQ_QP_BY_SGID,
	RQ_QP_BY_CGROUP,
	RQ_QP_BY_KERNEL, /* a kernel QP: nobody's, never counted */
};
/* "cm_id", "sgid", "cgroup" (show --qps); "" for none, "kernel" */
const char *rdma_qp_by_name(enum rq_qp_by by);

/*
 * A kernel QP: the MAD layer's GSI/SMI, or one the kernel created for itself
 * (RES_KERN_NAME, no pid: mlx5's REG_UMR, NVMe-oF, NFS over RDMA). Not
 * ib_uverbs's: it creates a process's XRC_TGT QPs under its own name.
 */
bool rdma_qp_kernel(const struct rq_qp *q);

/*
 * The pod UID (dashes) of the process of QP @q (its pid, @q->pid != 0) into
 * @ret; negative: none known (not a pod's, gone). Asked once per pid, for
 * the first of its QPs no earlier method named.
 */
typedef int (*rq_pid_uid_fn)(void *ctx, const struct rq_qp *q, char *ret, size_t len);

struct rq_qp_owner {
	int owner; /* index into the attachments, -1: none */
	enum rq_qp_by by;
};

/*
 * Attribute each QP of @qps to one of @owners[0..@n) (cJSON objects with
 * "ips", "gids", "podUID"; NULL entries are skipped): @ret[i] for QP i.
 * @cm may be NULL (no cm_id dump), @uid_of NULL (no PIDs: no cgroup
 * method). Each pid's cgroup is read once. -ENOMEM.
 */
int rdma_qps_attribute(const struct rq_qp_list *qps, const struct rq_cm_id_list *cm,
		       const cJSON *const *owners, size_t n, rq_pid_uid_fn uid_of, void *ctx,
		       struct rq_qp_owner *ret);

/*
 * One attachment as the methods read it, made from its record once (the agent
 * keeps it with the record's target, not rebuilt at each census): its "ips" as
 * GIDs (rdma_gid_from_ip; an address it cannot read is left out), its "gids"
 * indexes, its "podUID" (NULL none). ip NULL: none loaded.
 */
struct rq_qp_own {
	uint8_t (*ip)[16];
	size_t n_ip;
	int *gid;
	size_t n_gid;
	char *uid;
};
int rdma_qp_own_load(const cJSON *rec, struct rq_qp_own *ret);
int rdma_qp_own_copy(const struct rq_qp_own *from, struct rq_qp_own *to);
void rdma_qp_own_free(struct rq_qp_own *o);
/* rdma_qps_attribute with the owners loaded (NULL or not loaded: skipped) */
int rdma_qps_attribute_own(const struct rq_qp_list *qps, const struct rq_cm_id_list *cm,
			   const struct rq_qp_own *const *owners, size_t n, rq_pid_uid_fn uid_of,
			   void *ctx, struct rq_qp_owner *ret);

#endif
