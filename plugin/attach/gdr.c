// SPDX-License-Identifier: Apache-2.0
/*
 * GPUDirect RDMA verdict: the VF against the pod's GPUs as NCCL judges the
 * pair (NCCL_NET_GDR_LEVEL, default PXB), and, for a near pair, what makes
 * GDR slow although the placement is right: ACS redirect on a bridge below
 * the shared switch, a NIC-side link trained down, no peer memory, a
 * translating IOMMU. Degradations are node facts a reschedule does not fix:
 * reported, never refused.
 */
#include "plugin/attach/gdr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"

static const char *const verdict_names[] = {"", "no-gpu", "near", "far", "unknown"};

const char *gdr_verdict_name(enum rq_gdr_verdict v)
{
	return (unsigned)v < 5 ? verdict_names[v] : "";
}

void gdr_upper(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len; i++)
		buf[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
	buf[i] = '\0';
}

/* A virtual PCI tree: NCCL itself misplaces devices there (its troubleshooting guide). */
static bool hypervisor(const struct rq_root *r)
{
	char *buf = NULL;
	size_t len;
	bool hv;

	if (sysfs_exists(r, "/sys/hypervisor/type"))
		return true;
	if (sysfs_read_file(r, "/proc/cpuinfo", (size_t)4 << 20, &buf, &len) < 0)
		return false;
	hv = strstr(buf, " hypervisor") != NULL;
	free(buf);
	return hv;
}

static bool any_candidate(const struct rq_numa_devices *d)
{
	for (size_t i = 0; i < d->n_devs; i++)
		if (gpu_devplugin_candidate(d->devs[i].resource, d->devs[i].id))
			return true;
	for (size_t i = 0; i < d->n_dra; i++)
		if (gpu_dra_candidate(d->dra[i].driver))
			return true;
	return false;
}

/* The nearest mapped GPU (ties: the lowest PCI address); false when none has a place. */
static bool nearest(const struct rq_root *r, const struct rq_pci_pos *nic,
		    const struct rq_gpu_set *s, struct rq_gdr_result *g, struct rq_pci_pos *ret_pos,
		    struct rq_pci_pair *ret_pair)
{
	bool found = false;

	for (size_t i = 0; i < s->n; i++) {
		struct rq_pci_pos pos;
		struct rq_pci_pair p;
		int rr = pci_position(r, s->gpu[i].pci, &pos);

		if (rr < 0) {
			gdr_ev(g, "GPU %s has no place in the PCI tree: %s", s->gpu[i].pci,
			       strerror(-rr));
			continue;
		}
		pci_pair_level(nic, &pos, s->gpu[i].c2c, &p);
		if (found && (p.level > ret_pair->level || (p.level == ret_pair->level &&
							    strcmp(s->gpu[i].pci, g->gpu.pci) > 0)))
			continue;
		found = true;
		g->gpu = s->gpu[i];
		*ret_pos = pos;
		*ret_pair = p;
	}
	return found;
}

static void judge_pair(struct rq_ctx *c, const struct rq_target *t, const struct rq_gpu_set *s,
		       struct rq_gdr_result *g)
{
	const struct rq_root *r = &c->env.root;
	struct rq_pci_pos nic, gpu;
	struct rq_pci_pair p;
	char lv[8];
	int rr = pci_position(r, t->vf.pci, &nic);

	if (rr < 0) {
		gdr_ev(g, "VF %s has no place in the PCI tree (%s)", t->vf.pci, strerror(-rr));
		return;
	}
	(void)snprintf(g->pf, sizeof(g->pf), "%s", nic.pci);
	(void)snprintf(g->vf, sizeof(g->vf), "%s", t->vf.pci);
	if (!nearest(r, &nic, s, g, &gpu, &p))
		return;
	g->has_path = true;
	g->path = p.level;
	gdr_upper(pci_level_name(p.level), lv, sizeof(lv));
	gdr_ev(g, "VF %s (PF %s) %s to GPU %s (%s)%s%s", t->vf.pci, nic.pci, lv, g->gpu.pci,
	       g->gpu.id, p.via[0] ? " via switch " : "", p.via);
	if (p.level == RQ_PCI_SYS)
		gdr_ev(g, "VF on NUMA node %d, GPU on node %d", nic.numa, gpu.numa);
	if (!pci_level_within(p.level, g->nccl_max)) {
		/* an accelerator we could not place may be the near one */
		g->verdict = s->n_unmapped ? RQ_GDR_V_UNKNOWN : RQ_GDR_V_FAR;
		return;
	}
	g->verdict = RQ_GDR_V_NEAR;
	gdr_degradations(r, &nic, &gpu, &p, g);
}

void gdr_judge(struct rq_ctx *c, const struct rq_target *t, const struct rq_numa_devices *devs,
	       struct rq_gdr_result *ret)
{
	struct rq_gdr_result *g = ret;
	struct rq_gpu_set s;

	memset(g, 0, sizeof(*g));
	g->max = c->nc->gdr_level >= 0 ? (enum rq_pci_level)c->nc->gdr_level
		 : c->cat	       ? c->cat->gdr_level
				       : RQ_PCI_PXB;
	/*
	 * NCCL's default with NCCL_NET_GDR_C2C on (2.27+) is P2C, which is PXB for
	 * every path but a C2C GPU's; an explicit level is taken as it is, so an
	 * explicit pxb makes a p2c pair far, as NCCL_NET_GDR_LEVEL=PXB does.
	 */
	g->nccl_max =
	    c->nc->gdr_level >= 0 || (c->cat && c->cat->gdr_level_set) ? g->max : RQ_PCI_P2C;
	if (c->nc->gdr == RQ_GDR_OFF)
		return;
	g->verdict = RQ_GDR_V_UNKNOWN;
	if (!devs || !devs->answered) {
		gdr_ev(g, "kubelet gave no answer for the pod's devices");
		return;
	}
	/* before any I/O: a pod without an accelerator costs nothing */
	if (!any_candidate(devs)) {
		g->verdict = RQ_GDR_V_NO_GPU;
		return;
	}
	if (c->cat && c->cat->gdr_topology == RQ_GDR_TOPO_OFF) {
		gdr_ev(g, "node.gdrTopology off");
		return;
	}
	if ((!c->cat || c->cat->gdr_topology == RQ_GDR_TOPO_AUTO) && hypervisor(&c->env.root)) {
		gdr_ev(
		    g,
		    "a hypervisor's virtual PCI tree (node.gdrTopology auto; sysfs to judge it)");
		return;
	}
	if (gpu_map_pod(&c->env.root, devs->devs, devs->n_devs, devs->dra, devs->n_dra, &s) < 0) {
		gdr_ev(g, "the pod's accelerators could not be mapped");
		return;
	}
	for (size_t i = 0; i < s.n; i++)
		memcpy(g->pod_gpus[g->n_pod_gpus++], s.gpu[i].pci, RQ_PCI_NAME);
	if (s.n_unmapped)
		gdr_ev(g, "not mapped to a PCI address: %s", s.unmapped);
	if (!s.n) {
		if (!s.n_unmapped)
			g->verdict = RQ_GDR_V_NO_GPU;
		return;
	}
	judge_pair(c, t, &s, g);
}

int gdr_enforce(struct rq_ctx *c, const struct rq_gdr_result *g)
{
	char lv[8];

	switch (g->verdict) {
	case RQ_GDR_V_NONE:
	case RQ_GDR_V_NO_GPU:
		return 0;
	case RQ_GDR_V_UNKNOWN:
		log_info("%s: GPUDirect RDMA path unknown: %s", c->key, g->evidence);
		return 0;
	case RQ_GDR_V_NEAR:
		if (g->n_degraded)
			log_warn("%s: GPUDirect RDMA degraded: %s", c->key, g->evidence);
		else
			log_debug("%s: GPUDirect RDMA near: %s", c->key, g->evidence);
		return 0;
	case RQ_GDR_V_FAR:
		break;
	}
	gdr_upper(pci_level_name(g->path), lv, sizeof(lv));
	if (c->nc->gdr == RQ_GDR_STRICT)
		return rq_err(&c->err, RQ_ERR_GDR_FAR, -EXDEV,
			      "GPUDirect RDMA (gdr: strict): VF %s (PF %s) is %s from every GPU of "
			      "the pod: nearest GPU %s (%s); gdrLevel %s: %s",
			      g->vf, g->pf, lv, g->gpu.pci, g->gpu.id, pci_level_name(g->max),
			      g->evidence);
	log_warn(
	    "%s: GPUDirect RDMA far (gdr: warn, continuing): %s is %s from its nearest GPU %s; "
	    "NCCL at %s stages this rail through host memory: %s",
	    c->key, g->vf, lv, g->gpu.pci, pci_level_name(g->max), g->evidence);
	return 0;
}

void gdr_record(const struct rq_ctx *c, cJSON *rec, const struct rq_gdr_result *g)
{
	cJSON *o, *a;

	cJSON_AddStringToObject(rec, "gdr", gdr_mode_name(c->nc->gdr));
	if (g->verdict == RQ_GDR_V_NONE)
		return;
	cJSON_AddStringToObject(rec, "gdrLevel", pci_level_name(g->max));
	cJSON_AddStringToObject(rec, "gdrVerdict", gdr_verdict_name(g->verdict));
	if (g->has_path) {
		cJSON_AddStringToObject(rec, "gdrPath", pci_level_name(g->path));
		o = cJSON_AddObjectToObject(rec, "gdrGpu");
		cJSON_AddStringToObject(o, "pci", g->gpu.pci);
		cJSON_AddStringToObject(o, "id", g->gpu.id);
		cJSON_AddStringToObject(o, "source", g->gpu.source);
	}
	if (g->n_degraded) {
		a = cJSON_AddArrayToObject(rec, "gdrDegraded");
		for (size_t i = 0; i < g->n_degraded; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(g->degraded[i]));
	}
	if (g->evidence[0])
		cJSON_AddStringToObject(rec, "gdrEvidence", g->evidence);
	if (g->n_pod_gpus) {
		a = cJSON_AddArrayToObject(rec, "gdrPodGpus");
		for (size_t i = 0; i < g->n_pod_gpus; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(g->pod_gpus[i]));
	}
}
