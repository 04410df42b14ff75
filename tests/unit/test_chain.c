// SPDX-License-Identifier: Apache-2.0
/* netconf/chain.c: a conflist whose rdma plugin (NVIDIA's rdma-cni) sets rdmaQoS (issue 42 item
 * 11). */
#include <check.h>
#include <string.h>

#include "netconf/netconf.h"

/* The warning for @plugins (a JSON array) with rdma-qos at @ours; "" none. */
static const char *warn_of(const char *plugins, int ours, char *buf, size_t len)
{
	cJSON *p = cJSON_Parse(plugins);
	int r;

	ck_assert_ptr_nonnull(p);
	buf[0] = '\0';
	r = netconf_chain_qos_writer(p, ours, buf, len);
	cJSON_Delete(p);
	ck_assert_int_eq(r, buf[0] ? 1 : 0);
	return buf;
}

START_TEST(test_chain_rdma_qos)
{
	char w[512];

	/* the spectrum-x-operator's values, at the top of the plugin's config (rdma-cni's code) */
	warn_of("[{\"type\":\"sriov\"},{\"type\":\"rdma\",\"rdmaQoS\":{\"tos\":96,\"tc\":96}},"
		"{\"type\":\"rdma-qos\"}]",
		2, w, sizeof(w));
	ck_assert_msg(strstr(w, "plugins[1].rdmaQoS: ") == w, "%s", w);
	ck_assert_msg(strstr(w, "tos 96 to RDMA-CM's default_roce_tos, tc 96 to MOFED's"), "%s", w);
	ck_assert_msg(strstr(w, "rdma-qos, later in the chain, overwrites both"), "%s", w);
	/* under args.cni as its README shows it; tc unset */
	warn_of("[{\"type\":\"sriov\"},{\"type\":\"rdma\",\"args\":{\"cni\":{\"rdmaQoS\":{\"tos\":"
		"102}}}},{\"type\":\"rdma-qos\"}]",
		2, w, sizeof(w));
	ck_assert_msg(strstr(w, "plugins[1].args.cni.rdmaQoS: ") == w, "%s", w);
	ck_assert_msg(strstr(w, "tos 102 to") && strstr(w, "tc (unset) to"), "%s", w);
	/* rdma after rdma-qos: the chain cannot work in exclusive mode */
	warn_of(
	    "[{\"type\":\"sriov\"},{\"type\":\"rdma-qos\"},{\"type\":\"rdma\",\"rdmaQoS\":{\"tc\":"
	    "\"x\"}}]",
	    1, w, sizeof(w));
	ck_assert_msg(strstr(w, "plugins[2].rdmaQoS: ") == w, "%s", w);
	ck_assert_msg(strstr(w, "tos (unset)") && strstr(w, "tc (not a number)"), "%s", w);
	ck_assert_msg(strstr(w, "which must follow rdma"), "%s", w);
	/* no warning: rdma without rdmaQoS, another plugin's rdmaQoS, rdma-qos's own key */
	ck_assert_str_eq(
	    warn_of("[{\"type\":\"sriov\"},{\"type\":\"rdma\"},{\"type\":\"rdma-qos\"}]", 2, w,
		    sizeof(w)),
	    "");
	ck_assert_str_eq(warn_of("[{\"type\":\"sriov\",\"rdmaQoS\":{\"tos\":96}},"
				 "{\"type\":\"rdma-qos\",\"rdmaQoS\":{\"tos\":96}}]",
				 1, w, sizeof(w)),
			 "");
}
END_TEST

Suite *suite_chain(void);

Suite *suite_chain(void)
{
	Suite *s = suite_create("chain");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_chain_rdma_qos);
	suite_add_tcase(s, tc);
	return s;
}
