// SPDX-License-Identifier: Apache-2.0
/* Profiles: parse, validate, serialise, compare. */
#include "netconf/profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "netconf/jsonpath.h"

void profile_builtin(struct rq_profile *ret)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->name, sizeof(ret->name), "%s", RQ_BUILTIN_PROFILE);
	ret->trust = RQ_TRUST_DSCP;
	for (int d = 0; d < RQ_NDSCP; d++)
		ret->dscp_prio[d] = (uint8_t)(d >> 3);
	ret->dscp_prio[26] = 3;
	ret->dscp_prio[48] = 6;
	ret->dscp_override = (1ULL << 26) | (1ULL << 48);
	ret->pfc = 1u << 3;
	ret->ecn = 1u << 3;
	ret->ecn_required = false;
	ret->traffic_class = 106;
}

static const char *const tsa_names[] = { "strict", "cbs", "ets" };

static int tsa_parse(const cJSON *v, uint8_t *ret)
{
	if (!cJSON_IsString(v))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(tsa_names) / sizeof(tsa_names[0]); i++)
		if (!strcmp(v->valuestring, tsa_names[i])) {
			*ret = (uint8_t)i;
			return 0;
		}
	if (!strcmp(v->valuestring, "vendor")) {
		*ret = 255;
		return 0;
	}
	return -EINVAL;
}

static const char *tsa_name(uint8_t t)
{
	return t < 3 ? tsa_names[t] : "vendor";
}

/* An array of exactly 8 integers within [lo, hi]. */
static int int8_array(const cJSON *a, const char *path, int lo, int hi, uint8_t *out,
		      struct rq_error *e)
{
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(a))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an array of 8 integers", path);
	if (cJSON_GetArraySize(a) != 8)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: has %d entries, expected 8", path,
			      cJSON_GetArraySize(a));
	cJSON_ArrayForEach(it, a) {
		long v;
		int r = json_int_in(it, path, i, lo, hi, &v, e);

		if (r < 0)
			return r;
		out[i++] = (uint8_t)v;
	}
	return 0;
}

static int parse_ets(const cJSON *o, const char *path, struct rq_ets *ets, struct rq_error *e)
{
	static const char *const keys[] = { "tcBw", "tsa", "prioTc", NULL };
	char p[256];
	const cJSON *it;
	int r, sum = 0, i = 0;
	bool all_strict = true;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object", path);
	r = json_only_keys(o, path, keys, e);
	if (r < 0)
		return r;
	for (int k = 0; k < 3; k++)
		if (!cJSON_GetObjectItemCaseSensitive(o, keys[k]))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.%s: required", path, keys[k]);
	snprintf(p, sizeof(p), "%s.tcBw", path);
	r = int8_array(cJSON_GetObjectItemCaseSensitive(o, "tcBw"), p, 0, 100, ets->tc_bw, e);
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s.prioTc", path);
	r = int8_array(cJSON_GetObjectItemCaseSensitive(o, "prioTc"), p, 0, 7, ets->prio_tc, e);
	if (r < 0)
		return r;
	snprintf(p, sizeof(p), "%s.tsa", path);
	o = cJSON_GetObjectItemCaseSensitive(o, "tsa");
	if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 8)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an array of 8 of "
			      "\"strict\", \"cbs\", \"ets\", \"vendor\"", p);
	cJSON_ArrayForEach(it, o) {
		if (tsa_parse(it, &ets->tsa[i]) < 0)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s[%d]: expected one of \"strict\", \"cbs\", \"ets\", "
				      "\"vendor\"", p, i);
		all_strict &= ets->tsa[i] == 0;
		sum += ets->tc_bw[i];
		i++;
	}
	if (!all_strict && sum != 100)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s.tcBw: percentages sum to %d, expected 100", path, sum);
	ets->present = true;
	return 0;
}

static int parse_prio_list(const cJSON *a, const char *path, uint8_t *ret, struct rq_error *e)
{
	const cJSON *it;
	uint8_t mask = 0;
	int i = 0;

	if (!cJSON_IsArray(a))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an array of priorities 0-7",
			      path);
	cJSON_ArrayForEach(it, a) {
		long v;
		int r = json_int_in(it, path, i, 0, 7, &v, e);

		if (r < 0)
			return r;
		if (mask & (1u << v))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s[%d]: priority %ld listed twice",
				      path, i, v);
		mask |= (uint8_t)(1u << v);
		i++;
	}
	*ret = mask;
	return 0;
}

static int parse_dscp2prio(const cJSON *o, const char *path, struct rq_profile *p,
			   struct rq_error *e)
{
	const cJSON *it;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object of DSCP: priority",
			      path);
	/* the built-in overrides apply only when dscp2prio is absent */
	for (int d = 0; d < RQ_NDSCP; d++)
		p->dscp_prio[d] = (uint8_t)(d >> 3);
	p->dscp_override = 0;
	cJSON_ArrayForEach(it, o) {
		char sub[300];
		const char *k = it->string;
		long d = 0, v;
		int r;

		for (const char *c = k; *c; c++)
			d = (*c >= '0' && *c <= '9' && d < 1000) ? d * 10 + (*c - '0') : 1000;
		if (!k[0] || (k[0] == '0' && k[1]) || d > 63)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s: key \"%s\" is not a DSCP value 0-63", path, k);
		snprintf(sub, sizeof(sub), "%s.%s", path, k);
		r = json_int_in(it, sub, -1, 0, 7, &v, e);
		if (r < 0)
			return r;
		p->dscp_prio[d] = (uint8_t)v;
		p->dscp_override |= 1ULL << d;
	}
	return 0;
}

int profile_from_json(const cJSON *obj, const char *path, const char *name, struct rq_profile *ret,
		      struct rq_error *e)
{
	static const char *const keys[] = { "trust", "dscp2prio", "pfc", "ecn", "ecnRequired",
					    "ets", "trafficClass", NULL };
	struct rq_profile p;
	const cJSON *v;
	char sub[300];
	long tc;
	int r;

	profile_builtin(&p);
	snprintf(p.name, sizeof(p.name), "%s", name ? name : "inline");
	if (!cJSON_IsObject(obj))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object", path);
	r = json_only_keys(obj, path, keys, e);
	if (r < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "trust"))) {
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "dscp"))
			p.trust = RQ_TRUST_DSCP;
		else if (cJSON_IsString(v) && !strcmp(v->valuestring, "pcp"))
			p.trust = RQ_TRUST_PCP;
		else
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s.trust: expected \"dscp\" or \"pcp\"", path);
	}
#define SUB(k) (snprintf(sub, sizeof(sub), "%s." k, path), sub)
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "dscp2prio")) &&
	    (r = parse_dscp2prio(v, SUB("dscp2prio"), &p, e)) < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "pfc")) &&
	    (r = parse_prio_list(v, SUB("pfc"), &p.pfc, e)) < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ecn")) &&
	    (r = parse_prio_list(v, SUB("ecn"), &p.ecn, e)) < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ecnRequired"))) {
		if (!cJSON_IsBool(v))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.ecnRequired: expected a boolean",
				      path);
		p.ecn_required = cJSON_IsTrue(v);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ets")) &&
	    (r = parse_ets(v, SUB("ets"), &p.ets, e)) < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "trafficClass"))) {
		r = json_int_in(v, SUB("trafficClass"), -1, 0, 255, &tc, e);
		if (r < 0)
			return r;
		p.traffic_class = (int)tc;
	}
#undef SUB
	if (p.trust == RQ_TRUST_PCP && cJSON_GetObjectItemCaseSensitive(obj, "dscp2prio"))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s.dscp2prio: only meaningful with trust \"dscp\"", path);
	*ret = p;
	return 0;
}

static cJSON *prio_list_json(uint8_t mask)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < RQ_NPRIO; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
	return a;
}

cJSON *profile_to_json(const struct rq_profile *p)
{
	cJSON *o = cJSON_CreateObject(), *m;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "trust", p->trust == RQ_TRUST_DSCP ? "dscp" : "pcp");
	if (p->trust == RQ_TRUST_DSCP) {
		m = cJSON_AddObjectToObject(o, "dscp2prio");
		for (int d = 0; m && d < RQ_NDSCP; d++) {
			char k[4];

			if (!(p->dscp_override & (1ULL << d)))
				continue;
			snprintf(k, sizeof(k), "%d", d);
			cJSON_AddNumberToObject(m, k, p->dscp_prio[d]);
		}
	}
	cJSON_AddItemToObject(o, "pfc", prio_list_json(p->pfc));
	cJSON_AddItemToObject(o, "ecn", prio_list_json(p->ecn));
	cJSON_AddBoolToObject(o, "ecnRequired", p->ecn_required);
	if (p->ets.present) {
		cJSON *ets = cJSON_AddObjectToObject(o, "ets"), *tsa;
		int bw[8], ptc[8];

		tsa = cJSON_CreateArray();
		for (int i = 0; i < 8; i++) {
			bw[i] = p->ets.tc_bw[i];
			ptc[i] = p->ets.prio_tc[i];
			cJSON_AddItemToArray(tsa, cJSON_CreateString(tsa_name(p->ets.tsa[i])));
		}
		cJSON_AddItemToObject(ets, "tcBw", cJSON_CreateIntArray(bw, 8));
		cJSON_AddItemToObject(ets, "tsa", tsa);
		cJSON_AddItemToObject(ets, "prioTc", cJSON_CreateIntArray(ptc, 8));
	}
	cJSON_AddNumberToObject(o, "trafficClass", p->traffic_class);
	return o;
}

bool profile_pf_equal(const struct rq_profile *a, const struct rq_profile *b)
{
	if (a->trust != b->trust || a->pfc != b->pfc || a->ecn != b->ecn)
		return false;
	if (a->trust == RQ_TRUST_DSCP && memcmp(a->dscp_prio, b->dscp_prio, sizeof(a->dscp_prio)))
		return false;
	if (a->ets.present != b->ets.present)
		return false;
	if (a->ets.present && (memcmp(a->ets.tc_bw, b->ets.tc_bw, 8) ||
			       memcmp(a->ets.tsa, b->ets.tsa, 8) ||
			       memcmp(a->ets.prio_tc, b->ets.prio_tc, 8)))
		return false;
	return true;
}
