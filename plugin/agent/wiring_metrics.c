// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_qos_peer_wiring{pf,rail} and the rdma-qos.wiring NFD word (DESIGN.md
 * "The fabric under the pod"): each watched PF's one current partner against
 * its node.wiring rule (plugin/judge/wiring_judge.c). No series without a rule, a
 * partner, or with more than one partner: an absent partner is the partner
 * family's news (rdma_qos_peer_seen), not a miswiring.
 */
#include <stdio.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/judge/wiring_judge.h"
#include "plugin/agent/metrics.h"
#include "plugin/lldp/peer_book.h"

static void judge(const struct agent *a, const struct peer_target *t, struct wiring_judgement *j)
{
	bool l;

	wiring_judge(t->has_rule ? &t->rule : NULL, peer_book_get(a->peers, t->pf, &l), j);
}

void wiring_metrics_render(FILE *f, const struct agent *a, const struct pass_report *rep)
{
	struct wiring_judgement j;
	char pf[64], rail[160];

	prom_family(f, "rdma_qos_peer_wiring", "gauge",
		    "1 when the PF's one link partner matches its node.wiring rule (system name, "
		    "port), 0 when not; no series: no rule, no partner, or several.");
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		judge(a, &rep->peer_t[i], &j);
		if (j.v != WIRING_UNKNOWN)
			(void)fprintf(f, "rdma_qos_peer_wiring{pf=\"%s\",rail=\"%s\"} %d\n",
				      prom_label_esc(rep->peer_t[i].pf, pf, sizeof(pf)),
				      prom_label_esc(j.rail, rail, sizeof(rail)), j.v == WIRING_OK);
	}
}

/*
 * miswired when any watched PF with a rule is; ok when every watched PF with
 * a rule was judged ok (at least one); otherwise unknown.
 */
const char *wiring_nfd_word(const struct agent *a, const struct pass_report *rep)
{
	bool all = true, any = false;

	if (!a->peers)
		return "unknown";
	for (size_t i = 0; i < rep->n_peer_t; i++) {
		struct wiring_judgement j;

		if (!rep->peer_t[i].has_rule)
			continue;
		any = true;
		judge(a, &rep->peer_t[i], &j);
		if (j.v == WIRING_MISWIRED)
			return "miswired";
		all &= j.v == WIRING_OK;
	}
	return any && all ? "ok" : "unknown";
}

int wiring_pf_verdict(const struct agent *a, const struct pass_report *rep, const char *pf)
{
	struct wiring_judgement j;

	for (size_t i = 0; i < rep->n_peer_t; i++)
		if (!strcmp(rep->peer_t[i].pf, pf) && a->peers) {
			judge(a, &rep->peer_t[i], &j);
			return j.v;
		}
	return -1;
}
