// SPDX-License-Identifier: Apache-2.0
/* netconf/wiring.c: node.wiring, the planned cabling (globs, paths in errors, first match). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netconf/netconf.h"

static int parse(const char *json, struct rq_catalog **ret, struct rq_error *e)
{
	rq_err_clear(e);
	*ret = NULL;
	return catalog_parse(json, strlen(json), ret, e);
}

#define W(x) "{\"node\": {\"wiring\": " x "}}"

START_TEST(wiring_parsed)
{
	struct rq_catalog *c = NULL;
	struct rq_error e;
	const struct rq_wiring_rule *r;

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert_ptr_null(c->wiring);
	ck_assert_uint_eq(c->n_wiring, 0);
	catalog_free(c);
	ck_assert_int_eq(parse(W("[]"), &c, &e), 0);
	ck_assert_uint_eq(c->n_wiring, 0);
	catalog_free(c);
	ck_assert_int_eq(
	    parse(W("[{\"pf\": \"ens1f0\", \"partner\": \"leaf-r1-*\", \"port\": \"swp[0-9]*\", "
		    "\"rail\": \"r1\"}, {\"pf\": \"0000:3b:00.*\", \"partner\": \"leaf-r2-*\", "
		    "\"rail\": \"r2\"}, {\"pf\": \"ens*\", \"partner\": \"*\", \"rail\": \"any\"}]"),
		  &c, &e),
	    0);
	ck_assert_uint_eq(c->n_wiring, 3);
	ck_assert_str_eq(c->wiring[0].port, "swp[0-9]*");
	ck_assert_str_eq(c->wiring[1].port, "");
	/* the first rule that matches the name or the PCI address */
	r = wiring_rule_for(c->wiring, c->n_wiring, "ens1f0", "0000:3b:00.0");
	ck_assert_str_eq(r->rail, "r1");
	r = wiring_rule_for(c->wiring, c->n_wiring, "ens2f0", "0000:3b:00.1");
	ck_assert_str_eq(r->rail, "r2");
	r = wiring_rule_for(c->wiring, c->n_wiring, "ens3f0", "0000:5e:00.0");
	ck_assert_str_eq(r->rail, "any");
	ck_assert_ptr_null(wiring_rule_for(c->wiring, c->n_wiring, "eth0", "0000:5e:00.0"));
	ck_assert_ptr_null(wiring_rule_for(c->wiring, c->n_wiring, NULL, ""));
	catalog_free(c);
	/* the partial parse of one ADD reads node whole: the same rule */
	ck_assert_int_eq(catalog_parse_for(W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": "
					     "\"r\"}]"),
					   strlen(W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": "
						    "\"r\"}]")),
					   "ai", NULL, &c, &e),
		     0);
	ck_assert_uint_eq(c->n_wiring, 1);
	catalog_free(c);
}
END_TEST

START_TEST(wiring_refused)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
	    {W("{}"), "node.wiring: expected a list of {\"pf\", \"partner\", \"port\", \"rail\"}"},
	    {W("[1]"), "node.wiring[0]: expected an object {\"pf\", \"partner\", \"port\", "
		       "\"rail\"}"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": \"r\"}, {\"pf\": \"ens[1\", "
	       "\"partner\": \"b\", \"rail\": \"r\"}]"),
	     "node.wiring[1].pf: expected a glob of printable characters without spaces, 1-127 "
	     "long, every \"[\" closed"},
	    {W("[{\"pf\": \"a\", \"partner\": \"leaf r1\", \"rail\": \"r\"}]"),
	     "node.wiring[0].partner: expected a glob*"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\", \"port\": \"swp\\\\\", \"rail\": \"r\"}]"),
	     "node.wiring[0].port: expected a glob*"},
	    {W("[{\"pf\": \"a\", \"partner\": \"[]\", \"rail\": \"r\"}]"),
	     "node.wiring[0].partner: expected a glob*"},
	    {W("[{\"pf\": \"a\", \"partner\": \"\", \"rail\": \"r\"}]"),
	     "node.wiring[0].partner: expected a glob*"},
	    {W("[{\"pf\": \"a\", \"rail\": \"r\"}]"), "node.wiring[0].partner: required"},
	    {W("[{\"partner\": \"a\", \"rail\": \"r\"}]"), "node.wiring[0].pf: required"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\"}]"), "node.wiring[0].rail: required"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": \"r 1\"}]"),
	     "node.wiring[0].rail: expected a name of [A-Za-z0-9._:/-], 1-63 long"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": 1}]"),
	     "node.wiring[0].rail: expected a name*"},
	    {W("[{\"pf\": \"a\", \"partner\": \"b\", \"rail\": \"r\", \"leaf\": \"x\"}]"),
	     "node.wiring[0].leaf: unknown key"},
	};
	struct rq_catalog *c = NULL;
	struct rq_error e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i].msg);

		ck_assert_int_eq(parse(bad[i].json, &c, &e), -EINVAL);
		ck_assert_ptr_null(c);
		ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
		if (bad[i].msg[n - 1] == '*')
			ck_assert_msg(!strncmp(e.msg, bad[i].msg, n - 1), "%s -> %s", bad[i].json,
				      e.msg);
		else
			ck_assert_msg(!strcmp(e.msg, bad[i].msg), "%s -> %s", bad[i].json, e.msg);
	}
}
END_TEST

START_TEST(wiring_globs)
{
	static const char *const good[] = {"a", "leaf-r1-*", "swp[0-9]", "swp[!0]", "x[]]",
					   "Ethernet1/[1-4]", "\\*", "?"};
	static const char *const badg[] = {"", "[", "a[b", "[]", "a\\", "a b", "a\tb", "é"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(wiring_glob_valid(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(badg) / sizeof(badg[0]); i++)
		ck_assert_msg(!wiring_glob_valid(badg[i]), "%s", badg[i]);
}
END_TEST

Suite *suite_wiring(void)
{
	Suite *s = suite_create("wiring");
	TCase *tc = tcase_create("node.wiring");

	tcase_add_test(tc, wiring_parsed);
	tcase_add_test(tc, wiring_refused);
	tcase_add_test(tc, wiring_globs);
	suite_add_tcase(s, tc);
	return s;
}
