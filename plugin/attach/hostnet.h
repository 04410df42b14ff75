/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host-network pods on a shared RDMA device (DESIGN.md "Shared RDMA devices:
 * macvlan, ipvlan and host-network pods"): no CNI runs for them, so no record.
 * The agent and `show --pod` find them, with the same code, as the pods
 * kubelet's PodResources List names holding a resource of the catalog's
 * node.sharedResources and that have no attachment record; each is an
 * in-memory object of the shared contract (/work/shared-contract.md):
 * "shared": true, "hostNetwork": true, "vf": "", "rdmaDev", "pfs",
 * "podNamespace", "podName", "podUID", "profileName" (the namespace's
 * default), no "netns", "ifname": "", "ips": [], and as a VF's record
 * "profile", "pf" (verify: nothing is written for a pod no chain asked for),
 * "numa", "numaVerdict", "numaNode", "numaSource", "rdma" {"device", "port",
 * "tosSet": -1}; beside them "resource" (the shared plugin's resource name).
 */
#ifndef RQ_CORE_HOSTNET_H
#define RQ_CORE_HOSTNET_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/attach/core.h"

/* how long a scan waits for kubelet's PodResources List */
#define RQ_HOSTNET_PODRES_MS 1000

/*
 * Whether this process sees the host's processes by their PIDs: it runs in
 * the initial PID namespace (the agent's hostPID), /proc/self/ns/pid being
 * the kernel's PROC_PID_INIT_INO. That is what the QPs' owners need: RDMA
 * netlink gives a QP's PID as the caller's PID namespace sees the creator
 * (task_pid_vnr; none for a process it cannot see), and /proc/<pid>/cgroup
 * names the pod only for such a PID. The host's /proc mounted elsewhere
 * (--host-proc) does not make the QPs' PIDs visible.
 */
bool hostnet_pids_visible(void);

/*
 * The node's host-network pods: one object per pod and PF (a resource
 * sharing two PFs gives the pod two shared devices), appended to *@ret (a
 * cJSON array, created). Pods of a namespace without a default profile are
 * listed with "profileName": "" and "noVerdict" saying why. @recorded:
 * {"NAMESPACE/NAME": true} of the pods with an attachment record, NULL: read
 * the records. 0, and @why "" or what the scan could not do (PodResources
 * List failed: nothing found), or -ENOMEM. No catalog or no
 * node.sharedResources: 0 and nothing.
 */
int hostnet_scan(const struct rq_env *env, const struct rq_catalog *cat, const cJSON *recorded,
		 cJSON **ret, char *why, size_t len);

/* {"NAMESPACE/NAME": true} of every record's pod (pending ones included), or NULL on ENOMEM. */
cJSON *hostnet_recorded_pods(const struct rq_env *env);

/*
 * The qps check's facts of a host-network pod: the QP census cannot say which
 * QPs of the shared device are the pod's without the owners' PIDs (hostPID),
 * and this build attributes no QP of a shared device to a pod (the census's
 * cgroup method, issue 50 item 3): -1 with why.
 */
int hostnet_qps_fact(const cJSON *obj, bool pids_visible, char *why, size_t len);

#endif
