/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The accelerators kubelet allocated to a pod, mapped to PCI addresses
 * without NVML (DESIGN.md "GPUDirect RDMA"): NVIDIA device-plugin UUIDs and
 * DRA gpu-<minor> through /proc/driver/nvidia/gpus/<pci>/information, AMD
 * device-plugin IDs that are PCI addresses, AMD DRA gpu-<card>-<render>
 * through /sys/class/drm, Intel DRA names that carry the address. What
 * cannot be mapped (MIG, Gaudi serials, unknown names of a GPU driver) is
 * named in ret->unmapped.
 */
#ifndef RQ_GPU_H
#define RQ_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/pci/pci.h"
#include "pkg/podres/podres.h"

#define RQ_GPU_MAX 16

struct rq_gpu {
	char pci[RQ_PCI_NAME];
	char id[128];	  /* the device-plugin ID or the DRA device name */
	char source[128]; /* the resource name or the DRA driver */
	bool c2c;	  /* NVIDIA coherent platform (numa_status): NCCL's P2C */
};

struct rq_gpu_set {
	struct rq_gpu gpu[RQ_GPU_MAX];
	size_t n;
	size_t n_unmapped;
	char unmapped[512]; /* "nvidia.com/gpu MIG-..., habana.ai/gaudi 1234 (no PCI address)" */
};

/* The DRA drivers whose devices are accelerators */
#define RQ_DRA_GPU_NVIDIA "gpu.nvidia.com"
#define RQ_DRA_GPU_AMD	  "gpu.amd.com"
#define RQ_DRA_GAUDI	  "gaudi.intel.com"
#define RQ_DRA_GPU_INTEL  "gpu.intel.com"

/*
 * Whether a device-plugin entry or DRA device may be an accelerator at all,
 * from its ID and name only (no I/O): a pod with none costs nothing more.
 */
bool gpu_devplugin_candidate(const char *resource, const char *id);
bool gpu_dra_candidate(const char *driver);

/*
 * Map the pod's devices (@devs from the device plugins, @dra from DRA) into
 * @ret. Reads /proc/driver/nvidia only when an NVIDIA ID is there, each PCI
 * address's class only for device-plugin IDs that are addresses. 0 (even
 * with nothing mapped) or a negative errno for @ret's own failure.
 */
int gpu_map_pod(const struct rq_root *r, const struct rq_kubelet_dev *devs, size_t n_devs,
		const struct rq_podres_dra_dev *dra, size_t n_dra, struct rq_gpu_set *ret);

/*
 * One /proc/driver/nvidia/gpus/<pci>/information file's "GPU UUID" and
 * "Device Minor" (nv-procfs.c's format: "Name: \t value"); -EBADMSG when
 * neither is there.
 */
int gpu_nvidia_info_parse(const char *text, char *uuid, size_t uuid_len, int *minor);

#endif
