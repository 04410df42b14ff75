// SPDX-License-Identifier: Apache-2.0
/* netconf/profile.c: every validation rule, defaults, serialisation, PF-wide equality. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/profile.h"
#include "pkg/dcb/dcb.h"

#define ETS_OK "\"tsa\":[\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\"]"
#define PTC_OK "\"prioTc\":[0,1,2,3,4,5,6,7]"
#define BW_OK "\"tcBw\":[10,10,10,40,10,10,5,5]"

/* Parse @json as the profile at @path; returns the rq_error code (0 = accepted). */
static int prof(const char *json, const char *path, struct rq_profile *ret, struct rq_error *e)
{
	cJSON *o = cJSON_Parse(json);
	int r;

	ck_assert_msg(o != NULL, "test JSON does not parse: %s", json);
	rq_err_clear(e);
	r = profile_from_json(o, path, "t", ret, e);
	cJSON_Delete(o);
	if (r < 0) {
		ck_assert_int_eq(r == -EINVAL || r == -ERANGE, 1);
		ck_assert_int_ne(e->code, 0);
		return e->code;
	}
	ck_assert_int_eq(r, 0);
	return 0;
}

struct bad_case {
	const char *json;
	const char *msg; /* exact message */
};

static const struct bad_case bad[] = {
	{ "[]", "qos: expected an object" },
	{ "3", "qos: expected an object" },
	{ "{\"pfcs\":[3]}", "qos.pfcs: unknown key (did you mean \"pfc\"?)" },
	{ "{\"Trust\":\"dscp\"}", "qos.Trust: unknown key (did you mean \"trust\"?)" },
	{ "{\"trust\":\"DSCP\"}", "qos.trust: expected \"dscp\" or \"pcp\"" },
	{ "{\"trust\":1}", "qos.trust: expected \"dscp\" or \"pcp\"" },
	{ "{\"dscp2prio\":[]}", "qos.dscp2prio: expected an object of DSCP: priority" },
	{ "{\"dscp2prio\":{\"64\":1}}", "qos.dscp2prio: key \"64\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"026\":3}}", "qos.dscp2prio: key \"026\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"00\":3}}", "qos.dscp2prio: key \"00\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"-1\":3}}", "qos.dscp2prio: key \"-1\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"+1\":3}}", "qos.dscp2prio: key \"+1\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"\":3}}", "qos.dscp2prio: key \"\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\" 1\":3}}", "qos.dscp2prio: key \" 1\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"1.0\":3}}", "qos.dscp2prio: key \"1.0\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"af31\":3}}", "qos.dscp2prio: key \"af31\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"99999999999999999999\":3}}",
	  "qos.dscp2prio: key \"99999999999999999999\" is not a DSCP value 0-63" },
	{ "{\"dscp2prio\":{\"26\":8}}", "qos.dscp2prio.26: 8 out of range 0-7" },
	{ "{\"dscp2prio\":{\"26\":-1}}", "qos.dscp2prio.26: -1 out of range 0-7" },
	{ "{\"dscp2prio\":{\"26\":3.5}}", "qos.dscp2prio.26: 3.5 is not an integer" },
	{ "{\"dscp2prio\":{\"26\":\"3\"}}", "qos.dscp2prio.26: expected an integer 0-7" },
	{ "{\"dscp2prio\":{\"26\":null}}", "qos.dscp2prio.26: expected an integer 0-7" },
	{ "{\"pfc\":{}}", "qos.pfc: expected an array of priorities 0-7" },
	{ "{\"pfc\":3}", "qos.pfc: expected an array of priorities 0-7" },
	{ "{\"pfc\":[0,1,9]}", "qos.pfc[2]: 9 out of range 0-7" },
	{ "{\"pfc\":[-1]}", "qos.pfc[0]: -1 out of range 0-7" },
	{ "{\"pfc\":[3.5]}", "qos.pfc[0]: 3.5 is not an integer" },
	{ "{\"pfc\":[1e300]}", "qos.pfc[0]: 1e+300 out of range 0-7" },
	{ "{\"pfc\":[-1e300]}", "qos.pfc[0]: -1e+300 out of range 0-7" },
	{ "{\"pfc\":[\"3\"]}", "qos.pfc[0]: expected an integer 0-7" },
	{ "{\"pfc\":[true]}", "qos.pfc[0]: expected an integer 0-7" },
	{ "{\"pfc\":[3,4,3]}", "qos.pfc[2]: priority 3 listed twice" },
	{ "{\"ecn\":\"3\"}", "qos.ecn: expected an array of priorities 0-7" },
	{ "{\"ecn\":[8]}", "qos.ecn[0]: 8 out of range 0-7" },
	{ "{\"ecn\":[2,2]}", "qos.ecn[1]: priority 2 listed twice" },
	{ "{\"ecn\":[0.5]}", "qos.ecn[0]: 0.5 is not an integer" },
	{ "{\"ecnRequired\":\"yes\"}", "qos.ecnRequired: expected a boolean" },
	{ "{\"ecnRequired\":1}", "qos.ecnRequired: expected a boolean" },
	{ "{\"trafficClass\":256}", "qos.trafficClass: 256 out of range 0-255" },
	{ "{\"trafficClass\":-1}", "qos.trafficClass: -1 out of range 0-255" },
	{ "{\"trafficClass\":10.5}", "qos.trafficClass: 10.5 is not an integer" },
	{ "{\"trafficClass\":\"106\"}", "qos.trafficClass: expected an integer 0-255" },
	{ "{\"trust\":\"pcp\",\"dscp2prio\":{\"26\":3}}",
	  "qos.dscp2prio: only meaningful with trust \"dscp\"" },
	{ "{\"ets\":[]}", "qos.ets: expected an object" },
	{ "{\"ets\":{\"tcbw\":[]," ETS_OK "," PTC_OK "}}", "qos.ets.tcbw: unknown key (did you mean \"tcBw\"?)" },
	{ "{\"ets\":{" BW_OK "," PTC_OK "}}", "qos.ets.tsa: required" },
	{ "{\"ets\":{" ETS_OK "," PTC_OK "}}", "qos.ets.tcBw: required" },
	{ "{\"ets\":{" BW_OK "," ETS_OK "}}", "qos.ets.prioTc: required" },
	{ "{\"ets\":{\"tcBw\":[10,10,10,40,10,10,10]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw: has 7 entries, expected 8" },
	{ "{\"ets\":{\"tcBw\":[10,10,10,40,10,10,5,5,0]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw: has 9 entries, expected 8" },
	{ "{\"ets\":{\"tcBw\":{}," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw: expected an array of 8 integers" },
	{ "{\"ets\":{\"tcBw\":[101,0,0,0,0,0,0,0]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw[0]: 101 out of range 0-100" },
	{ "{\"ets\":{\"tcBw\":[10,10,10,40,10,10,5,4.5]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw[7]: 4.5 is not an integer" },
	{ "{\"ets\":{" BW_OK "," ETS_OK ",\"prioTc\":[0,1,2,3,4,5,6,8]}}",
	  "qos.ets.prioTc[7]: 8 out of range 0-7" },
	{ "{\"ets\":{" BW_OK "," ETS_OK ",\"prioTc\":[0,1,2,3,4,5,6]}}",
	  "qos.ets.prioTc: has 7 entries, expected 8" },
	{ "{\"ets\":{" BW_OK "," PTC_OK
	  ",\"tsa\":[\"ets\",\"cbs\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\"]}}",
	  "qos.ets.tsa[1]: expected one of \"strict\", \"ets\", \"vendor\"" },
	{ "{\"ets\":{" BW_OK "," PTC_OK ",\"tsa\":[2,2,2,2,2,2,2,2]}}",
	  "qos.ets.tsa[0]: expected one of \"strict\", \"ets\", \"vendor\"" },
	{ "{\"ets\":{" BW_OK "," PTC_OK
	  ",\"tsa\":[\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ETS\"]}}",
	  "qos.ets.tsa[7]: expected one of \"strict\", \"ets\", \"vendor\"" },
	{ "{\"ets\":{" BW_OK "," PTC_OK ",\"tsa\":[\"ets\"]}}",
	  "qos.ets.tsa: expected an array of 8 of \"strict\", \"ets\", \"vendor\"" },
	{ "{\"ets\":{\"tcBw\":[10,10,10,30,10,10,5,5]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw: percentages sum to 90, expected 100" },
	{ "{\"ets\":{\"tcBw\":[10,10,10,50,10,10,5,5]," ETS_OK "," PTC_OK "}}",
	  "qos.ets.tcBw: percentages sum to 110, expected 100" },
	/* bandwidth is for ETS TCs only (mlx5: "BW for non ETS TC"); ETS TCs alone sum to 100 */
	{ "{\"ets\":{\"tcBw\":[10,0,5,60,0,0,25,0]," PTC_OK
	  ",\"tsa\":[\"ets\",\"strict\",\"strict\",\"ets\",\"strict\",\"strict\","
	  "\"ets\",\"strict\"]}}",
	  "qos.ets.tcBw[2]: TC 2 is strict, bandwidth must be 0" },
	{ "{\"ets\":{\"tcBw\":[10,0,0,60,0,0,30,100]," PTC_OK
	  ",\"tsa\":[\"ets\",\"strict\",\"strict\",\"ets\",\"strict\",\"strict\","
	  "\"ets\",\"vendor\"]}}",
	  "qos.ets.tcBw[7]: TC 7 is vendor, bandwidth must be 0" },
	{ "{\"ets\":{\"tcBw\":[10,0,0,60,0,0,20,0]," PTC_OK
	  ",\"tsa\":[\"ets\",\"strict\",\"strict\",\"ets\",\"strict\",\"strict\","
	  "\"ets\",\"strict\"]}}",
	  "qos.ets.tcBw: percentages sum to 90, expected 100" },
	{ "{\"ets\":{\"tcBw\":[0,0,0,0,0,0,0,100]," PTC_OK
	  ",\"tsa\":[\"ets\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\","
	  "\"strict\",\"strict\"]}}",
	  "qos.ets.tcBw[7]: TC 7 is strict, bandwidth must be 0" },
	{ "{\"ets\":{\"tcBw\":[100,0,0,0,0,0,0,0]," PTC_OK
	  ",\"tsa\":[\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\","
	  "\"strict\",\"strict\"]}}",
	  "qos.ets.tcBw[0]: TC 0 is strict, bandwidth must be 0" },
	{ "{\"tosScope\":\"every\"}", "qos.tosScope: expected \"rdma-cm\" or \"all-qps\"" },
	{ "{\"tosScope\":1}", "qos.tosScope: expected \"rdma-cm\" or \"all-qps\"" },
};

START_TEST(test_profile_rejects)
{
	struct rq_profile p;
	struct rq_error e;

	memset(&p, 0xa5, sizeof(p));
	ck_assert_int_eq(prof(bad[_i].json, "qos", &p, &e), RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, bad[_i].msg);
	/* output untouched on failure */
	ck_assert_int_eq(((unsigned char *)&p)[0], 0xa5);
	ck_assert_int_eq(p.traffic_class, (int)0xa5a5a5a5);
}
END_TEST

START_TEST(test_profile_path_prefix)
{
	struct rq_profile p;
	struct rq_error e;

	ck_assert_int_eq(prof("{\"pfc\":[0,9]}", "profiles.gold", &p, &e), RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "profiles.gold.pfc[1]: 9 out of range 0-7");
	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[1,1,1,1,1,1,1,1]," ETS_OK "," PTC_OK "}}",
			      "profiles.gold", &p, &e),
			 RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "profiles.gold.ets.tcBw: percentages sum to 8, expected 100");
}
END_TEST

static void assert_builtin_values(const struct rq_profile *p)
{
	ck_assert(p->has_trust);
	ck_assert_int_eq(p->trust, RQ_TRUST_DSCP);
	for (int d = 0; d < RQ_NDSCP; d++)
		ck_assert_int_eq(p->dscp_prio[d], d == 26 ? 3 : d == 48 ? 6 : d >> 3);
	ck_assert_uint_eq(p->dscp_override, (1ULL << 26) | (1ULL << 48));
	ck_assert_uint_eq(p->pfc, 0x08);
	ck_assert_uint_eq(p->ecn, 0x08);
	ck_assert(!p->ecn_required);
	ck_assert(!p->ets.present);
	ck_assert_int_eq(p->traffic_class, 106);
}

START_TEST(test_profile_builtin)
{
	struct rq_profile p;

	profile_builtin(&p);
	ck_assert_str_eq(p.name, "roce-lossless");
	assert_builtin_values(&p);
}
END_TEST

START_TEST(test_profile_defaults)
{
	struct rq_profile p;
	struct rq_error e;

	/* absent keys are no requirement; an absent trafficClass leaves the VF alone */
	ck_assert_int_eq(prof("{}", "qos", &p, &e), 0);
	ck_assert_str_eq(p.name, "t");
	ck_assert(!p.has_trust);
	ck_assert_uint_eq(p.dscp_override, 0);
	ck_assert_uint_eq(p.pfc, 0);
	ck_assert_uint_eq(p.ecn, 0);
	ck_assert(!p.ets.present);
	ck_assert_int_eq(p.traffic_class, -1);
	ck_assert(!profile_has_pf_req(&p));
	/* the lossy profile of DESIGN.md requires nothing of the PF */
	ck_assert_int_eq(prof("{\"trafficClass\":0}", "qos", &p, &e), 0);
	ck_assert_int_eq(p.traffic_class, 0);
	ck_assert_uint_eq(p.pfc, 0);
	ck_assert_uint_eq(p.dscp_override, 0);
	ck_assert(!profile_has_pf_req(&p));
	/* dscp2prio alone implies DSCP trust */
	ck_assert_int_eq(prof("{\"dscp2prio\":{\"26\":3}}", "qos", &p, &e), 0);
	ck_assert(p.has_trust);
	ck_assert_int_eq(p.trust, RQ_TRUST_DSCP);
	ck_assert(profile_has_pf_req(&p));
}
END_TEST

START_TEST(test_profile_values)
{
	struct rq_profile p;
	struct rq_error e;

	ck_assert_int_eq(prof("{\"trust\":\"dscp\",\"dscp2prio\":{\"0\":7,\"10\":5,\"63\":0},"
			      "\"pfc\":[7,0],\"ecn\":[],\"ecnRequired\":true,\"trafficClass\":255}",
			      "qos", &p, &e),
			 0);
	/* an explicit dscp2prio replaces the built-in overrides; the rest is dscp>>3 */
	ck_assert_uint_eq(p.dscp_override, (1ULL << 0) | (1ULL << 10) | (1ULL << 63));
	ck_assert_int_eq(p.dscp_prio[0], 7);
	ck_assert_int_eq(p.dscp_prio[10], 5);
	ck_assert_int_eq(p.dscp_prio[63], 0);
	ck_assert_int_eq(p.dscp_prio[11], 1);
	ck_assert_int_eq(p.dscp_prio[26], 3);
	ck_assert_int_eq(p.dscp_prio[62], 7);
	ck_assert_uint_eq(p.pfc, 0x81);
	ck_assert_uint_eq(p.ecn, 0);
	ck_assert(p.ecn_required);
	ck_assert_int_eq(p.traffic_class, 255);
	/* integral numbers written with a fraction or exponent are integers */
	ck_assert_int_eq(prof("{\"pfc\":[3.0,4e0],\"trafficClass\":1.06e2}", "qos", &p, &e), 0);
	ck_assert_uint_eq(p.pfc, 0x18);
	ck_assert_int_eq(p.traffic_class, 106);
	ck_assert_int_eq(prof("{\"pfc\":[0,1,2,3,4,5,6,7],\"ecn\":[0,1,2,3,4,5,6,7]}", "qos", &p,
			      &e),
			 0);
	ck_assert_uint_eq(p.pfc, 0xff);
	ck_assert_uint_eq(p.ecn, 0xff);
	ck_assert_int_eq(prof("{\"dscp2prio\":{}}", "qos", &p, &e), 0);
	ck_assert_uint_eq(p.dscp_override, 0);
	for (int d = 0; d < RQ_NDSCP; d++)
		ck_assert_int_eq(p.dscp_prio[d], d >> 3);
}
END_TEST

START_TEST(test_profile_full_dscp_map)
{
	char json[2048] = "{\"dscp2prio\":{";
	struct rq_profile p;
	struct rq_error e;

	for (int d = 0; d < RQ_NDSCP; d++)
		snprintf(json + strlen(json), sizeof(json) - strlen(json), "%s\"%d\":%d",
			 d ? "," : "", d, 7 - (d % 8));
	strcat(json, "}}");
	ck_assert_int_eq(prof(json, "qos", &p, &e), 0);
	ck_assert_uint_eq(p.dscp_override, ~0ULL);
	for (int d = 0; d < RQ_NDSCP; d++)
		ck_assert_int_eq(p.dscp_prio[d], 7 - (d % 8));
}
END_TEST

START_TEST(test_profile_pcp)
{
	struct rq_profile p;
	struct rq_error e;

	ck_assert_int_eq(prof("{\"trust\":\"pcp\",\"pfc\":[],\"ecn\":[],\"trafficClass\":0}", "qos",
			      &p, &e),
			 0);
	ck_assert_int_eq(p.trust, RQ_TRUST_PCP);
	/* no DSCP entries are installed under pcp: the map is neutral */
	ck_assert_uint_eq(p.dscp_override, 0);
	for (int d = 0; d < RQ_NDSCP; d++)
		ck_assert_int_eq(p.dscp_prio[d], d >> 3);
	ck_assert_uint_eq(p.pfc, 0);
	ck_assert_uint_eq(p.ecn, 0);
	ck_assert_int_eq(p.traffic_class, 0);
}
END_TEST

START_TEST(test_profile_ets)
{
	struct rq_profile p;
	struct rq_error e;

	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[10,0,0,60,0,0,30,0],"
			      "\"tsa\":[\"ets\",\"strict\",\"strict\",\"ets\",\"strict\",\"strict\","
			      "\"ets\",\"vendor\"],\"prioTc\":[0,0,0,3,0,0,6,7]}}",
			      "qos", &p, &e),
			 0);
	ck_assert(p.ets.present);
	const uint8_t bw[8] = { 10, 0, 0, 60, 0, 0, 30, 0 };
	const uint8_t tsa[8] = { 2, 0, 0, 2, 0, 0, 2, 255 };
	const uint8_t ptc[8] = { 0, 0, 0, 3, 0, 0, 6, 7 };

	ck_assert_mem_eq(p.ets.tc_bw, bw, 8);
	ck_assert_mem_eq(p.ets.tsa, tsa, 8);
	ck_assert_mem_eq(p.ets.prio_tc, ptc, 8);
	/* every TC strict: no bandwidth anywhere, nothing to sum */
	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[0,0,0,0,0,0,0,0],\"tsa\":[\"strict\","
			      "\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\","
			      "\"strict\"],\"prioTc\":[0,1,2,3,4,5,6,7]}}",
			      "qos", &p, &e),
			 0);
	ck_assert(p.ets.present);
	ck_assert_int_eq(p.ets.tsa[7], 0);
	/* no ETS TC at all (strict and vendor, all 0): nothing to sum */
	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[0,0,0,0,0,0,0,0]," PTC_OK
			      ",\"tsa\":[\"strict\",\"strict\",\"strict\",\"strict\","
			      "\"strict\",\"strict\",\"strict\",\"vendor\"]}}",
			      "qos", &p, &e),
			 0);
	ck_assert_int_eq(p.ets.tsa[7], 255);
	/* one ETS TC takes all the bandwidth */
	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[0,0,0,100,0,0,0,0]," PTC_OK
			      ",\"tsa\":[\"strict\",\"strict\",\"strict\",\"ets\","
			      "\"strict\",\"strict\",\"strict\",\"strict\"]}}",
			      "qos", &p, &e),
			 0);
}
END_TEST

static void assert_profiles_equal(const struct rq_profile *a, const struct rq_profile *b)
{
	ck_assert_str_eq(a->name, b->name);
	ck_assert_int_eq(a->has_trust, b->has_trust);
	ck_assert_int_eq(a->trust, b->trust);
	ck_assert_mem_eq(a->dscp_prio, b->dscp_prio, RQ_NDSCP);
	ck_assert_uint_eq(a->dscp_override, b->dscp_override);
	ck_assert_uint_eq(a->pfc, b->pfc);
	ck_assert_uint_eq(a->ecn, b->ecn);
	ck_assert_int_eq(a->ecn_required, b->ecn_required);
	ck_assert_int_eq(a->ets.present, b->ets.present);
	ck_assert_mem_eq(a->ets.tc_bw, b->ets.tc_bw, 8);
	ck_assert_mem_eq(a->ets.tsa, b->ets.tsa, 8);
	ck_assert_mem_eq(a->ets.prio_tc, b->ets.prio_tc, 8);
	ck_assert_int_eq(a->traffic_class, b->traffic_class);
	ck_assert_int_eq(a->tos_scope, b->tos_scope);
}

static const char *const round_trip[] = {
	"{}",
	"{\"trust\":\"pcp\",\"pfc\":[],\"ecn\":[],\"trafficClass\":0}",
	"{\"dscp2prio\":{\"0\":7,\"63\":1},\"pfc\":[0,7],\"ecn\":[1],\"ecnRequired\":true}",
	"{\"dscp2prio\":{}}",
	"{\"ets\":{\"tcBw\":[10,0,0,60,0,0,30,0],\"tsa\":[\"ets\",\"strict\",\"strict\",\"ets\","
	"\"strict\",\"strict\",\"ets\",\"vendor\"],\"prioTc\":[0,0,0,3,0,0,6,7]},"
	"\"trafficClass\":255}",
	"{\"tosScope\":\"all-qps\"}",
	"{\"tosScope\":\"rdma-cm\",\"trafficClass\":96}",
};

/* tosScope: absent is rdma-cm and is not written back; all-qps is. */
START_TEST(test_profile_tos_scope)
{
	struct rq_profile p;
	struct rq_error e;
	cJSON *j;

	ck_assert_int_eq(prof("{}", "qos", &p, &e), 0);
	ck_assert_int_eq(p.tos_scope, RQ_TOS_SCOPE_RDMA_CM);
	j = profile_to_json(&p);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "tosScope"));
	cJSON_Delete(j);
	ck_assert_int_eq(prof("{\"tosScope\":\"all-qps\"}", "qos", &p, &e), 0);
	ck_assert_int_eq(p.tos_scope, RQ_TOS_SCOPE_ALL_QPS);
	j = profile_to_json(&p);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "tosScope")->valuestring, "all-qps");
	cJSON_Delete(j);
}
END_TEST

START_TEST(test_profile_round_trip)
{
	struct rq_profile a, b;
	struct rq_error e;
	cJSON *j;
	char *s;

	ck_assert_int_eq(prof(round_trip[_i], "qos", &a, &e), 0);
	j = profile_to_json(&a);
	ck_assert_ptr_nonnull(j);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	ck_assert_int_eq(prof(s, "qos", &b, &e), 0);
	free(s);
	assert_profiles_equal(&a, &b);
}
END_TEST

START_TEST(test_profile_to_json_exact)
{
	struct rq_profile p;
	struct rq_error e;
	cJSON *j, *j2;
	char *s;

	profile_builtin(&p);
	j = profile_to_json(&p);
	s = cJSON_PrintUnformatted(j);
	ck_assert_str_eq(s, "{\"trust\":\"dscp\",\"dscp2prio\":{\"26\":3,\"48\":6},\"pfc\":[3],"
			    "\"ecn\":[3],\"cnp\":{\"dscp\":48,\"prio\":6},\"trafficClass\":106}");
	free(s);
	/* the PF index gets the requirements only */
	s = cJSON_PrintUnformatted(j2 = profile_req_to_json(&p));
	cJSON_Delete(j2);
	ck_assert_str_eq(s, "{\"trust\":\"dscp\",\"dscp2prio\":{\"26\":3,\"48\":6},\"pfc\":[3],"
			    "\"ecn\":[3],\"cnp\":{\"dscp\":48,\"prio\":6}}");
	free(s);
	cJSON_Delete(j);
	ck_assert_int_eq(prof("{\"trust\":\"pcp\",\"pfc\":[],\"ecn\":[],\"trafficClass\":0,"
			      "\"ets\":{\"tcBw\":[50,50,0,0,0,0,0,0],\"tsa\":[\"ets\",\"ets\","
			      "\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"vendor\"],"
			      "\"prioTc\":[0,0,0,0,1,1,1,1]}}",
			      "qos", &p, &e),
			 0);
	j = profile_to_json(&p);
	s = cJSON_PrintUnformatted(j);
	ck_assert_str_eq(s, "{\"trust\":\"pcp\","
			    "\"ets\":{\"tcBw\":[50,50,0,0,0,0,0,0],\"tsa\":[\"ets\",\"ets\","
			    "\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"vendor\"],"
			    "\"prioTc\":[0,0,0,0,1,1,1,1]},\"trafficClass\":0}");
	free(s);
	cJSON_Delete(j);
}
END_TEST

/* Requirements conflict only where they contradict; everything else unites. */
/* "cnp": a PF requirement of its own; either field alone; ranges; a real contradiction */
START_TEST(test_profile_cnp)
{
	struct rq_profile a, b, u;
	char x[200], y[200];
	struct rq_error e;

	ck_assert_int_eq(prof("{\"cnp\":{\"dscp\":46}}", "qos", &a, &e), 0);
	ck_assert(a.has_cnp[CNP_DSCP] && !a.has_cnp[CNP_PRIO]);
	ck_assert_uint_eq(a.cnp[CNP_DSCP], 46);
	ck_assert(profile_has_pf_req(&a));
	ck_assert_int_eq(prof("{\"cnp\":{\"dscp\":64}}", "qos", &a, &e), RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "qos.cnp.dscp: 64 out of range 0-63");
	ck_assert_int_eq(prof("{\"cnp\":{\"prio\":8}}", "qos", &a, &e), RQ_ERR_CONFIG);
	ck_assert_int_eq(prof("{\"cnp\":{}}", "qos", &a, &e), RQ_ERR_CONFIG);
	ck_assert_int_eq(prof("{\"cnp\":{\"pcp\":6}}", "qos", &a, &e), RQ_ERR_CONFIG);
	ck_assert_int_eq(prof("{\"cnp\":6}", "qos", &a, &e), RQ_ERR_CONFIG);
	profile_builtin(&a);
	ck_assert_int_eq(prof("{\"cnp\":{\"prio\":5}}", "qos", &b, &e), 0);
	ck_assert(profile_req_conflict(&a, &b, x, y, sizeof(x)));
	ck_assert_str_eq(x, "CNP prio 6");
	ck_assert_str_eq(y, "CNP prio 5");
	ck_assert_int_eq(prof("{\"cnp\":{\"dscp\":48}}", "qos", &b, &e), 0);
	ck_assert(!profile_req_conflict(&a, &b, x, y, sizeof(x)));
	profile_empty(&u, "u");
	profile_req_merge(&u, &b);
	profile_req_merge(&u, &a);
	ck_assert(u.has_cnp[CNP_DSCP] && u.has_cnp[CNP_PRIO]);
	ck_assert_uint_eq(u.cnp[CNP_PRIO], 6);
}
END_TEST

START_TEST(test_profile_req_conflict)
{
	struct rq_profile a, b, u;
	char x[200], y[200];
	struct rq_error e;

	profile_builtin(&a);
	b = a;
	ck_assert(!profile_req_conflict(&a, &b, x, y, sizeof(x)));
	/* a lossy profile never conflicts */
	ck_assert_int_eq(prof("{\"trafficClass\":0}", "qos", &b, &e), 0);
	ck_assert(!profile_req_conflict(&a, &b, x, y, sizeof(x)));
	ck_assert(!profile_req_conflict(&b, &a, x, y, sizeof(x)));
	/* more PFC, ECN, other DSCP entries: no contradiction, the union has both */
	ck_assert_int_eq(prof("{\"dscp2prio\":{\"34\":4},\"pfc\":[4],\"ecn\":[4]}", "qos",
			      &b, &e),
			 0);
	ck_assert(!profile_req_conflict(&a, &b, x, y, sizeof(x)));
	u = a;
	profile_req_merge(&u, &b);
	ck_assert_uint_eq(u.pfc, 0x18);
	ck_assert_uint_eq(u.ecn, 0x18);
	ck_assert_uint_eq(u.dscp_override, (1ULL << 26) | (1ULL << 48) | (1ULL << 34));
	ck_assert_int_eq(u.dscp_prio[34], 4);
	ck_assert_int_eq(u.dscp_prio[26], 3);
	ck_assert_int_eq(u.traffic_class, 106); /* the per-VF choice is not merged */
	/* one DSCP to two priorities */
	ck_assert_int_eq(prof("{\"dscp2prio\":{\"26\":5}}", "qos", &b, &e), 0);
	ck_assert(profile_req_conflict(&a, &b, x, y, sizeof(x)));
	ck_assert_str_eq(x, "DSCP 26 -> priority 3");
	ck_assert_str_eq(y, "DSCP 26 -> priority 5");
	/* dscp vs pcp trust */
	ck_assert_int_eq(prof("{\"trust\":\"pcp\"}", "qos", &b, &e), 0);
	ck_assert(profile_req_conflict(&a, &b, x, y, sizeof(x)));
	ck_assert_str_eq(x, "trust dscp");
	ck_assert_str_eq(y, "trust pcp");
	/* two different ETS; the same ETS twice is fine */
	ck_assert_int_eq(prof("{\"ets\":{\"tcBw\":[50,50,0,0,0,0,0,0],\"tsa\":[\"ets\",\"ets\","
			      "\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\"],"
			      "\"prioTc\":[0,0,0,1,0,0,0,0]}}",
			      "qos", &b, &e),
			 0);
	ck_assert(!profile_req_conflict(&a, &b, x, y, sizeof(x)));
	u = b;
	u.ets.tc_bw[0] = 40;
	u.ets.tc_bw[1] = 60;
	ck_assert(profile_req_conflict(&u, &b, x, y, sizeof(x)));
	ck_assert(!strncmp(x, "ets tcBw 40/60/", 15));
	ck_assert(!profile_req_conflict(&b, &b, x, y, sizeof(x)));
}
END_TEST

Suite *suite_profile(void);

Suite *suite_profile(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_profile_rejects, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_profile_path_prefix);
	tcase_add_test(tc, test_profile_builtin);
	tcase_add_test(tc, test_profile_defaults);
	tcase_add_test(tc, test_profile_values);
	tcase_add_test(tc, test_profile_full_dscp_map);
	tcase_add_test(tc, test_profile_pcp);
	tcase_add_test(tc, test_profile_ets);
	tcase_add_loop_test(tc, test_profile_round_trip, 0,
			    (int)(sizeof(round_trip) / sizeof(round_trip[0])));
	tcase_add_test(tc, test_profile_to_json_exact);
	tcase_add_test(tc, test_profile_req_conflict);
	tcase_add_test(tc, test_profile_cnp);
	tcase_add_test(tc, test_profile_tos_scope);
	suite_add_tcase(s, tc);
	return s;
}
