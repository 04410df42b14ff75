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

#include "plugin/judge/peer.h"

const char *const peer_item_names[PEER_ITEM_N] = {"pfc", "dscp2prio", "mtu", "ets"};

const char *peer_verdict_name(enum peer_verdict v)
{
	return v == PEER_AGREES ? "agrees" : v == PEER_DISAGREES ? "disagrees" : "unknown";
}

static void judge_pfc(const struct lldp_peer *p, const struct rq_profile *t,
		      struct peer_judgement *j)
{
	char want[32], has[32];
	uint8_t en;
	bool willing;

	if (!t->pfc || !lldp_peer_pfc(p, &en, &willing))
		return;
	dcb_prio_text(t->pfc, want, sizeof(want));
	dcb_prio_text(en, has, sizeof(has));
	j->v[PEER_PFC] = (t->pfc & ~en) ? PEER_DISAGREES : PEER_AGREES;
	if (!p->has_pfc && !p->cee.pfc_enable)
		(void)snprintf(j->why[PEER_PFC], sizeof(j->why[PEER_PFC]),
			       "partner's %s PFC feature is not enabled, required %s",
			       lldp_dcbx_name(p->cee.version), want);
	else
		(void)snprintf(j->why[PEER_PFC], sizeof(j->why[PEER_PFC]),
			       "partner%s%s PFC on %s, required %s", p->has_pfc ? "" : " ",
			       p->has_pfc ? "" : lldp_dcbx_name(p->cee.version), has, want);
}

static void judge_dscp(const struct lldp_peer *p, const struct rq_profile *t,
		       struct peer_judgement *j)
{
	uint64_t both = t->dscp_override & p->dscp_mask;
	int n = 0, amb = 0;

	if (!p->has_ieee && p->cee.version)
		(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
			       "%s DCBX has no DSCP application entries",
			       lldp_dcbx_name(p->cee.version));
	for (int d = 0; d < 64; d++) {
		if (!(both & (1ULL << d)))
			continue;
		/* two priorities for one DSCP (802.1Q 33.6.3: ambiguous) say nothing of it */
		if (p->dscp_prio[d] & (p->dscp_prio[d] - 1)) {
			amb++;
			continue;
		}
		n++;
		if (p->dscp_prio[d] == (uint8_t)(1u << t->dscp_prio[d]))
			continue;
		j->v[PEER_DSCP2PRIO] = PEER_DISAGREES;
		(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
			       "partner maps DSCP %d to priority %d, required %u", d,
			       lldp_prio_first(p->dscp_prio[d]), t->dscp_prio[d]);
		return;
	}
	if (n == 0) {
		/* the partner maps none of the required DSCPs to one priority: unknown */
		if (amb)
			(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
				       "partner maps %d required DSCP%s to several priorities", amb,
				       amb > 1 ? "s" : "");
		return;
	}
	j->v[PEER_DSCP2PRIO] = PEER_AGREES;
	(void)snprintf(j->why[PEER_DSCP2PRIO], sizeof(j->why[PEER_DSCP2PRIO]),
		       "%d required DSCP entries advertised, all on the same priority%s", n,
		       amb ? " (others ambiguous)" : "");
}

int peer_frame_allowance(const struct rq_profile *t, bool vst)
{
	/* one tag either way: a VST VF's PCP travels in the tag the eswitch adds */
	return PEER_FRAME_UNTAGGED +
	       (vst || (t && t->has_trust && t->trust == RQ_TRUST_PCP) ? PEER_FRAME_QTAG : 0);
}

static void judge_mtu(const struct lldp_peer *p, const struct rq_profile *t, int mtu, bool vst,
		      struct peer_judgement *j)
{
	int need = mtu + peer_frame_allowance(t, vst);

	if (mtu <= 0 || !p->has_max_frame)
		return;
	j->v[PEER_MTU] = p->max_frame >= need ? PEER_AGREES : PEER_DISAGREES;
	(void)snprintf(j->why[PEER_MTU], sizeof(j->why[PEER_MTU]),
		       "partner max frame %u bytes, MTU %d needs %d%s", p->max_frame, mtu, need,
		       vst				  ? " (802.1Q-tagged: a VF's VST VLAN)"
		       : need - mtu > PEER_FRAME_UNTAGGED ? " (802.1Q-tagged)"
							  : "");
}

/* ETS is asymmetric: a port's Configuration is its own, its Recommendation what it asks of us */
static void judge_ets(const struct lldp_peer *p, const struct rq_profile *t,
		      struct peer_judgement *j)
{
	const struct lldp_ets *e = &p->ets_rec;

	if (!t->ets.present || !p->has_ets_rec)
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
			       "partner's ETS Recommendation differs in its %s at %s %d", what,
			       what[0] == 'p' ? "priority" : "TC", i);
		return;
	}
}

enum peer_verdict peer_word(const struct peer_judgement *j)
{
	for (int i = 0; i < PEER_ITEM_N; i++)
		if (j->v[i] == PEER_DISAGREES)
			return PEER_DISAGREES;
	return j->v[PEER_PFC] == PEER_AGREES ? PEER_AGREES : PEER_UNKNOWN;
}

void peer_judge(const struct lldp_peer *p, const struct rq_profile *t, int mtu, bool vst,
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
	judge_mtu(p, t, mtu, vst, ret);
}

bool peer_pf_vst(const char *ifname)
{
	return netns_link_vf_vlans(ifname) > 0;
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

/* The CEE/CIN TLV as heard (even when IEEE TLVs came too and are the ones judged) */
static cJSON *cee_json(const struct lldp_cee *c)
{
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddStringToObject(o, "version", lldp_dcbx_name((enum lldp_dcbx)c->version));
	cJSON_AddNumberToObject(o, "operVersion", c->oper_ver);
	cJSON_AddNumberToObject(o, "maxVersion", c->max_ver);
	if (c->has_pfc && (x = cJSON_AddObjectToObject(o, "pfc"))) {
		cJSON_AddItemToObject(x, "enabled", prio_list(c->pfc_en));
		cJSON_AddBoolToObject(x, "enable", c->pfc_enable);
		cJSON_AddBoolToObject(x, "willing", c->pfc_willing);
		cJSON_AddBoolToObject(x, "error", c->pfc_error);
		cJSON_AddNumberToObject(x, "operVersion", c->pfc_oper_ver);
		cJSON_AddNumberToObject(x, "maxVersion", c->pfc_max_ver);
		cJSON_AddNumberToObject(x, "tcs", c->pfc_tcs);
	}
	return o;
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
	cJSON_AddStringToObject(o, "dcbx", lldp_dcbx_name(lldp_dcbx_version(p)));
	if (p->cee.version)
		cJSON_AddItemToObject(o, "dcbxLegacy", cee_json(&p->cee));
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

static void cee_from(const cJSON *o, struct lldp_cee *c)
{
	const char *v = json_str(o, "version");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "pfc");

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(o) || !v || (strcmp(v, "cee") != 0 && strcmp(v, "cin") != 0))
		return;
	c->version = !strcmp(v, "cee") ? LLDP_DCBX_CEE : LLDP_DCBX_CIN;
	c->oper_ver = (uint8_t)json_int(o, "operVersion", 0);
	c->max_ver = (uint8_t)json_int(o, "maxVersion", 0);
	if (!cJSON_IsObject(x))
		return;
	c->has_pfc = true;
	c->pfc_en = mask_of(cJSON_GetObjectItemCaseSensitive(x, "enabled"));
	c->pfc_enable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "enable"));
	c->pfc_willing = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "willing"));
	c->pfc_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "error"));
	c->pfc_oper_ver = (uint8_t)json_int(x, "operVersion", 0);
	c->pfc_max_ver = (uint8_t)json_int(x, "maxVersion", 0);
	c->pfc_tcs = (uint8_t)json_int(x, "tcs", 0);
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
	p.has_ieee = p.has_pfc || p.has_app || p.has_ets_cfg || p.has_ets_rec;
	cee_from(cJSON_GetObjectItemCaseSensitive(o, "dcbxLegacy"), &p.cee);
	memcpy(ret, &p, sizeof(p));
	return 0;
}
