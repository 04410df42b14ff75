/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where two PCI functions sit relative to each other, as NCCL's topology code
 * places them (DESIGN.md "GPUDirect RDMA"), and the registers that make a
 * near pair slow: ACS redirect, a link trained below what both ends can, an
 * IOMMU group in translated mode. All from sysfs under a struct rq_root.
 */
#ifndef RQ_PCI_H
#define RQ_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/sysfs/sysfs.h"

#define RQ_PCI_NAME	 16 /* "dddd:bb:dd.f" (a 5-digit VMD domain too) + NUL */
#define RQ_PCI_CHAIN_MAX 16 /* ancestors kept; deeper trees are -E2BIG */

/* Path levels, closest first, in NCCL's names (nvidia-smi's NODE added). */
enum rq_pci_level {
	RQ_PCI_PIX = 0, /* below one switch (NCCL PCI node) */
	RQ_PCI_PXB,	/* a shared switch further up, no host bridge */
	RQ_PCI_P2C,	/* a C2C GPU: its link to the CPU, then PCIe to the NIC */
	RQ_PCI_PHB,	/* the same host bridge */
	RQ_PCI_NODE,	/* another host bridge of the same NUMA node (judged as phb) */
	RQ_PCI_SYS,	/* across NUMA nodes */
};

/* "pix", "pxb", "p2c", "phb", "node", "sys" */
const char *pci_level_name(enum rq_pci_level l);
/* The inverse of pci_level_name; -EINVAL for anything else. */
int pci_level_parse(const char *s, enum rq_pci_level *ret);
/*
 * Whether NCCL with NCCL_NET_GDR_LEVEL=@max uses GDR at @path: node is
 * judged as phb (NCCL's CPU nodes are per NUMA id), p2c is near for every
 * level but pix (NCCL_NET_GDR_C2C, on by default since 2.27).
 */
bool pci_level_within(enum rq_pci_level path, enum rq_pci_level max);

/* One function's place in the tree. */
struct rq_pci_pos {
	char pci[RQ_PCI_NAME]; /* the function placed: a VF's PF (NCCL merges VFs into it) */
	char root[32];	       /* the host bridge, "pci0000:00" */
	/* every bridge above it, nearest first, up to the root port */
	char up[RQ_PCI_CHAIN_MAX][RQ_PCI_NAME];
	size_t n_up;
	/* NCCL's PCI nodes above it (every second bridge; Broadcom two-level switches merged) */
	char node[RQ_PCI_CHAIN_MAX][RQ_PCI_NAME];
	size_t n_node;
	int numa; /* numa_node, -1 unknown */
};

/*
 * The place of @pci from the realpath of /sys/bus/pci/devices/@pci: a VF
 * (physfn) is placed where its PF is. -ENOENT: no such device; -ENODEV: not
 * below /sys/devices/pci* (no PCI tree to judge); -E2BIG: deeper than
 * RQ_PCI_CHAIN_MAX; -EINVAL: @pci not a PCI address.
 */
int pci_position(const struct rq_root *r, const char *pci, struct rq_pci_pos *ret);

struct rq_pci_pair {
	enum rq_pci_level level;
	char via[RQ_PCI_NAME]; /* pix/pxb: the shared switch's upstream port, else "" */
	/*
	 * Bridges on each side below the nearest common bridge (all of them when
	 * there is none): the ones whose ACS can redirect, and whose links are the path.
	 */
	size_t nic_below, gpu_below;
};

/*
 * The level between a NIC at @nic and a GPU at @gpu; @gpu_c2c: the GPU
 * reaches its CPU through C2C (a phb/node pair becomes p2c).
 */
void pci_pair_level(const struct rq_pci_pos *nic, const struct rq_pci_pos *gpu, bool gpu_c2c,
		    struct rq_pci_pair *ret);

/* What a function's configuration space says (what sysfs shows of it). */
struct rq_pci_cfg {
	bool has_pcie;	   /* a PCI Express capability was found */
	int port_type;	   /* its Device/Port Type: 0 endpoint, 4 root port, 5 up, 6 down */
	int cap_speed;	   /* Link Capabilities: max speed (1 = 2.5 GT/s ...), max width */
	int cap_width;	   /* 0: unknown */
	int sta_speed;	   /* Link Status: current speed, width */
	int sta_width;	   /* 0: unknown */
	bool has_acs;	   /* the extended space was readable and held ACS (0x0D) */
	uint16_t acs_ctrl; /* its ACS Control word */
	bool ext_read;	   /* the extended space (0x100+) was readable: privileged, PCIe */
};

#define RQ_PCI_ACS_RR 0x0004
#define RQ_PCI_ACS_CR 0x0008
#define RQ_PCI_ACS_EC 0x0020

/*
 * /sys/bus/pci/devices/@pci/config decoded. An unprivileged reader gets the
 * first 64 bytes only: has_pcie false, no error. -ENOENT: no such device.
 */
int pci_config(const struct rq_root *r, const char *pci, struct rq_pci_cfg *ret);
/* The same from the bytes of a config file (fuzzable, tested on fixtures). */
void pci_config_parse(const uint8_t *buf, size_t len, struct rq_pci_cfg *ret);

/*
 * The link speeds from sysfs max_link_speed/current_link_speed ("8.0 GT/s
 * PCIe", older kernels "8 GT/s") as PCIe generations, and the widths: for
 * readers without the config space. -ENOENT: not a PCIe function.
 */
int pci_link_sysfs(const struct rq_root *r, const char *pci, struct rq_pci_cfg *ret);
/* "8.0 GT/s PCIe" -> 3; 0 when unknown. */
int pci_speed_gen(const char *s);

/*
 * The type of @pci's IOMMU group ("DMA", "DMA-FQ", "identity", ...) into
 * @buf; -ENOENT: no IOMMU group (no IOMMU).
 */
int pci_iommu_type(const struct rq_root *r, const char *pci, char *buf, size_t len);

/* The PCI class of @pci ("0x030200" -> 0x030200); -ENOENT, -EINVAL. */
int pci_class(const struct rq_root *r, const char *pci, uint32_t *ret);

#endif
