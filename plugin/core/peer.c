// SPDX-License-Identifier: Apache-2.0
/*
 * The link partner judged against the PF's target (DESIGN.md "The link
 * partner"). A switch that advertises nothing is normal (SONiC's lldpd sends
 * no DCB TLV): what the partner does not say is unknown, never a mismatch,
 * and what the PF does not require is not judged at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/core/peer.h"

const char *const peer_item_names[PEER_ITEM_N] = {"pfc", "dscp2prio", "mtu", "ets"};

const char *peer_verdict_name(enum peer_verdict v)
{
	return v == PEER_AGREES ? "agrees" : v == PEER_DISAGREES ? "disagrees" : "unknown";
}

static void judge_pfc(const struct lldp_peer *p, const struct rq_profile *t,
		      struct peer_judgement *j)
{
	char want[32], has[32];

	if (!t->pfc || !p->has_pfc)
		return;
	dcb_prio_text(t->pfc, want, sizeof(want));
	dcb_prio_text(p->pfc_en, has, sizeof(has));
	j->v[PEER_PFC] = (t->pfc & ~p->pfc_en) ? PEER_DISAGREES : PEER_AGREES;
	(void)snprintf(j->why[PEER_PFC], sizeof(j->why[PEER_PFC]), "partner PFC on %s, required %s",
		       has, want);
}

static void judge_dscp(const struct lldp_peer *p, const struct rq_profile *t,
		       struct peer_judgement *j)
{
	uint64_t both = t->dscp_override & p->dscp_mask;
	int n = 0;

	if (!both)
		return; /* the partner maps none of the DSCPs the PF requires: unknown */
	j->v[PEER_DSCP2PRIO] = PEER_AGREES;
	for (int d = 0; d < 64; d++) {
		if (!(both & (1ULL << d)))
			continue;
		n++;
		if (p->dscp_prio[d] == (uint8_t)(1u << t->dscp_prio[d]))
			continue;
		j->v[PEER_DSCP2PRIO] = PEER_DISAGREES;
		(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
			       "partner maps DSCP %d to priority %d%s, required %u", d,
			       lldp_prio_first(p->dscp_prio[d]),
			       p->dscp_prio[d] & (p->dscp_prio[d] - 1) ? " and others" : "",
			       t->dscp_prio[d]);
		return;
	}
	(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
		       "%d required DSCP entries advertised, all on the same priority", n);
}

static void judge_mtu(const struct lldp_peer *p, int mtu, struct peer_judgement *j)
{
	if (mtu <= 0 || !p->has_max_frame)
		return;
	j->v[PEER_MTU] = p->max_frame >= mtu + PEER_FRAME_OVERHEAD ? PEER_AGREES : PEER_DISAGREES;
	(void)snprintf(j->why[PEER_MTU], sizeof(j->why[PEER_MTU]),
		       "partner max frame %u bytes, MTU %d needs %d", p->max_frame, mtu,
		       mtu + PEER_FRAME_OVERHEAD);
}

static void judge_ets(const struct lldp_peer *p, const struct rq_profile *t,
		      struct peer_judgement *j)
{
	const struct lldp_ets *e = &p->ets_cfg;

	if (!t->ets.present || !p->has_ets_cfg)
		return;
	j->v[PEER_ETS] = PEER_AGREES;
	(void)snprintf(j->why[PEER_ETS], sizeof(j->why[PEER_ETS]), "%s",
		       "same priority->TC map, TSA and bandwidths");
	for (int i = 0; i < 8; i++) {
		const char *what = e->prio_tc[i] != t->ets.prio_tc[i] ? "priority->TC map"
				   : e->tsa[i] != t->ets.tsa[i]	      ? "TSA"
				   : t->ets.tsa[i] == RQ_TSA_ETS && e->tc_bw[i] != t->ets.tc_bw[i]
				       ? "bandwidth"
				       : NULL;

		if (!what)
			continue;
		j->v[PEER_ETS] = PEER_DISAGREES;
		(void)snprintf(j->why[PEER_ETS], sizeof(j->why[PEER_ETS]),
			       "partner ETS differs in its %s at %s %d", what,
			       what[0] == 'p' ? "priority" : "TC", i);
		return;
	}
}

void peer_judge(const struct lldp_peer *p, const struct rq_profile *t, int mtu,
		struct peer_judgement *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < PEER_ITEM_N; i++)
		ret->v[i] = PEER_UNKNOWN;
	if (!p)
		return;
	if (t) {
		judge_pfc(p, t, ret);
		judge_dscp(p, t, ret);
		judge_ets(p, t, ret);
	}
	judge_mtu(p, mtu, ret);
}

int peer_pf_mtu(const struct rq_root *root, const char *ifname)
{
	char path[128];
	long v = -1;

	if (snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", ifname) >= (int)sizeof(path) ||
	    sysfs_read_int(root, path, &v) < 0 || v <= 0 || v > 65535)
		return -ENOENT;
	return (int)v;
}

static cJSON *u8_array(const uint8_t *v, int n)
{
	int x[8];

	for (int i = 0; i < n && i < 8; i++)
		x[i] = v[i];
	return cJSON_CreateIntArray(x, n);
}

static cJSON *ets_json(const struct lldp_ets *e, bool cfg)
{
	cJSON *o = cJSON_CreateObject();

	if (cfg) {
		cJSON_AddBoolToObject(o, "willing", e->willing);
		cJSON_AddBoolToObject(o, "cbs", e->cbs);
		cJSON_AddNumberToObject(o, "maxTcs", e->max_tcs);
	}
	cJSON_AddItemToObject(o, "prioTc", u8_array(e->prio_tc, 8));
	cJSON_AddItemToObject(o, "tcBw", u8_array(e->tc_bw, 8));
	cJSON_AddItemToObject(o, "tsa", u8_array(e->tsa, 8));
	return o;
}

static cJSON *prio_list(uint8_t mask)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < 8; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
	return a;
}

cJSON *peer_to_json(const struct lldp_peer *p)
{
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddStringToObject(o, "chassisId", p->chassis_id);
	cJSON_AddNumberToObject(o, "chassisIdSubtype", p->chassis_subtype);
	cJSON_AddStringToObject(o, "portId", p->port_id);
	cJSON_AddNumberToObject(o, "portIdSubtype", p->port_subtype);
	cJSON_AddNumberToObject(o, "ttl", p->ttl);
	cJSON_AddStringToObject(o, "systemName", p->sys_name);
	cJSON_AddStringToObject(o, "portDescription", p->port_desc);
	if (p->has_pfc) {
		x = cJSON_AddObjectToObject(o, "pfc");
		cJSON_AddItemToObject(x, "enabled", prio_list(p->pfc_en));
		cJSON_AddBoolToObject(x, "willing", p->pfc_willing);
		cJSON_AddBoolToObject(x, "mbc", p->pfc_mbc);
		cJSON_AddNumberToObject(x, "cap", p->pfc_cap);
	}
	if (p->has_app) {
		char k[4];

		x = cJSON_AddObjectToObject(o, "dscp2prio");
		for (int d = 0; x && d < 64; d++) {
			if (!(p->dscp_mask & (1ULL << d)))
				continue;
			(void)snprintf(k, sizeof(k), "%d", d);
			cJSON_AddItemToObject(x, k, prio_list(p->dscp_prio[d]));
		}
	}
	if (p->has_ets_cfg)
		cJSON_AddItemToObject(o, "etsConfiguration", ets_json(&p->ets_cfg, true));
	if (p->has_ets_rec)
		cJSON_AddItemToObject(o, "etsRecommendation", ets_json(&p->ets_rec, false));
	if (p->has_max_frame)
		cJSON_AddNumberToObject(o, "maxFrameBytes", p->max_frame);
	return o;
}

static uint8_t mask_of(const cJSON *a)
{
	const cJSON *it;
	uint8_t m = 0;

	cJSON_ArrayForEach(it, a) if (cJSON_IsNumber(it) && it->valueint >= 0 && it->valueint < 8)
	    m |= (uint8_t)(1u << it->valueint);
	return m;
}

static void u8_from(const cJSON *a, uint8_t *v)
{
	for (int i = 0; i < 8; i++) {
		const cJSON *it = cJSON_GetArrayItem(a, i);

		v[i] = cJSON_IsNumber(it) ? (uint8_t)it->valueint : 0;
	}
}

static bool ets_from(const cJSON *o, struct lldp_ets *e)
{
	memset(e, 0, sizeof(*e));
	if (!cJSON_IsObject(o))
		return false;
	e->willing = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "willing"));
	e->cbs = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cbs"));
	e->max_tcs = (uint8_t)json_int(o, "maxTcs", 0);
	u8_from(cJSON_GetObjectItemCaseSensitive(o, "prioTc"), e->prio_tc);
	u8_from(cJSON_GetObjectItemCaseSensitive(o, "tcBw"), e->tc_bw);
	u8_from(cJSON_GetObjectItemCaseSensitive(o, "tsa"), e->tsa);
	return true;
}

int peer_from_json(const cJSON *o, struct lldp_peer *ret)
{
	const cJSON *x, *it;
	struct lldp_peer p;

	if (!cJSON_IsObject(o) || !json_str(o, "chassisId") || !json_str(o, "portId"))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	(void)snprintf(p.chassis_id, sizeof(p.chassis_id), "%s", json_str(o, "chassisId"));
	(void)snprintf(p.port_id, sizeof(p.port_id), "%s", json_str(o, "portId"));
	(void)snprintf(p.sys_name, sizeof(p.sys_name), "%s", json_str(o, "systemName") ?: "");
	(void)snprintf(p.port_desc, sizeof(p.port_desc), "%s",
		       json_str(o, "portDescription") ?: "");
	p.chassis_subtype = (uint8_t)json_int(o, "chassisIdSubtype", 0);
	p.port_subtype = (uint8_t)json_int(o, "portIdSubtype", 0);
	p.ttl = (uint16_t)json_int(o, "ttl", 0);
	if ((x = cJSON_GetObjectItemCaseSensitive(o, "pfc"))) {
		p.has_pfc = true;
		p.pfc_en = mask_of(cJSON_GetObjectItemCaseSensitive(x, "enabled"));
		p.pfc_willing = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "willing"));
		p.pfc_mbc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "mbc"));
		p.pfc_cap = (uint8_t)json_int(x, "cap", 0);
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(o, "dscp2prio"))) {
		p.has_app = true;
		cJSON_ArrayForEach(it, x)
		{
			int d = atoi(it->string ? it->string : "-1");
			uint8_t m = mask_of(it);

			if (d < 0 || d > 63 || !m)
				continue;
			p.dscp_mask |= 1ULL << d;
			p.dscp_prio[d] = m;
		}
	}
	p.has_ets_cfg =
	    ets_from(cJSON_GetObjectItemCaseSensitive(o, "etsConfiguration"), &p.ets_cfg);
	p.has_ets_rec =
	    ets_from(cJSON_GetObjectItemCaseSensitive(o, "etsRecommendation"), &p.ets_rec);
	if ((x = cJSON_GetObjectItemCaseSensitive(o, "maxFrameBytes")) && cJSON_IsNumber(x)) {
		p.has_max_frame = true;
		p.max_frame = (uint16_t)x->valueint;
	}
	memcpy(ret, &p, sizeof(p));
	return 0;
}
