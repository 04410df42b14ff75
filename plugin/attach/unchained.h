/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VFs no chain ran rdma-qos for (DESIGN.md "VFs from Dynamic Resource
 * Allocation, and VFs no chain ran for"): a VF of a watched PF that sits in a
 * network namespace other than the host's with no record. Found by the agent
 * (report, adopt) and by `show`, with the same code.
 */
#ifndef RQ_CORE_UNCHAINED_H
#define RQ_CORE_UNCHAINED_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/attach/core.h"

/* how long the scan waits for kubelet's PodResources List (all VFs in one exchange) */
#define RQ_UNCHAINED_PODRES_MS 1000

/* rq_unchained.by when no PodResources container named it: its netns's processes did */
#define RQ_UNCHAINED_BY_NETNS "pod-netns"

struct rq_unchained {
	char vf[RQ_PCI_ADDR_MAX];
	char pf[IF_NAMESIZE];		 /* the PF's netdev */
	char pf_pci[RQ_PCI_ADDR_MAX];	 /* the PF's PCI address */
	char host_name[IF_NAMESIZE];	 /* the VF netdev's name in the host, "" unknown */
	char ifname[IF_NAMESIZE];	 /* its name in the netns it is in */
	char netns[RQ_NETNS_PATH_MAX];	 /* where this process opens that netns */
	char rdma_dev[64];		 /* its RDMA device, "" none found */
	bool rdma_in_host;		 /* exclusive mode: the RDMA device is still in the host */
	bool pod_known;			 /* PodResources names the VF */
	char pod_ns[254], pod_name[254]; /* the pod, "" unknown */
	char by[24];			 /* how PodResources names it (podres_vf_by_name) */
	char pod_why[160];	       /* when unknown: why ("no pod names it", the API's error) */
	uint64_t netns_dev, netns_ino; /* the netns's identity (nsfs), for its processes */
};

/*
 * The unchained VFs of the PFs @pf_pcis (@n of them): their VFs that have a
 * netdev driver, no record (@recorded: {vf pci: anything}, NULL = read the
 * records), no netdev in the caller's netns (the host's), and a netdev in a
 * netns found under /run/netns, /var/run/netns or env->host_proc. Each with its
 * pod from one PodResources List (@kubelet_dir; NULL: no look-up), else
 * (a claim no container names) from a process of its netns under
 * env->host_proc: its cgroup's pod UID, kubelet's pod log directory. 0 and
 * *@ret (malloc'd, may be NULL when *@ret_n is 0), or <0.
 */
int unchained_scan(const struct rq_env *env, const char *kubelet_dir,
		   char (*pf_pcis)[RQ_PCI_ADDR_MAX], size_t n, const cJSON *recorded,
		   struct rq_unchained **ret, size_t *ret_n);

/* The PFs a node's records and baseline watch (show: as the agent's last pass did). */
int unchained_watched_pfs(const struct rq_env *env, const struct rq_catalog *cat,
			  char (**ret)[RQ_PCI_ADDR_MAX], size_t *ret_n);

/* {vf pci: true} of every record (pending ones included), or NULL on ENOMEM. */
cJSON *unchained_recorded_vfs(const struct rq_env *env);

/* The VFs of PF @pf_pci (sysfs virtfn*): 0 and *@ret (malloc'd), or <0. */
int unchained_pf_vfs(const struct rq_env *env, const char *pf_pci, char (**ret)[RQ_PCI_ADDR_MAX],
		     size_t *ret_n);

#endif
