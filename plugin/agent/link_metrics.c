// SPDX-License-Identifier: Apache-2.0
/* The link health families (rdma_qos_port_*): rendered from the book (link_health.h) */
#include <stdio.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/link_health.h"

static void render_counters(FILE *f, const struct link_book *b)
{
	char pf[64], e[96];

	prom_family(f, "rdma_qos_port_link_flaps_total", "counter",
		    "Times the PF's carrier went down (sysfs carrier_down_count), less the link "
		    "toggles rdma-qos's own PFC writes caused.");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.has_flaps)
			(void)fprintf(f, "rdma_qos_port_link_flaps_total{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)(b->pf[i].cur.flaps - b->pf[i].own));
	prom_family(f, "rdma_qos_port_fec_blocks_total", "counter",
		    "FEC blocks the PF corrected or could not correct (ethtool netlink FEC "
		    "statistics); a counter the driver does not fill has no series.");
	for (size_t i = 0; i < b->n; i++) {
		const struct eth_link_health *h = &b->pf[i].cur.eth;

		(void)prom_label_esc(b->pf[i].pf, pf, sizeof(pf));
		if (h->has_fec_corrected)
			(void)fprintf(
			    f,
			    "rdma_qos_port_fec_blocks_total{pf=\"%s\",kind=\"corrected\"} "
			    "%llu\n",
			    pf, (unsigned long long)h->fec_corrected);
		if (h->has_fec_uncorrectable)
			(void)fprintf(f,
				      "rdma_qos_port_fec_blocks_total{pf=\"%s\",kind="
				      "\"uncorrectable\"} %llu\n",
				      pf, (unsigned long long)h->fec_uncorrectable);
	}
	prom_family(f, "rdma_qos_port_fec_uncorrectable_limit_per_minute", "gauge",
		    "Uncorrectable FEC blocks a minute the PF may count before its link is "
		    "degraded (catalog node.linkHealth.fecUncorrectablePerMinute); only where "
		    "the driver counts them.");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_fec_uncorrectable)
			(void)fprintf(
			    f, "rdma_qos_port_fec_uncorrectable_limit_per_minute{pf=\"%s\"} %g\n",
			    prom_label_esc(b->pf[i].pf, pf, sizeof(pf)), b->fec_per_min);
	prom_family(f, "rdma_qos_port_symbol_errors_total", "counter",
		    "PHY symbol errors during carrier (ethtool netlink IEEE 802.3 PHY statistics, "
		    "SymbolErrorDuringCarrier).");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_symbol_errors)
			(void)fprintf(f, "rdma_qos_port_symbol_errors_total{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)b->pf[i].cur.eth.symbol_errors);
	prom_family(f, "rdma_qos_port_health_errors_total", "counter",
		    "Errors the PF's devlink health reporter counted.");
	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; k < b->pf[i].cur.n_rep; k++)
			(void)fprintf(
			    f,
			    "rdma_qos_port_health_errors_total{pf=\"%s\",reporter=\"%s\"} %llu\n",
			    prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
			    prom_label_esc(b->pf[i].cur.rep[k].name, e, sizeof(e)),
			    (unsigned long long)b->pf[i].cur.rep[k].errors);
	prom_family(f, "rdma_qos_port_speed_bytes", "gauge",
		    "The PF's link speed in bytes per second (ethtool link modes).");
	for (size_t i = 0; i < b->n; i++)
		if (b->pf[i].cur.eth.has_speed && b->pf[i].cur.eth.speed_mbps)
			(void)fprintf(f, "rdma_qos_port_speed_bytes{pf=\"%s\"} %llu\n",
				      prom_label_esc(b->pf[i].pf, pf, sizeof(pf)),
				      (unsigned long long)b->pf[i].cur.eth.speed_mbps * 125000ULL);
}

char *link_metrics_render(const struct agent *a, const struct pass_report *rep)
{
	struct prom_text t;
	char pf[64];
	FILE *f = prom_begin(&t);

	if (!f)
		return NULL;
	if (a->links) {
		render_counters(f, a->links);
		prom_family(
		    f, "rdma_qos_port_link_degraded", "gauge",
		    "1 while, in the last interval, the PF flapped, counted more uncorrectable "
		    "FEC blocks than node.linkHealth.fecUncorrectablePerMinute allows, counted "
		    "symbol errors, a health reporter counted an error, or it ran below the "
		    "fastest link mode both ends advertise in common; no series for a reason "
		    "the driver does not report.");
		for (size_t i = 0; i < a->links->n; i++)
			for (int k = 0; k < LINK_REASON_N; k++) {
				int d = link_degraded(a, a->links->pf[i].pf, (enum link_reason)k);

				if (d >= 0)
					(void)fprintf(
					    f,
					    "rdma_qos_port_link_degraded{pf=\"%s\",reason=\"%s\"} "
					    "%d\n",
					    prom_label_esc(a->links->pf[i].pf, pf, sizeof(pf)),
					    link_reason_names[k], d);
			}
	}
	return prom_end(&t);
}
