// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's metrics in the Prometheus text format (version 0.0.4): one
 * # HELP and # TYPE per family, written to a temporary name and renamed, as
 * node-exporter's textfile collector wants (it must never read half a file).
 */
#include <stdarg.h>
#include <stdio.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/metrics.h"

static void per_pf(FILE *b, const struct pass_report *rep)
{
	const cJSON *it;
	char e1[256], e2[256];

	prom_family(b, "rdma_qos_attachments", "gauge", "Recorded attachments per PF and profile.");
	cJSON_ArrayForEach(it, rep->attachments)
	    prom_put(b, "rdma_qos_attachments{pf=\"%s\",profile=\"%s\"} %d\n",
		     prom_label_esc(json_str(it, "pf"), e1, sizeof(e1)),
		     prom_label_esc(json_str(it, "profile"), e2, sizeof(e2)), json_int(it, "n", 0));
	prom_family(
	    b, "rdma_qos_pf_in_profile", "gauge",
	    "1 when the PF meets every requirement of its attachments after the last pass.");
	cJSON_ArrayForEach(it, rep->pfs)
	    prom_put(b, "rdma_qos_pf_in_profile{pf=\"%s\"} %d\n",
		     prom_label_esc(it->string, e1, sizeof(e1)), (unsigned)it->valuedouble == 0);
	prom_family(
	    b, "rdma_qos_drift", "gauge",
	    "1 when the item is not as required after the last pass (repair failed, pf: verify, "
	    "or the PF is gone).");
	cJSON_ArrayForEach(it, rep->pfs) for (int i = 0; i < ITEM_N; i++)
	    prom_put(b, "rdma_qos_drift{pf=\"%s\",item=\"%s\"} %u\n",
		     prom_label_esc(it->string, e1, sizeof(e1)), agent_item_names[i],
		     ((unsigned)it->valuedouble >> i) & 1u);
}

/* Reported only (plugin/attach/pf_facts.c): the CNP, DCQCN, PFC buffers, storm prevention. */
static void pf_facts(FILE *b, const struct pass_report *rep)
{
	const cJSON *pf, *it;
	char e1[256], e2[256], e3[256];

	prom_family(
	    b, "rdma_qos_pf_cnp", "gauge",
	    "The DSCP (field dscp) and 802.1p priority (field prio) of the CNPs the port sends "
	    "(MOFED ecn/roce_np), where the driver has them.");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pf, "cnp"))
		prom_put(b, "rdma_qos_pf_cnp{pf=\"%s\",field=\"%s\"} %d\n",
			 prom_label_esc(pf->string, e1, sizeof(e1)), it->string, it->valueint);
	prom_family(
	    b, "rdma_qos_pf_dcqcn_param", "gauge",
	    "A DCQCN parameter of the port as the driver reports it (ecn/roce_np, roce_rp; read "
	    "only).");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pf, "dcqcn"))
		prom_put(b, "rdma_qos_pf_dcqcn_param{pf=\"%s\",side=\"%s\",param=\"%s\"} %.0f\n",
			 prom_label_esc(pf->string, e1, sizeof(e1)),
			 prom_label_esc(json_str(it, "side"), e2, sizeof(e2)),
			 prom_label_esc(json_str(it, "param"), e3, sizeof(e3)),
			 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "value")));
	prom_family(b, "rdma_qos_pf_prio_buffer", "gauge",
		    "The receive buffer each priority lands in (DCB_ATTR_DCB_BUFFER).");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	{
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(pf, "buffer"), "prio2buffer");

		for (int i = 0; i < cJSON_GetArraySize(m); i++)
			prom_put(b, "rdma_qos_pf_prio_buffer{pf=\"%s\",prio=\"%d\"} %d\n",
				 prom_label_esc(pf->string, e1, sizeof(e1)), i,
				 cJSON_GetArrayItem(m, i)->valueint);
	}
	prom_family(b, "rdma_qos_pf_buffer_size_bytes", "gauge",
		    "The size of each receive buffer of the port (DCB_ATTR_DCB_BUFFER).");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	{
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(pf, "buffer"), "bufferSize");

		for (int i = 0; i < cJSON_GetArraySize(m); i++)
			prom_put(b, "rdma_qos_pf_buffer_size_bytes{pf=\"%s\",buffer=\"%d\"} %.0f\n",
				 prom_label_esc(pf->string, e1, sizeof(e1)), i,
				 cJSON_GetNumberValue(cJSON_GetArrayItem(m, i)));
	}
	prom_family(b, "rdma_qos_pf_buffer_shared_lossless", "gauge",
		    "1 when a receive buffer holds a priority with PFC and one without: the lossy "
		    "traffic is paused with the lossless and shares its headroom.");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	{
		const cJSON *bu = cJSON_GetObjectItemCaseSensitive(pf, "buffer");
		int mask = json_int(bu, "sharedLosslessMask", 0);

		for (int i = 0; bu && i < 8; i++)
			prom_put(b,
				 "rdma_qos_pf_buffer_shared_lossless{pf=\"%s\",buffer=\"%d\"} %d\n",
				 prom_label_esc(pf->string, e1, sizeof(e1)), i, (mask >> i) & 1);
	}
	prom_family(b, "rdma_qos_pf_pfc_storm_prevention_seconds", "gauge",
		    "The port's PFC storm-prevention timeout (ethtool pfc-prevention-tout) as the "
		    "driver stores it: 0 off; mlx5 stores auto as 0.1 (100 ms); -1 a driver that "
		    "reports auto.");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	{
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(pf, "pfcPreventionMs");

		if (cJSON_IsNumber(v))
			prom_put(b, "rdma_qos_pf_pfc_storm_prevention_seconds{pf=\"%s\"} %g\n",
				 prom_label_esc(pf->string, e1, sizeof(e1)),
				 v->valueint < 0 ? -1.0 : v->valueint / 1000.0);
	}
}

/* The machine the binary was built for, in the OCI/Go spelling images and node labels use. */
#if defined(__x86_64__)
#define RQ_ARCH "amd64"
#elif defined(__aarch64__)
#define RQ_ARCH "arm64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RQ_ARCH "ppc64le"
#elif defined(__s390x__)
#define RQ_ARCH "s390x"
#else
#define RQ_ARCH "unknown"
#endif
/* the commit the build came from, when the build passes one (-DRQ_REVISION=...) */
#ifndef RQ_REVISION
#define RQ_REVISION ""
#endif

char *metrics_render(const struct agent *a, const struct pass_report *rep)
{
	struct prom_text t;
	FILE *b = prom_begin(&t);
	const cJSON *it;
	char e1[256], e2[256], e3[256];

	if (!b)
		return NULL;
	prom_family(b, "rdma_qos_build_info", "gauge",
		    "Always 1: the agent's version, source revision (empty when unknown) and "
		    "architecture.");
	prom_put(b, "rdma_qos_build_info{version=\"%s\",revision=\"%s\",arch=\"%s\"} 1\n",
		 RQ_VERSION, RQ_REVISION, RQ_ARCH);
	per_pf(b, rep);
	pf_facts(b, rep);
	prom_family(b, "rdma_qos_repairs_total", "counter",
		    "Items the agent found drifted and repaired since it started.");
	for (size_t i = 0; i < a->n_repairs; i++)
		prom_put(b, "rdma_qos_repairs_total{pf=\"%s\",item=\"%s\"} %llu\n",
			 prom_label_esc(a->repairs[i].pf, e1, sizeof(e1)), a->repairs[i].item,
			 a->repairs[i].n);
	prom_family(
	    b, "rdma_qos_port_resets_total", "counter",
	    "Resets of the PF's port since the agent started: its DCB back at the driver's "
	    "defaults as a whole, or its netdev re-created (devlink reload, firmware reset, "
	    "health recovery, AER). Repaired, and never counted as a fight.");
	for (size_t i = 0; i < a->n_resets; i++)
		prom_put(b, "rdma_qos_port_resets_total{pf=\"%s\"} %llu\n",
			 prom_label_esc(a->resets[i].pf, e1, sizeof(e1)), a->resets[i].n);
	prom_family(b, "rdma_qos_repair_suspended", "gauge",
		    "1 when the agent stopped repairing the item: it was undone again and again by "
		    "another writer (cleared by a catalog change or by deleting the agent's "
		    "fights.json).");
	cJSON_ArrayForEach(it, rep->suspended) prom_put(
	    b, "rdma_qos_repair_suspended{pf=\"%s\",item=\"%s\"} %d\n",
	    prom_label_esc(json_str(it, "pf"), e1, sizeof(e1)),
	    prom_label_esc(json_str(it, "item"), e2, sizeof(e2)), json_int(it, "value", 0));
	prom_family(b, "rdma_qos_vf_traffic_class", "gauge",
		    "The VF RDMA device's traffic class as read after the last pass (-1: unset).");
	cJSON_ArrayForEach(it, rep->vf_tc) prom_put(
	    b, "rdma_qos_vf_traffic_class{vf=\"%s\",rdma_dev=\"%s\",knob=\"%s\"} %d\n",
	    prom_label_esc(json_str(it, "vf"), e1, sizeof(e1)),
	    prom_label_esc(json_str(it, "rdmaDev"), e2, sizeof(e2)),
	    prom_label_esc(json_str(it, "knob"), e3, sizeof(e3)), json_int(it, "value", -1));
	prom_family(b, "rdma_qos_numa_misaligned", "gauge",
		    "1 per attachment whose VF is not on a NUMA node of its pod.");
	cJSON_ArrayForEach(it, rep->numa)
	    prom_put(b, "rdma_qos_numa_misaligned{namespace=\"%s\",pod=\"%s\",vf=\"%s\"} 1\n",
		     prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		     prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		     prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)));
	prom_family(b, "rdma_qos_vf_in_pod", "gauge",
		    "1 while the attachment's VF is its pod's interface; 0 when it left the pod "
		    "(driver reload, firmware reset): the pod has lost that rail.");
	cJSON_ArrayForEach(it, rep->vf_home)
	    prom_put(b, "rdma_qos_vf_in_pod{namespace=\"%s\",pod=\"%s\",vf=\"%s\"} %d\n",
		     prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		     prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		     prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)),
		     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "inPod")) ? 1 : 0);
	prom_family(b, "rdma_qos_vf_unchained", "gauge",
		    "1 per VF of a watched PF in a pod's netns with no record: no CNI chain ran "
		    "rdma-qos for it (a DRA driver in standalone mode, dranet, a NAD without "
		    "rdma-qos); pod labels empty when PodResources does not name it.");
	cJSON_ArrayForEach(it, rep->unchained)
	{
		char e4[256], e5[256];

		prom_put(
		    b,
		    "rdma_qos_vf_unchained{vf=\"%s\",pf=\"%s\",rdma_dev=\"%s\",namespace=\"%s\","
		    "pod=\"%s\"} 1\n",
		    prom_label_esc(json_str(it, "vf"), e1, sizeof(e1)),
		    prom_label_esc(json_str(it, "pf"), e2, sizeof(e2)),
		    prom_label_esc(json_str(it, "rdmaDev"), e3, sizeof(e3)),
		    prom_label_esc(json_str(it, "namespace"), e4, sizeof(e4)),
		    prom_label_esc(json_str(it, "pod"), e5, sizeof(e5)));
	}
	prom_family(b, "rdma_qos_adoptions_total", "counter",
		    "VFs no chain ran rdma-qos for that the agent adopted (node.unchained: adopt) "
		    "since it started.");
	for (size_t i = 0; i < a->n_adoptions; i++)
		prom_put(b, "rdma_qos_adoptions_total{pf=\"%s\"} %llu\n",
			 prom_label_esc(a->adoptions[i].pf, e1, sizeof(e1)), a->adoptions[i].n);
	prom_family(b, "rdma_qos_baseline_in_profile", "gauge",
		    "1 when a PF the node baseline covers meets it after the last pass.");
	cJSON_ArrayForEach(it, rep->baseline)
	    prom_put(b, "rdma_qos_baseline_in_profile{pf=\"%s\"} %d\n",
		     prom_label_esc(it->string, e1, sizeof(e1)), it->valueint);
	prom_family(b, "rdma_qos_catalog_valid", "gauge",
		    "1 when the catalog source (or the installed catalog) is valid.");
	prom_put(b, "rdma_qos_catalog_valid %d\n", a->catalog_valid ? 1 : 0);
	prom_family(b, "rdma_qos_stale_records", "gauge",
		    "Records whose pod netns is gone, kept until --stale-grace passes.");
	prom_put(b, "rdma_qos_stale_records %d\n", rep->stale);
	prom_family(b, "rdma_qos_last_pass_timestamp_seconds", "gauge",
		    "When the last reconcile pass started (Unix time).");
	prom_put(b, "rdma_qos_last_pass_timestamp_seconds %.3f\n", rep->started);
	prom_family(b, "rdma_qos_pass_duration_seconds", "gauge",
		    "How long the last reconcile pass took.");
	prom_put(b, "rdma_qos_pass_duration_seconds %.6f\n", rep->duration);
	prom_family(b, "rdma_qos_pass_interval_seconds", "gauge",
		    "The agent's --interval: a pass at least this often (/healthz and the alert "
		    "RdmaQosAgentNotPassing allow 3).");
	prom_put(b, "rdma_qos_pass_interval_seconds %d\n", a->o.interval_s);
	return prom_end(&t);
}
