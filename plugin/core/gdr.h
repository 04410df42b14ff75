/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GPUDirect RDMA verdict of one attachment (DESIGN.md "GPUDirect RDMA:
 * the pod's GPUs and its VF"): the VF against its nearest pod GPU on PCIe,
 * as NCCL computes the path, and what makes a near pair slow.
 */
#ifndef RQ_CORE_GDR_H
#define RQ_CORE_GDR_H

#include "pkg/gpu/gpu.h"
#include "plugin/core/core.h"

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
	enum rq_pci_level max; /* gdrLevel as applied */
	bool has_path;
	enum rq_pci_level path;			   /* the VF to its nearest pod GPU */
	struct rq_gpu gpu;			   /* that GPU, when has_path */
	char vf[RQ_PCI_NAME], pf[RQ_PCI_NAME];	   /* the VF, and where it sits */
	const char *degraded[RQ_GDR_MAX_DEGRADED]; /* acs_redirect, link_downgraded, ... */
	size_t n_degraded;
	char evidence[1024];
};

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
