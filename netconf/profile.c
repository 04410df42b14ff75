// SPDX-License-Identifier: Apache-2.0
/* Profiles: parse, validate, compare (serialised in profile_json.c). */
#include "netconf/profile.h"
#include "pkg/dcb/dcb.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "netconf/jsonpath.h"

void profile_builtin(struct rq_profile *ret)
{
	memset(ret, 0, sizeof(*ret));
	(void)snprintf(ret->name, sizeof(ret->name), "%s", RQ_BUILTIN_PROFILE);
	ret->has_trust = true;
	ret->trust = RQ_TRUST_DSCP;
	for (int d = 0; d < RQ_NDSCP; d++)
		ret->dscp_prio[d] = (uint8_t)(d >> 3);
	ret->dscp_prio[26] = 3;
	ret->dscp_prio[48] = 6;
	ret->dscp_override = (1ULL << 26) | (1ULL << 48);
	ret->pfc = 1u << 3;
	ret->ecn = 1u << 3;
	ret->ecn_required = false;
	/* CNPs on DSCP 48 -> priority 6, as the map above puts them (MOFED's defaults too) */
	ret->has_cnp[CNP_DSCP] = ret->has_cnp[CNP_PRIO] = true;
	ret->cnp[CNP_DSCP] = 48;
	ret->cnp[CNP_PRIO] = 6;
	ret->traffic_class = 106;
}

void profile_empty(struct rq_profile *ret, const char *name)
{
	memset(ret, 0, sizeof(*ret));
	(void)snprintf(ret->name, sizeof(ret->name), "%s", name ? name : "inline");
	ret->trust = RQ_TRUST_PCP;
	for (int d = 0; d < RQ_NDSCP; d++)
		ret->dscp_prio[d] = (uint8_t)(d >> 3);
	ret->traffic_class = -1;
}

/*
 * TSA is spelt as a name, never a number: "strict" (0), "ets" (2) and
 * "vendor" (255) are what RoCE NICs implement; the credit-based shaper (1)
 * has no use on a RoCE port and is refused like any other value.
 */
static int tsa_parse(const cJSON *v, uint8_t *ret)
{
	if (!cJSON_IsString(v))
		return -EINVAL;
	if (!strcmp(v->valuestring, "strict"))
		*ret = RQ_TSA_STRICT;
	else if (!strcmp(v->valuestring, "ets"))
		*ret = RQ_TSA_ETS;
	else if (!strcmp(v->valuestring, "vendor"))
		*ret = RQ_TSA_VENDOR;
	else
		return -EINVAL;
	return 0;
}

const char *profile_tsa_name(uint8_t t)
{
	return t == RQ_TSA_STRICT ? "strict" : t == RQ_TSA_ETS ? "ets" : "vendor";
}

/* An array of exactly 8 integers within [lo, hi]. */
static int int8_array(const cJSON *a, const char *path, int lo, int hi, uint8_t *out,
		      struct rq_error *e)
{
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(a))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an array of 8 integers",
			      path);
	if (cJSON_GetArraySize(a) != 8)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: has %d entries, expected 8", path,
			      cJSON_GetArraySize(a));
	cJSON_ArrayForEach(it, a)
	{
		long v;
		int r = json_int_in(it, path, i, lo, hi, &v, e);

		if (r < 0)
			return r;
		out[i++] = (uint8_t)v;
	}
	return 0;
}

/*
 * Bandwidth belongs to ETS TCs only: mlx5 refuses a bandwidth on a strict or
 * vendor TC ("BW for non ETS TC") and sums only ETS TCs, reporting 100 for
 * the others; a profile that says otherwise could never read back equal.
 */
static int ets_check_bw(const struct rq_ets *ets, const char *path, struct rq_error *e)
{
	bool any_ets = false;
	int sum = 0;

	for (int i = 0; i < RQ_NPRIO; i++) {
		if (ets->tsa[i] == RQ_TSA_ETS) {
			any_ets = true;
			sum += ets->tc_bw[i];
		} else if (ets->tc_bw[i]) {
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s.tcBw[%d]: TC %d is %s, bandwidth must be 0", path, i, i,
				      profile_tsa_name(ets->tsa[i]));
		}
	}
	if (any_ets && sum != 100)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s.tcBw: percentages sum to %d, expected 100", path, sum);
	return 0;
}

static int parse_ets(const cJSON *o, const char *path, struct rq_ets *ets, struct rq_error *e)
{
	static const char *const keys[] = {"tcBw", "tsa", "prioTc", NULL};
	char p[256];
	const cJSON *it;
	int r, i = 0;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object", path);
	r = json_only_keys(o, path, keys, NULL, e);
	if (r < 0)
		return r;
	for (int k = 0; k < 3; k++)
		if (!cJSON_GetObjectItemCaseSensitive(o, keys[k]))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.%s: required", path, keys[k]);
	(void)snprintf(p, sizeof(p), "%s.tcBw", path);
	r = int8_array(cJSON_GetObjectItemCaseSensitive(o, "tcBw"), p, 0, 100, ets->tc_bw, e);
	if (r < 0)
		return r;
	(void)snprintf(p, sizeof(p), "%s.prioTc", path);
	r = int8_array(cJSON_GetObjectItemCaseSensitive(o, "prioTc"), p, 0, 7, ets->prio_tc, e);
	if (r < 0)
		return r;
	(void)snprintf(p, sizeof(p), "%s.tsa", path);
	o = cJSON_GetObjectItemCaseSensitive(o, "tsa");
	if (!cJSON_IsArray(o) || cJSON_GetArraySize(o) != 8)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s: expected an array of 8 of "
			      "\"strict\", \"ets\", \"vendor\"",
			      p);
	cJSON_ArrayForEach(it, o)
	{
		if (tsa_parse(it, &ets->tsa[i]) < 0)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s[%d]: expected one of \"strict\", \"ets\", \"vendor\"", p,
				      i);
		i++;
	}
	r = ets_check_bw(ets, path, e);
	if (r < 0)
		return r;
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
	cJSON_ArrayForEach(it, a)
	{
		long v;
		int r = json_int_in(it, path, i, 0, 7, &v, e);

		if (r < 0)
			return r;
		if (mask & (1u << v))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s[%d]: priority %ld listed twice", path, i, v);
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
	cJSON_ArrayForEach(it, o)
	{
		char sub[300];
		const char *k = it->string;
		long d = 0, v;
		int r;

		for (const char *c = k; *c; c++)
			d = (*c >= '0' && *c <= '9' && d < 1000) ? d * 10 + (*c - '0') : 1000;
		if (!k[0] || (k[0] == '0' && k[1]) || d > 63)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "%s: key \"%s\" is not a DSCP value 0-63", path, k);
		(void)snprintf(sub, sizeof(sub), "%s.%s", path, k);
		r = json_int_in(it, sub, -1, 0, 7, &v, e);
		if (r < 0)
			return r;
		p->dscp_prio[d] = (uint8_t)v;
		p->dscp_override |= 1ULL << d;
	}
	return 0;
}

/* "cnp": {"dscp": 0-63, "prio": 0-7}, either or both: the port's CNP class. */
static int parse_cnp(const cJSON *v, const char *path, struct rq_profile *p, struct rq_error *e)
{
	static const char *const keys[] = {"dscp", "prio", NULL};
	static const long max[CNP_N] = {63, 7};
	char sub[320];
	int r;

	if (!cJSON_IsObject(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s: expected an object {\"dscp\": 0-63, \"prio\": 0-7}", path);
	r = json_only_keys(v, path, keys, NULL, e);
	if (r < 0)
		return r;
	for (int f = 0; f < CNP_N; f++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(v, keys[f]);
		long x;

		if (!it)
			continue;
		(void)snprintf(sub, sizeof(sub), "%s.%s", path, keys[f]);
		r = json_int_in(it, sub, -1, 0, max[f], &x, e);
		if (r < 0)
			return r;
		p->has_cnp[f] = true;
		p->cnp[f] = (uint8_t)x;
	}
	if (!p->has_cnp[CNP_DSCP] && !p->has_cnp[CNP_PRIO])
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: names neither \"dscp\" nor \"prio\"",
			      path);
	return 0;
}

static int parse_trust(const cJSON *v, const char *path, struct rq_profile *p, struct rq_error *e)
{
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "dscp"))
		p->trust = RQ_TRUST_DSCP;
	else if (cJSON_IsString(v) && !strcmp(v->valuestring, "pcp"))
		p->trust = RQ_TRUST_PCP;
	else
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.trust: expected \"dscp\" or \"pcp\"",
			      path);
	p->has_trust = true;
	return 0;
}

/* trafficClass and tosScope, each on its own (@keep) */
static int parse_scalars(const cJSON *obj, const char *path, struct rq_profile *p,
			 struct rq_errlist *keep, struct rq_error *e)
{
	const cJSON *v;
	char sub[300];
	long tc;
	int r;

	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "trafficClass"))) {
		(void)snprintf(sub, sizeof(sub), "%s.trafficClass", path);
		r = json_int_in(v, sub, -1, 0, 255, &tc, e);
		if (r == 0)
			p->traffic_class = (int)tc;
		if ((r = rq_err_keep(keep, e, r)) < 0)
			return r;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "tosScope"))) {
		r = 0;
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "all-qps"))
			p->tos_scope = RQ_TOS_SCOPE_ALL_QPS;
		else if (cJSON_IsString(v) && !strcmp(v->valuestring, "rdma-cm"))
			p->tos_scope = RQ_TOS_SCOPE_RDMA_CM;
		else
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%s.tosScope: expected \"rdma-cm\" or \"all-qps\"", path);
		if ((r = rq_err_keep(keep, e, r)) < 0)
			return r;
	}
	return 0;
}

int profile_parse(const cJSON *obj, const char *path, const char *name, struct rq_errlist *keep,
		  struct rq_profile *ret, struct rq_error *e)
{
	static const char *const keys[] = {"trust",	  "dscp2prio", "pfc",	       "ecn",
					   "ecnRequired", "ets",       "trafficClass", "tosScope",
					   "cnp",	  NULL};
	struct rq_profile p;
	const cJSON *v;
	char sub[300];
	int r;

	profile_empty(&p, name);
	if (!cJSON_IsObject(obj))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object", path);
	r = json_only_keys(obj, path, keys, keep, e);
	if (r < 0)
		return r;
		/* each key on its own: with @keep, an error in one does not hide the next */
#define SUB(k) (snprintf(sub, sizeof(sub), "%s." k, path), sub)
#define KEEP(x)                                                                                    \
	do {                                                                                       \
		if ((r = rq_err_keep(keep, e, (x))) < 0)                                           \
			return r;                                                                  \
	} while (0)
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "trust")))
		KEEP(parse_trust(v, path, &p, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "dscp2prio")))
		KEEP(parse_dscp2prio(v, SUB("dscp2prio"), &p, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "pfc")))
		KEEP(parse_prio_list(v, SUB("pfc"), &p.pfc, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ecn")))
		KEEP(parse_prio_list(v, SUB("ecn"), &p.ecn, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ecnRequired"))) {
		if (!cJSON_IsBool(v))
			KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.ecnRequired: expected a boolean",
				    path));
		p.ecn_required = cJSON_IsTrue(v);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "ets")))
		KEEP(parse_ets(v, SUB("ets"), &p.ets, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(obj, "cnp")))
		KEEP(parse_cnp(v, SUB("cnp"), &p, e));
	KEEP(parse_scalars(obj, path, &p, keep, e));
#undef SUB
	/* DSCP entries mean DSCP trust: mlx5 trusts DSCP while one DSCP APP entry exists */
	if (cJSON_GetObjectItemCaseSensitive(obj, "dscp2prio")) {
		if (p.has_trust && p.trust == RQ_TRUST_PCP)
			KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				    "%s.dscp2prio: only meaningful with trust \"dscp\"", path));
		p.has_trust = true;
		p.trust = RQ_TRUST_DSCP;
	}
#undef KEEP
	*ret = p;
	return 0;
}

int profile_from_json(const cJSON *obj, const char *path, const char *name, struct rq_profile *ret,
		      struct rq_error *e)
{
	return profile_parse(obj, path, name, NULL, ret, e);
}

bool profile_has_pf_req(const struct rq_profile *p)
{
	return p->has_trust || p->dscp_override || p->pfc || p->ecn || p->ets.present ||
	       p->has_cnp[CNP_DSCP] || p->has_cnp[CNP_PRIO];
}

static bool ets_same(const struct rq_ets *a, const struct rq_ets *b)
{
	return !memcmp(a->tc_bw, b->tc_bw, 8) && !memcmp(a->tsa, b->tsa, 8) &&
	       !memcmp(a->prio_tc, b->prio_tc, 8);
}

static void ets_says(const struct rq_ets *t, char *buf, size_t len)
{
	(void)snprintf(buf, len,
		       "ets tcBw %u/%u/%u/%u/%u/%u/%u/%u tsa %s/%s/%s/%s/%s/%s/%s/%s prioTc "
		       "%u/%u/%u/%u/%u/%u/%u/%u",
		       t->tc_bw[0], t->tc_bw[1], t->tc_bw[2], t->tc_bw[3], t->tc_bw[4], t->tc_bw[5],
		       t->tc_bw[6], t->tc_bw[7], profile_tsa_name(t->tsa[0]),
		       profile_tsa_name(t->tsa[1]), profile_tsa_name(t->tsa[2]),
		       profile_tsa_name(t->tsa[3]), profile_tsa_name(t->tsa[4]),
		       profile_tsa_name(t->tsa[5]), profile_tsa_name(t->tsa[6]),
		       profile_tsa_name(t->tsa[7]), t->prio_tc[0], t->prio_tc[1], t->prio_tc[2],
		       t->prio_tc[3], t->prio_tc[4], t->prio_tc[5], t->prio_tc[6], t->prio_tc[7]);
}

bool profile_req_conflict(const struct rq_profile *a, const struct rq_profile *b, char *a_says,
			  char *b_says, size_t len)
{
	uint64_t both = a->dscp_override & b->dscp_override;

	if (a->has_trust && b->has_trust && a->trust != b->trust) {
		(void)snprintf(a_says, len, "trust %s", a->trust == RQ_TRUST_DSCP ? "dscp" : "pcp");
		(void)snprintf(b_says, len, "trust %s", b->trust == RQ_TRUST_DSCP ? "dscp" : "pcp");
		return true;
	}
	for (int d = 0; d < RQ_NDSCP; d++)
		if ((both & (1ULL << d)) && a->dscp_prio[d] != b->dscp_prio[d]) {
			(void)snprintf(a_says, len, "DSCP %d -> priority %u", d, a->dscp_prio[d]);
			(void)snprintf(b_says, len, "DSCP %d -> priority %u", d, b->dscp_prio[d]);
			return true;
		}
	for (int f = 0; f < CNP_N; f++)
		if (a->has_cnp[f] && b->has_cnp[f] && a->cnp[f] != b->cnp[f]) {
			(void)snprintf(a_says, len, "CNP %s %u", f == CNP_DSCP ? "dscp" : "prio",
				       a->cnp[f]);
			(void)snprintf(b_says, len, "CNP %s %u", f == CNP_DSCP ? "dscp" : "prio",
				       b->cnp[f]);
			return true;
		}
	if (a->ets.present && b->ets.present && !ets_same(&a->ets, &b->ets)) {
		ets_says(&a->ets, a_says, len);
		ets_says(&b->ets, b_says, len);
		return true;
	}
	return false;
}

void profile_req_merge(struct rq_profile *acc, const struct rq_profile *b)
{
	if (!acc->has_trust && b->has_trust) {
		acc->has_trust = true;
		acc->trust = b->trust;
	}
	for (int d = 0; d < RQ_NDSCP; d++)
		if ((b->dscp_override & (1ULL << d)) && !(acc->dscp_override & (1ULL << d))) {
			acc->dscp_prio[d] = b->dscp_prio[d];
			acc->dscp_override |= 1ULL << d;
		}
	acc->pfc |= b->pfc;
	acc->ecn |= b->ecn;
	acc->ecn_required |= b->ecn_required;
	if (!acc->ets.present && b->ets.present)
		acc->ets = b->ets;
	for (int f = 0; f < CNP_N; f++)
		if (!acc->has_cnp[f] && b->has_cnp[f]) {
			acc->has_cnp[f] = true;
			acc->cnp[f] = b->cnp[f];
		}
}

void profile_dcb_target(const struct rq_profile *p, struct dcb_target *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->has_trust = p->has_trust;
	ret->trust = p->trust;
	memcpy(ret->dscp_prio, p->dscp_prio, sizeof(ret->dscp_prio));
	ret->dscp_override = p->dscp_override;
	ret->pfc = p->pfc;
	ret->ets = p->ets;
}

void profile_dcb_plan(const struct dcb_port_state *cur, const struct rq_profile *p,
		      struct dcb_plan *ret)
{
	struct dcb_target t;

	profile_dcb_target(p, &t);
	dcb_plan_from(cur, &t, ret);
}

int profile_dcb_describe(const struct dcb_port_state *cur, const struct rq_profile *p, char *buf,
			 size_t len)
{
	struct dcb_target t;

	profile_dcb_target(p, &t);
	return dcb_plan_describe(cur, &t, buf, len);
}
