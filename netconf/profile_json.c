// SPDX-License-Identifier: Apache-2.0
/* Profiles serialised: for the attachment record and show, and the PF index (requirements only). */
#include "netconf/profile.h"
#include "pkg/dcb/dcb.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static cJSON *prio_list_json(uint8_t mask)
{
	int v[RQ_NPRIO], n = 0;

	for (int i = 0; i < RQ_NPRIO; i++)
		if (mask & (1u << i))
			v[n++] = i;
	return cJSON_CreateIntArray(v, n);
}

/* Adds @item to @o; false (and @item freed) when either is missing. */
static bool add(cJSON *o, const char *key, cJSON *item)
{
	if (!item)
		return false;
	if (!cJSON_AddItemToObject(o, key, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}

static cJSON *ets_json(const struct rq_ets *ets)
{
	cJSON *o = cJSON_CreateObject(), *tsa = cJSON_CreateArray();
	int bw[RQ_NPRIO], ptc[RQ_NPRIO];
	bool ok = o && tsa;

	for (int i = 0; ok && i < RQ_NPRIO; i++) {
		cJSON *s = cJSON_CreateString(profile_tsa_name(ets->tsa[i]));

		bw[i] = ets->tc_bw[i];
		ptc[i] = ets->prio_tc[i];
		ok = s && cJSON_AddItemToArray(tsa, s);
		if (!ok)
			cJSON_Delete(s);
	}
	if (ok && add(o, "tcBw", cJSON_CreateIntArray(bw, RQ_NPRIO)) && add(o, "tsa", tsa) &&
	    add(o, "prioTc", cJSON_CreateIntArray(ptc, RQ_NPRIO)))
		return o;
	if (!cJSON_GetObjectItemCaseSensitive(o, "tsa"))
		cJSON_Delete(tsa);
	cJSON_Delete(o);
	return NULL;
}

static cJSON *dscp_json(const struct rq_profile *p)
{
	cJSON *m = cJSON_CreateObject();

	for (int d = 0; m && d < RQ_NDSCP; d++) {
		char k[4];

		if (!(p->dscp_override & (1ULL << d)))
			continue;
		(void)snprintf(k, sizeof(k), "%d", d);
		if (!add(m, k, cJSON_CreateNumber(p->dscp_prio[d]))) {
			cJSON_Delete(m);
			return NULL;
		}
	}
	return m;
}

static cJSON *cnp_json(const struct rq_profile *p)
{
	cJSON *o = cJSON_CreateObject();

	if (o && p->has_cnp[CNP_DSCP])
		cJSON_AddNumberToObject(o, "dscp", p->cnp[CNP_DSCP]);
	if (o && p->has_cnp[CNP_PRIO])
		cJSON_AddNumberToObject(o, "prio", p->cnp[CNP_PRIO]);
	return o;
}

static cJSON *to_json(const struct rq_profile *p, bool with_vf)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;

	if (p->has_trust)
		ok = ok && add(o, "trust",
			       cJSON_CreateString(p->trust == RQ_TRUST_DSCP ? "dscp" : "pcp"));
	if (p->dscp_override)
		ok = ok && add(o, "dscp2prio", dscp_json(p));
	if (p->pfc)
		ok = ok && add(o, "pfc", prio_list_json(p->pfc));
	if (p->ecn)
		ok = ok && add(o, "ecn", prio_list_json(p->ecn));
	if (p->ecn_required)
		ok = ok && add(o, "ecnRequired", cJSON_CreateTrue());
	if (p->ets.present)
		ok = ok && add(o, "ets", ets_json(&p->ets));
	if (p->has_cnp[CNP_DSCP] || p->has_cnp[CNP_PRIO])
		ok = ok && add(o, "cnp", cnp_json(p));
	if (with_vf && p->traffic_class >= 0)
		ok = ok && add(o, "trafficClass", cJSON_CreateNumber(p->traffic_class));
	/* only when asked for: records of profiles without it stay as they were */
	if (with_vf && p->tos_scope == RQ_TOS_SCOPE_ALL_QPS)
		ok = ok && add(o, "tosScope", cJSON_CreateString("all-qps"));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *profile_to_json(const struct rq_profile *p)
{
	return to_json(p, true);
}

cJSON *profile_req_to_json(const struct rq_profile *p)
{
	return to_json(p, false);
}
