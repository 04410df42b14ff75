// SPDX-License-Identifier: Apache-2.0
/*
 * What `validate` warns about: a catalog or an inline profile that parses but
 * is wrong in meaning (issue 49 item 14). Each is a `warning:` line, never an
 * error: ADD accepts it, the pod runs, only not as its author meant.
 * - A lossless class whose DSCP maps to a priority without PFC: the profile
 *   asks PFC itself (a profile that asks none, "lossy", is lossy on purpose),
 *   sets the VF's class, trusts DSCP, and the class's DSCP lands on a
 *   priority PFC does not pause: RoCE of that class is dropped under
 *   congestion.
 * - A class without ECT when ECN is required (ecnRequired): its two low bits
 *   are 00 (Not-ECT), so a switch has no bit to mark, and DCQCN never hears
 *   of the congestion.
 * - A node.wiring rule an earlier one hides: a PF's rule is the first whose
 *   `pf` matches, so a rule whose every PF an earlier rule matches is dead.
 *   (A `pf` glob that also matches a management NIC is a fact of the node:
 *   `preflight` says it.)
 * The node baseline's requirements join every profile's on the PF, so a
 * profile is judged with them, as the port will hold it.
 */
#include <stdio.h>
#include <string.h>

#include "netconf/netconf.h"

static void prio_list(uint8_t mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < RQ_NPRIO; i++)
		if (mask & (1u << i))
			(void)snprintf(buf + strlen(buf), len - strlen(buf), "%s%d",
				       buf[0] ? ", " : "", i);
}

void profile_warnings(const struct rq_profile *p, const struct rq_profile *baseline,
		      const char *path, struct rq_errlist *warn)
{
	struct rq_profile eff = *p;
	int tc = p->traffic_class, dscp, prio;
	char pfc[32];

	if (tc < 0)
		return;
	if (baseline)
		profile_req_merge(&eff, baseline);
	dscp = tc >> 2;
	prio = eff.dscp_prio[dscp];
	/* lossless is the profile's own word (its pfc): a class left lossy on purpose is not */
	if (p->pfc && eff.has_trust && eff.trust == RQ_TRUST_DSCP && !(eff.pfc & (1u << prio))) {
		prio_list(eff.pfc, pfc, sizeof(pfc));
		rq_errlist_add(
		    warn, RQ_ERR_CONFIG,
		    "%s.trafficClass: %d is DSCP %d, which %s maps to priority %d, and "
		    "PFC is on priority %s only%s: this class is not lossless",
		    path, tc, dscp,
		    (eff.dscp_override >> dscp) & 1 ? "dscp2prio" : "the default map (DSCP/8)",
		    prio, pfc, baseline && baseline->pfc ? " (with node.baseline's)" : "");
	}
	if (eff.ecn_required && (tc & 3) == 0)
		rq_errlist_add(warn, RQ_ERR_CONFIG,
			       "%s.trafficClass: %d has ECN bits 00 (Not-ECT) and ecnRequired is "
			       "true: a switch has no bit to mark in its packets, so DCQCN never "
			       "slows a sender; make the two low bits 10 (ECT(0)), e.g. %d",
			       path, tc, tc | 2);
}

void catalog_warnings(const struct rq_catalog *c, struct rq_errlist *warn)
{
	struct rq_profile base;
	bool has_base = catalog_baseline(c, &base) == 0;
	char path[RQ_PROFILE_NAME_MAX + 16];

	for (size_t i = 0; i < c->n_profiles; i++) {
		(void)snprintf(path, sizeof(path), "profiles.%s", c->profiles[i].name);
		profile_warnings(&c->profiles[i], has_base ? &base : NULL, path, warn);
	}
	for (size_t j = 1; j < c->n_wiring; j++) {
		int i = wiring_hidden_by(c->wiring, c->n_wiring, j);

		if (i >= 0)
			rq_errlist_add(warn, RQ_ERR_CONFIG,
				       "node.wiring[%zu]: never used: node.wiring[%d].pf \"%s\" "
				       "matches every PF its pf \"%s\" matches, and a PF's rule is "
				       "the first that matches it",
				       j, i, c->wiring[i].pf, c->wiring[j].pf);
	}
}
