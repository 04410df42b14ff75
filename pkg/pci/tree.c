// SPDX-License-Identifier: Apache-2.0
/*
 * The path level between two PCI functions as NCCL computes it (its
 * src/graph: the tree from sysfs realpaths, then the path types). NCCL walks
 * a device's realpath up two components at a time, so a switch's downstream
 * port and a root port are never nodes: one node stands for one switch (its
 * upstream port), and a function right below a root port hangs off the CPU
 * of its NUMA node. Broadcom PEX switches that show two levels are one
 * (NCCL's getBcmGen: the ids masked with 0xfffffffffffff000, so only the top
 * nibble of subsystem_device counts). An ancestor whose name is not a 4-digit
 * domain address (a VMD domain's 10000:xx:xx.x) ends NCCL's walk at the CPU,
 * as its checkBDFFormat does: nothing behind a VMD controller is a PCI node.
 */
#include "pkg/pci/pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"pix", "pxb", "p2c", "phb", "node", "sys"};

const char *pci_level_name(enum rq_pci_level l)
{
	return (unsigned)l < sizeof(level_names) / sizeof(level_names[0]) ? level_names[l] : "?";
}

int pci_level_parse(const char *s, enum rq_pci_level *ret)
{
	/* any case: NCCL_NET_GDR_LEVEL spells them PIX, PXB, ... */
	for (size_t i = 0; s && i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcasecmp(s, level_names[i])) {
			*ret = (enum rq_pci_level)i;
			return 0;
		}
	return -EINVAL;
}

bool pci_level_within(enum rq_pci_level path, enum rq_pci_level max)
{
	/* NCCL's order: PIX < PXB < P2C < PHB (CPU nodes per NUMA id: node is phb) */
	if (path == RQ_PCI_NODE)
		path = RQ_PCI_PHB;
	if (max == RQ_PCI_NODE)
		max = RQ_PCI_PHB;
	return path <= max;
}

/*
 * 0 when not a Broadcom PEX switch NCCL flattens, else its generation (4, 5):
 * vendor 0x1000, subsystem vendor 0x1000; Gen4 device 0xc010 with a
 * subsystem_device in 0xa000-0xafff at either level, Gen5 device 0xc030 with
 * 0x0000-0x0fff as the parent (@level 0) and 0x1000-0x1fff as the child (1).
 */
static int bcm_gen(const unsigned long v[4], int level)
{
	if (v[0] != 0x1000 || v[2] != 0x1000)
		return 0;
	if (v[1] == 0xc010 && (v[3] & 0xf000) == 0xa000)
		return 4;
	if (v[1] == 0xc030 && (v[3] & 0xf000) == (unsigned long)level * 0x1000)
		return 5;
	return 0;
}

/* @pci's vendor, device, subsystem_vendor, subsystem_device; false unless all four read */
static bool pci_ids(const struct rq_root *r, const char *pci, unsigned long v[4])
{
	static const char *const f[] = {"vendor", "device", "subsystem_vendor", "subsystem_device"};

	for (size_t i = 0; i < 4; i++) {
		char path[128], buf[32], *end;

		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pci, f[i]);
		if (sysfs_read_str(r, path, buf, sizeof(buf)) < 0)
			return false;
		v[i] = strtoul(buf, &end, 16);
		if (end == buf || v[i] > 0xffff)
			return false;
		/* vendor first: every other switch costs one read */
		if (i == 0 && v[0] != 0x1000)
			return false;
	}
	return true;
}

/* a 4-digit domain address ("0000:3b:00.0"), what NCCL's checkBDFFormat accepts */
static bool bdf4(const char *s)
{
	return strlen(s) == 12 && sysfs_pci_valid(s);
}

/* The components after "devices" of @link into @comp; their count, or -ENODEV. */
static int split_devices(char *link, char **comp, size_t max)
{
	char *save = NULL, *c;
	size_t n = 0;
	bool in = false;

	for (c = strtok_r(link, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!in) {
			in = !strcmp(c, "devices");
			continue;
		}
		if (!strcmp(c, "..") || !strcmp(c, "."))
			return -ENODEV;
		if (n == max)
			return -E2BIG;
		comp[n++] = c;
	}
	return n ? (int)n : -ENODEV;
}

static int place(const struct rq_root *r, const char *pci, struct rq_pci_pos *ret)
{
	char path[128], link[1024], *comp[RQ_PCI_CHAIN_MAX * 2 + 4];
	int n, as_child[RQ_PCI_CHAIN_MAX], as_parent[RQ_PCI_CHAIN_MAX];
	size_t walk;
	long numa;

	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pci);
	n = sysfs_readlink(r, path, link, sizeof(link));
	if (n < 0)
		return n == -EINVAL ? -ENODEV : n;
	n = split_devices(link, comp, sizeof(comp) / sizeof(comp[0]));
	if (n < 0)
		return n;
	if (strcmp(comp[n - 1], pci) != 0)
		return -ENODEV;
	memset(ret, 0, sizeof(*ret));
	(void)snprintf(ret->pci, sizeof(ret->pci), "%s", pci);
	/* up the realpath while the components are functions; the first other is the root */
	for (int i = n - 2; i >= 0; i--) {
		if (!sysfs_pci_valid(comp[i])) {
			if (strncmp(comp[i], "pci", 3) != 0)
				return -ENODEV;
			(void)snprintf(ret->root, sizeof(ret->root), "%s", comp[i]);
			break;
		}
		if (ret->n_up == RQ_PCI_CHAIN_MAX)
			return -E2BIG;
		(void)snprintf(ret->up[ret->n_up++], RQ_PCI_NAME, "%s", comp[i]);
	}
	if (!ret->root[0])
		return -ENODEV;
	/*
	 * Behind a VMD controller (a root "pci10000:e0"): NCCL's walk ended at the
	 * first such ancestor, at the CPU; the host bridge the controller sits
	 * under is the root, so a pair across it is phb (or node), as NCCL says.
	 */
	for (walk = 0; walk < ret->n_up && bdf4(ret->up[walk]); walk++)
		;
	if (strlen(ret->root) != strlen("pci0000:00"))
		for (int i = n - 2; i >= 0; i--)
			if (!strncmp(comp[i], "pci", 3) &&
			    strlen(comp[i]) == strlen("pci0000:00")) {
				(void)snprintf(ret->root, sizeof(ret->root), "%s", comp[i]);
				break;
			}
	/* NCCL's nodes: every second bridge, nearest first (skip one, keep one), up to VMD */
	for (size_t i = 1; i < walk; i += 2) {
		unsigned long v[4];
		bool ids = pci_ids(r, ret->up[i], v);

		as_child[ret->n_node] = ids ? bcm_gen(v, 1) : 0;
		as_parent[ret->n_node] = ids ? bcm_gen(v, 0) : 0;
		memcpy(ret->node[ret->n_node++], ret->up[i], RQ_PCI_NAME);
	}
	/*
	 * A Broadcom switch (as the child) below one of its generation (as the
	 * parent) is merged into it; a parent merges once (NCCL then marks its
	 * subsystem_device 0xffff), so the one merged into is no longer either.
	 */
	for (size_t i = ret->n_node; i-- > 1;) {
		if (!as_child[i - 1] || as_child[i - 1] != as_parent[i])
			continue;
		memmove(ret->node[i - 1], ret->node[i], (ret->n_node - i) * RQ_PCI_NAME);
		memmove(&as_child[i - 1], &as_child[i], (ret->n_node - i) * sizeof(int));
		memmove(&as_parent[i - 1], &as_parent[i], (ret->n_node - i) * sizeof(int));
		ret->n_node--;
		as_child[i - 1] = as_parent[i - 1] = 0;
	}
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	ret->numa =
	    sysfs_read_int(r, path, &numa) == 0 && numa >= 0 && numa < 1024 ? (int)numa : -1;
	return 0;
}

int pci_position(const struct rq_root *r, const char *pci, struct rq_pci_pos *ret)
{
	char path[128], pf[64];
	struct rq_pci_pos pos;
	int rr;

	if (!sysfs_pci_valid(pci))
		return -EINVAL;
	/* NCCL merges a VF into its PF's device (NCCL_IB_MERGE_VFS): the PF's place is the VF's */
	(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn", pci);
	if (sysfs_readlink_base(r, path, pf, sizeof(pf)) == 0 && sysfs_pci_valid(pf))
		pci = pf;
	rr = place(r, pci, &pos);
	if (rr < 0)
		return rr;
	*ret = pos;
	return 0;
}

static int index_of(const char (*list)[RQ_PCI_NAME], size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return (int)i;
	return -1;
}

void pci_pair_level(const struct rq_pci_pos *nic, const struct rq_pci_pos *gpu, bool gpu_c2c,
		    struct rq_pci_pair *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->nic_below = nic->n_up;
	ret->gpu_below = gpu->n_up;
	if (!strcmp(nic->root, gpu->root))
		for (size_t i = 0; i < nic->n_up; i++) {
			int j = index_of(gpu->up, gpu->n_up, nic->up[i]);

			if (j >= 0) {
				ret->nic_below = i;
				ret->gpu_below = (size_t)j;
				break;
			}
		}
	for (size_t i = 0; !strcmp(nic->root, gpu->root) && i < nic->n_node; i++) {
		int j = index_of(gpu->node, gpu->n_node, nic->node[i]);

		if (j < 0)
			continue;
		/* both hang off that switch: one bridge; else a switch-to-switch link is crossed */
		ret->level = i == 0 && j == 0 ? RQ_PCI_PIX : RQ_PCI_PXB;
		(void)snprintf(ret->via, sizeof(ret->via), "%s", nic->node[i]);
		return;
	}
	if (!strcmp(nic->root, gpu->root))
		ret->level = RQ_PCI_PHB;
	else if (nic->numa == gpu->numa)
		ret->level = RQ_PCI_NODE;
	else
		ret->level = RQ_PCI_SYS;
	if (gpu_c2c && ret->level != RQ_PCI_SYS)
		ret->level = RQ_PCI_P2C;
}
