// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show`'s partner per PF: who the agent last heard on the wire
 * (RQ_PEER_FILE, which the agent rewrites whenever a partner comes, changes,
 * refreshes or goes) and each item judged against what the PF is required to
 * offer now, with the same judge as the agent's metrics (plugin/judge/peer.c).
 * A partner whose TTL ran out by the wall clock (the agent stopped) is silent;
 * with more than one partner current nothing is judged. It imports only the
 * core (plugin/judge/peer.c): show.c calls it, never the other way round.
 */
#include <linux/dcbnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/judge/peer.h"
#include "plugin/tools/tools.h"

static bool listening(const cJSON *book, const char *ifname)
{
	const cJSON *it;

	cJSON_ArrayForEach(
	    it, cJSON_GetObjectItemCaseSensitive(
		    book, "listening")) if (cJSON_IsString(it) &&
					    !strcmp(it->valuestring, ifname)) return true;
	return false;
}

static void dcbx_json(cJSON *o, const struct dcb_port_state *st)
{
	cJSON *a;

	if (!st || !st->has_dcbx || !(a = cJSON_AddArrayToObject(o, "dcbx")))
		return;
	if (st->dcbx & DCB_CAP_DCBX_HOST)
		cJSON_AddItemToArray(a, cJSON_CreateString("host"));
	if (st->dcbx & DCB_CAP_DCBX_LLD_MANAGED)
		cJSON_AddItemToArray(a, cJSON_CreateString("lld_managed"));
	if (st->dcbx & DCB_CAP_DCBX_VER_CEE)
		cJSON_AddItemToArray(a, cJSON_CreateString("cee"));
	if (st->dcbx & DCB_CAP_DCBX_VER_IEEE)
		cJSON_AddItemToArray(a, cJSON_CreateString("ieee"));
}

/*
 * The partners current by the wall clock: "partners" of the agent's file (an
 * older file has only "peer"). *ret_one gets the single one's entry.
 */
static int current_partners(const cJSON *e, cJSON *out, const cJSON **ret_one)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "partners"), *it;
	double now = (double)time(NULL);
	cJSON *a = out ? cJSON_AddArrayToObject(out, "partners") : NULL;
	int n = 0;

	*ret_one = NULL;
	if (!cJSON_IsArray(l)) {
		if (e &&
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "expires")) > now) {
			*ret_one = e;
			n = 1;
		}
		return n;
	}
	cJSON_ArrayForEach(it, l)
	{
		if (!(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "expires")) > now))
			continue;
		*ret_one = it;
		n++;
		if (a)
			cJSON_AddItemToArray(
			    a, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(it, "peer"), 1));
	}
	if (n != 1)
		*ret_one = NULL;
	return n;
}

void show_peer_json(const struct rq_env *env, cJSON *o, const char *ifname,
		    const struct dcb_port_state *st, const struct rq_profile *req, bool any_req)
{
	cJSON *book = show_agent_file(env, RQ_PEER_FILE), *out = cJSON_AddObjectToObject(o, "peer"),
	      *items;
	const cJSON *e =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(book, "pfs"), ifname);
	const cJSON *one = NULL;
	struct lldp_peer p;
	struct peer_judgement j;
	int n;
	bool heard, contested;

	dcbx_json(o, st);
	if (!out) {
		cJSON_Delete(book);
		return;
	}
	n = current_partners(e, out, &one);
	/* one MSAP heard from two source MACs: a second speaker copies it, nothing is judged */
	contested = one && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(one, "contested"));
	heard = one && !contested &&
		peer_from_json(cJSON_GetObjectItemCaseSensitive(one, "peer"), &p) == 0;
	cJSON_AddStringToObject(out, "state",
				n > 1			  ? "partners"
				: contested		  ? "contested"
				: heard			  ? "heard"
				: listening(book, ifname) ? "silent"
							  : "not listening");
	cJSON_AddNumberToObject(out, "count", n);
	/* why (peers.json "contest"): two source MACs, or content that flips (issue 42 item 2) */
	if (contested)
		cJSON_AddStringToObject(
		    out, "contest", json_str(one, "contest")[0] ? json_str(one, "contest") : "mac");
	if (heard) {
		cJSON_AddItemToObject(
		    out, "partner",
		    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(one, "peer"), 1));
		cJSON_AddNumberToObject(
		    out, "heard",
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(one, "heard")));
	}
	/* more than one partner: nothing is judged (a second speaker makes it unknown) */
	peer_judge(heard ? &p : NULL, any_req ? req : NULL, peer_pf_mtu(&env->root, ifname),
		   peer_pf_vst(ifname), &j);
	items = cJSON_AddObjectToObject(out, "items");
	for (int i = 0; items && i < PEER_ITEM_N; i++) {
		cJSON *it;

		/* ets only where the target has ETS, as the metric */
		if (i == PEER_ETS && !(any_req && req->ets.present))
			continue;
		it = cJSON_AddObjectToObject(items, peer_item_names[i]);
		cJSON_AddStringToObject(it, "verdict", peer_verdict_name(j.v[i]));
		if (j.why[i][0])
			cJSON_AddStringToObject(it, "why", j.why[i]);
	}
	cJSON_AddStringToObject(out, "word", peer_verdict_name(peer_word(&j)));
	cJSON_Delete(book);
}

/* The NIC's DCBX mode in a word, from show's "dcbx" list (dcbnl getdcbx) */
static const char *nic_dcbx(const cJSON *dcbx)
{
	const cJSON *it;
	bool lld = false, host = false;

	cJSON_ArrayForEach(it, dcbx)
	{
		lld |= !strcmp(it->valuestring, "lld_managed");
		host |= !strcmp(it->valuestring, "host");
	}
	if (cJSON_GetArraySize(dcbx) == 0)
		return NULL;
	return host ? "host" : lld ? "lld_managed" : "firmware";
}

/* The partner's willing bit beside the NIC's DCBX mode: which end would take whose PFC */
static void willing_text(const cJSON *who, const cJSON *dcbx)
{
	const cJSON *pfc = cJSON_GetObjectItemCaseSensitive(who, "pfc");
	const cJSON *cee = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(who, "dcbxLegacy"), "pfc");
	const char *mode = nic_dcbx(dcbx);
	bool w;

	if (!pfc)
		pfc = cee;
	if (!pfc)
		return;
	w = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pfc, "willing"));
	printf(
	    "    partner PFC willing %s; NIC DCBX %s%s\n", w ? "yes" : "no",
	    mode ? mode : "unknown",
	    mode && strcmp(mode, "host") != 0
		? ": the NIC's firmware negotiates PFC with the partner, and a willing NIC takes "
		  "the partner's PFC over the host's"
		: "");
	if (cee && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cee, "error")))
		printf("    partner's DCBX PFC feature reports an error (it disagrees with its "
		       "peer)\n");
}

void show_peer_text(const cJSON *pf)
{
	const cJSON *peer = cJSON_GetObjectItemCaseSensitive(pf, "peer");
	const cJSON *who = cJSON_GetObjectItemCaseSensitive(peer, "partner"), *it;
	const cJSON *dcbx = cJSON_GetObjectItemCaseSensitive(pf, "dcbx");
	bool lld = false, host = false;

	cJSON_ArrayForEach(it, dcbx)
	{
		lld |= !strcmp(it->valuestring, "lld_managed");
		host |= !strcmp(it->valuestring, "host");
	}
	if (!peer)
		return;
	if (!strcmp(json_str(peer, "state") ?: "", "contested")) {
		it = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(peer, "partners"), 0);
		printf("  partner %s port %s %s: not judged\n"
		       "    (a second speaker sends the switch's chassis and port ID: "
		       "docs/troubleshooting.md)\n",
		       it && json_str(it, "systemName")[0] ? json_str(it, "systemName")
		       : it				   ? json_str(it, "chassisId")
							   : "?",
		       it ? json_str(it, "portId") : "?",
		       !strcmp(json_str(peer, "contest"), "content")
			   ? "says one thing, then another and back"
			   : "heard from two source MACs");
		return;
	}
	if (!strcmp(json_str(peer, "state") ?: "", "partners")) {
		printf("  %d partners: not judged:", json_int(peer, "count", 0));
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(peer, "partners"))
		{
			printf(" %s port %s%s",
			       json_str(it, "systemName")[0] ? json_str(it, "systemName")
							     : json_str(it, "chassisId"),
			       json_str(it, "portId"), it->next ? "," : "");
		}
		printf("\n    (an EVPN fabric sends several; a pod's VF or a VM speaking LLDP on "
		       "this port should not: docs/troubleshooting.md)\n");
		return;
	}
	if (who)
		printf("  partner %s port %s (%s, chassis %s, DCBX %s):",
		       json_str(who, "systemName")[0] ? json_str(who, "systemName")
						      : "(no system name)",
		       json_str(who, "portId"),
		       json_str(who, "portDescription")[0] ? json_str(who, "portDescription")
							   : "no description",
		       json_str(who, "chassisId"),
		       json_str(who, "dcbx") ? json_str(who, "dcbx") : "none");
	else if (!strcmp(json_str(peer, "state"), "silent"))
		printf("  partner silent:");
	else /* no agent, --once only, or a PF without attachment or baseline */
		printf("  partner not listened to (the agent watches PFs with attachments or a "
		       "baseline):");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(peer, "items"))
	{
		const char *v = json_str(it, "verdict");

		printf(" %s %s", it->string, !strcmp(v, "disagrees") ? "DISAGREES" : v);
		if (!strcmp(v, "disagrees") && json_str(it, "why"))
			printf(" (%s)", json_str(it, "why"));
		printf(it->next ? "," : "");
	}
	if (json_str(cJSON_GetObjectItemCaseSensitive(peer, "wiring"), "text"))
		printf("; wiring: %s",
		       json_str(cJSON_GetObjectItemCaseSensitive(peer, "wiring"), "text"));
	printf("\n");
	if (who)
		willing_text(who, dcbx);
	/* mlx5 in firmware mode reports the DCBX versions without HOST and never
	 * LLD_MANAGED (mlx5e_dcbnl_initialize): a report without HOST is the same hint */
	if (!who && (lld || (cJSON_GetArraySize(dcbx) > 0 && !host)))
		printf("    DCBX is %s: the NIC firmware's own LLDP agent may take the "
		       "partner's LLDP before the host sees it (docs/operations.md)\n",
		       lld ? "lld_managed" : "not host-managed (firmware)");
}

/* @ifname's one word (peer_word): agrees|disagrees|unknown, as the NFD label judges a PF */
const char *show_peer_word(const struct rq_env *env, const char *ifname,
			   const struct rq_profile *req, bool any_req)
{
	cJSON *tmp = cJSON_CreateObject();
	const char *w = "unknown", *v;

	if (!tmp)
		return w;
	show_peer_json(env, tmp, ifname, NULL, req, any_req);
	v = json_str(cJSON_GetObjectItemCaseSensitive(tmp, "peer"), "word");
	w = v && !strcmp(v, "agrees") ? "agrees" : v && !strcmp(v, "disagrees") ? "disagrees" : w;
	cJSON_Delete(tmp);
	return w;
}
