// SPDX-License-Identifier: Apache-2.0
/* netconf/catalog: node.kubeletDir, kubelet's root dir as a node setting. */
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

/* node.sharedResources: a shared device plugin's resource -> the PF netdevs it shares */
START_TEST(shared_resources)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
	    {"{\"node\": {\"sharedResources\": []}}", "node.sharedResources: expected an object"},
	    {"{\"node\": {\"sharedResources\": {\"hca_shared\": [\"ens1f0\"]}}}",
	     "node.sharedResources[\"hca_shared\"]: not a device plugin resource name"},
	    {"{\"node\": {\"sharedResources\": {\"RDMA/x\": [\"ens1f0\"]}}}",
	     "node.sharedResources[\"RDMA/x\"]: not a device plugin resource name"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/x-\": [\"ens1f0\"]}}}",
	     "node.sharedResources[\"rdma/x-\"]: not a device plugin resource name"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": []}}}",
	     "node.sharedResources[\"rdma/a\"]: expected a non-empty list of PF netdev names"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": \"ens1f0\"}}}",
	     "node.sharedResources[\"rdma/a\"]: expected a non-empty list of PF netdev names"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": [\"ens1f0\", 3]}}}",
	     "node.sharedResources[\"rdma/a\"][1]: expected a netdev name"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": [\"a-name-of-16-chr\"]}}}",
	     "node.sharedResources[\"rdma/a\"][0]: expected a netdev name"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": [\"ens1 f0\"]}}}",
	     "node.sharedResources[\"rdma/a\"][0]: expected a netdev name"},
	    {"{\"node\": {\"sharedResources\": {\"rdma/a\": [\"x\", \"y\", \"x\"]}}}",
	     "node.sharedResources[\"rdma/a\"][2]: \"x\" is listed twice"},
	};
	const char *ok = "{\"node\": {\"sharedResources\": {"
			 "\"rdma/hca_shared_devices_a\": [\"ens1f0np0\"],"
			 "\"nvidia.com/hca_shared_b\": [\"ens2f0np0\", \"ens2f1np1\"]}}}";
	const char *two = "{\"node\": {\"sharedResources\": {\"rdma/a\": [], \"b\": [\"x\"],"
			  "\"rdma/c\": [\"ens1\"]}}}";
	const struct rq_shared_res *r;
	struct rq_catalog *c = NULL;
	struct rq_errlist keep;
	struct rq_error e;

	ck_assert_int_eq(parse("{}", &c, &e), 0);
	ck_assert_uint_eq(c->n_shared, 0);
	ck_assert_ptr_null(catalog_shared_res(c, "rdma/hca_shared_devices_a"));
	catalog_free(c);
	ck_assert_int_eq(parse(ok, &c, &e), 0);
	ck_assert_uint_eq(c->n_shared, 2);
	r = catalog_shared_res(c, "rdma/hca_shared_devices_a");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n_pfs, 1);
	ck_assert_str_eq(r->pfs[0], "ens1f0np0");
	r = catalog_shared_res(c, "nvidia.com/hca_shared_b");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n_pfs, 2);
	ck_assert_str_eq(r->pfs[1], "ens2f1np1");
	ck_assert_ptr_null(catalog_shared_res(c, "rdma/hca_shared_devices_b"));
	catalog_free(c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(parse(bad[i].json, &c, &e), -EINVAL);
		ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
		ck_assert_msg(!strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)), "%s -> %s",
			      bad[i].json, e.msg);
	}
	ck_assert_int_eq(parse("{\"node\": {\"sharedResource\": {}}}", &c, &e), -EINVAL);
	ck_assert_str_eq(e.msg,
			 "node.sharedResource: unknown key (did you mean \"sharedResources\"?)");
	/* validate: every entry's error in one run, the good entry kept */
	memset(&keep, 0, sizeof(keep));
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_keep(two, strlen(two), &keep, &c, &e), 0);
	ck_assert_uint_eq(keep.n, 2);
	ck_assert(strstr(keep.msg[0], "node.sharedResources[\"rdma/a\"]: expected a non-empty"));
	ck_assert(strstr(keep.msg[1], "node.sharedResources[\"b\"]: not a device plugin"));
	/* the agent's alone: the agent's and ADD's parses ignore it and say why */
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_lenient(bad[4].json, strlen(bad[4].json), &c, &e), 0);
	ck_assert_uint_eq(c->n_shared, 0);
	ck_assert(!strncmp(c->obs_err, bad[4].msg, strlen(bad[4].msg)));
	catalog_free(c);
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_for(bad[6].json, strlen(bad[6].json), "ai", NULL, &c, &e),
			 0);
	ck_assert_uint_eq(c->n_shared, 0);
	ck_assert(!strncmp(c->obs_err, bad[6].msg, strlen(bad[6].msg)));
	catalog_free(c);
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
