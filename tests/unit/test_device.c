// SPDX-License-Identifier: Apache-2.0
/* device_resolve_vf over nodes built by tests/simnode/mknode. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "pkg/sysfs/carrier.h"
#include "pkg/sysfs/device.h"
#include "tests/simnode/simnode.h"

#define DEV "$R/sys/devices/pci0000:00"

static struct simnode node;

static void teardown(void)
{
	sim_destroy(&node);
}

START_TEST(vf_with_pf)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 2 --vfs 4 --numa-nodes 2");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, &e), 0);
	ck_assert_int_eq(e.code, 0);
	ck_assert_str_eq(vf.pci, "0000:81:00.1");
	ck_assert(vf.has_pf);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "simpf0");
	ck_assert_str_eq(vf.pf[0].driver, "mlx5_core");
	ck_assert_str_eq(vf.bond, "");
	ck_assert_str_eq(vf.rdma_bond, "");
	ck_assert_str_eq(vf.ifname, "simpf0v0");
	ck_assert_int_eq(vf.numa_node, 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:82:00.4", &vf, NULL), 0);
	ck_assert_str_eq(vf.pf[0].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "simpf1");
	ck_assert_str_eq(vf.ifname, "simpf1v3");
	ck_assert_int_eq(vf.numa_node, 1);
}
END_TEST

/* switchdev: representors sort first and share the PF's PCI device; the uplink is the PF */
START_TEST(switchdev_uplink)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 3 --switchdev");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.2", &vf, &e), 0);
	ck_assert_str_eq(vf.pf[0].ifname, "simpf0");
	ck_assert(device_netdev_is_representor(&node.root, "asimpf0r1"));
	ck_assert(!device_netdev_is_representor(&node.root, "simpf0"));
	ck_assert(!device_netdev_is_representor(&node.root, "simpf0v1"));
}
END_TEST

/* The PF's carrier after a PFC change: up again, up all along, never up, no carrier file. */
START_TEST(carrier_wait)
{
	bool up = false;
	long changes = -1;
	int ms = -1;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(carrier_read(&node.root, "simpf0", &up, &changes), -ENOENT);
	ck_assert_int_eq(carrier_wait_up(&node.root, "simpf0", 0, 100, 10, &ms), -ENOENT);
	ck_assert_int_eq(sim_sh(&node, "echo 1 > \"$R\"/sys/class/net/simpf0/carrier"), 0);
	/* no carrier_changes (old kernels): 0 */
	ck_assert_int_eq(carrier_read(&node.root, "simpf0", &up, &changes), 0);
	ck_assert(up);
	ck_assert_int_eq(changes, 0);
	/* up and unchanged: counts once it has settled */
	ck_assert_int_eq(carrier_wait_up(&node.root, "simpf0", 0, 1000, 120, &ms), 0);
	ck_assert_int_ge(ms, 120);
	/* went down and came back: no settling needed */
	ck_assert_int_eq(sim_sh(&node, "echo 2 > \"$R\"/sys/class/net/simpf0/carrier_changes"), 0);
	ck_assert_int_eq(carrier_wait_up(&node.root, "simpf0", 0, 1000, 5000, &ms), 0);
	ck_assert_int_lt(ms, 1000);
	/* down past the bound */
	ck_assert_int_eq(sim_sh(&node, "echo 0 > \"$R\"/sys/class/net/simpf0/carrier"), 0);
	ck_assert_int_eq(carrier_wait_up(&node.root, "simpf0", 0, 150, 10, &ms), -ETIMEDOUT);
	ck_assert_int_ge(ms, 150);
	/* comes back while waited for */
	ck_assert_int_eq(sim_sh(&node, "(sleep 0.2; echo 1 > \"$R\"/sys/class/net/simpf0/carrier) &"),
			 0);
	ck_assert_int_eq(carrier_wait_up(&node.root, "simpf0", 2, 3000, 50, &ms), 0);
	ck_assert_int_ge(ms, 150);
	/* carrier_down_count: absent, a count, a negative value, garbage */
	long down = 77;
	ck_assert_int_eq(sim_sh(&node, "rm -f \"$R\"/sys/class/net/simpf0/carrier_down_count"), 0);
	ck_assert_int_eq(carrier_down_read(&node.root, "simpf0", &down), -ENOENT);
	ck_assert_int_eq(down, 77);
	ck_assert_int_eq(sim_sh(&node, "echo 5 > \"$R\"/sys/class/net/simpf0/carrier_down_count"), 0);
	ck_assert_int_eq(carrier_down_read(&node.root, "simpf0", &down), 0);
	ck_assert_int_eq(down, 5);
	ck_assert_int_eq(sim_sh(&node, "echo -3 > \"$R\"/sys/class/net/simpf0/carrier_down_count"), 0);
	ck_assert_int_eq(carrier_down_read(&node.root, "simpf0", &down), -EINVAL);
	ck_assert_int_eq(sim_sh(&node, "echo x > \"$R\"/sys/class/net/simpf0/carrier_down_count"), 0);
	ck_assert_int_lt(carrier_down_read(&node.root, "simpf0", &down), 0);
	ck_assert_int_eq(down, 5);
}
END_TEST

START_TEST(vf_missing_or_malformed)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 1");
	memset(&vf, 0x5a, sizeof(vf));
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:07.0", &vf, &e), -ENODEV);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DEVICE);
	ck_assert_str_eq(e.msg, "VF 0000:81:07.0: no such PCI device");
	ck_assert_int_eq((unsigned char)vf.pci[0], 0x5a); /* untouched */
	rq_err_clear(&e);
	ck_assert_int_eq(device_resolve_vf(&node.root, "../../../../etc", &vf, &e), -EINVAL);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DEVICE);
	ck_assert_str_eq(e.msg, "VF \"../../../../etc\" is not a PCI address (expected e.g. "
				"0000:81:00.2)");
	rq_err_clear(&e);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1/../../..", &vf, &e), -EINVAL);
	ck_assert_int_eq(device_resolve_vf(&node.root, "", &vf, NULL), -EINVAL);
	ck_assert_int_eq(device_resolve_vf(&node.root, NULL, &vf, NULL), -EINVAL);
}
END_TEST

/* A NIC without SR-IOV (host-device of a whole function): no physfn. */
START_TEST(plain_nic)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.0", &vf, NULL), 0);
	ck_assert(!vf.has_pf);
	ck_assert_uint_eq(vf.n_pf, 0);
	ck_assert_str_eq(vf.ifname, "simpf0");
	ck_assert_int_eq(vf.numa_node, 0);
	ck_assert_str_eq(vf.pf[0].pci, "");
}
END_TEST

START_TEST(vf_moved_and_unknown_numa)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 1 --vfs 2");
	ck_assert_int_eq(sim_sh(&node, "rm -r " DEV "/0000:81:00.1/net " DEV
				       "/0000:81:00.1/numa_node; echo -1 > " DEV
				       "/0000:81:00.2/numa_node; rm " DEV "/0000:81:00.0/driver"),
			 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, NULL), 0);
	ck_assert_str_eq(vf.ifname, "");
	ck_assert_int_eq(vf.numa_node, -1);
	ck_assert_str_eq(vf.pf[0].driver, "");
	ck_assert_str_eq(vf.pf[0].ifname, "simpf0");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.2", &vf, NULL), 0);
	ck_assert_int_eq(vf.numa_node, -1);
}
END_TEST

START_TEST(pf_without_netdev)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(sim_sh(&node, "rm -r " DEV "/0000:81:00.0/net/simpf0"), 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, &e), -ENODEV);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DEVICE);
	ck_assert_str_eq(e.msg, "PF 0000:81:00.0 of VF 0000:81:00.1 has no netdev");
}
END_TEST

/* Several netdevs under the PF (a representor next to the uplink): the first in sorted order. */
START_TEST(pf_first_netdev_sorted)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 1 --vfs 1 --pf-prefix zz");
	ck_assert_int_eq(
	    sim_sh(&node, "mkdir " DEV "/0000:81:00.0/net/eth9 " DEV "/0000:81:00.0/net/ens1f0"),
	    0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, NULL), 0);
	ck_assert_str_eq(vf.pf[0].ifname, "ens1f0");
}
END_TEST

START_TEST(physfn_broken)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 2");
	/* a physfn that is not a link, and one whose target is no PCI address */
	ck_assert_int_eq(sim_sh(&node, "rm " DEV "/0000:81:00.1/physfn; mkdir " DEV
				       "/0000:81:00.1/physfn; ln -sfn ../weird " DEV
				       "/0000:81:00.2/physfn"),
			 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, &e), -EINVAL);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DEVICE);
	ck_assert_str_eq(e.msg, "VF 0000:81:00.1: physfn: Invalid argument");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.2", &vf, NULL), -EINVAL);
}
END_TEST

/*
 * A Linux bond over PFs in legacy SR-IOV mode is software only (mlx5 activates
 * no LAG while a legacy-mode PF has VFs): the VF's RoCE leaves by its own port.
 */
START_TEST(legacy_bond_own_pf)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 2 --vfs 2 --numa-nodes 1 --bond --pf-prefix bd");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.2", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.bond, "bond0");
	ck_assert(!vf.lag);
	ck_assert_str_eq(vf.rdma_bond, "");
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "bd0");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:82:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.pf[0].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "bd1");
}
END_TEST

/* Hardware VF LAG (mlx5_bond_N on the first PF): every slave is a port of the VF. */
START_TEST(vf_lag_both_slaves)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 2 --vfs 2 --numa-nodes 1 --vf-lag --pf-prefix bd");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.2", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 2);
	ck_assert(vf.lag);
	ck_assert_str_eq(vf.bond, "bond0");
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "bd0");
	ck_assert_str_eq(vf.pf[1].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[1].ifname, "bd1");
	ck_assert_str_eq(vf.pf[1].driver, "mlx5_core");
	ck_assert_str_eq(vf.rdma_bond, "mlx5_bond_0");
	/* from the second PF's VF: its own PF first, the RDMA bond still found via PF0 */
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:82:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 2);
	ck_assert_str_eq(vf.pf[0].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[1].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.rdma_bond, "mlx5_bond_0");
	/* the LAG torn down (a slave left, firmware reset): back to the VF's own port */
	ck_assert_int_eq(sim_sh(&node, "rm $R/sys/class/infiniband/mlx5_bond_0"), 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:82:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert(!vf.lag);
	ck_assert_str_eq(vf.pf[0].pci, "0000:82:00.0");
}
END_TEST

/* A master that is not a bond (bridge, VRF): no bonding/slaves, so no bond. */
START_TEST(master_not_bond)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 2 --vfs 1 --bond");
	ck_assert_int_eq(sim_sh(&node, "rm -r $R/sys/devices/virtual/net/bond0/bonding"), 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.bond, "");
}
END_TEST

/* Slaves without a PCI function, duplicates and more than RQ_MAX_PFS. */
START_TEST(bond_slave_filtering)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 6 --vfs 1 --vf-lag");
	ck_assert_int_eq(
	    sim_sh(&node,
		   "mkdir -p $R/sys/devices/virtual/net/veth0 && "
		   "ln -s ../../devices/virtual/net/veth0 $R/sys/class/net/veth0 && "
		   "ln -s ../../virtual/net/veth0 $R/sys/devices/virtual/net/veth0/device && "
		   "echo 'veth0 nosuch simpf0 simpf1 simpf0 simpf2 simpf3 simpf4 simpf5' > "
		   "$R/sys/devices/virtual/net/bond0/bonding/slaves"),
	    0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, RQ_MAX_PFS);
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.pf[1].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[2].pci, "0000:83:00.0");
	ck_assert_str_eq(vf.pf[3].pci, "0000:84:00.0");
	ck_assert_str_eq(vf.pf[3].ifname, "simpf3");
}
END_TEST

/* An RDMA bond device on some other PF is not ours. */
START_TEST(rdma_bond_other_pf)
{
	struct rq_vf_info vf;

	sim_build(&node, "--pfs 3 --vfs 1 --vf-lag");
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:83:00.1", &vf, NULL), 0);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.bond, "");
	ck_assert_str_eq(vf.rdma_bond, "");
}
END_TEST

START_TEST(physfn_loop)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 1");
	/* the VF's device directory replaced by a link to itself */
	ck_assert_int_eq(sim_sh(&node, "rm -r " DEV "/0000:81:00.1 && "
				       "ln -s 0000:81:00.1 " DEV "/0000:81:00.1"),
			 0);
	ck_assert_int_eq(device_resolve_vf(&node.root, "0000:81:00.1", &vf, &e), -ENODEV);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DEVICE);
}
END_TEST

/* device_port_parent: a PCI PF, a VF, a representor, a virtual netdev, a netdevsim port */
START_TEST(port_parent)
{
	char bus[32], dev[64];

	sim_build(&node, "--pfs 1 --vfs 2 --switchdev");
	ck_assert_int_eq(device_port_parent(&node.root, "simpf0", bus, sizeof(bus), dev, sizeof(dev)),
			 0);
	ck_assert_str_eq(bus, "pci");
	ck_assert_str_eq(dev, "0000:81:00.0");
	ck_assert_int_eq(
	    device_port_parent(&node.root, "asimpf0r1", bus, sizeof(bus), dev, sizeof(dev)),
	    -ENODEV);
	ck_assert_int_eq(sim_sh(&node, "mkdir -p \"$R\"/sys/devices/virtual/net/br0 && "
				       "ln -s ../../devices/virtual/net/br0 \"$R\"/sys/class/net/br0 && "
				       "mkdir -p \"$R\"/sys/devices/netdevsim3/net/eni3np1 "
				       "\"$R\"/sys/bus/netdevsim && "
				       "ln -s ../../bus/netdevsim \"$R\"/sys/devices/netdevsim3/subsystem && "
				       "ln -s ../../devices/netdevsim3/net/eni3np1 "
				       "\"$R\"/sys/class/net/eni3np1 && "
				       "ln -s ../../../netdevsim3 \"$R\"/sys/devices/netdevsim3/net/eni3np1/device"),
			 0);
	ck_assert_int_eq(device_port_parent(&node.root, "br0", bus, sizeof(bus), dev, sizeof(dev)),
			 -ENODEV);
	ck_assert_int_eq(
	    device_port_parent(&node.root, "eni3np1", bus, sizeof(bus), dev, sizeof(dev)), 0);
	ck_assert_str_eq(bus, "netdevsim");
	ck_assert_str_eq(dev, "netdevsim3");
	ck_assert_int_eq(device_port_parent(&node.root, "..", bus, sizeof(bus), dev, sizeof(dev)),
			 -EINVAL);
	ck_assert_int_eq(device_port_parent(&node.root, "nosuch0", bus, sizeof(bus), dev, sizeof(dev)),
			 -ENODEV);
}
END_TEST

/* The port(s) under a host netdev whose RDMA device pods share (issue 50). */
START_TEST(shared_netdev)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};
	char fn[16];

	sim_build(&node, "--pfs 2 --vfs 2 --numa-nodes 2 --pf-rdma yes");
	/* a PF: itself, its own function carries the device */
	ck_assert_int_eq(device_resolve_netdev(&node.root, "simpf1", &vf, fn, sizeof(fn), &e), 0);
	ck_assert_str_eq(vf.pci, "");
	ck_assert(vf.has_pf);
	ck_assert_uint_eq(vf.n_pf, 1);
	ck_assert_str_eq(vf.pf[0].pci, "0000:82:00.0");
	ck_assert_str_eq(vf.pf[0].ifname, "simpf1");
	ck_assert_str_eq(fn, "0000:82:00.0");
	ck_assert_int_eq(vf.numa_node, 1);
	/* a VF left in the host: its PF is the port, its own function the device's */
	ck_assert_int_eq(device_resolve_netdev(&node.root, "simpf0v1", &vf, fn, sizeof(fn), &e), 0);
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(fn, "0000:81:00.2");
	/* no PCI function under it (a veth, a bridge): -ENODEV naming it */
	ck_assert_int_eq(device_resolve_netdev(&node.root, "veth9", &vf, fn, sizeof(fn), &e),
			 -ENODEV);
	ck_assert_ptr_nonnull(strstr(e.msg, "veth9 is not a PCI network function"));
}
END_TEST

START_TEST(shared_netdev_bond)
{
	struct rq_vf_info vf;
	struct rq_error e = {0};
	char fn[16];

	/* a RoCE LAG: every slave, the one the device sits on first */
	sim_build(&node, "--pfs 2 --vfs 1 --numa-nodes 1 --vf-lag");
	ck_assert_int_eq(sim_sh(&node, "echo 'simpf1 simpf0' > "
				       "$R/sys/devices/virtual/net/bond0/bonding/slaves"),
			 0);
	ck_assert_int_eq(device_resolve_netdev(&node.root, "bond0", &vf, fn, sizeof(fn), &e), 0);
	ck_assert(vf.lag);
	ck_assert_str_eq(vf.rdma_bond, "mlx5_bond_0");
	ck_assert_uint_eq(vf.n_pf, 2);
	ck_assert_str_eq(vf.pf[0].pci, "0000:81:00.0");
	ck_assert_str_eq(vf.pf[1].pci, "0000:82:00.0");
	ck_assert_str_eq(fn, "0000:81:00.0");
	/* a software bond (no LAG device): its slaves' devices are not shared through it */
	ck_assert_int_eq(sim_sh(&node, "rm $R/sys/class/infiniband/mlx5_bond_0"), 0);
	ck_assert_int_eq(device_resolve_netdev(&node.root, "bond0", &vf, fn, sizeof(fn), &e),
			 -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(e.msg, "bond bond0 carries no RoCE LAG device"));
}
END_TEST

Suite *suite_device(void);
Suite *suite_device(void)
{
	Suite *s = suite_create("device");
	TCase *tc = tcase_create("resolve");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, vf_with_pf);
	tcase_add_test(tc, shared_netdev);
	tcase_add_test(tc, shared_netdev_bond);
	tcase_add_test(tc, switchdev_uplink);
	tcase_add_test(tc, carrier_wait);
	tcase_add_test(tc, vf_missing_or_malformed);
	tcase_add_test(tc, plain_nic);
	tcase_add_test(tc, vf_moved_and_unknown_numa);
	tcase_add_test(tc, pf_without_netdev);
	tcase_add_test(tc, pf_first_netdev_sorted);
	tcase_add_test(tc, physfn_broken);
	tcase_add_test(tc, legacy_bond_own_pf);
	tcase_add_test(tc, vf_lag_both_slaves);
	tcase_add_test(tc, master_not_bond);
	tcase_add_test(tc, bond_slave_filtering);
	tcase_add_test(tc, rdma_bond_other_pf);
	tcase_add_test(tc, physfn_loop);
	tcase_add_test(tc, port_parent);
	suite_add_tcase(s, tc);
	return s;
}
