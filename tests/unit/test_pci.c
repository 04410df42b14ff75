// SPDX-License-Identifier: Apache-2.0
/* pkg/pci: path levels as NCCL computes them, config-space decoding, IOMMU type, on fixture trees.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "pkg/pci/pci.h"
#include "tests/simnode/simnode.h"

static struct simnode node;

/*
 * host bridge pci0000:00: root port 00:01.0 -> switch 01:00.0 -> ports 02:00.0 (NIC 03:00.0, its
 * VF 03:00.2) and 02:01.0 (GPU 04:00.0); root port 00:02.0 -> GPU 05:00.0; root port 00:03.0 ->
 * switch 06:00.0 -> port 07:00.0 -> switch 08:00.0 -> port 09:00.0 -> NIC 0a:00.0, and port
 * 07:01.0 -> GPU 0b:00.0. Host bridge pci0000:40 (node 0): GPU 41:00.0; pci0000:c0 (node 1):
 * GPU c1:00.0.
 */
#define TREE                                                                                       \
	"dev() { d=\"$R/sys/devices/$1\"; mkdir -p \"$d\" \"$R/sys/bus/pci/devices\"; "            \
	"ln -s \"../../../devices/$1\" \"$R/sys/bus/pci/devices/${1##*/}\"; echo ${2:-0} > "       \
	"\"$d/numa_node\"; }; "                                                                    \
	"S=pci0000:00/0000:00:01.0/0000:01:00.0; dev pci0000:00/0000:00:01.0; dev $S; "            \
	"dev $S/0000:02:00.0; dev $S/0000:02:00.0/0000:03:00.0; "                                  \
	"dev $S/0000:02:00.0/0000:03:00.2; ln -s ../0000:03:00.0 "                                 \
	"\"$R/sys/devices/$S/0000:02:00.0/0000:03:00.2/physfn\"; "                                 \
	"dev $S/0000:02:01.0; dev $S/0000:02:01.0/0000:04:00.0; "                                  \
	"dev pci0000:00/0000:00:02.0; dev pci0000:00/0000:00:02.0/0000:05:00.0; "                  \
	"T=pci0000:00/0000:00:03.0/0000:06:00.0; dev pci0000:00/0000:00:03.0; dev $T; "            \
	"dev $T/0000:07:00.0; dev $T/0000:07:00.0/0000:08:00.0; "                                  \
	"dev $T/0000:07:00.0/0000:08:00.0/0000:09:00.0; "                                          \
	"dev $T/0000:07:00.0/0000:08:00.0/0000:09:00.0/0000:0a:00.0; "                             \
	"dev $T/0000:07:01.0; dev $T/0000:07:01.0/0000:0b:00.0; "                                  \
	"dev pci0000:40/0000:40:01.0; dev pci0000:40/0000:40:01.0/0000:41:00.0; "                  \
	"dev pci0000:c0/0000:c0:01.0 1; dev pci0000:c0/0000:c0:01.0/0000:c1:00.0 1"

static void setup(void)
{
	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(sim_sh(&node, TREE), 0);
}

static void teardown(void)
{
	sim_destroy(&node);
}

static struct rq_pci_pair pair(const char *nic, const char *gpu, bool c2c)
{
	struct rq_pci_pos a, b;
	struct rq_pci_pair p;

	ck_assert_int_eq(pci_position(&node.root, nic, &a), 0);
	ck_assert_int_eq(pci_position(&node.root, gpu, &b), 0);
	pci_pair_level(&a, &b, c2c, &p);
	return p;
}

START_TEST(position)
{
	struct rq_pci_pos p;

	ck_assert_int_eq(pci_position(&node.root, "0000:03:00.0", &p), 0);
	ck_assert_str_eq(p.root, "pci0000:00");
	ck_assert_uint_eq(p.n_up, 3);
	ck_assert_str_eq(p.up[0], "0000:02:00.0");
	ck_assert_str_eq(p.up[2], "0000:00:01.0");
	/* every second bridge: the switch's upstream port, never its downstream or the root port */
	ck_assert_uint_eq(p.n_node, 1);
	ck_assert_str_eq(p.node[0], "0000:01:00.0");
	/* a VF is placed where its PF is */
	ck_assert_int_eq(pci_position(&node.root, "0000:03:00.2", &p), 0);
	ck_assert_str_eq(p.pci, "0000:03:00.0");
	/* right below a root port: no PCI node, it hangs off the CPU */
	ck_assert_int_eq(pci_position(&node.root, "0000:05:00.0", &p), 0);
	ck_assert_uint_eq(p.n_node, 0);
	ck_assert_int_eq(pci_position(&node.root, "0000:0a:00.0", &p), 0);
	ck_assert_uint_eq(p.n_node, 2);
	ck_assert_int_eq(pci_position(&node.root, "0000:99:00.0", &p), -ENOENT);
	ck_assert_int_eq(pci_position(&node.root, "../../etc", &p), -EINVAL);
}
END_TEST

START_TEST(levels)
{
	struct rq_pci_pair p = pair("0000:03:00.2", "0000:04:00.0", false);

	ck_assert_str_eq(pci_level_name(p.level), "pix");
	ck_assert_str_eq(p.via, "0000:01:00.0");
	/* below the shared switch: each side's downstream port only */
	ck_assert_uint_eq(p.nic_below, 1);
	ck_assert_uint_eq(p.gpu_below, 1);
	ck_assert_str_eq(pci_level_name(pair("0000:03:00.2", "0000:05:00.0", false).level), "phb");
	ck_assert_str_eq(pci_level_name(pair("0000:0a:00.0", "0000:0b:00.0", false).level), "pxb");
	ck_assert_str_eq(pci_level_name(pair("0000:03:00.0", "0000:41:00.0", false).level), "node");
	ck_assert_str_eq(pci_level_name(pair("0000:03:00.0", "0000:c1:00.0", false).level), "sys");
	/* a C2C GPU on the NIC's socket */
	ck_assert_str_eq(pci_level_name(pair("0000:03:00.0", "0000:05:00.0", true).level), "p2c");
	ck_assert_str_eq(pci_level_name(pair("0000:03:00.0", "0000:c1:00.0", true).level), "sys");
}
END_TEST

/* switch @pci's ids: Broadcom's vendor and subsystem vendor, @device, @subsys */
static void bcm(const char *pci, const char *device, const char *subsys)
{
	char cmd[512];

	(void)snprintf(
	    cmd, sizeof(cmd),
	    "d=\"$R/sys/bus/pci/devices/%s\"; echo 0x1000 > $d/vendor; echo %s > "
	    "$d/device; echo 0x1000 > $d/subsystem_vendor; echo %s > $d/subsystem_device",
	    pci, device, subsys);
	ck_assert_int_eq(sim_sh(&node, "%s", cmd), 0);
}

static const char *nic_gpu_level(void)
{
	return pci_level_name(pair("0000:0a:00.0", "0000:0b:00.0", false).level);
}

/*
 * Broadcom PEX switches that show two levels are one switch to NCCL (its
 * getBcmGen: the ids masked with 0xfffffffffffff000): Gen5 with the parent's
 * subsystem_device in 0x0000-0x0fff and the child's in 0x1000-0x1fff, Gen4
 * with both in 0xa000-0xafff (issue 49 item 6).
 */
START_TEST(broadcom_merged)
{
	bcm("0000:06:00.0", "0xc030", "0x0042");
	bcm("0000:08:00.0", "0xc030", "0x1042");
	ck_assert_str_eq(nic_gpu_level(), "pix");
	/* the levels the wrong way round: two switches */
	bcm("0000:06:00.0", "0xc030", "0x1042");
	bcm("0000:08:00.0", "0xc030", "0x0042");
	ck_assert_str_eq(nic_gpu_level(), "pxb");
	/* both children (0x1000): NCCL merges neither */
	bcm("0000:06:00.0", "0xc030", "0x1000");
	bcm("0000:08:00.0", "0xc030", "0x1000");
	ck_assert_str_eq(nic_gpu_level(), "pxb");
	/* Gen4: any subsystem_device 0xaxxx, at either level */
	bcm("0000:06:00.0", "0xc010", "0xa123");
	bcm("0000:08:00.0", "0xc010", "0xa0ff");
	ck_assert_str_eq(nic_gpu_level(), "pix");
	/* a Gen4 below a Gen5: two switches */
	bcm("0000:06:00.0", "0xc030", "0x0000");
	ck_assert_str_eq(nic_gpu_level(), "pxb");
	/* another vendor's ids: two switches again */
	bcm("0000:06:00.0", "0xc010", "0xa000");
	ck_assert_str_eq(nic_gpu_level(), "pix");
	ck_assert_int_eq(
	    sim_sh(&node, "echo 0x10b5 > \"$R/sys/bus/pci/devices/0000:08:00.0/vendor\""), 0);
	ck_assert_str_eq(nic_gpu_level(), "pxb");
}
END_TEST

/*
 * Behind a VMD controller (domain 10000): NCCL's walk ends at the first
 * ancestor that is not a 4-digit domain address, at the CPU, so a NIC and a
 * GPU below one switch inside the VMD domain are PHB, not PIX, and a VMD NIC
 * against a GPU on a root port of the host bridge the controller sits under
 * is PHB too (issue 49 item 6).
 */
START_TEST(vmd_domain)
{
	struct rq_pci_pos p;
	struct rq_pci_pair pr;

	ck_assert_int_eq(
	    sim_sh(&node,
		   "dev() { d=\"$R/sys/devices/$1\"; mkdir -p \"$d\"; "
		   "ln -s \"../../../devices/$1\" \"$R/sys/bus/pci/devices/${1##*/}\"; echo 0 > "
		   "\"$d/numa_node\"; }; V=pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:1d.0; "
		   "dev pci0000:00/0000:00:0e.0; dev $V; dev $V/10000:e1:00.0; "
		   "dev $V/10000:e1:00.0/10000:e2:00.0; dev "
		   "$V/10000:e1:00.0/10000:e2:00.0/10000:e3:00.0; "
		   "dev $V/10000:e1:00.0/10000:e2:01.0; dev "
		   "$V/10000:e1:00.0/10000:e2:01.0/10000:e4:00.0"),
	    0);
	ck_assert_int_eq(pci_position(&node.root, "10000:e3:00.0", &p), 0);
	ck_assert_str_eq(p.root, "pci0000:00");
	ck_assert_uint_eq(p.n_node, 0);
	/* the bridges are still the path (ACS, links) */
	ck_assert_uint_eq(p.n_up, 3);
	pr = pair("10000:e3:00.0", "10000:e4:00.0", false);
	ck_assert_str_eq(pci_level_name(pr.level), "phb");
	ck_assert_uint_eq(pr.nic_below, 1);
	ck_assert_str_eq(pci_level_name(pair("10000:e3:00.0", "0000:05:00.0", false).level), "phb");
	ck_assert_str_eq(pci_level_name(pair("10000:e3:00.0", "0000:c1:00.0", false).level), "sys");
}
END_TEST

START_TEST(level_names)
{
	enum rq_pci_level l;

	ck_assert_int_eq(pci_level_parse("pxb", &l), 0);
	ck_assert_int_eq(l, RQ_PCI_PXB);
	/* any case, as NCCL spells them; p2c is a level name */
	ck_assert_int_eq(pci_level_parse("PXB", &l), 0);
	ck_assert_int_eq(l, RQ_PCI_PXB);
	ck_assert_int_eq(pci_level_parse("P2C", &l), 0);
	ck_assert_int_eq(l, RQ_PCI_P2C);
	ck_assert_int_eq(pci_level_parse("pxbx", &l), -EINVAL);
	ck_assert(pci_level_within(RQ_PCI_PIX, RQ_PCI_PXB));
	ck_assert(!pci_level_within(RQ_PCI_PHB, RQ_PCI_PXB));
	ck_assert(pci_level_within(RQ_PCI_NODE, RQ_PCI_PHB));
	/* NCCL's order PIX < PXB < P2C < PHB: an explicit pxb leaves a C2C pair far */
	ck_assert(!pci_level_within(RQ_PCI_P2C, RQ_PCI_PXB));
	ck_assert(pci_level_within(RQ_PCI_P2C, RQ_PCI_P2C));
	ck_assert(pci_level_within(RQ_PCI_PXB, RQ_PCI_P2C));
	ck_assert(!pci_level_within(RQ_PCI_PHB, RQ_PCI_P2C));
	ck_assert(pci_level_within(RQ_PCI_P2C, RQ_PCI_PHB));
	ck_assert(!pci_level_within(RQ_PCI_P2C, RQ_PCI_PIX));
	ck_assert(!pci_level_within(RQ_PCI_SYS, RQ_PCI_PHB));
	ck_assert(pci_level_within(RQ_PCI_SYS, RQ_PCI_SYS));
}
END_TEST

/* A config space: PCIe capability at 0x40 (LnkCap Gen4 x16, LnkSta @sta), ACS at 0x148. */
static size_t cfg(uint8_t *b, size_t len, uint16_t sta, uint16_t acs, int type)
{
	memset(b, 0, len);
	b[0x06] = 0x10;
	b[0x34] = 0x40;
	b[0x40] = 0x10;
	b[0x41] = 0x00;
	b[0x42] = (uint8_t)(type << 4 | 2);
	b[0x4c] = 0x04;	   /* Gen4 */
	b[0x4d] = 16 >> 4; /* x16: width is bits 9:4 */
	b[0x52] = (uint8_t)sta;
	b[0x53] = (uint8_t)(sta >> 8);
	if (len >= 0x200) {
		/* AER (0x01) at 0x100 -> ACS (0x0d) at 0x148 */
		b[0x100] = 0x01;
		b[0x102] = 0x81; /* version 1, next 0x148 */
		b[0x103] = 0x14;
		b[0x148] = 0x0d;
		b[0x14e] = (uint8_t)acs;
		b[0x14f] = (uint8_t)(acs >> 8);
	}
	return len;
}

START_TEST(config_space)
{
	uint8_t b[4096];
	struct rq_pci_cfg c;

	pci_config_parse(b, cfg(b, sizeof(b), 0x04 | (8 << 4), 0x1d, 6), &c);
	ck_assert(c.has_pcie);
	ck_assert_int_eq(c.port_type, 6);
	ck_assert_int_eq(c.cap_speed, 4);
	ck_assert_int_eq(c.cap_width, 16);
	ck_assert_int_eq(c.sta_speed, 4);
	ck_assert_int_eq(c.sta_width, 8);
	ck_assert(c.has_acs);
	ck_assert_uint_eq(c.acs_ctrl & (RQ_PCI_ACS_RR | RQ_PCI_ACS_CR),
			  RQ_PCI_ACS_RR | RQ_PCI_ACS_CR);
	/* 256 bytes: no extended space, no ACS to read */
	pci_config_parse(b, cfg(b, 256, 0x44, 0x1d, 0), &c);
	ck_assert(c.has_pcie && !c.ext_read && !c.has_acs);
	/* what an unprivileged reader gets: the header only */
	pci_config_parse(b, 64, &c);
	ck_assert(!c.has_pcie);
	/* a capability list that loops ends */
	cfg(b, sizeof(b), 0, 0, 0);
	b[0x40] = 0x05;
	b[0x41] = 0x40;
	pci_config_parse(b, sizeof(b), &c);
	ck_assert(!c.has_pcie);
	/* through the file */
	cfg(b, sizeof(b), 0x04 | (16 << 4), 0, 0);
	{
		FILE *f;
		char path[256];

		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:03:00.0/config",
			 node.dir);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(b, 1, sizeof(b), f), sizeof(b));
		fclose(f);
	}
	ck_assert_int_eq(pci_config(&node.root, "0000:03:00.0", &c), 0);
	ck_assert(c.has_pcie && c.has_acs && c.acs_ctrl == 0);
	ck_assert_int_eq(pci_config(&node.root, "0000:04:00.0", &c), -ENOENT);
}
END_TEST

START_TEST(links_iommu_class)
{
	struct rq_pci_cfg c;
	char type[32];
	uint32_t cls;

	ck_assert_int_eq(pci_speed_gen("8.0 GT/s PCIe"), 3);
	ck_assert_int_eq(pci_speed_gen("8 GT/s"), 3);
	ck_assert_int_eq(pci_speed_gen("2.5 GT/s PCIe"), 1);
	ck_assert_int_eq(pci_speed_gen("Unknown"), 0);
	ck_assert_int_eq(
	    sim_sh(&node,
		   "d=\"$R/sys/bus/pci/devices/0000:03:00.0\"; echo '32.0 GT/s PCIe' > "
		   "$d/max_link_speed; echo 16 > $d/max_link_width; echo '16.0 GT/s PCIe' > "
		   "$d/current_link_speed; echo 8 > $d/current_link_width; mkdir -p "
		   "\"$R/sys/kernel/iommu_groups/7\"; echo DMA-FQ > "
		   "\"$R/sys/kernel/iommu_groups/7/type\"; ln -s ../../../../kernel/iommu_groups/7 "
		   "$d/iommu_group; echo 0x030200 > \"$R/sys/bus/pci/devices/0000:04:00.0/class\""),
	    0);
	ck_assert_int_eq(pci_link_sysfs(&node.root, "0000:03:00.0", &c), 0);
	ck_assert_int_eq(c.cap_speed, 5);
	ck_assert_int_eq(c.sta_speed, 4);
	ck_assert_int_eq(c.sta_width, 8);
	ck_assert_int_eq(pci_link_sysfs(&node.root, "0000:04:00.0", &c), -ENOENT);
	ck_assert_int_eq(pci_iommu_type(&node.root, "0000:03:00.0", type, sizeof(type)), 0);
	ck_assert_str_eq(type, "DMA-FQ");
	ck_assert_int_eq(pci_iommu_type(&node.root, "0000:04:00.0", type, sizeof(type)), -ENOENT);
	ck_assert_int_eq(pci_class(&node.root, "0000:04:00.0", &cls), 0);
	ck_assert_uint_eq(cls, 0x030200);
}
END_TEST

Suite *suite_pci(void)
{
	Suite *s = suite_create("pci");
	TCase *tc = tcase_create("pci");

	/* each test builds a node with mknode: slow on a loaded machine */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, position);
	tcase_add_test(tc, levels);
	tcase_add_test(tc, broadcom_merged);
	tcase_add_test(tc, vmd_domain);
	tcase_add_test(tc, level_names);
	tcase_add_test(tc, config_space);
	tcase_add_test(tc, links_iommu_class);
	suite_add_tcase(s, tc);
	return s;
}
