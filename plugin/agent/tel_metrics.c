// SPDX-License-Identifier: Apache-2.0
/*
 * The congestion telemetry families (DESIGN.md "Congestion telemetry") of a
 * sample, and after them the ECN, "Who" and QP census families: the text
 * agent_tel.c serves after each pass's (metrics.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/metrics.h"

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
				prom_put(b, "%s{pf=\"%s\",prio=\"global\",direction=\"%s\"} %.6f\n",
					 fm->name, e, dir_names[d], (double)ps->v[g][0][d] / 1e6);
			else
				prom_put(b, "%s{pf=\"%s\",prio=\"global\",direction=\"%s\"} %llu\n",
					 fm->name, e, dir_names[d],
					 (unsigned long long)ps->v[g][0][d]);
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
				prom_put(b, "%s{pf=\"%s\",tc=\"%d\",reason=\"%s\"} %llu\n", fm.name,
					 prom_label_esc(cur->pfs[i].name, e, sizeof(e)), tc,
					 r[j].reason,
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
						prom_put(
						    b,
						    "%s{pf=\"%s\",prio=\"%d\",direction=\"%s\"} "
						    "%.6f\n",
						    fm.name,
						    prom_label_esc(cur->pfs[i].name, e, sizeof(e)),
						    p, dir_names[d],
						    (double)ps->v[fams[f].k][p][d] / 1e6);
					else
						prom_put(
						    b,
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
				prom_put(
				    b, "%s{pf=\"%s\",level=\"%s\"} %llu\n", storm.name,
				    prom_label_esc(cur->pfs[i].name, e, sizeof(e)), lvl[l],
				    (unsigned long long)cur->pfs[i].ps.v[PS_STORM_EVENTS][0][l]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		if (cur->pfs[i].has_stats && cur->pfs[i].ps.has[PS_PORT_DISCARDS][0][0]) {
			fam_head(b, &disc);
			prom_put(b, "%s{pf=\"%s\"} %llu\n", disc.name,
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
					prom_put(b, "%s{%s,reason=\"%s\"} %llu\n", fams[k].name,
						 lab, prom_label_esc(a->ctr.names[j], e, sizeof(e)),
						 (unsigned long long)a->ctr.vals[j]);
				else if (k == RC_OTHER)
					prom_put(b, "%s{%s,counter=\"%s\"} %llu\n", fams[k].name,
						 lab, prom_label_esc(a->ctr.names[j], e, sizeof(e)),
						 (unsigned long long)a->ctr.vals[j]);
				else if (k == RC_PACKETS || k == RC_BYTES)
					prom_put(b, "%s{%s,direction=\"%s\"} %llu\n", fams[k].name,
						 lab, dir_names[dir],
						 (unsigned long long)a->ctr.vals[j]);
				else
					prom_put(b, "%s{%s} %llu\n", fams[k].name, lab,
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
				prom_put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", lossy.name,
					 prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
					 d[i].roce_on_lossy[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int p = 0; p < PS_PRIOS; p++)
			if (d[i].discards_on_pfc[p] >= 0) {
				fam_head(b, &disc);
				prom_put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", disc.name,
					 prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
					 d[i].discards_on_pfc[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		for (int p = 0; p < PS_PRIOS; p++)
			if (d[i].host_drops_on_pfc[p] >= 0) {
				fam_head(b, &host);
				prom_put(b, "%s{pf=\"%s\",prio=\"%d\"} %d\n", host.name,
					 prom_label_esc(cur->pfs[i].name, e, sizeof(e)), p,
					 d[i].host_drops_on_pfc[p]);
			}
	for (size_t i = 0; i < cur->n_pfs; i++)
		if (d[i].pause_storm >= 0) {
			fam_head(b, &storm);
			prom_put(b, "%s{pf=\"%s\"} %d\n", storm.name,
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
			prom_put(b, "%s", ecn);
		free(ecn);
	}
	{ /* who is behind the port's traffic (who_metrics.c) */
		char *who = metrics_render_who(prev, cur);

		if (who)
			prom_put(b, "%s", who);
		free(who);
	}
	{ /* the QPs each attachment's device has and the class they send with (qps_metrics.c) */
		char *qps = metrics_render_qps(cur);

		if (qps)
			prom_put(b, "%s", qps);
		free(qps);
	}
	s = prom_end(&t);
	if (!ok) {
		free(s);
		return NULL;
	}
	return s;
}
