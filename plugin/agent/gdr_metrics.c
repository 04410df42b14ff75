// SPDX-License-Identifier: Apache-2.0
/*
 * GPUDirect RDMA after a pass (DESIGN.md "GPUDirect RDMA"): each recorded
 * pair's degradation registers read again (a NIC link can retrain down at
 * run time; /proc/driver/nvidia is never read again: the record keeps the
 * GPU's address), per pod a maximum matching of its rails (one VF per PF)
 * to its GPUs within gdrLevel (judge/gdr_rails.c), PFs carrying two of a
 * pod's VFs, the node's peer memory; the families and the NFD word rdma-qos.gdr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/attach/gdr.h"
#include "plugin/judge/gdr_rails.h"
#include "plugin/agent/metrics.h"

void agent_gdr_record(const struct agent *a, struct pass_report *rep, const cJSON *rec)
{
	const char *verdict = json_str(rec, "gdrVerdict") ?: "";
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(rec, "gdrGpu"), *it;
	const cJSON *pfs = cJSON_GetObjectItemCaseSensitive(rec, "pfs");
	struct rq_gdr_result g;
	cJSON *o, *d;

	/* no GPU, not judged, or no pair to look at: no series */
	if (!gpu || !json_str(gpu, "pci") || !strcmp(verdict, "no-gpu") || !verdict[0] ||
	    !(o = cJSON_CreateObject()))
		return;
	cJSON_AddStringToObject(o, "namespace", json_str(rec, "podNamespace") ?: "");
	cJSON_AddStringToObject(o, "pod", json_str(rec, "podName") ?: "");
	cJSON_AddStringToObject(o, "container", json_str(rec, "containerID") ?: "");
	cJSON_AddStringToObject(o, "vf", json_str(rec, "vf") ?: "");
	cJSON_AddStringToObject(o, "pf", json_str(cJSON_GetArrayItem(pfs, 0), "pci") ?: "");
	cJSON_AddStringToObject(o, "gpu", json_str(gpu, "pci"));
	cJSON_AddStringToObject(o, "path", json_str(rec, "gdrPath") ?: "");
	cJSON_AddStringToObject(o, "level", json_str(rec, "gdrLevel") ?: "pxb");
	cJSON_AddStringToObject(o, "verdict", verdict);
	cJSON_AddItemToObject(
	    o, "gpus",
	    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "gdrPodGpus"), true)
		?: cJSON_CreateArray());
	d = cJSON_AddArrayToObject(o, "degraded");
	if (!strcmp(verdict, "near") &&
	    gdr_recheck(&a->env.root, json_str(rec, "vf") ?: "", json_str(gpu, "pci"), &g) == 0) {
		for (size_t i = 0; i < g.n_degraded; i++)
			cJSON_AddItemToArray(d, cJSON_CreateString(g.degraded[i]));
	} else {
		/* the pair is gone or not near: what ADD saw */
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "gdrDegraded"))
		    cJSON_AddItemToArray(d, cJSON_Duplicate(it, false));
	}
	cJSON_AddItemToArray(rep->gdr, o);
}

const cJSON *agent_gdr_degraded(const struct pass_report *rep, const char *vf)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, rep->gdr)
	{
		if (!strcmp(json_str(it, "vf") ?: "", vf))
			return cJSON_GetObjectItemCaseSensitive(it, "degraded");
	}
	return NULL;
}

/*
 * @x and @y are entries of one pod: its namespace and name (an adopted VF's
 * record has the VF's address as its containerID, so one pod's rails are
 * several containers)
 */
static bool same_pod(const cJSON *x, const cJSON *y)
{
	return !strcmp(json_str(x, "namespace") ?: "", json_str(y, "namespace") ?: "") &&
	       !strcmp(json_str(x, "pod") ?: "", json_str(y, "pod") ?: "");
}

static void render_pods(FILE *f, const struct agent *a, const struct pass_report *rep)
{
	const cJSON *it, *jt;
	bool head_w = false, head_s = false;
	char e1[256], e2[256], e3[64];

	cJSON_ArrayForEach(it, rep->gdr)
	{
		struct pod_rails p;
		bool first = true;
		size_t left;

		/* a pod is its entries of one namespace and name: handled at its first entry */
		cJSON_ArrayForEach(jt, rep->gdr)
		{
			if (jt == it)
				break;
			if (same_pod(jt, it))
				first = false;
		}
		if (!first)
			continue;
		memset(&p, 0, sizeof(p));
		p.first = it;
		if (pci_level_parse(json_str(it, "level"), &p.level) < 0)
			p.level = RQ_PCI_PXB;
		cJSON_ArrayForEach(jt, rep->gdr) if (same_pod(jt, it)) gdr_rails_add(&p, jt);
		left = gdr_rails_unmatched(&a->env.root, &p);
		prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1));
		prom_label_esc(json_str(it, "pod"), e2, sizeof(e2));
		if (!head_w)
			prom_family(f, "rdma_qos_pod_gpus_without_rail", "gauge",
				    "The pod's GPUs left without a VF within gdrLevel by a maximum "
				    "matching, one VF per PF.");
		head_w = true;
		(void)fprintf(f,
			      "rdma_qos_pod_gpus_without_rail{namespace=\"%s\",pod=\"%s\"} %zu\n",
			      e1, e2, left);
		for (size_t i = 0; i < p.n_pf; i++) {
			if (p.n_on_pf[i] < 2)
				continue;
			if (!head_s)
				prom_family(f, "rdma_qos_pod_shared_pf", "gauge",
					    "The pod's attachments on one PF (only when >= 2: two "
					    "rails on one port halve both).");
			head_s = true;
			(void)fprintf(
			    f, "rdma_qos_pod_shared_pf{namespace=\"%s\",pod=\"%s\",pf=\"%s\"} %d\n",
			    e1, e2, prom_label_esc(p.pf[i], e3, sizeof(e3)), p.n_on_pf[i]);
		}
	}
}

static void render_pairs(FILE *f, const struct pass_report *rep)
{
	const cJSON *it, *d;
	char e1[256], e2[256], e3[64], e4[64];

	prom_family(f, "rdma_qos_vf_gpu_path", "gauge",
		    "1 per attachment with a GPU: the PCIe path from its VF to the pod's nearest "
		    "GPU (NCCL's levels).");
	cJSON_ArrayForEach(it, rep->gdr) if (json_str(it, "path")[0])(void)
	    fprintf(f,
		    "rdma_qos_vf_gpu_path{namespace=\"%s\",pod=\"%s\",vf=\"%s\",gpu=\"%s\",path=\"%"
		    "s\"} 1\n",
		    prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		    prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		    prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)),
		    prom_label_esc(json_str(it, "gpu"), e4, sizeof(e4)), json_str(it, "path"));
	prom_family(f, "rdma_qos_gdr_far", "gauge",
		    "1 per attachment whose VF is beyond gdrLevel from every GPU of its pod: NCCL "
		    "stages that rail through host memory.");
	cJSON_ArrayForEach(it, rep->gdr) if (!strcmp(json_str(it, "verdict"), "far"))(void)
	    fprintf(f, "rdma_qos_gdr_far{namespace=\"%s\",pod=\"%s\",vf=\"%s\"} 1\n",
		    prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		    prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		    prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)));
	prom_family(f, "rdma_qos_gdr_degraded", "gauge",
		    "1 per near attachment and reason GDR is slow or impossible although the "
		    "placement is right.");
	cJSON_ArrayForEach(it, rep->gdr)
	    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(it, "degraded"))(void) fprintf(
		f, "rdma_qos_gdr_degraded{namespace=\"%s\",pod=\"%s\",vf=\"%s\",reason=\"%s\"} 1\n",
		prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)),
		cJSON_IsString(d) ? d->valuestring : "");
}

char *gdr_metrics_render(const struct agent *a, const struct pass_report *rep)
{
	const char *m[4];
	bool loaded_only;
	size_t n = gdr_peer_memory(&a->env.root, m, 4, &loaded_only);
	struct prom_text t;
	FILE *f = prom_begin(&t);

	if (!f)
		return NULL;
	render_pairs(f, rep);
	render_pods(f, a, rep);
	prom_family(f, "rdma_qos_gdr_peer_memory", "gauge",
		    "1 per way GPU memory can be registered with the NIC on this node "
		    "(nvidia_peermem, dma_buf, amdkfd; none).");
	for (size_t i = 0; i < n; i++)
		(void)fprintf(f, "rdma_qos_gdr_peer_memory{method=\"%s\"} 1\n", m[i]);
	if (!n)
		(void)fprintf(f, "rdma_qos_gdr_peer_memory{method=\"none\"} 1\n");
	return prom_end(&t);
}

const char *gdr_nfd_word(const struct pass_report *rep)
{
	const cJSON *it;
	bool any = false;

	/* ok: pairs judged, none far, none degraded (peer memory missing degrades each) */
	cJSON_ArrayForEach(it, rep->gdr)
	{
		if (!strcmp(json_str(it, "verdict"), "unknown"))
			continue;
		any = true;
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(it, "degraded")) > 0 ||
		    !strcmp(json_str(it, "verdict"), "far"))
			return "degraded";
	}
	return any ? "ok" : "unknown";
}
