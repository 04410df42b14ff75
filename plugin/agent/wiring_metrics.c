// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_qos_peer_wiring{pf,rail} and the rdma-qos.wiring NFD word (DESIGN.md
 * "The fabric under the pod"): each watched PF's one current partner against
 * its node.wiring rule (plugin/judge/wiring_judge.c). No series without a rule, a
 * partner, or with more than one partner: an absent partner is the partner
 * family's news (rdma_qos_peer_seen), not a miswiring.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "pkg/sysfs/device.h"
#include "plugin/judge/wiring_judge.h"

void wiring_pass_collect(struct peer_target *t, const struct rq_catalog *cat, const char *pci)
{
	const struct rq_wiring_rule *r =
	    cat ? wiring_rule_for(cat->wiring, cat->n_wiring, t->pf, pci) : NULL;

	(void)snprintf(t->pci, sizeof(t->pci), "%s", pci ? pci : "");
	if (t->pci[0] && !t->dl_bus[0]) {
		(void)snprintf(t->dl_bus, sizeof(t->dl_bus), "pci");
		(void)snprintf(t->dl_dev, sizeof(t->dl_dev), "%s", t->pci);
	}
	t->has_rule = r != NULL;
	if (r)
		t->rule = *r;
}

size_t wiring_pass_ports(const struct rq_root *root, const struct rq_catalog *cat,
			 struct peer_target **t, size_t n)
{
	char **names = NULL, bus[32], dev[64];
	size_t nn = 0, k = n;

	if (!cat || !cat->n_wiring || sysfs_list(root, "/sys/class/net", &names, &nn) < 0)
		return n;
	for (size_t i = 0; i < nn; i++) {
		const char *pci;
		struct peer_target *x;
		bool have = false;

		for (size_t j = 0; j < k && !have; j++)
			have = !strcmp((*t)[j].pf, names[i]);
		if (have || strlen(names[i]) >= IF_NAMESIZE ||
		    device_port_parent(root, names[i], bus, sizeof(bus), dev, sizeof(dev)) < 0)
			continue;
		pci = !strcmp(bus, "pci") ? dev : NULL;
		if (!wiring_rule_for(cat->wiring, cat->n_wiring, names[i], pci))
			continue;
		if (!(x = realloc(*t, (k + 1) * sizeof(*x))))
			break;
		*t = x;
		x = &(*t)[k++];
		memset(x, 0, sizeof(*x));
		(void)snprintf(x->pf, sizeof(x->pf), "%s", names[i]);
		(void)snprintf(x->dl_bus, sizeof(x->dl_bus), "%s", bus);
		(void)snprintf(x->dl_dev, sizeof(x->dl_dev), "%s", dev);
		wiring_pass_collect(x, cat, pci);
	}
	sysfs_list_free(names, nn);
	return k;
}

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
