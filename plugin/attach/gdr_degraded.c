// SPDX-License-Identifier: Apache-2.0
/*
 * What makes a near GPU-NIC pair slow although the placement is right: ACS
 * redirect on a bridge below their shared switch, a NIC-side link trained
 * down, no peer memory, a translating IOMMU. Read at ADD and again by the
 * agent each pass (a link can retrain down at run time).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin/attach/gdr.h"

void gdr_ev(struct rq_gdr_result *g, const char *fmt, ...)
{
	size_t n = strlen(g->evidence);
	va_list ap;

	if (n + 3 >= sizeof(g->evidence))
		return;
	if (n)
		n += (size_t)snprintf(g->evidence + n, sizeof(g->evidence) - n, "; ");
	va_start(ap, fmt);
	(void)vsnprintf(g->evidence + n, sizeof(g->evidence) - n, fmt, ap);
	va_end(ap);
}

static void degrade(struct rq_gdr_result *g, const char *reason)
{
	for (size_t i = 0; i < g->n_degraded; i++)
		if (!strcmp(g->degraded[i], reason))
			return;
	if (g->n_degraded < RQ_GDR_MAX_DEGRADED)
		g->degraded[g->n_degraded++] = reason;
}

/*
 * ACS RR/CR/EC on a bridge below the shared switch forces P2P up to the root
 * complex. The ACS capability lives past the first 64 bytes of the config
 * space, which only CAP_SYS_ADMIN reads: the bridges whose ACS could not be
 * read are named in @unread (comma-separated), never taken for ACS off.
 */
static void acs_check(const struct rq_root *r, const struct rq_pci_pos *pos, size_t below,
		      struct rq_gdr_result *g, char *unread, size_t len)
{
	for (size_t i = 0; i < below; i++) {
		struct rq_pci_cfg cfg;
		uint16_t on;

		if (pci_config(r, pos->up[i], &cfg) < 0)
			continue;
		if (!cfg.ext_read) {
			size_t n = strlen(unread);

			(void)snprintf(unread + n, len - n, "%s%s", n ? ", " : "", pos->up[i]);
			continue;
		}
		if (!cfg.has_acs)
			continue;
		on = cfg.acs_ctrl & (RQ_PCI_ACS_RR | RQ_PCI_ACS_CR | RQ_PCI_ACS_EC);
		if (!on)
			continue;
		degrade(g, "acs_redirect");
		gdr_ev(g, "ACS redirect (%s%s%s) on bridge %s", on & RQ_PCI_ACS_RR ? "RR" : "",
		       (on & RQ_PCI_ACS_RR) && (on & (RQ_PCI_ACS_CR | RQ_PCI_ACS_EC)) ? " " : "",
		       on & RQ_PCI_ACS_CR   ? (on & RQ_PCI_ACS_EC ? "CR EC" : "CR")
		       : on & RQ_PCI_ACS_EC ? "EC"
					    : "",
		       pos->up[i]);
	}
}

static int link_of(const struct rq_root *r, const char *pci, struct rq_pci_cfg *cfg)
{
	if (pci_config(r, pci, cfg) == 0 && cfg->has_pcie && cfg->cap_speed)
		return 0;
	/* without CAP_SYS_ADMIN only the header is readable: sysfs has the link too */
	return pci_link_sysfs(r, pci, cfg);
}

/*
 * The PF's link and the NIC-side links up to the shared point, against what
 * both ends of each can do. Never the GPU's: it downclocks when idle. A
 * downstream or root port's own link is its child's (judged there), never
 * against the bridge above it, which is the far end of another link: with the
 * config space readable its port type says which is which; without it (no
 * CAP_SYS_ADMIN: the PCIe capability is past the first 64 bytes), the chain
 * alternates as NCCL assumes, up[0] a downstream (or root) port, up[1] the
 * switch's upstream port, and so on: only the PF's and the upstream ports'
 * links are judged.
 */
static void link_check(const struct rq_root *r, const struct rq_pci_pos *pos, size_t below,
		       struct rq_gdr_result *g)
{
	for (size_t i = 0; i <= below && i < pos->n_up; i++) {
		const char *dev = i == 0 ? pos->pci : pos->up[i - 1], *port = pos->up[i];
		struct rq_pci_cfg d, p;
		int speed, width;

		if (i > 0 && i == below)
			break; /* the shared bridge's own upstream link is not on the path */
		if (link_of(r, dev, &d) < 0 || link_of(r, port, &p) < 0)
			continue;
		/* a downstream or root port's link is its child's, judged there */
		if (d.has_pcie && d.port_type != 0 && d.port_type != 1 && d.port_type != 5)
			continue;
		if (!d.has_pcie && i > 0 && (i - 1) % 2 == 0)
			continue;
		speed = d.cap_speed < p.cap_speed ? d.cap_speed : p.cap_speed;
		width = d.cap_width < p.cap_width ? d.cap_width : p.cap_width;
		if ((d.sta_speed && d.sta_speed < speed) || (d.sta_width && d.sta_width < width)) {
			degrade(g, "link_downgraded");
			gdr_ev(g, "link of %s runs Gen%d x%d, both ends can Gen%d x%d", dev,
			       d.sta_speed, d.sta_width, speed, width);
		}
	}
}

/* NCCL's and RCCL's tests: a registered peer-memory client, or the DMA-BUF preconditions. */
size_t gdr_peer_memory(const struct rq_root *r, const char **ret, size_t max, bool *loaded_only)
{
	static const struct {
		const char *path, *method;
	} reg[] = {{"/sys/kernel/mm/memory_peers/nv_mem/version", "nvidia_peermem"},
		   {"/sys/kernel/mm/memory_peers/nv_mem_nc/version", "nvidia_peermem"},
		   {"/sys/kernel/mm/memory_peers/amdkfd/version", "amdkfd"}};
	char ver[256] = "", rel[64] = "";
	int major = 0, minor = 0;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(reg) / sizeof(reg[0]) && n < max; i++)
		if (sysfs_exists(r, reg[i].path) && (!n || strcmp(ret[n - 1], reg[i].method)))
			ret[n++] = reg[i].method;
	/* the driver first: a node without NVIDIA's driver opens nothing more */
	if (n < max && sysfs_read_str(r, "/proc/driver/nvidia/version", ver, sizeof(ver)) == 0 &&
	    strstr(ver, "Open Kernel Module") &&
	    sysfs_read_str(r, "/proc/sys/kernel/osrelease", rel, sizeof(rel)) == 0 &&
	    sscanf(rel, "%d.%d", &major, &minor) == 2 && (major > 5 || (major == 5 && minor >= 12)))
		ret[n++] = "dma_buf";
	/* loaded without MOFED/DOCA-OFED's peer-memory API, it registers nothing */
	*loaded_only = !n && sysfs_exists(r, "/sys/module/nvidia_peermem/version");
	return n;
}

static void peer_memory_check(const struct rq_root *r, struct rq_gdr_result *g)
{
	const char *m[4];
	bool loaded_only;

	if (gdr_peer_memory(r, m, 4, &loaded_only))
		return;
	degrade(g, "no_peer_memory");
	if (loaded_only)
		gdr_ev(
		    g,
		    "nvidia_peermem is loaded but registered no peer-memory client (no "
		    "/sys/kernel/mm/memory_peers/nv_mem), and no DMA-BUF path (kernel >= 5.12 and "
		    "the NVIDIA open module)");
	else
		gdr_ev(g, "no peer memory: no registered peer-memory client and no DMA-BUF path "
			  "(kernel >= 5.12 and the NVIDIA open module)");
}

static void iommu_check(const struct rq_root *r, const char *pci, struct rq_gdr_result *g)
{
	char type[32];

	if (pci_iommu_type(r, pci, type, sizeof(type)) == 0 &&
	    (!strcmp(type, "DMA") || !strcmp(type, "DMA-FQ"))) {
		degrade(g, "iommu_translated");
		gdr_ev(g, "%s is in an IOMMU group of type %s (GDR wants identity)", pci, type);
	}
}

void gdr_degradations(const struct rq_root *r, const struct rq_pci_pos *nic,
		      const struct rq_pci_pos *gpu, const struct rq_pci_pair *p,
		      struct rq_gdr_result *g)
{
	/* only a pair below a shared switch has bridges that can turn its traffic upward */
	if (p->level == RQ_PCI_PIX || p->level == RQ_PCI_PXB) {
		char unread[RQ_PCI_NAME * 8] = "";

		acs_check(r, nic, p->nic_below, g, unread, sizeof(unread));
		acs_check(r, gpu, p->gpu_below, g, unread, sizeof(unread));
		if (unread[0])
			gdr_ev(g,
			       "ACS not read on bridge %s (the config space past 64 bytes needs "
			       "CAP_SYS_ADMIN): acs_redirect unknown",
			       unread);
	}
	link_check(r, nic, p->nic_below, g);
	peer_memory_check(r, g);
	iommu_check(r, nic->pci, g);
	iommu_check(r, gpu->pci, g);
}

int gdr_recheck(const struct rq_root *r, const char *vf, const char *gpu_pci,
		struct rq_gdr_result *ret)
{
	struct rq_pci_pos nic, gpu;
	struct rq_pci_pair p;
	int rr;

	memset(ret, 0, sizeof(*ret));
	rr = pci_position(r, vf, &nic);
	if (rr == 0)
		rr = pci_position(r, gpu_pci, &gpu);
	if (rr < 0)
		return rr;
	pci_pair_level(&nic, &gpu, false, &p);
	ret->has_path = true;
	ret->path = p.level;
	gdr_degradations(r, &nic, &gpu, &p, ret);
	return 0;
}
