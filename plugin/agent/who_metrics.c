// SPDX-License-Identifier: Apache-2.0
/*
 * The "Who" families (DESIGN.md "Who"), derived over the interval between
 * two telemetry samples (telemetry/tel_who.c): no series without an interval.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/telemetry/tel_who.h"
#include "plugin/agent/metrics.h"

static void who_port(FILE *f, const struct tel_sample *prev, const struct tel_sample *cur)
{
	bool head = false;
	char pf[64];

	for (size_t i = 0; i < cur->n_pfs; i++) {
		double v;

		if (tel_roce_off_pfc(prev, cur, &cur->pfs[i], &v) < 0)
			continue;
		if (!head)
			prom_family(f, "rdma_qos_port_roce_off_pfc_ratio", "gauge",
				    "Share (0..1) of the RoCE the PF's lossless attachments sent "
				    "out of the port that its PFC priorities did not carry during "
				    "the last interval (RoCE switched between VFs inside the NIC "
				    "and CNPs left out; only when at least 1 MiB surely left).");
		head = true;
		(void)fprintf(f, "rdma_qos_port_roce_off_pfc_ratio{pf=\"%s\"} %.4f\n",
			      prom_label_esc(cur->pfs[i].name, pf, sizeof(pf)), v);
	}
}

static void who_vf(FILE *f, const struct tel_sample *prev, const struct tel_sample *cur)
{
	double(*sh)[TEL_CAUSE_N] = calloc(cur->n_atts ? cur->n_atts : 1, sizeof(*sh));
	char e[6][520];
	bool head = false;

	if (!sh)
		return;
	tel_paused_shares(prev, cur, sh);
	for (int c = 0; c < TEL_CAUSE_N; c++)
		for (size_t i = 0; i < cur->n_atts; i++) {
			const struct tel_att *a = &cur->atts[i];

			if (sh[i][c] < 0)
				continue;
			if (!head)
				prom_family(
				    f, "rdma_qos_vf_paused_traffic_share", "gauge",
				    "Share (0..1) of a paused port's lossless RoCE that was this "
				    "attachment's during the last interval: of the RoCE received "
				    "while the port sent pause frames (cause host_rx), of the RoCE "
				    "sent while it received them (cause fabric).");
			head = true;
			(void)fprintf(
			    f,
			    "rdma_qos_vf_paused_traffic_share{namespace=\"%s\",pod=\"%s\","
			    "interface=\"%s\",vf=\"%s\",rdma_dev=\"%s\",pf=\"%s\","
			    "cause=\"%s\"} %.4f\n",
			    prom_label_esc(a->ns, e[0], sizeof(e[0])),
			    prom_label_esc(a->pod, e[1], sizeof(e[1])),
			    prom_label_esc(a->ifname, e[2], sizeof(e[2])),
			    prom_label_esc(a->vf, e[3], sizeof(e[3])),
			    prom_label_esc(a->rdma_dev, e[4], sizeof(e[4])),
			    prom_label_esc(a->pf, e[5], sizeof(e[5])), tel_cause_names[c],
			    sh[i][c]);
		}
	free(sh);
}

char *metrics_render_who(const struct tel_sample *prev, const struct tel_sample *cur)
{
	struct prom_text t;
	FILE *f = prev ? prom_begin(&t) : NULL;

	if (!f)
		return NULL;
	who_port(f, prev, cur);
	who_vf(f, prev, cur);
	return prom_end(&t);
}
