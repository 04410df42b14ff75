/* SPDX-License-Identifier: Apache-2.0 */
/* NUMA placement of a VF against where kubelet placed the pod. */
#ifndef RQ_NUMA_H
#define RQ_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#include "pkg/podres/podres.h"
#include "pkg/sysfs/sysfs.h"

/*
 * UNVERIFIABLE: a kubelet file is over its memory-safety bound, so evidence
 * was refused rather than absent (numa: strict fails on it, warn logs it).
 */
enum rq_numa_verdict {
	RQ_NUMA_UNKNOWN = 0,
	RQ_NUMA_ALIGNED,
	RQ_NUMA_MISALIGNED,
	RQ_NUMA_UNVERIFIABLE
};

/* Where the evidence comes from (the catalog's node.numaSource). */
enum rq_numa_source {
	RQ_NUMA_SRC_AUTO =
	    0,		  /* kubelet's PodResources API, its files when the API gives no answer */
	RQ_NUMA_SRC_API,  /* the API only: no answer is an unknown verdict */
	RQ_NUMA_SRC_FILES /* kubelet's checkpoint files only */
};

/* The catalog's word for @s (inline: netconf names it without linking the evaluation). */
static inline const char *numa_source_name(enum rq_numa_source s)
{
	return s == RQ_NUMA_SRC_API ? "api" : s == RQ_NUMA_SRC_FILES ? "files" : "auto";
}

struct rq_numa_result {
	enum rq_numa_verdict verdict;
	/* "PodResources API (Get)", "... (List)", or "kubelet files" with why not the API */
	char source[224];
	int vf_node;	     /* -1 unknown */
	uint64_t pod_nodes;  /* NUMA nodes the pod's CPUs/devices/memory are on */
	bool over_bound;     /* a kubelet file was over RQ_KUBELET_FILE_MAX or a value bound */
	char evidence[1024]; /* e.g. "VF 0000:81:10.0 is on NUMA node 1; pod CPUs 0-3 are on node 0;
				..." */
};

/* numa_node of a PCI device; -1 when unknown. */
int numa_pci_node(const struct rq_root *r, const char *pci, int *ret);

#define RQ_NUMA_MAX_SELF 4

/*
 * The pod's devices as the evidence saw them, for the GPUDirect verdict: the
 * same PodResources reply (or device checkpoint), never a second request.
 */
struct rq_numa_devices {
	bool answered; /* kubelet answered for the pod (API, or its device checkpoint) */
	struct rq_kubelet_dev devs[RQ_KUBELET_MAX_DEVS];
	size_t n_devs;
	struct rq_podres_dra_dev dra[RQ_PODRES_MAX_DRA];
	size_t n_dra;
};

/* What to judge: an attachment's VF against its pod. */
struct rq_numa_query {
	const char *kubelet_dir;       /* host path, e.g. "/var/lib/kubelet" */
	const char *pod_uid;	       /* may be NULL/empty -> unknown */
	const char *pod_ns, *pod_name; /* K8S_POD_NAMESPACE/K8S_POD_NAME: the API's key */
	enum rq_numa_source source;
	int api_timeout_ms; /* 0: RQ_PODRES_TIMEOUT_MS */
	const char *vf_pci;
	/* the VF's numa_node as the caller already read it (-1 unknown); else it is read here */
	bool has_vf_node;
	int vf_node;
	/*
	 * The attachment's other names for its own device (netdev, RDMA device),
	 * NULL-terminated; may be all NULL. A device plugin lists the VF under its
	 * own pod (the SR-IOV device plugin by PCI address, with its NUMA node): the
	 * VF and these never count as placement evidence, or the VF vouches for itself.
	 */
	const char *self[RQ_NUMA_MAX_SELF + 1];
	struct rq_numa_devices *devices; /* NULL, or (zeroed by the caller) what kubelet listed */
};

/*
 * Verdict for @q using kubelet state under q->kubelet_dir. Never fails for
 * missing or malformed kubelet data: that is an unknown verdict with the
 * reason in evidence.
 */
int numa_evaluate(const struct rq_root *r, const struct rq_numa_query *q,
		  struct rq_numa_result *ret);

#endif
