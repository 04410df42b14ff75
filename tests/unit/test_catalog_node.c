// SPDX-License-Identifier: Apache-2.0
/* netconf/catalog: node.kubeletDir, kubelet's root dir as a node setting; node.sharedResources. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netconf/netconf.h"

static int parse(const char *json, struct rq_catalog **ret, struct rq_error *e)
{
	rq_err_clear(e);
	return catalog_parse(json, strlen(json), ret, e);
}

START_TEST(kubelet_dir_default_and_set)
{
	struct rq_catalog *c = NULL;
	struct rq_error e;

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert_str_eq(c->kubelet_dir, "/var/lib/kubelet");
	catalog_free(c);
	ck_assert_int_eq(parse("{\"node\": {\"pf\": \"verify\"}}", &c, &e), 0);
	ck_assert_str_eq(c->kubelet_dir, "/var/lib/kubelet");
	catalog_free(c);
	ck_assert_int_eq(parse("{\"node\": {\"kubeletDir\": \"/var/lib/k0s/kubelet\"}}", &c, &e),
			 0);
	ck_assert_str_eq(c->kubelet_dir, "/var/lib/k0s/kubelet");
	ck_assert_int_eq(c->pf_max, RQ_PF_ENSURE);
	catalog_free(c);
	ck_assert_int_eq(
	    parse("{\"node\": {\"kubeletDir\": "
		  "\"/var/snap/microk8s/common/var/lib/kubelet\", \"pf\": \"verify\"}}",
		  &c, &e),
	    0);
	ck_assert_str_eq(c->kubelet_dir, "/var/snap/microk8s/common/var/lib/kubelet");
	ck_assert_int_eq(c->pf_max, RQ_PF_VERIFY);
	catalog_free(c);
}
END_TEST

START_TEST(kubelet_dir_refused)
{
	static const char *const bad[] = {
	    "{\"node\": {\"kubeletDir\": \"var/lib/kubelet\"}}",
	    "{\"node\": {\"kubeletDir\": 1}}",
	    "{\"node\": {\"kubeletDir\": \"\"}}",
	    "{\"node\": {\"kubeletDir\": \"/var/lib/kubelet dir\"}}",
	    "{\"node\": {\"kubeletDir\": \"/var/lib/\\n\"}}",
	};
	struct rq_catalog *c = NULL;
	struct rq_error e;
	char longpath[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse(bad[i], &c, &e), -EINVAL);
		ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
		ck_assert_msg(!strncmp(e.msg, "node.kubeletDir: expected an absolute path", 42),
			      "%s -> %s", bad[i], e.msg);
	}
	ck_assert_int_eq(parse("{\"node\": {\"kubeletDir\": \"/var/lib/../../etc\"}}", &c, &e),
			 -EINVAL);
	ck_assert_str_eq(e.msg, "node.kubeletDir: a \"..\" component is not allowed");
	ck_assert_int_eq(parse("{\"node\": {\"kubeletDir\": \"/var/lib/..\"}}", &c, &e), -EINVAL);
	/* "..x" is a name, not a component */
	ck_assert_int_eq(parse("{\"node\": {\"kubeletDir\": \"/var/..x/kubelet\"}}", &c, &e), 0);
	catalog_free(c);
	memset(longpath, 'a', sizeof(longpath));
	longpath[0] = '/';
	(void)snprintf(longpath + 300, 100, "\"}}");
	{
		char json[512];

		(void)snprintf(json, sizeof(json), "{\"node\": {\"kubeletDir\": \"%s", longpath);
		ck_assert_int_eq(parse(json, &c, &e), -EINVAL);
	}
	ck_assert_int_eq(parse("{\"node\": {\"kubeletdir\": \"/x\"}}", &c, &e), -EINVAL);
}
END_TEST

START_TEST(numa_source)
{
	static const char *const names[] = {"auto", "api", "files"};
	struct rq_catalog *c = NULL;
	struct rq_error e;
	char json[128];

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert_int_eq(c->numa_source, RQ_NUMA_SRC_AUTO);
	catalog_free(c);
	for (int i = 0; i < 3; i++) {
		(void)snprintf(json, sizeof(json), "{\"node\": {\"numaSource\": \"%s\"}}",
			       names[i]);
		ck_assert_int_eq(parse(json, &c, &e), 0);
		ck_assert_int_eq(c->numa_source, i);
		ck_assert_str_eq(numa_source_name(c->numa_source), names[i]);
		catalog_free(c);
	}
	ck_assert_int_eq(parse("{\"node\": {\"numaSource\": \"API\"}}", &c, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "node.numaSource: expected one of \"auto\", \"api\", \"files\"");
	ck_assert_int_eq(parse("{\"node\": {\"numaSource\": 1}}", &c, &e), -EINVAL);
	ck_assert_int_eq(parse("{\"node\": {\"numaSource\": null}}", &c, &e), -EINVAL);
}
END_TEST

START_TEST(unchained_mode)
{
	static const char *const names[] = {"report", "adopt", "ignore"};
	struct rq_catalog *c = NULL;
	struct rq_error e;
	char json[128];

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert_int_eq(c->unchained, RQ_UNCHAINED_REPORT);
	catalog_free(c);
	for (int i = 0; i < 3; i++) {
		(void)snprintf(json, sizeof(json), "{\"node\": {\"unchained\": \"%s\"}}", names[i]);
		ck_assert_int_eq(parse(json, &c, &e), 0);
		ck_assert_int_eq(c->unchained, i);
		ck_assert_str_eq(catalog_unchained_name(c->unchained), names[i]);
		catalog_free(c);
	}
	ck_assert_int_eq(parse("{\"node\": {\"unchained\": \"Adopt\"}}", &c, &e), -EINVAL);
	ck_assert_str_eq(e.msg,
			 "node.unchained: expected one of \"report\", \"adopt\", \"ignore\"");
	ck_assert_int_eq(parse("{\"node\": {\"unchained\": true}}", &c, &e), -EINVAL);
	ck_assert_int_eq(parse("{\"node\": {\"unchained\": null}}", &c, &e), -EINVAL);
	/* the partial parse of one ADD reads node whole: the same rule */
	ck_assert_int_eq(
	    catalog_parse_for("{\"node\": {\"unchained\": \"x\"}}", 28, "ai", NULL, &c, &e),
	    -EINVAL);
	ck_assert_int_eq(
	    catalog_parse_for("{\"node\": {\"unchained\": \"adopt\"}}", 32, "ai", NULL, &c, &e), 0);
	ck_assert_int_eq(c->unchained, RQ_UNCHAINED_ADOPT);
	catalog_free(c);
}
END_TEST

/* node.linkHealth.fecUncorrectablePerMinute: the FEC floor (issue 49 item 5) */
START_TEST(link_health_floor)
{
	static const char *const bad[] = {
	    "{\"node\": {\"linkHealth\": {\"fecUncorrectablePerMinute\": -1}}}",
	    "{\"node\": {\"linkHealth\": {\"fecUncorrectablePerMinute\": \"1\"}}}",
	    "{\"node\": {\"linkHealth\": {\"fecUncorrectablePerMinute\": 1e9}}}",
	};
	struct rq_catalog *c = NULL;
	struct rq_error e;

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert(c->fec_uncorr_per_min == 1.0);
	catalog_free(c);
	ck_assert_int_eq(
	    parse("{\"node\": {\"linkHealth\": {\"fecUncorrectablePerMinute\": 0.5}}}", &c, &e), 0);
	ck_assert(c->fec_uncorr_per_min == 0.5);
	catalog_free(c);
	ck_assert_int_eq(
	    parse("{\"node\": {\"linkHealth\": {\"fecUncorrectablePerMinute\": 0}}}", &c, &e), 0);
	ck_assert(c->fec_uncorr_per_min == 0.0);
	catalog_free(c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse(bad[i], &c, &e), -EINVAL);
		ck_assert_msg(
		    !strncmp(e.msg, "node.linkHealth.fecUncorrectablePerMinute: expected", 51),
		    "%s -> %s", bad[i], e.msg);
	}
	ck_assert_int_eq(parse("{\"node\": {\"linkHealth\": {\"fec\": 1}}}", &c, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "node.linkHealth.fec: unknown key");
	ck_assert_int_eq(parse("{\"node\": {\"linkHealth\": 3}}", &c, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "node.linkHealth: expected an object");
	/* observability only: the agent's lenient parse ignores it (default floor) and says why */
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_lenient(bad[0], strlen(bad[0]), &c, &e), 0);
	ck_assert(c->fec_uncorr_per_min == 1.0);
	ck_assert(!strncmp(c->obs_err, "node.linkHealth.fecUncorrectablePerMinute", 41));
	catalog_free(c);
}
END_TEST

/* node.sharedResources (netconf/shared_res.c): a resource to the PFs it shares */
START_TEST(shared_resources)
{
	static const struct {
		const char *json, *msg; /* msg NULL: valid */
	} cases[] = {
	    {"{\"rdma/hca_shared_devices_a\": [\"ens1f0np0\", \"0000:3b:00.1\"], "
	     "\"example.com/x.y_z-1\": [\"bond0\"]}",
	     NULL},
	    {"{}", NULL},
	    {"[\"ens1f0np0\"]", "node.sharedResources: expected an object"},
	    {"{\"hca_shared_devices_a\": [\"a\"]}",
	     "node.sharedResources: \"hca_shared_devices_a\" is not a device plugin resource name"},
	    {"{\"rdma/a/b\": [\"a\"]}", "node.sharedResources: \"rdma/a/b\" is not"},
	    {"{\"RDMA/a\": [\"a\"]}", "node.sharedResources: \"RDMA/a\" is not"},
	    {"{\"rdma/-a\": [\"a\"]}", "node.sharedResources: \"rdma/-a\" is not"},
	    {"{\"rdma/a\": []}", "node.sharedResources[\"rdma/a\"]: expected a list of 1-64 PFs"},
	    {"{\"rdma/a\": \"ens1f0np0\"}", "node.sharedResources[\"rdma/a\"]: expected a list"},
	    {"{\"rdma/a\": [\"e\", \"f\", \"e\"]}",
	     "node.sharedResources[\"rdma/a\"][2]: \"e\" is listed twice"},
	    {"{\"rdma/a\": [\"ens1f0np0123456\"]}", NULL}, /* 15: IFNAMSIZ - 1 */
	    {"{\"rdma/a\": [\"ens1f0np01234567\"]}",
	     "node.sharedResources[\"rdma/a\"][0]: expected a PF's netdev name"},
	    {"{\"rdma/a\": [\"a/b\"]}", "node.sharedResources[\"rdma/a\"][0]: expected"},
	    {"{\"rdma/a\": [\"..\"]}", "node.sharedResources[\"rdma/a\"][0]: expected"},
	    {"{\"rdma/a\": [\"en s\"]}", "node.sharedResources[\"rdma/a\"][0]: expected"},
	    {"{\"rdma/a\": [\"0000:3b:20.0\"]}", "node.sharedResources[\"rdma/a\"][0]: expected"},
	    {"{\"rdma/a\": [1]}", "node.sharedResources[\"rdma/a\"][0]: expected"},
	};
	struct rq_catalog *c = NULL;
	struct rq_error e;
	char json[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		(void)snprintf(json, sizeof(json), "{\"node\": {\"sharedResources\": %s}}",
			       cases[i].json);
		c = NULL;
		if (!cases[i].msg) {
			ck_assert_msg(parse(json, &c, &e) == 0, "%s -> %s", json, e.msg);
			catalog_free(c);
			continue;
		}
		ck_assert_int_eq(parse(json, &c, &e), -EINVAL);
		ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
		ck_assert_msg(!strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)), "%s -> %s", json,
			      e.msg);
	}
}
END_TEST

Suite *suite_catalog_node(void)
{
	Suite *s = suite_create("catalog_node");
	TCase *tc = tcase_create("kubeletDir");

	tcase_add_test(tc, kubelet_dir_default_and_set);
	tcase_add_test(tc, kubelet_dir_refused);
	tcase_add_test(tc, numa_source);
	tcase_add_test(tc, unchained_mode);
	tcase_add_test(tc, link_health_floor);
	tcase_add_test(tc, shared_resources);
	suite_add_tcase(s, tc);
	return s;
}
