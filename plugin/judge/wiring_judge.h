/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A PF's one current link partner judged against its node.wiring rule
 * (DESIGN.md "The fabric under the pod"), shared by the agent's metrics and
 * NFD label and by `rdma-qos show`. Two PFs whose cables are swapped each
 * fail their own rule: the rule is per PF, never "some PF reaches this leaf".
 */
#ifndef RQ_PLUGIN_WIRING_JUDGE_H
#define RQ_PLUGIN_WIRING_JUDGE_H

#include "netconf/netconf.h"
#include "pkg/lldp/lldp.h"

enum wiring_verdict { WIRING_UNKNOWN = -1, WIRING_MISWIRED = 0, WIRING_OK = 1 };

struct wiring_judgement {
	enum wiring_verdict v;
	char rail[RQ_WIRING_RAIL_MAX];
	/* "rail r1 ok", "MISWIRED (rail r1 expects leaf-r1-*, partner leaf-r2-07 swp9)" */
	char text[400];
};

/*
 * @rule NULL (no rule for the PF) or @p NULL (no partner, or more than one):
 * unknown. The partner matches when its system name matches `partner` and,
 * with a `port` glob, its port ID or its port description matches `port`.
 */
void wiring_judge(const struct rq_wiring_rule *rule, const struct lldp_peer *p,
		  struct wiring_judgement *ret);
/* "ok", "miswired", "unknown" (the NFD word) */
const char *wiring_verdict_name(enum wiring_verdict v);

#endif
