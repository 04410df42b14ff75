// SPDX-License-Identifier: Apache-2.0
/* VF -> PF(s): physfn, the PF's netdev, its driver, and the ports of a hardware VF LAG. */
#include "pkg/sysfs/device.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* phys_port_name "p<N>": the uplink of a switchdev-mode PF (representors say "pf0vf3"). */
static bool netdev_is_uplink(const struct rq_root *r, const char *ifname)
{
	char path[256], name[32];
	size_t n;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/phys_port_name", ifname);
	if (sysfs_read_str(r, path, name, sizeof(name)) < 0 || name[0] != 'p')
		return false;
	n = strlen(name + 1);
	return n > 0 && strspn(name + 1, "0123456789") == n;
}

bool device_netdev_is_representor(const struct rq_root *r, const char *ifname)
{
	char path[256], name[32];

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/phys_port_name", ifname);
	return sysfs_read_str(r, path, name, sizeof(name)) == 0 && name[0] &&
	       !netdev_is_uplink(r, ifname);
}

/*
 * The netdev of a PCI function, "" when it has none. In switchdev mode mlx5
 * parents every representor to the PF's PCI device too; the PF netdev is the
 * uplink (phys_port_name p<N>), the only one with dcbnl, whatever the
 * representors' names sort to. Without an uplink (legacy mode: reading
 * phys_port_name fails) the device has one netdev.
 */
static int pci_netdev(const struct rq_root *r, const char *pci, char *buf, size_t len)
{
	char path[256];
	char **names = NULL;
	size_t n = 0, pick = 0;
	int rr;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/net", pci);
	rr = sysfs_list(r, path, &names, &n);
	if (rr < 0)
		return rr;
	for (size_t i = 0; n > 1 && i < n; i++)
		if (netdev_is_uplink(r, names[i])) {
			pick = i;
			break;
		}
	if (n == 0 || strlen(names[pick]) >= len) {
		sysfs_list_free(names, n);
		return -ENOENT;
	}
	(void)snprintf(buf, len, "%s", names[pick]);
	sysfs_list_free(names, n);
	return 0;
}

static void pf_fill(const struct rq_root *r, struct rq_pf *pf)
{
	char path[256];

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", pf->pci);
	if (sysfs_readlink_base(r, path, pf->driver, sizeof(pf->driver)) < 0)
		pf->driver[0] = '\0';
	if (pci_netdev(r, pf->pci, pf->ifname, sizeof(pf->ifname)) < 0)
		pf->ifname[0] = '\0';
}

/*
 * The PCI functions enslaved to the PF's bond (the PF's own first), in
 * @slaves; vf->bond names the bond. A virtual slave (a veth in a test bond)
 * has no PCI function and is left out.
 */
static size_t bond_slaves(const struct rq_root *r, struct rq_vf_info *vf,
			  struct rq_pf slaves[RQ_MAX_PFS])
{
	char path[256], list[1024], *save = NULL, *tok;
	size_t n = 1;

	slaves[0] = vf->pf[0];
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/master", vf->pf[0].ifname);
	if (sysfs_readlink_base(r, path, vf->bond, sizeof(vf->bond)) < 0) {
		vf->bond[0] = '\0';
		return n;
	}
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/slaves", vf->bond);
	if (sysfs_read_str(r, path, list, sizeof(list)) < 0) {
		vf->bond[0] = '\0'; /* a master that is not a bond (a bridge, a VRF) */
		return n;
	}
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char pci[64];
		bool dup = false;

		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", tok);
		if (sysfs_readlink_base(r, path, pci, sizeof(pci)) < 0 || !sysfs_pci_valid(pci))
			continue;
		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pci);
		if (!sysfs_exists(r, path))
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= !strcmp(slaves[i].pci, pci);
		if (dup || n >= RQ_MAX_PFS)
			continue;
		memset(&slaves[n], 0, sizeof(slaves[n]));
		(void)snprintf(slaves[n].pci, sizeof(slaves[0].pci), "%s", pci);
		pf_fill(r, &slaves[n]);
		n++;
	}
	return n;
}

/*
 * mlx5 names its RDMA device mlx5_bond_<n> only while the LAG is active in
 * the NIC (mlx5_ib_stage_ib_reg_init: mlx5_lag_is_active), registered on the
 * first PF's PCI function: "" when no such device sits on one of @slaves.
 */
static void rdma_bond(const struct rq_root *r, const struct rq_pf *slaves, size_t n_slaves,
		      char *buf, size_t len)
{
	char **names = NULL;
	size_t n = 0;

	buf[0] = '\0';
	if (sysfs_list(r, "/sys/class/infiniband", &names, &n) < 0)
		return;
	for (size_t i = 0; i < n && !buf[0]; i++) {
		char path[300], pci[64];

		if (strncmp(names[i], "mlx5_bond_", 10) != 0)
			continue;
		(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", names[i]);
		if (sysfs_readlink_base(r, path, pci, sizeof(pci)) < 0)
			continue;
		for (size_t k = 0; k < n_slaves; k++)
			if (!strcmp(pci, slaves[k].pci))
				(void)snprintf(buf, len, "%s", names[i]);
	}
	sysfs_list_free(names, n);
}

/*
 * Which ports the VF's RoCE can leave by. A bond the NIC carries (hardware
 * VF LAG: the PFs in switchdev mode with bonded uplinks, the LAG active, its
 * RDMA device mlx5_bond_<n>) sends the VF's traffic out of any slave
 * (lag/port_sel.c hashes it; active-backup moves it on failover): every
 * slave is a target. A Linux bond over PFs in legacy SR-IOV mode is software
 * only: mlx5_lag_check_prereq refuses a LAG while a legacy-mode PF has VFs,
 * so the VF sends on its own port and only its own PF is a target.
 */
static void bond_ports(const struct rq_root *r, struct rq_vf_info *vf)
{
	struct rq_pf slaves[RQ_MAX_PFS];
	size_t n = bond_slaves(r, vf, slaves);

	if (!vf->bond[0] || n < 2)
		return;
	rdma_bond(r, slaves, n, vf->rdma_bond, sizeof(vf->rdma_bond));
	if (!vf->rdma_bond[0])
		return;
	vf->lag = true;
	for (size_t i = 0; i < n; i++)
		vf->pf[i] = slaves[i];
	vf->n_pf = n;
}

int device_resolve_vf(const struct rq_root *r, const char *vf_pci, struct rq_vf_info *ret,
		      struct rq_error *e)
{
	struct rq_vf_info vf;
	char path[256];
	long node = -1;
	int rr;

	if (!sysfs_pci_valid(vf_pci))
		return rq_err(e, RQ_ERR_NO_DEVICE, -EINVAL,
			      "VF \"%s\" is not a PCI address (expected e.g. 0000:81:00.2)",
			      vf_pci ? vf_pci : "");
	memset(&vf, 0, sizeof(vf));
	(void)snprintf(vf.pci, sizeof(vf.pci), "%s", vf_pci);
	/* numa_node first: read, it says the device is there (no lookup of the directory apart) */
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", vf_pci);
	rr = sysfs_read_int(r, path, &node);
	vf.numa_node = rr == 0 ? (int)node : -1;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", vf_pci);
	if (rr < 0 && !sysfs_exists(r, path))
		return rq_err(e, RQ_ERR_NO_DEVICE, -ENODEV, "VF %s: no such PCI device", vf_pci);
	if (pci_netdev(r, vf_pci, vf.ifname, sizeof(vf.ifname)) < 0)
		vf.ifname[0] = '\0';
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", vf_pci);
	rr = sysfs_readlink_base(r, path, vf.pf[0].pci, sizeof(vf.pf[0].pci));
	if (rr == 0 && !sysfs_pci_valid(vf.pf[0].pci))
		rr = -EINVAL;
	if (rr == -ENOENT) {
		*ret = vf; /* has_pf false: a plain NIC */
		return 0;
	}
	if (rr < 0)
		return rq_err(e, RQ_ERR_NO_DEVICE, rr, "VF %s: physfn: %s", vf_pci, strerror(-rr));
	vf.has_pf = true;
	vf.n_pf = 1;
	pf_fill(r, &vf.pf[0]);
	if (!vf.pf[0].ifname[0])
		return rq_err(e, RQ_ERR_NO_DEVICE, -ENODEV, "PF %s of VF %s has no netdev",
			      vf.pf[0].pci, vf_pci);
	bond_ports(r, &vf);
	*ret = vf;
	return 0;
}

/* A bond's PCI slaves in bond order: the PFs a shared RoCE LAG device sends on. */
static int shared_bond(const struct rq_root *r, const char *bond, struct rq_vf_info *vf, char *fn,
		       size_t fnlen, struct rq_error *e)
{
	char path[256], list[1024], *save = NULL, *tok;
	struct rq_pf slaves[RQ_MAX_PFS];
	size_t n = 0;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/bonding/slaves", bond);
	if (sysfs_read_str(r, path, list, sizeof(list)) < 0)
		return -ENOENT;
	for (tok = strtok_r(list, " \n", &save); tok && n < RQ_MAX_PFS;
	     tok = strtok_r(NULL, " \n", &save)) {
		char pci[64];

		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", tok);
		if (sysfs_readlink_base(r, path, pci, sizeof(pci)) < 0 || !sysfs_pci_valid(pci))
			continue;
		memset(&slaves[n], 0, sizeof(slaves[n]));
		(void)snprintf(slaves[n].pci, sizeof(slaves[0].pci), "%s", pci);
		pf_fill(r, &slaves[n]);
		n++;
	}
	(void)snprintf(vf->bond, sizeof(vf->bond), "%s", bond);
	rdma_bond(r, slaves, n, vf->rdma_bond, sizeof(vf->rdma_bond));
	if (!vf->rdma_bond[0])
		return rq_err(
		    e, RQ_ERR_NO_DEVICE, -EOPNOTSUPP,
		    "bond %s carries no RoCE LAG device (mlx5_bond_<n>): its slaves' RDMA "
		    "devices are not shared through it",
		    bond);
	/* the slave the LAG device is registered on first: it carries the device */
	(void)snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", vf->rdma_bond);
	(void)sysfs_readlink_base(r, path, fn, fnlen);
	vf->pf[vf->n_pf++] = slaves[0];
	for (size_t i = 0; i < n; i++)
		if (!strcmp(slaves[i].pci, fn))
			vf->pf[0] = slaves[i];
	for (size_t i = 0; i < n; i++)
		if (strcmp(slaves[i].pci, vf->pf[0].pci) != 0)
			vf->pf[vf->n_pf++] = slaves[i];
	vf->lag = true;
	vf->has_pf = true;
	return 0;
}

int device_resolve_netdev(const struct rq_root *r, const char *ifname, struct rq_vf_info *ret,
			  char *fn, size_t fnlen, struct rq_error *e)
{
	struct rq_vf_info vf;
	char path[256], pci[64], pf[64];
	long node = -1;
	int rr;

	memset(&vf, 0, sizeof(vf));
	vf.numa_node = -1;
	fn[0] = '\0';
	rr = shared_bond(r, ifname, &vf, fn, fnlen, e);
	if (rr != -ENOENT) {
		if (rr == 0)
			*ret = vf;
		return rr;
	}
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (sysfs_readlink_base(r, path, pci, sizeof(pci)) < 0 || !sysfs_pci_valid(pci))
		return rq_err(e, RQ_ERR_NO_DEVICE, -ENODEV,
			      "%s is not a PCI network function (a veth, a bridge?): no RDMA "
			      "device to share",
			      ifname);
	(void)snprintf(fn, fnlen, "%s", pci);
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	vf.numa_node = sysfs_read_int(r, path, &node) == 0 ? (int)node : -1;
	/* a VF left in the host: the port it sends on is its PF's */
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", pci);
	if (sysfs_readlink_base(r, path, pf, sizeof(pf)) < 0 || !sysfs_pci_valid(pf))
		(void)snprintf(pf, sizeof(pf), "%s", pci);
	(void)snprintf(vf.pf[0].pci, sizeof(vf.pf[0].pci), "%s", pf);
	if (strcmp(pf, pci) != 0) {
		pf_fill(r, &vf.pf[0]);
	} else {
		/* the PF itself: its netdev is @ifname, no listing of its net/ needed */
		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", pf);
		if (sysfs_readlink_base(r, path, vf.pf[0].driver, sizeof(vf.pf[0].driver)) < 0)
			vf.pf[0].driver[0] = '\0';
		(void)snprintf(vf.pf[0].ifname, sizeof(vf.pf[0].ifname), "%s", ifname);
	}
	if (!vf.pf[0].ifname[0])
		return rq_err(e, RQ_ERR_NO_DEVICE, -ENODEV, "PF %s under %s has no netdev", pf,
			      ifname);
	vf.n_pf = 1;
	vf.has_pf = true;
	*ret = vf;
	return 0;
}

int device_resolve_pf(const struct rq_root *r, const char *pf_pci, struct rq_pf *ret)
{
	struct rq_pf pf;

	if (!sysfs_pci_valid(pf_pci))
		return -EINVAL;
	memset(&pf, 0, sizeof(pf));
	(void)snprintf(pf.pci, sizeof(pf.pci), "%s", pf_pci);
	pf_fill(r, &pf);
	if (!pf.ifname[0])
		return -ENODEV;
	*ret = pf;
	return 0;
}

/* An SR-IOV capable PF: it has sriov_numvfs and no physfn of its own. */
static bool pci_is_sriov_pf(const struct rq_root *r, const char *pci)
{
	char path[256];

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs", pci);
	if (!sysfs_exists(r, path))
		return false;
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", pci);
	return !sysfs_exists(r, path);
}

int device_list_pfs(const struct rq_root *r, struct rq_pf **ret, size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0, k = 0;
	struct rq_pf *pfs;
	int rr;

	rr = sysfs_list(r, "/sys/bus/pci/devices", &names, &n);
	if (rr < 0)
		return rr;
	pfs = calloc(n ? n : 1, sizeof(*pfs));
	if (!pfs) {
		sysfs_list_free(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (pci_is_sriov_pf(r, names[i]) && device_resolve_pf(r, names[i], &pfs[k]) == 0)
			k++;
	sysfs_list_free(names, n);
	*ret = pfs;
	*ret_n = k;
	return 0;
}

int device_port_parent(const struct rq_root *r, const char *ifname, char *bus, size_t blen,
		       char *dev, size_t dlen)
{
	char path[256], link[4096], suffix[IF_NAMESIZE + 8];
	const char *end, *start;
	size_t ln, sn;

	if (!ifname[0] || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -EINVAL;
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s", ifname);
	if (sysfs_readlink(r, path, link, sizeof(link)) < 0)
		return -ENODEV;
	/* ../../devices/<...>/<dev>/net/<ifname>; "virtual" for a software netdev */
	(void)snprintf(suffix, sizeof(suffix), "/net/%s", ifname);
	ln = strlen(link);
	sn = strlen(suffix);
	if (ln <= sn || strcmp(link + ln - sn, suffix) != 0)
		return -ENODEV;
	end = link + ln - sn;
	for (start = end; start > link && start[-1] != '/'; start--)
		;
	if (end == start || (size_t)(end - start) >= dlen ||
	    ((size_t)(end - start) == 7 && !strncmp(start, "virtual", 7)))
		return -ENODEV;
	(void)snprintf(dev, dlen, "%.*s", (int)(end - start), start);
	if (device_netdev_is_representor(r, ifname))
		return -ENODEV;
	if (sysfs_pci_valid(dev)) {
		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", dev);
		if (sysfs_exists(r, path))
			return -ENODEV; /* a VF */
		(void)snprintf(bus, blen, "pci");
		return 0;
	}
	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device/subsystem", ifname);
	return sysfs_readlink_base(r, path, bus, blen) < 0 ? -ENODEV : 0;
}
