// SPDX-License-Identifier: Apache-2.0
/*
 * What `validate` adds to the parsers (issue 49 item 14): the error collector
 * (every error in one run, ADD's first error unchanged), "did you mean" for
 * catalog keys and profile names, gdrLevel in any case, and the warnings of
 * netconf/lint.c (a class PFC does not cover, a class without ECT under
 * ecnRequired, a wiring rule an earlier one hides).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netconf/netconf.h"

static struct rq_errlist keep, warn;

static void lists_clear(void)
{
	memset(&keep, 0, sizeof(keep));
	memset(&warn, 0, sizeof(warn));
}

/* three mistakes, in three sections */
static const char three[] =
    "{\"profiles\": {\"gold\": {\"pfc\": [9], \"trafficClass\": 106, \"tosScope\": \"all\"}},"
    " \"namespaces\": {\"ai\": {\"allow\": [\"roce-losless\"]}},"
    " \"node\": {\"wirring\": []}}";

START_TEST(keep_catalog_every_error)
{
	struct rq_catalog *c = NULL;
	struct rq_error e, first;

	lists_clear();
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_keep(three, strlen(three), &keep, &c, &e), 0);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(keep.n, 4);
	ck_assert_str_eq(keep.msg[0], "profiles.gold.pfc[0]: 9 out of range 0-7");
	ck_assert_str_eq(keep.msg[1],
			 "profiles.gold.tosScope: expected \"rdma-cm\" or \"all-qps\"");
	ck_assert_str_eq(keep.msg[2], "namespaces.ai.allow[0]: unknown profile \"roce-losless\" "
				      "(did you mean \"roce-lossless\"?)");
	ck_assert_str_eq(keep.msg[3], "node.wirring: unknown key (did you mean \"wiring\"?)");
	/* the parse still fails, @e its first error */
	ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, keep.msg[0]);
	/* without a collector (ADD, the agent): the first error, the same code and message */
	rq_err_clear(&first);
	ck_assert_int_eq(catalog_parse(three, strlen(three), &c, &first), -ERANGE);
	ck_assert_int_eq(first.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(first.msg, keep.msg[0]);
	/* ADD's partial load of the catalog fails on it too */
	rq_err_clear(&first);
	ck_assert_int_lt(catalog_parse_for(three, strlen(three), "ai", "gold", &c, &first), 0);
	ck_assert_int_eq(first.code, RQ_ERR_CONFIG);
}
END_TEST

START_TEST(keep_catalog_valid)
{
	static const char ok[] = "{\"profiles\": {\"gold\": {\"pfc\": [3]}}}";
	struct rq_catalog *c = NULL;
	struct rq_error e;

	lists_clear();
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_keep(ok, strlen(ok), &keep, &c, &e), 0);
	ck_assert_uint_eq(keep.n, 0);
	ck_assert_ptr_null(c->keep); /* never kept past the parse */
	catalog_free(c);
	/* a decode error stops it: nothing to carry on with */
	ck_assert_int_eq(catalog_parse_keep("{\"x\":", 5, &keep, &c, &e), -EBADMSG);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
	ck_assert_uint_eq(keep.n, 0);
}
END_TEST

START_TEST(keep_netconf_every_error)
{
	static const char nad[] = "{\"cniVersion\": \"1.0.0\", \"name\": \"n\", \"type\": "
				  "\"rdma-qos\", \"pf\": \"sure\", \"numa\": 1, \"gdrLevel\": "
				  "\"far\", \"qos\": {\"pfc\": [8], \"trust\": \"x\"}}";
	struct rq_netconf *nc = NULL;
	struct rq_error e, first;

	lists_clear();
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_parse_keep(nad, strlen(nad), &keep, &nc, &e), 0);
	ck_assert_ptr_null(nc);
	ck_assert_uint_eq(keep.n, 5);
	ck_assert_str_eq(keep.msg[0], "pf: expected one of \"ignore\", \"verify\", \"ensure\"");
	ck_assert_str_eq(keep.msg[1], "numa: expected one of \"off\", \"warn\", \"strict\"");
	ck_assert_str_eq(keep.msg[2], "gdrLevel: expected one of \"pix\", \"pxb\", \"p2c\", "
				      "\"phb\", \"sys\" (any case)");
	ck_assert_str_eq(keep.msg[3], "qos.trust: expected \"dscp\" or \"pcp\"");
	ck_assert_str_eq(keep.msg[4], "qos.pfc[0]: 8 out of range 0-7");
	rq_err_clear(&first);
	ck_assert_int_eq(netconf_parse(nad, strlen(nad), &nc, &first), -EINVAL);
	ck_assert_int_eq(first.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(first.msg, keep.msg[0]);
	/* every unknown key, each with its nearest */
	{
		cJSON *o = cJSON_Parse("{\"profle\": 1, \"Pf\": 2, \"qqqqqqqqq\": 3}");

		lists_clear();
		rq_err_clear(&e);
		ck_assert_int_eq(netconf_unknown_keys(o, &keep, &e), 0);
		ck_assert_uint_eq(keep.n, 3);
		ck_assert_str_eq(keep.msg[0], "profle: unknown key (did you mean \"profile\"?)");
		ck_assert_str_eq(keep.msg[1], "Pf: unknown key (did you mean \"pf\"?)");
		ck_assert_ptr_nonnull(strstr(keep.msg[2], "rdma-qos knows type"));
		cJSON_Delete(o);
	}
}
END_TEST

START_TEST(keep_list_mechanics)
{
	struct rq_error e;

	lists_clear();
	rq_err_clear(&e);
	/* no collector: the error goes back as it came */
	ck_assert_int_eq(rq_err_keep(NULL, &e, rq_err(&e, RQ_ERR_CONFIG, -EINVAL, "a")), -EINVAL);
	ck_assert_str_eq(e.msg, "a");
	/* out of memory is never kept */
	rq_err_clear(&e);
	ck_assert_int_eq(rq_err_keep(&keep, &e, rq_err(&e, RQ_ERR_IO, -ENOMEM, "oom")), -ENOMEM);
	ck_assert_uint_eq(keep.n, 0);
	rq_err_clear(&e);
	for (int i = 0; i < RQ_ERRLIST_MAX + 3; i++)
		ck_assert_int_eq(rq_err_keep(&keep, &e, rq_err(&e, RQ_ERR_VERSION, -EINVAL, "%d", i)),
				 0);
	ck_assert(!rq_err_isset(&e));
	ck_assert_uint_eq(keep.n, RQ_ERRLIST_MAX);
	ck_assert_uint_eq(keep.dropped, 3);
	ck_assert_uint_eq(rq_errlist_count(&keep), RQ_ERRLIST_MAX + 3);
	ck_assert_int_eq(rq_errlist_since(&keep, RQ_ERRLIST_MAX + 3, &e), 0);
	ck_assert_int_eq(rq_errlist_since(&keep, 1, &e), -EINVAL);
	ck_assert_int_eq(e.code, RQ_ERR_VERSION);
	ck_assert_str_eq(e.msg, "1");
}
END_TEST

START_TEST(did_you_mean_profiles)
{
	static const char cat[] =
	    "{\"profiles\": {\"gold-lossless\": {\"pfc\": [3]}}, \"namespaces\": {\"ai\": "
	    "{\"allow\": [\"gold-lossless\", \"roce-lossless\"], \"default\": \"gold-losless\"}}}";
	static const char cat2[] = "{\"profiles\": {\"gold-lossless\": {\"pfc\": [3]}}, "
				   "\"namespaces\": {\"*\": {\"allow\": [\"gold-lossless\"]}}, "
				   "\"node\": {\"baseline\": \"gold-losles\"}}";
	static const char nad[] = "{\"cniVersion\": \"1.0.0\", \"name\": \"n\", \"profile\": "
				  "\"roce-losless\"}";
	struct rq_catalog *c = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;

	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse(cat, strlen(cat), &c, &e), 0);
	ck_assert_str_eq(e.msg, "namespaces.ai.default: unknown profile \"gold-losless\" (did you "
				"mean \"gold-lossless\"?)");
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse(cat2, strlen(cat2), &c, &e), 0);
	ck_assert_str_eq(e.msg, "node.baseline: unknown profile \"gold-losles\" (did you mean "
				"\"gold-lossless\"?)");
	/* ADD's resolution: the same hint, the same code */
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse("{\"namespaces\": {\"*\": {}}}", 25, &c, &e), 0);
	ck_assert_int_eq(netconf_parse(nad, strlen(nad), &nc, &e), 0);
	ck_assert_int_lt(netconf_resolve_profile(nc, c, "ai", &p, &pf, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg,
			 "profile: unknown profile \"roce-losless\" (did you mean \"roce-lossless\"?)");
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_resolve_profile(nc, NULL, "ai", &p, &pf, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "only \"roce-lossless\": did you mean it?"));
	/* far from every name: no hint */
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse("{\"node\": {\"baseline\": \"zzzzzz\"}}", 32, &c, &e), 0);
	ck_assert_str_eq(e.msg, "node.baseline: unknown profile \"zzzzzz\"");
	netconf_free(nc);
	catalog_free(c);
}
END_TEST

START_TEST(gdr_level_any_case)
{
	static const char nad[] = "{\"cniVersion\": \"1.0.0\", \"name\": \"n\", \"gdrLevel\": "
				  "\"PIX\"}";
	static const char cat[] = "{\"node\": {\"gdrLevel\": \"Phb\"}}";
	struct rq_catalog *c = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_error e;

	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(nad, strlen(nad), &nc, &e), 0);
	ck_assert_int_eq(nc->gdr_level, RQ_PCI_PIX);
	netconf_free(nc);
	ck_assert_int_eq(catalog_parse(cat, strlen(cat), &c, &e), 0);
	ck_assert_int_eq(c->gdr_level, RQ_PCI_PHB);
	catalog_free(c);
	/* ADD's partial load reads node the same way */
	ck_assert_int_eq(catalog_parse_for(cat, strlen(cat), "ai", NULL, &c, &e), 0);
	ck_assert_int_eq(c->gdr_level, RQ_PCI_PHB);
	catalog_free(c);
	/* still only the levels (node is a path), in any case */
	ck_assert_int_lt(catalog_parse("{\"node\": {\"gdrLevel\": \"NODE\"}}", 30, &c, &e), 0);
}
END_TEST

static void warnings_of(const char *cat)
{
	struct rq_catalog *c = NULL;
	struct rq_error e;

	lists_clear();
	rq_err_clear(&e);
	ck_assert_msg(catalog_parse(cat, strlen(cat), &c, &e) == 0, "%s", e.msg);
	catalog_warnings(c, &warn);
	catalog_free(c);
}

START_TEST(warn_lossless_class)
{
	/* DSCP 26 -> priority 2 by dscp2prio, PFC on 3: lossy */
	warnings_of("{\"profiles\": {\"g\": {\"trust\": \"dscp\", \"pfc\": [3], \"dscp2prio\": "
		    "{\"26\": 2}, \"trafficClass\": 106}}}");
	ck_assert_uint_eq(warn.n, 1);
	ck_assert_str_eq(warn.msg[0], "profiles.g.trafficClass: 106 is DSCP 26, which dscp2prio "
				      "maps to priority 2, and PFC is on priority 3 only: this class "
				      "is not lossless");
	/* the default map: DSCP 26 -> 3 (26/8), PFC on 4 */
	warnings_of("{\"profiles\": {\"g\": {\"trust\": \"dscp\", \"pfc\": [4, 5], "
		    "\"trafficClass\": 106}}}");
	ck_assert_uint_eq(warn.n, 1);
	ck_assert_ptr_nonnull(strstr(warn.msg[0], "the default map (DSCP/8) maps to priority 3, "
						  "and PFC is on priority 4, 5 only"));
	/* as meant: the built-in's shape, a lossy profile, pcp trust, no class: silent */
	warnings_of("{\"profiles\": {\"a\": {\"trust\": \"dscp\", \"pfc\": [3], \"dscp2prio\": "
		    "{\"26\": 3}, \"trafficClass\": 106}, \"lossy\": {\"trust\": \"dscp\", "
		    "\"trafficClass\": 0}, \"pcp\": {\"trust\": \"pcp\", \"pfc\": [3], "
		    "\"trafficClass\": 106}, \"noclass\": {\"trust\": \"dscp\", \"pfc\": [4]}}}");
	ck_assert_uint_eq(warn.n, 0);
	/* the node baseline's requirements join the profile's, as on the port */
	warnings_of("{\"profiles\": {\"base\": {\"trust\": \"dscp\", \"pfc\": [3], \"dscp2prio\": "
		    "{\"26\": 3}}, \"cls\": {\"trafficClass\": 106}}, \"node\": {\"baseline\": "
		    "\"base\"}}");
	ck_assert_uint_eq(warn.n, 0);
	warnings_of("{\"profiles\": {\"base\": {\"trust\": \"dscp\", \"pfc\": [5]}, \"cls\": "
		    "{\"pfc\": [4], \"trafficClass\": 106}}, \"node\": {\"baseline\": \"base\"}}");
	ck_assert_uint_eq(warn.n, 1);
	ck_assert_ptr_nonnull(strstr(warn.msg[0], "profiles.cls.trafficClass: 106"));
	ck_assert_ptr_nonnull(strstr(warn.msg[0], "(with node.baseline's)"));
	ck_assert_ptr_nonnull(strstr(warn.msg[0], "PFC is on priority 4, 5 only"));
	/* a profile that asks no PFC is lossy on purpose, baseline PFC or not */
	warnings_of("{\"profiles\": {\"base\": {\"trust\": \"dscp\", \"pfc\": [3]}, "
		    "\"lossy\": {\"trafficClass\": 0}}, \"node\": {\"baseline\": \"base\"}}");
	ck_assert_uint_eq(warn.n, 0);
}
END_TEST

START_TEST(warn_ecn_without_ect)
{
	warnings_of("{\"profiles\": {\"g\": {\"ecnRequired\": true, \"ecn\": [3], "
		    "\"trafficClass\": 104}, \"ok\": {\"ecnRequired\": true, \"trafficClass\": "
		    "106}, \"ect1\": {\"ecnRequired\": true, \"trafficClass\": 105}, \"free\": "
		    "{\"trafficClass\": 104}}}");
	ck_assert_uint_eq(warn.n, 1);
	ck_assert_str_eq(warn.msg[0],
			 "profiles.g.trafficClass: 104 has ECN bits 00 (Not-ECT) and ecnRequired is "
			 "true: a switch has no bit to mark in its packets, so DCQCN never slows a "
			 "sender; make the two low bits 10 (ECT(0)), e.g. 106");
	/* an inline profile through profile_warnings, its path "qos" */
	{
		struct rq_profile p;

		profile_builtin(&p);
		lists_clear();
		profile_warnings(&p, NULL, "qos", &warn);
		ck_assert_uint_eq(warn.n, 0);
		p.ecn_required = true;
		p.traffic_class = 104;
		profile_warnings(&p, NULL, "qos", &warn);
		ck_assert_uint_eq(warn.n, 1);
		ck_assert_ptr_nonnull(strstr(warn.msg[0], "qos.trafficClass: 104 has ECN bits 00"));
	}
}
END_TEST

START_TEST(wiring_covers)
{
	static const struct {
		const char *a, *b;
		bool covers;
	} t[] = {
	    {"eth*", "eth2", true},
	    {"eth*", "eth[0-3]", true},
	    {"eth*", "eth*", true},
	    {"*", "0000:3b:00.*", true},
	    {"eth[0-9]", "eth[0-3]", true},
	    {"eth?", "eth[0-3]", true},
	    {"0000:3b:*", "0000:3b:00.0", true},
	    {"ens1f[01]", "ens1f0", true},
	    {"e*1", "eth*1", true},
	    {"eth\\*", "eth\\*", true},
	    {"eth?", "eth*", false}, /* eth10 */
	    {"eth[0-3]", "eth*", false},
	    {"eth[0-3]", "eth[0-9]", false},
	    {"eth2", "eth*", false},
	    {"ens*", "eth*", false},
	    {"eth*1", "eth*", false},
	    {"eth\\*", "eth1", false},
	    {"eth[!0]", "eth0", false},
	    {"eth[!0]", "eth1", true},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(wiring_glob_covers(t[i].a, t[i].b) == t[i].covers, "%s covers %s: %d",
			      t[i].a, t[i].b, !t[i].covers);
}
END_TEST

START_TEST(warn_wiring_hidden)
{
	warnings_of("{\"node\": {\"wiring\": [{\"pf\": \"ens*\", \"partner\": \"leaf-*\", "
		    "\"rail\": \"r0\"}, {\"pf\": \"eth0\", \"partner\": \"x\", \"rail\": \"r1\"}, "
		    "{\"pf\": \"ens1f[0-1]\", \"partner\": \"x\", \"rail\": \"r2\"}, {\"pf\": "
		    "\"eth*\", \"partner\": \"x\", \"rail\": \"r3\"}, {\"pf\": \"eth0\", "
		    "\"partner\": \"y\", \"rail\": \"r4\"}]}}");
	ck_assert_uint_eq(warn.n, 2);
	ck_assert_str_eq(warn.msg[0], "node.wiring[2]: never used: node.wiring[0].pf \"ens*\" "
				      "matches every PF its pf \"ens1f[0-1]\" matches, and a PF's "
				      "rule is the first that matches it");
	ck_assert_ptr_nonnull(strstr(warn.msg[1], "node.wiring[4]: never used: node.wiring[1].pf "
						  "\"eth0\""));
	/* the more specific first: both used */
	warnings_of("{\"node\": {\"wiring\": [{\"pf\": \"eth0\", \"partner\": \"x\", \"rail\": "
		    "\"r1\"}, {\"pf\": \"eth*\", \"partner\": \"x\", \"rail\": \"r2\"}]}}");
	ck_assert_uint_eq(warn.n, 0);
}
END_TEST

Suite *suite_lint(void)
{
	Suite *s = suite_create("lint");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, keep_catalog_every_error);
	tcase_add_test(tc, keep_catalog_valid);
	tcase_add_test(tc, keep_netconf_every_error);
	tcase_add_test(tc, keep_list_mechanics);
	tcase_add_test(tc, did_you_mean_profiles);
	tcase_add_test(tc, gdr_level_any_case);
	tcase_add_test(tc, warn_lossless_class);
	tcase_add_test(tc, warn_ecn_without_ect);
	tcase_add_test(tc, wiring_covers);
	tcase_add_test(tc, warn_wiring_hidden);
	suite_add_tcase(s, tc);
	return s;
}
