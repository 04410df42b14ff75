/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pod's rails (one VF per PF) matched to its GPUs within gdrLevel, a
 * maximum matching (DESIGN.md "GPUDirect RDMA"): the agent's
 * rdma_qos_pod_gpus_without_rail and rdma_qos_pod_shared_pf.
 */
#ifndef RQ_PLUGIN_GDR_RAILS_H
#define RQ_PLUGIN_GDR_RAILS_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "pkg/gpu/gpu.h"
#include "pkg/pci/pci.h"

#define POD_RAILS 16

/* One pod: its rails (distinct PFs) and GPUs, the GPUs left without a near rail. */
struct pod_rails {
	const cJSON *first; /* the pod's first entry (namespace, pod) */
	char pf[POD_RAILS][RQ_PCI_NAME];
	int n_on_pf[POD_RAILS];
	size_t n_pf;
	char gpu[RQ_GPU_MAX][RQ_PCI_NAME];
	size_t n_gpu;
	enum rq_pci_level level;
};

/* Add one entry of the pass's gdr list (a pod's attachment) to @p */
void gdr_rails_add(struct pod_rails *p, const cJSON *it);
/* The pod's GPUs left without a rail within its level by a maximum matching */
size_t gdr_rails_unmatched(const struct rq_root *r, const struct pod_rails *p);

#endif
