// SPDX-License-Identifier: Apache-2.0
/*
 * The path level between two PCI functions as NCCL computes it (its
 * src/graph: the tree from sysfs realpaths, then the path types). NCCL walks
 * a device's realpath up two components at a time, so a switch's downstream
 * port and a root port are never nodes: one node stands for one switch (its
 * upstream port), and a function right below a root port hangs off the CPU
 * of its NUMA node. Broadcom PEX switches that show two levels are one.
 */
#include "pkg/pci/pci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"pix", "pxb", "p2c", "phb", "node", "sys"};

const char *pci_level_name(enum rq_pci_level l)
{
	return (unsigned)l < sizeof(level_names) / sizeof(level_names[0]) ? level_names[l] : "?";
}

int pci_level_parse(const char *s, enum rq_pci_level *ret)
{
	for (size_t i = 0; s && i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(s, level_names[i])) {
			*ret = (enum rq_pci_level)i;
			return 0;
		}
	return -EINVAL;
}

bool pci_level_within(enum rq_pci_level path, enum rq_pci_level max)
{
	if (path == RQ_PCI_NODE)
		path = RQ_PCI_PHB;
	if (max == RQ_PCI_NODE)
		max = RQ_PCI_PHB;
	if (path == RQ_PCI_P2C)
		return max != RQ_PCI_PIX;
	if (max == RQ_PCI_P2C)
		max = RQ_PCI_PXB;
	return path <= max;
}

/* 0 when not a Broadcom PEX switch NCCL flattens, else its generation (4, 5). */
static int bcm_gen(const struct rq_root *r, const char *pci)
{
	static const char *const f[] = {"vendor", "device", "subsystem_vendor", "subsystem_device"};
	unsigned long v[4];

	for (size_t i = 0; i < 4; i++) {
		char path[128], buf[32], *end;

		(void)snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", pci, f[i]);
		if (sysfs_read_str(r, path, buf, sizeof(buf)) < 0)
			return 0;
		v[i] = strtoul(buf, &end, 16);
		if (end == buf || v[i] > 0xffff)
			return 0;
		/* vendor first: every other switch costs one read */
		if (i == 0 && v[0] != 0x1000)
			return 0;
	}
	if (v[1] == 0xc010 && v[2] == 0x1000 && (v[3] & 0xff00) == 0xa000)
		return 4;
	if (v[1] == 0xc030 && v[2] == 0x1000 && (v[3] == 0x0000 || v[3] == 0x1000))
		return 5;
	return 0;
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
	int n, gens[RQ_PCI_CHAIN_MAX];
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
	/* NCCL's nodes: every second bridge, nearest first (skip one, keep one) */
	for (size_t i = 1; i < ret->n_up; i += 2) {
		gens[ret->n_node] = bcm_gen(r, ret->up[i]);
		memcpy(ret->node[ret->n_node++], ret->up[i], RQ_PCI_NAME);
	}
	/* a Broadcom switch below one of its own generation is merged into it */
	for (size_t i = 0; i + 1 < ret->n_node;) {
		if (gens[i] && gens[i] == gens[i + 1]) {
			memmove(ret->node[i], ret->node[i + 1],
				(ret->n_node - i - 1) * RQ_PCI_NAME);
			memmove(&gens[i], &gens[i + 1], (ret->n_node - i - 1) * sizeof(int));
			ret->n_node--;
			continue;
		}
		i++;
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
