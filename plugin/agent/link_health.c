// SPDX-License-Identifier: Apache-2.0
/*
 * Link health per watched PF (DESIGN.md "The fabric under the pod"): carrier
 * flaps (sysfs carrier_down_count), FEC blocks, PHY symbol errors and the
 * link speed against the fastest mode both ends advertise (pkg/ethtool's
 * link.h), devlink health reporters' error counts (pkg/devlink). Read after
 * each pass for the PFs the pass watched; a counter that grew between two
 * readings (uncorrectable FEC blocks: beyond node.linkHealth's floor, see
 * link_judge.c), or a speed below the fastest mode both ends advertise in
 * common, holds its reason for
 * one --interval (rdma_qos_port_link_degraded), so a flap between two
 * event-raised passes a second apart is still seen by a scrape a minute
 * later, and a quiet port clears. What a driver does not report has no
 * series. Every attachment on a degraded PF gets the `link` problem. After
 * each reading the reasons go to RQ_LINK_FILE for `show --pod` and `top`.
 */
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/agent/link_health.h"

void link_book_free(struct link_book *b)
{
	if (!b)
		return;
	free(b->pf);
	free(b);
}

void link_health_pass(struct agent *a, const struct pass_report *rep)
{
	const struct ethtool_link_ops *eo = NULL;
	const struct devlink_ops *dops = NULL;
	void *ectx = NULL, *dctx = NULL;
	struct link_book *nb;
	double now = agent_wall_now();

	if (!a->env.link_open || a->env.link_open(&a->env, &eo, &ectx) < 0)
		eo = NULL;
	if (!a->env.devlink_open || a->env.devlink_open(&a->env, &dops, &dctx) < 0)
		dops = NULL;
	nb = calloc(1, sizeof(*nb));
	if (nb)
		nb->pf = calloc(rep->n_peer_t ? rep->n_peer_t : 1, sizeof(*nb->pf));
	if (nb)
		nb->fec_per_min = rep->fec_uncorr_per_min;
	for (size_t i = 0; nb && nb->pf && i < rep->n_peer_t; i++) {
		struct link_pf *x = &nb->pf[nb->n++];

		/* what the last pass kept of this PF: its reading and the reasons' times */
		for (size_t k = 0; a->links && k < a->links->n; k++)
			if (!strcmp(a->links->pf[k].pf, rep->peer_t[i].pf)) {
				*x = a->links->pf[k];
				x->prev = x->cur;
				x->has_prev = true;
			}
		(void)snprintf(x->pf, sizeof(x->pf), "%s", rep->peer_t[i].pf);
		link_read_pf(&a->env, eo, ectx, dops, dctx, &rep->peer_t[i], &x->cur);
		if (!x->has_prev) {
			x->own_used =
			    x->cur
				.own_note; /* a note older than the first reading is in its count */
			if (!a->links && x->cur.has_flaps)
				x->own = link_own_saved(a, x->pf, x->cur.flaps);
		}
		link_judge_pf(x, now, rep->fec_uncorr_per_min, a->o.interval_s);
	}
	if (eo)
		eo->free(ectx);
	if (dops)
		dops->free(dctx);
	if (nb && !nb->pf) {
		free(nb);
		nb = NULL;
	}
	if (!nb) {
		log_warn("agent: out of memory for the link health");
		return;
	}
	link_book_free(a->links);
	a->links = nb;
	link_file_save(a);
}
