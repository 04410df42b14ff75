/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The two seams that differ between rdma-qos and rdma-qos-sim: the host root
 * (real "/" vs RDMA_QOS_SIM_ROOT) and the DCB backend (netlink vs file-backed
 * fake). The root seam includes the question "which PCI device is this pod
 * interface?": the kernel answers it for a real VF, the simulated sysfs for
 * a veth "VF" (link_pci). env_prod.c and env_sim.c each define env_init();
 * everything else in plugin/ is shared command code.
 */
#ifndef RQ_PLUGIN_ENV_H
#define RQ_PLUGIN_ENV_H

#include <stdbool.h>

#include "pkg/cni/error.h"
#include "pkg/dcb/dcb.h"
#include "pkg/devlink/devlink.h"
#include "pkg/ethtool/ethtool.h"
#include "pkg/ethtool/link.h"
#include "pkg/rdma/cm_id.h"
#include "pkg/rdma/qps.h"
#include "pkg/sysfs/sysfs.h"

/* the agent's first back-off after a repair undone again: 30 s, then 60, 120, 240 */
#define RQ_REPAIR_BACKOFF_MS 30000

struct rq_env {
	struct rq_root root;
	bool sim;
	const char *binary;    /* "rdma-qos" or "rdma-qos-sim" */
	int lock_timeout_ms;   /* bounded wait for a PF lock */
	int podres_list_ms;    /* the unchained scan's List bound, 0: the default */
	int repair_backoff_ms; /* agent: first back-off of a repair undone again (doubling) */
	/*
	 * Telemetry: keep every hw_counters entry of an attachment's device
	 * (agent --vf-counters all); false keeps only the families DESIGN.md
	 * names (essential), so a node's series count stays bounded.
	 */
	bool tel_vf_all;
	/* agent: the QP census at most every census_s seconds (0: every collection) */
	int census_s;
	/*
	 * The host's /proc as this process sees it (the agent's --host-proc),
	 * NULL: none. A record's /proc/<pid>/ns/net path is read through it
	 * when the process is not in the plugin's PID namespace (attach/podns.c).
	 */
	const char *host_proc;
	/* opens the DCB backend; called in the host netns */
	int (*dcb_open)(const struct rq_env *env, const struct dcb_ops **ret_ops, void **ret_ctx);
	/*
	 * Opens the port statistics reader (telemetry); called in the host
	 * netns: SIOCETHTOOL (prod), <root>/ethtool/<pf>.json (sim).
	 */
	int (*ethtool_open)(const struct rq_env *env, const struct ethtool_ops **ret_ops,
			    void **ret_ctx);
	/*
	 * The link health readers (agent; host netns): ethtool netlink FEC,
	 * PHY statistics and link modes, devlink health reporters (prod);
	 * <root>/ethtool/<pf>.{fec,phy,link}.json, <root>/devlink/<pci>.health.json (sim).
	 */
	int (*link_open)(const struct rq_env *env, const struct ethtool_link_ops **ret_ops,
			 void **ret_ctx);
	int (*devlink_open)(const struct rq_env *env, const struct devlink_ops **ret_ops,
			    void **ret_ctx);
	/*
	 * The PCI address of netdev @ifname in the current netns (called inside
	 * the pod netns): its parent device (prod); the sim's veth "VFs" have
	 * none, so the sim maps the alias host-device leaves on a moved link (the
	 * name it had on the host) through the simulated sysfs. Returns the
	 * link's ifindex (> 0) from the same RTM_GETLINK: a steady ADD asks the
	 * kernel once, not an ioctl socket first; -ENODEV: no such link.
	 * @ret_ifindex (may be NULL): the link's ifindex whenever the link was
	 * found, also when it shows no PCI device (no second question for it).
	 */
	int (*link_pci)(const struct rq_env *env, const char *ifname, char *buf, size_t len,
			int *ret_ifindex);
	/*
	 * Agent only, may be NULL: an fd that turns readable when the node
	 * changes in a way no netlink event reports. The sim's DCB is files, so
	 * it watches <root>/dcb (inotify); prod has none (dcbnl notifies).
	 */
	int (*watch_open)(const struct rq_env *env, int *ret_fd);
	/*
	 * Sim only, NULL in prod: a named point of a command where a test may
	 * hold it (RDMA_QOS_SIM_PAUSE=<point>:<dir>: the command creates
	 * <dir>/paused and waits, at most 60 s, for <dir>/go).
	 */
	void (*pause_point)(const struct rq_env *env, const char *point);
	/*
	 * The PF's PFC storm-prevention timeout in ms (0 off, -1 auto), reported
	 * only: ethtool's tunable (prod); <root>/ethtool/<pf>.tunables.json
	 * {"pfcPreventionTout": N} (sim, 65535 = auto as in ethtool). -ENOENT or
	 * -EOPNOTSUPP: the driver has none.
	 */
	int (*pfc_storm_tout)(const struct rq_env *env, const char *ifname, int *ret_ms);
	/*
	 * Sim only, NULL in prod: called before the counters of each PF and of
	 * each attachment are read (telemetry). RDMA_QOS_SIM_COUNTER_DELAY_MS=N
	 * makes it sleep N ms, as mlx5 firmware queries do (about 30 per
	 * ETHTOOL_GSTATS of a VF netdev, hw_counters uncached): tests of an agent
	 * whose counter reads are slow.
	 */
	void (*counter_read)(const struct rq_env *env);
	/*
	 * The QP census of RDMA device @dev (DESIGN.md "Who"), read where the
	 * device is: @netns the pod's netns path in exclusive RDMA netns mode,
	 * "" the host's. Prod: RDMA netlink (pkg/rdma/qps.h; a QP's pid only
	 * where this process's PID namespace sees its process); sim:
	 * <root>/rdma/qps/<dev>.json, no file = no QPs.
	 */
	int (*qps_read)(const struct rq_env *env, const char *netns, const char *dev,
			struct rq_qp_list *ret);
	/*
	 * The RDMA-CM ids of RDMA device @dev (a shared device's census: which
	 * pod's address each QP's id is bound to), read where the device is
	 * (@netns as for qps_read). Prod: RDMA netlink's restrack cm_id dump
	 * (pkg/rdma/cm_id.h); sim: <root>/rdma/cm_ids/<dev>.json, no file = none.
	 */
	int (*cm_ids_read)(const struct rq_env *env, const char *netns, const char *dev,
			   struct rq_cm_id_list *ret);
};

int env_init(struct rq_env *env, struct rq_error *e);
void env_fini(struct rq_env *env);

#endif
