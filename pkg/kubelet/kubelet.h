/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsers for kubelet's allocation checkpoints. Pure (bytes in), bounded,
 * and total: any input yields a result or a negative errno, never a crash.
 */
#ifndef RQ_KUBELET_H
#define RQ_KUBELET_H

#include <stddef.h>
#include <stdint.h>

#define RQ_MAX_CPUS	    4096
#define RQ_CPU_WORDS	    (RQ_MAX_CPUS / 64)
#define RQ_KUBELET_MAX_DEVS 32
#define RQ_KUBELET_FILE_MAX ((size_t)4 * 1024 * 1024)

struct rq_kubelet_dev {
	char resource[128];
	char id[128];
	int node; /* -1: no topology */
};

/* "0-3,8,10-11" into a bitmap; -EINVAL on syntax, -ERANGE beyond RQ_MAX_CPUS. */
int kubelet_cpuset_parse(const char *s, uint64_t *bits);

/*
 * cpu_manager_state: the union of the pod's containers' cpusets into @bits.
 * -ENOENT when the pod has no exclusive CPUs there (shared pool).
 */
int kubelet_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits);

/*
 * kubelet_internal_checkpoint: the pod's devices with their NUMA node
 * (DeviceIDs keyed by node since 1.20; the older flat list gives node -1).
 */
int kubelet_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		    size_t max, size_t *ret_n);

/* memory_manager_state: bitmap of NUMA nodes in the pod's numaAffinity. -ENOENT if none. */
int kubelet_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes);

#endif
