// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show`'s wiring verdict per PF: the partner show_peer_json found
 * (one current partner, "heard") against the PF's node.wiring rule, with the
 * agent's judge (plugin/judge/wiring_judge.c). Only PFs with a rule get the item.
 */
#include <string.h>

#include "plugin/judge/peer.h"
#include "plugin/judge/wiring_judge.h"
#include "plugin/tools/tools.h"

void show_wiring_json(const struct rq_catalog *cat, cJSON *o, const char *ifname, const char *pci)
{
	const struct rq_wiring_rule *r =
	    cat ? wiring_rule_for(cat->wiring, cat->n_wiring, ifname, pci) : NULL;
	cJSON *peer = cJSON_GetObjectItemCaseSensitive(o, "peer"), *w;
	const char *state = json_str(peer, "state");
	struct lldp_peer p;
	struct wiring_judgement j;
	bool heard;

	if (!r || !peer)
		return;
	heard = state && !strcmp(state, "heard") &&
		peer_from_json(cJSON_GetObjectItemCaseSensitive(peer, "partner"), &p) == 0;
	wiring_judge(r, heard ? &p : NULL, &j);
	if (!(w = cJSON_AddObjectToObject(peer, "wiring")))
		return;
	cJSON_AddStringToObject(w, "rail", j.rail);
	cJSON_AddStringToObject(w, "verdict", wiring_verdict_name(j.v));
	cJSON_AddStringToObject(w, "expects", r->partner);
	if (r->port[0])
		cJSON_AddStringToObject(w, "expectsPort", r->port);
	cJSON_AddStringToObject(w, "text", j.text);
}
