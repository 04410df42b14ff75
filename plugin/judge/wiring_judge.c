// SPDX-License-Identifier: Apache-2.0
/*
 * The wiring judge (wiring_judge.h). A partner without a system name (the TLV is
 * optional in 802.1AB) cannot match a `partner` glob other than "*": that is
 * a miswired verdict, since the plan names a switch this partner does not
 * claim to be.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "plugin/judge/wiring_judge.h"

const char *wiring_verdict_name(enum wiring_verdict v)
{
	return v == WIRING_OK ? "ok" : v == WIRING_MISWIRED ? "miswired" : "unknown";
}

void wiring_judge(const struct rq_wiring_rule *rule, const struct lldp_peer *p,
		  struct wiring_judgement *ret)
{
	bool sys_ok, port_ok;

	memset(ret, 0, sizeof(*ret));
	ret->v = WIRING_UNKNOWN;
	if (!rule)
		return;
	(void)snprintf(ret->rail, sizeof(ret->rail), "%s", rule->rail);
	if (!p) {
		(void)snprintf(ret->text, sizeof(ret->text), "rail %s unknown (no one partner)",
			       rule->rail);
		return;
	}
	sys_ok = fnmatch(rule->partner, p->sys_name, 0) == 0;
	port_ok = !rule->port[0] || fnmatch(rule->port, p->port_id, 0) == 0 ||
		  (p->port_desc[0] && fnmatch(rule->port, p->port_desc, 0) == 0);
	ret->v = sys_ok && port_ok ? WIRING_OK : WIRING_MISWIRED;
	if (ret->v == WIRING_OK)
		(void)snprintf(ret->text, sizeof(ret->text), "rail %s ok", rule->rail);
	else
		(void)snprintf(ret->text, sizeof(ret->text),
			       "MISWIRED (rail %s expects %s%s%s, partner %s %s)", rule->rail,
			       rule->partner, rule->port[0] ? " " : "", rule->port,
			       p->sys_name[0] ? p->sys_name : "(no system name)", p->port_id);
}
