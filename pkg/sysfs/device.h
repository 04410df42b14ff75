/* SPDX-License-Identifier: Apache-2.0 */
/* VF -> PF(s) resolution through sysfs (physfn, net/, bonding). */
#ifndef RQ_DEVICE_H
#define RQ_DEVICE_H

#include <net/if.h>
#include <stdbool.h>

#include "pkg/cni/error.h"
#include "pkg/sysfs/sysfs.h"

#define RQ_MAX_PFS 4

struct rq_pf {
	char pci[16];
	char ifname[IF_NAMESIZE];
	char driver[64];
};

struct rq_vf_info {
	char pci[16];
	bool has_pf; /* false: no physfn (plain NIC via host-device) */
	/*
	 * >1 only for a hardware VF LAG (@lag): every slave of the bond, the
	 * VF's own PF first. A bond without one (legacy SR-IOV) keeps 1.
	 */
	size_t n_pf;
	struct rq_pf pf[RQ_MAX_PFS];
	char bond[IF_NAMESIZE];	  /* the PF's bond, "" unless bonded */
	bool lag;		  /* the NIC carries the bond (mlx5_bond_N on a slave) */
	char rdma_bond[64];	  /* that "mlx5_bond_N", else "" */
	char ifname[IF_NAMESIZE]; /* VF netdev in the host netns, "" when moved */
	int numa_node;		  /* -1 unknown */
};

/* -> RQ_ERR_NO_DEVICE when /sys/bus/pci/devices/<pci> does not exist. */
/*
 * A switchdev representor: a netdev whose phys_port_name is readable and is not
 * an uplink's "p<N>" (mlx5 names VF representors "pf0vf<N>").
 */
bool device_netdev_is_representor(const struct rq_root *r, const char *ifname);

int device_resolve_vf(const struct rq_root *r, const char *vf_pci, struct rq_vf_info *ret,
		      struct rq_error *e);
/*
 * The port(s) under @ifname, a host netdev whose RDMA device pods share
 * (DESIGN.md "Shared RDMA devices"): a PF (itself), a VF left in the host
 * (its PF), or a bond a RoCE LAG device carries (every PCI slave, the one the
 * device is registered on first; -EOPNOTSUPP without such a device). @ret->pci
 * stays "": no VF is the pod's. @fn: the PCI function the RDMA device sits
 * on. -ENODEV: no PCI function under @ifname, or its PF has no netdev.
 */
int device_resolve_netdev(const struct rq_root *r, const char *ifname, struct rq_vf_info *ret,
			  char *fn, size_t fnlen, struct rq_error *e);
/*
 * A PF by its PCI address, as it is now: netdev (a driver reload may have
 * renamed it) and driver. -ENODEV: no netdev.
 */
int device_resolve_pf(const struct rq_root *r, const char *pf_pci, struct rq_pf *ret);
/*
 * Every SR-IOV capable PF of the node that has a netdev (sriov_numvfs, no
 * physfn), in PCI order; *ret (free()) may hold none.
 */
int device_list_pfs(const struct rq_root *r, struct rq_pf **ret, size_t *ret_n);
/*
 * The device a physical port's netdev hangs off, as devlink names its
 * instance: @bus "pci" and @dev the PCI address for a NIC function, else the
 * bus the device's subsystem link names (netdevsim's "netdevsim",
 * "netdevsim1"). -ENODEV: a virtual netdev (veth, bond, bridge), a VF or a
 * switchdev representor, none of which is a port of the fabric.
 */
int device_port_parent(const struct rq_root *r, const char *ifname, char *bus, size_t blen,
		       char *dev, size_t dlen);

#endif
