// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's metrics in the Prometheus text format (version 0.0.4): one
 * # HELP and # TYPE per family, written to a temporary name and renamed, as
 * node-exporter's textfile collector wants (it must never read half a file).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"

static void put(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vfprintf(f, fmt, ap);
	va_end(ap);
}

static void per_pf(FILE *b, const struct pass_report *rep)
{
	const cJSON *it;
	char e1[256], e2[256];

	prom_family(b, "rdma_qos_attachments", "gauge", "Recorded attachments per PF and profile.");
	cJSON_ArrayForEach(it, rep->attachments)
	    put(b, "rdma_qos_attachments{pf=\"%s\",profile=\"%s\"} %d\n",
		prom_label_esc(json_str(it, "pf"), e1, sizeof(e1)),
		prom_label_esc(json_str(it, "profile"), e2, sizeof(e2)), json_int(it, "n", 0));
	prom_family(
	    b, "rdma_qos_pf_in_profile", "gauge",
	    "1 when the PF meets every requirement of its attachments after the last pass.");
	cJSON_ArrayForEach(it, rep->pfs)
	    put(b, "rdma_qos_pf_in_profile{pf=\"%s\"} %d\n",
		prom_label_esc(it->string, e1, sizeof(e1)), (unsigned)it->valuedouble == 0);
	prom_family(
	    b, "rdma_qos_drift", "gauge",
	    "1 when the item is not as required after the last pass (repair failed, pf: verify, "
	    "or the PF is gone).");
	cJSON_ArrayForEach(it, rep->pfs) for (int i = 0; i < ITEM_N; i++)
	    put(b, "rdma_qos_drift{pf=\"%s\",item=\"%s\"} %u\n",
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
		put(b, "rdma_qos_pf_cnp{pf=\"%s\",field=\"%s\"} %d\n",
		    prom_label_esc(pf->string, e1, sizeof(e1)), it->string, it->valueint);
	prom_family(
	    b, "rdma_qos_pf_dcqcn_param", "gauge",
	    "A DCQCN parameter of the port as the driver reports it (ecn/roce_np, roce_rp; read "
	    "only).");
	cJSON_ArrayForEach(pf, rep->pf_facts)
	    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(pf, "dcqcn"))
		put(b, "rdma_qos_pf_dcqcn_param{pf=\"%s\",side=\"%s\",param=\"%s\"} %.0f\n",
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
			put(b, "rdma_qos_pf_prio_buffer{pf=\"%s\",prio=\"%d\"} %d\n",
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
			put(b, "rdma_qos_pf_buffer_size_bytes{pf=\"%s\",buffer=\"%d\"} %.0f\n",
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
			put(b, "rdma_qos_pf_buffer_shared_lossless{pf=\"%s\",buffer=\"%d\"} %d\n",
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
			put(b, "rdma_qos_pf_pfc_storm_prevention_seconds{pf=\"%s\"} %g\n",
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
	put(b, "rdma_qos_build_info{version=\"%s\",revision=\"%s\",arch=\"%s\"} 1\n", RQ_VERSION,
	    RQ_REVISION, RQ_ARCH);
	per_pf(b, rep);
	pf_facts(b, rep);
	prom_family(b, "rdma_qos_repairs_total", "counter",
		    "Items the agent found drifted and repaired since it started.");
	for (size_t i = 0; i < a->n_repairs; i++)
		put(b, "rdma_qos_repairs_total{pf=\"%s\",item=\"%s\"} %llu\n",
		    prom_label_esc(a->repairs[i].pf, e1, sizeof(e1)), a->repairs[i].item,
		    a->repairs[i].n);
	prom_family(
	    b, "rdma_qos_port_resets_total", "counter",
	    "Resets of the PF's port since the agent started: its DCB back at the driver's "
	    "defaults as a whole, or its netdev re-created (devlink reload, firmware reset, "
	    "health recovery, AER). Repaired, and never counted as a fight.");
	for (size_t i = 0; i < a->n_resets; i++)
		put(b, "rdma_qos_port_resets_total{pf=\"%s\"} %llu\n",
		    prom_label_esc(a->resets[i].pf, e1, sizeof(e1)), a->resets[i].n);
	prom_family(b, "rdma_qos_repair_suspended", "gauge",
		    "1 when the agent stopped repairing the item: it was undone again and again by "
		    "another writer (cleared by a catalog change or by deleting the agent's "
		    "fights.json).");
	cJSON_ArrayForEach(it, rep->suspended)
	    put(b, "rdma_qos_repair_suspended{pf=\"%s\",item=\"%s\"} %d\n",
		prom_label_esc(json_str(it, "pf"), e1, sizeof(e1)),
		prom_label_esc(json_str(it, "item"), e2, sizeof(e2)), json_int(it, "value", 0));
	prom_family(b, "rdma_qos_vf_traffic_class", "gauge",
		    "The VF RDMA device's traffic class as read after the last pass (-1: unset).");
	cJSON_ArrayForEach(it, rep->vf_tc)
	    put(b, "rdma_qos_vf_traffic_class{vf=\"%s\",rdma_dev=\"%s\",knob=\"%s\"} %d\n",
		prom_label_esc(json_str(it, "vf"), e1, sizeof(e1)),
		prom_label_esc(json_str(it, "rdmaDev"), e2, sizeof(e2)),
		prom_label_esc(json_str(it, "knob"), e3, sizeof(e3)), json_int(it, "value", -1));
	prom_family(b, "rdma_qos_numa_misaligned", "gauge",
		    "1 per attachment whose VF is not on a NUMA node of its pod.");
	cJSON_ArrayForEach(it, rep->numa)
	    put(b, "rdma_qos_numa_misaligned{namespace=\"%s\",pod=\"%s\",vf=\"%s\"} 1\n",
		prom_label_esc(json_str(it, "namespace"), e1, sizeof(e1)),
		prom_label_esc(json_str(it, "pod"), e2, sizeof(e2)),
		prom_label_esc(json_str(it, "vf"), e3, sizeof(e3)));
	prom_family(b, "rdma_qos_vf_in_pod", "gauge",
		    "1 while the attachment's VF is its pod's interface; 0 when it left the pod "
		    "(driver reload, firmware reset): the pod has lost that rail.");
	cJSON_ArrayForEach(it, rep->vf_home)
	    put(b, "rdma_qos_vf_in_pod{namespace=\"%s\",pod=\"%s\",vf=\"%s\"} %d\n",
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

		put(b,
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
		put(b, "rdma_qos_adoptions_total{pf=\"%s\"} %llu\n",
		    prom_label_esc(a->adoptions[i].pf, e1, sizeof(e1)), a->adoptions[i].n);
	prom_family(b, "rdma_qos_baseline_in_profile", "gauge",
		    "1 when a PF the node baseline covers meets it after the last pass.");
	cJSON_ArrayForEach(it, rep->baseline)
	    put(b, "rdma_qos_baseline_in_profile{pf=\"%s\"} %d\n",
		prom_label_esc(it->string, e1, sizeof(e1)), it->valueint);
	prom_family(b, "rdma_qos_catalog_valid", "gauge",
		    "1 when the catalog source (or the installed catalog) is valid.");
	put(b, "rdma_qos_catalog_valid %d\n", a->catalog_valid ? 1 : 0);
	prom_family(b, "rdma_qos_stale_records", "gauge",
		    "Records whose pod netns is gone, kept until --stale-grace passes.");
	put(b, "rdma_qos_stale_records %d\n", rep->stale);
	prom_family(b, "rdma_qos_last_pass_timestamp_seconds", "gauge",
		    "When the last reconcile pass started (Unix time).");
	put(b, "rdma_qos_last_pass_timestamp_seconds %.3f\n", rep->started);
	prom_family(b, "rdma_qos_pass_duration_seconds", "gauge",
		    "How long the last reconcile pass took.");
	put(b, "rdma_qos_pass_duration_seconds %.6f\n", rep->duration);
	prom_family(b, "rdma_qos_pass_interval_seconds", "gauge",
		    "The agent's --interval: a pass at least this often (/healthz and the alert "
		    "RdmaQosAgentNotPassing allow 3).");
	put(b, "rdma_qos_pass_interval_seconds %d\n", a->o.interval_s);
	return prom_end(&t);
}

/* ---- congestion telemetry (DESIGN.md "Congestion telemetry") ---- */

/* A family's # HELP / # TYPE, printed before its first series only: no counter, no family. */
struct fam {
	const char *name, *type, *help;
	bool done;
};

static void fam_head(FILE *b, struct fam *f)
{
	if (!f->done)
		prom_family(b, f->name, f->type, f->help);
	f->done = true;
}

static const char *const dir_names[2] = {"rx", "tx"};

/*
 * Link-level pause (rx/tx_global_pause*: the port runs it instead of PFC) in
 * the pause families, prio="global": it pauses every priority at once.
 */
static void tel_global_pause(FILE *b, const struct tel_sample *cur, struct fam *fm,
			     enum port_stat k)
{
	enum port_stat g = k == PS_PAUSE_FRAMES	       ? PS_GPAUSE_FRAMES
			   : k == PS_PAUSE_USEC	       ? PS_GPAUSE_USEC
			   : k == PS_PAUSE_TRANSITIONS ? PS_GPAUSE_TRANSITIONS
						       : PS_N;
	char e[64];

	for (size_t i = 0; g != PS_N && i < cur->n_pfs; i++)
		for (int d = 0; cur->pfs[i].has_stats && d < 2; d++) {
			const struct port_sample *ps = &cur->pfs[i].ps;

			if (!ps->has[g][0][d])
				continue;
			fam_head(b, fm);
			prom_label_esc(cur->pfs[i].name, e, sizeof(e));
			if (g == PS_GPAUSE_USEC)
				put(b, "%s{pf=\"%s\",prio=\"global\",direction=\"%s\"} %.6f\n",
				    fm->name, e, dir_names[d], (double)ps->v[g][0][d] / 1e6);
			else
				put(b, "%s{pf=\"%s\",prio=\"global\",direction=\"%s\"} %llu\n",
				    fm->name, e, dir_names[d], (unsigned long long)ps->v[g][0][d]);
		}
}

/* mlx5's rx_prio<N>_buf_discard / _cong_discard: per traffic class of the host (pnat 2). */
static void tel_tc_discards(FILE *b, const struct tel_sample *cur)
{
	struct fam fm = {"rdma_qos_port_tc_discards_total", "counter",
			 "Packets a traffic class of the host dropped (reason buffer: "
			 "rx_prio<N>_buf_discard, congestion: rx_prio<N>_cong_discard; mlx5 counts "
			 "them per TC): the host did not drain, not the link partner.",
			 false};
	static const struct {
		enum port_stat k;
		const char *reason;
	} r[] = {{PS_TC_BUF_DISCARDS, "buffer"}, {PS_TC_CONG_DISCARDS, "congestion"}};
	char e[64];

	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int tc = 0; cur->pfs[i].has_stats && tc < PS_PRIOS; tc++)
			for (size_t j = 0; j < 2; j++) {
				if (!cur->pfs[i].ps.has[r[j].k][tc][0])
					continue;
				fam_head(b, &fm);
				put(b, "%s{pf=\"%s\",tc=\"%d\",reason=\"%s\"} %llu\n", fm.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), tc, r[j].reason,
				    (unsigned long long)cur->pfs[i].ps.v[r[j].k][tc][0]);
			}
}

static void tel_port(FILE *b, const struct tel_sample *cur)
{
	static const struct {
		enum port_stat k;
		const char *name, *help;
	} fams[] = {
	    {PS_PAUSE_FRAMES, "rdma_qos_port_pause_frames_total",
	     "PFC pause frames of the PF per priority and direction (driver counter)."},
	    {PS_PAUSE_USEC, "rdma_qos_port_pause_seconds_total",
	     "Time the PF was paused (rx) or pausing (tx) per priority, in seconds."},
	    {PS_PAUSE_TRANSITIONS, "rdma_qos_port_pause_transitions_total",
	     "Transitions between paused and not paused per priority."},
	    {PS_PRIO_BYTES, "rdma_qos_port_prio_bytes_total", "Bytes of the PF per priority."},
	    {PS_PRIO_PACKETS, "rdma_qos_port_prio_packets_total",
	     "Packets of the PF per priority."},
	    {PS_PRIO_DISCARDS, "rdma_qos_port_prio_discards_total",
	     "Packets the PF discarded per priority (rx_prio<p>_discards)."},
	};
	char e[64];

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		struct fam fm = {fams[f].name, "counter", fams[f].help, false};

		tel_global_pause(b, cur, &fm, fams[f].k);

		for (size_t i = 0; i < cur->n_pfs; i++) {
			const struct port_sample *ps = &cur->pfs[i].ps;

			for (int p = 0; cur->pfs[i].has_stats && p < PS_PRIOS; p++)
				for (int d = 0; d < 2; d++) {
					if (!ps->has[fams[f].k][p][d])
						continue;
					fam_head(b, &fm);
					if (fams[f].k == PS_PAUSE_USEC)
						put(b,
						    "%s{pf=\"%s\",prio=\"%d\",direction=\"%s\"} "
						    "%.6f\n",
						    fm.name,
						    prom_label_esc(cur->pfs[i].name, e, sizeof(e)),
						    p, dir_names[d],
						    (double)ps->v[fams[f].k][p][d] / 1e6);
					else
						put(b,
						    "%s{pf=\"%s\",prio=\"%d\",direction=\"%s\"} "
						    "%llu\n",
						    fm.name,
						    prom_label_esc(cur->pfs[i].name, e, sizeof(e)),
						    p, dir_names[d],
						    (unsigned long long)ps->v[fams[f].k][p][d]);
				}
		}
	}
}

static void tel_port_wide(FILE *b, const struct tel_sample *cur)
{
	struct fam storm = {
	    "rdma_qos_port_pause_storm_events_total", "counter",
	    "Pause storm events the driver reported (it stops pausing for a while).", false};
	struct fam disc = {"rdma_qos_port_discards_total", "counter",
			   "Packets the physical port discarded (rx_discards_phy).", false};
	static const char *const lvl[2] = {"warning", "error"};
	char e[64];

	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int l = 0; cur->pfs[i].has_stats && l < 2; l++)
			if (cur->pfs[i].ps.has[PS_STORM_EVENTS][0][l]) {
				fam_head(b, &storm);
				put(b, "%s{pf=\"%s\",level=\"%s\"} %llu\n", storm.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), lvl[l],
				    (unsigned long long)cur->pfs[i].ps.v[PS_STORM_EVENTS][0][l]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		if (cur->pfs[i].has_stats && cur->pfs[i].ps.has[PS_PORT_DISCARDS][0][0]) {
			fam_head(b, &disc);
			put(b, "%s{pf=\"%s\"} %llu\n", disc.name,
			    prom_label_esc(cur->pfs[i].name, e, sizeof(e)),
			    (unsigned long long)cur->pfs[i].ps.v[PS_PORT_DISCARDS][0][0]);
		}
}

/* The labels of an attachment's series, escaped once. */
static void att_labels(const struct tel_att *a, char *out, size_t len)
{
	char ns[520], pod[520], ifn[40], vf[40], dev[136], pf[40];

	(void)snprintf(
	    out, len,
	    "namespace=\"%s\",pod=\"%s\",interface=\"%s\",vf=\"%s\",rdma_dev=\"%s\","
	    "pf=\"%s\"",
	    prom_label_esc(a->ns, ns, sizeof(ns)), prom_label_esc(a->pod, pod, sizeof(pod)),
	    prom_label_esc(a->ifname, ifn, sizeof(ifn)), prom_label_esc(a->vf, vf, sizeof(vf)),
	    prom_label_esc(a->rdma_dev, dev, sizeof(dev)), prom_label_esc(a->pf, pf, sizeof(pf)));
}

static void tel_vf(FILE *b, const struct tel_sample *cur)
{
	struct fam fams[] = {
	    [RC_CNP_SENT] = {"rdma_qos_vf_cnp_sent_total", "counter",
			     "CNPs this VF sent as a receiver of ECN-marked RoCE (asked senders to "
			     "slow down).",
			     false},
	    [RC_CNP_HANDLED] = {"rdma_qos_vf_cnp_handled_total", "counter",
				"CNPs this VF handled as a sender (was told to slow down).", false},
	    [RC_ECN_MARKED] = {"rdma_qos_vf_ecn_marked_packets_total", "counter",
			       "ECN-marked RoCE packets this VF received.", false},
	    [RC_RETRANS] = {"rdma_qos_vf_retransmissions_total", "counter",
			    "Requester-side retransmission triggers of this VF as a sender, by the "
			    "driver's counter name.",
			    false},
	    [RC_OUT_OF_SEQ] = {"rdma_qos_vf_out_of_sequence_total", "counter",
			       "Packets this VF as a responder received after a PSN gap (per "
			       "packet, not per loss event).",
			       false},
	    [RC_PACKETS] = {"rdma_qos_vf_packets_total", "counter",
			    "RDMA packets of this VF (its device's hw_counters, else the VF "
			    "netdev's vport RDMA counters).",
			    false},
	    [RC_BYTES] = {"rdma_qos_vf_bytes_total", "counter",
			  "RDMA bytes of this VF (its device's hw_counters, else the VF netdev's "
			  "vport RDMA counters).",
			  false},
	    [RC_OTHER] = {"rdma_qos_vf_hw_counter_total", "counter",
			  "Any other hw_counters entry of this VF's RDMA device, by name.", false},
	};
	char lab[1600], e[RQ_RDMA_CTR_NAME * 2 + 4];

	for (int k = 0; k <= RC_OTHER; k++)
		for (size_t i = 0; i < cur->n_atts; i++) {
			const struct tel_att *a = &cur->atts[i];
			bool labelled = false;

			for (size_t j = 0; a->has_ctr && j < a->ctr.n; j++) {
				int dir;

				if ((int)rdma_counter_classify(a->ctr.names[j], &dir) != k)
					continue;
				if (!labelled)
					att_labels(a, lab, sizeof(lab));
				labelled = true;
				fam_head(b, &fams[k]);
				if (k == RC_RETRANS)
					put(b, "%s{%s,reason=\"%s\"} %llu\n", fams[k].name, lab,
					    prom_label_esc(a->ctr.names[j], e, sizeof(e)),
					    (unsigned long long)a->ctr.vals[j]);
				else if (k == RC_OTHER)
					put(b, "%s{%s,counter=\"%s\"} %llu\n", fams[k].name, lab,
					    prom_label_esc(a->ctr.names[j], e, sizeof(e)),
					    (unsigned long long)a->ctr.vals[j]);
				else if (k == RC_PACKETS || k == RC_BYTES)
					put(b, "%s{%s,direction=\"%s\"} %llu\n", fams[k].name, lab,
					    dir_names[dir], (unsigned long long)a->ctr.vals[j]);
				else
					put(b, "%s{%s} %llu\n", fams[k].name, lab,
					    (unsigned long long)a->ctr.vals[j]);
			}
		}
}

static bool tel_derived(FILE *b, const struct tel_sample *prev, const struct tel_sample *cur)
{
	struct fam lossy = {"rdma_qos_port_roce_on_lossy_prio", "gauge",
			    "1 when lossless attachments sent RoCE (their own tx counters) on this "
			    "priority, which has no PFC, during the last interval (DSCP map or PFC "
			    "mismatch).",
			    false};
	struct fam disc = {"rdma_qos_port_discards_on_pfc_prio", "gauge",
			   "1 when a priority with PFC on discarded at the port during the last "
			   "interval (rx_prio<p>_discards: the link partner does not honour PFC or "
			   "headroom is short).",
			   false};
	struct fam host = {"rdma_qos_port_host_drops_on_pfc_prio", "gauge",
			   "1 when the traffic class carrying a priority with PFC on (the port's "
			   "prio->TC map) dropped on the host side during the last interval.",
			   false};
	struct fam storm = {"rdma_qos_port_pause_storm", "gauge",
			    "1 when the driver reported a pause storm or the port was paused for "
			    "most of the last interval.",
			    false};
	struct tel_derived *d = calloc(cur->n_pfs ? cur->n_pfs : 1, sizeof(*d));
	char e[64];

	if (!d)
		return false;
	for (size_t i = 0; i < cur->n_pfs; i++)
		tel_derive(prev, cur, &cur->pfs[i], &d[i]);
	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int p = 0; p < PS_PRIOS; p++)
			if (d[i].roce_on_lossy[p] >= 0) {
				fam_head(b, &lossy);
				put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", lossy.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
				    d[i].roce_on_lossy[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int p = 0; p < PS_PRIOS; p++)
			if (d[i].discards_on_pfc[p] >= 0) {
				fam_head(b, &disc);
				put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", disc.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
				    d[i].discards_on_pfc[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int p = 0; p < PS_PRIOS; p++)
			if (d[i].host_drops_on_pfc[p] >= 0) {
				fam_head(b, &host);
				put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", host.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
				    d[i].host_drops_on_pfc[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		if (d[i].pause_storm >= 0) {
			fam_head(b, &storm);
			put(b, "%s{pf=\"%s\"} %d\n", storm.name,
			    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), d[i].pause_storm);
		}
	free(d);
	return true;
}

char *metrics_render_tel(const struct tel_sample *prev, const struct tel_sample *cur)
{
	struct prom_text t;
	FILE *b = prom_begin(&t);
	bool ok;
	char *s;

	if (!b)
		return NULL;
	tel_port(b, cur);
	tel_port_wide(b, cur);
	tel_tc_discards(b, cur);
	tel_vf(b, cur);
	ok = tel_derived(b, prev, cur);
	{ /* the link partner's pauses against the attachments' ECN (peer_metrics.c) */
		char *ecn = metrics_render_ecn(prev, cur);

		if (ecn)
			put(b, "%s", ecn);
		free(ecn);
	}
	{ /* who is behind the port's traffic (who_metrics.c) */
		char *who = metrics_render_who(prev, cur);

		if (who)
			put(b, "%s", who);
		free(who);
	}
	{ /* the QPs each attachment's device has and the class they send with (qps_metrics.c) */
		char *qps = metrics_render_qps(cur);

		if (qps)
			put(b, "%s", qps);
		free(qps);
	}
	s = prom_end(&t);
	if (!ok) {
		free(s);
		return NULL;
	}
	return s;
}
