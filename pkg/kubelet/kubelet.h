/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsers for kubelet's allocation checkpoints. Bounded and total: any input
 * yields a result or a negative errno, never a crash. They stream the file
 * (pkg/json/jscan.h), validate all of it, and keep only the pod's entries.
 */
#ifndef RQ_KUBELET_H
#define RQ_KUBELET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/json/jscan.h"

#define RQ_MAX_CPUS	    4096
#define RQ_CPU_WORDS	    (RQ_MAX_CPUS / 64)
#define RQ_KUBELET_MAX_DEVS 32
/*
 * Memory-safety bounds, far above real sizes (a 250-pod device checkpoint
 * with kubelet's AllocResp blobs is ~6 MB; one pod's entries a few KiB).
 * Streaming keeps memory flat; the file bound caps the time a broken file
 * can cost. Past a bound the parsers fail with -EFBIG: never a silent drop.
 */
#define RQ_KUBELET_FILE_MAX ((uint64_t)64 * 1024 * 1024)
#ifndef RQ_KUBELET_VALUE_MAX /* the fuzz build makes it small so inputs cross it */
#define RQ_KUBELET_VALUE_MAX ((size_t)1024 * 1024)
#endif
#define RQ_KUBELET_BOUND_TEXT "64 MiB a file, 1 MiB a pod's entries"
#define RQ_KUBELET_KEY_MAX    256 /* a pod UID is 36 bytes; a longer one is -EINVAL */

struct rq_kubelet_dev {
	char resource[128];
	char id[128];
	int node; /* -1: no topology */
};

/* "0-3,8,10-11" into a bitmap; -EINVAL on syntax, -ERANGE beyond RQ_MAX_CPUS. */
int kubelet_cpuset_parse(const char *s, uint64_t *bits);

/*
 * Each parser below has a form over bytes in memory (tests) and a _src form
 * over any reader (the plugin streams the file). -EBADMSG: not JSON;
 * -EFBIG: over a bound; other negative errnos from the reader.
 */

/*
 * cpu_manager_state: the union of the pod's containers' cpusets into @bits.
 * -ENOENT when the pod has no exclusive CPUs there (shared pool).
 */
int kubelet_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits);
int kubelet_cpu_manager_src(struct rq_jsrc src, const char *pod_uid, uint64_t *bits);

/*
 * kubelet_internal_checkpoint: the pod's devices with their NUMA node
 * (DeviceIDs keyed by node since 1.20; the older flat list gives node -1).
 */
int kubelet_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		    size_t max, size_t *ret_n);
/*
 * ... and in @ret_nodes (may be NULL) the NUMA nodes of all of them, beyond @max too.
 * Device IDs in @skip (NULL-terminated, may be NULL; PCI addresses compare without
 * case) are neither listed nor counted: the attachment's own VF is no evidence.
 */
int kubelet_devices_src(struct rq_jsrc src, const char *pod_uid, const char *const *skip,
			struct rq_kubelet_dev *devs, size_t max, size_t *ret_n,
			uint64_t *ret_nodes);
/* Whether @id is one of @skip (NULL-terminated, may be NULL), without case. */
bool kubelet_dev_skipped(const char *const *skip, const char *id);

/* memory_manager_state: bitmap of NUMA nodes in the pod's numaAffinity. -ENOENT if none. */
int kubelet_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes);
int kubelet_memory_src(struct rq_jsrc src, const char *pod_uid, uint64_t *ret_nodes);

/*
 * podid.c: a pod from its processes (a VF's pod no PodResources container
 * names). kubelet_cgroup_pod_uid: the pod UID in a /proc/<pid>/cgroup text
 * (a component after one naming "kubepods": "pod<uid>" of the cgroupfs
 * driver or "kubepods-<qos>-pod<uid>.slice" of systemd's, whose '_' are the
 * UID's '-'): 0, -ENOENT (not a pod's process), -ENAMETOOLONG.
 * kubelet_pod_log_entry: a kubelet pod log directory name
 * "NAMESPACE_NAME_UID" of @uid into its namespace and name: 0, -ENOENT
 * (another pod's), -EINVAL (malformed), -ENAMETOOLONG.
 */
#define RQ_POD_LOG_DIR "/var/log/pods"
int kubelet_cgroup_pod_uid(const char *buf, size_t len, char *ret, size_t ret_len);
int kubelet_pod_log_entry(const char *entry, const char *uid, char *ret_ns, size_t ns_len,
			  char *ret_name, size_t name_len);

#endif
