/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GPUDirect RDMA verdict of one attachment (DESIGN.md "GPUDirect RDMA:
 * the pod's GPUs and its VF"): the VF against its nearest pod GPU on PCIe,
 * as NCCL computes the path, and what makes a near pair slow.
 */
#ifndef RQ_CORE_GDR_H
#define RQ_CORE_GDR_H

#include "pkg/gpu/gpu.h"
#include "plugin/attach/core.h"

enum rq_gdr_verdict {
	RQ_GDR_V_NONE = 0, /* not judged (gdr: off) */
	RQ_GDR_V_NO_GPU,   /* kubelet allocated the pod no accelerator */
	RQ_GDR_V_NEAR,
	RQ_GDR_V_FAR,
	RQ_GDR_V_UNKNOWN,
};

#define RQ_GDR_MAX_DEGRADED 4

struct rq_gdr_result {
	enum rq_gdr_verdict verdict;
	enum rq_pci_level max;	    /* gdrLevel as applied (recorded) */
	enum rq_pci_level nccl_max; /* what NCCL compares against: p2c when no level was given */
	bool has_path;
	enum rq_pci_level path;			   /* the VF to its nearest pod GPU */
	struct rq_gpu gpu;			   /* that GPU, when has_path */
	char vf[RQ_PCI_NAME], pf[RQ_PCI_NAME];	   /* the VF, and where it sits */
	const char *degraded[RQ_GDR_MAX_DEGRADED]; /* acs_redirect, link_downgraded, ... */
	size_t n_degraded;
	char evidence[1024];
	/* every GPU of the pod with a PCI address: the agent's per-pod matching reads them */
	char pod_gpus[RQ_GPU_MAX][RQ_PCI_NAME];
	size_t n_pod_gpus;
};

/* gdr_degraded.c: what makes a near pair slow, into @g (degraded, evidence) */
void gdr_degradations(const struct rq_root *r, const struct rq_pci_pos *nic,
		      const struct rq_pci_pos *gpu, const struct rq_pci_pair *p,
		      struct rq_gdr_result *g);
/*
 * The agent's pass: the recorded pair (VF @vf, GPU @gpu_pci) placed again and
 * its degradations read again into @ret. -ENOENT etc.: a device is gone.
 */
int gdr_recheck(const struct rq_root *r, const char *vf, const char *gpu_pci,
		struct rq_gdr_result *ret);
/*
 * The node's peer-memory methods into @ret ("nvidia_peermem", "amdkfd",
 * "dma_buf"); 0: none, and *@loaded_only when nvidia_peermem is loaded but
 * registered nothing.
 */
size_t gdr_peer_memory(const struct rq_root *r, const char **ret, size_t max, bool *loaded_only);
void gdr_ev(struct rq_gdr_result *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A level name as NCCL writes it ("pix" -> "PIX") into @buf */
void gdr_upper(const char *s, char *buf, size_t len);

/* "near", "far", "unknown", "no-gpu" ("" for none) */
const char *gdr_verdict_name(enum rq_gdr_verdict v);

/*
 * Judge the attachment @t of the pod whose devices kubelet listed in @devs
 * (NULL: kubelet gave no answer). Never fails: what cannot be known is an
 * unknown verdict with the reason in the evidence. A pod with no accelerator
 * costs no I/O.
 */
void gdr_judge(struct rq_ctx *c, const struct rq_target *t, const struct rq_numa_devices *devs,
	       struct rq_gdr_result *ret);

/* ADD's and CHECK's use of it: logs, and under gdr: strict a far verdict is 113. */
int gdr_enforce(struct rq_ctx *c, const struct rq_gdr_result *g);

/* The record's fields (beside numaVerdict). */
void gdr_record(const struct rq_ctx *c, cJSON *rec, const struct rq_gdr_result *g);

#endif
