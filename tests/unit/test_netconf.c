// SPDX-License-Identifier: Apache-2.0
/* netconf/netconf.c: the plugin's entry in a conflist, every validation rule. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/netconf.h"

#define HEAD "{\"cniVersion\":\"1.0.0\",\"name\":\"roce\",\"type\":\"rdma-qos\""

static int parse(const char *json, struct rq_netconf **ret, struct rq_error *e)
{
	int r;

	rq_err_clear(e);
	*ret = NULL;
	r = netconf_parse(json, strlen(json), ret, e);
	if (r < 0) {
		ck_assert_ptr_null(*ret);
		ck_assert_int_ne(e->code, 0);
		return e->code;
	}
	ck_assert_ptr_nonnull(*ret);
	return 0;
}

/* A whole document that must be refused with @code and a message containing @msg. */
struct doc_case {
	const char *json;
	int code;
	const char *msg;
};

static const struct doc_case docs[] = {
	{ "", RQ_ERR_DECODE, "is not valid JSON (error near byte 0)" },
	{ "{\"cniVersion\":", RQ_ERR_DECODE, "is not valid JSON (error near byte 13)" },
	{ "{\"a\":1,}", RQ_ERR_DECODE, "is not valid JSON (error near byte 7)" },
	{ "{\"a\":tru}", RQ_ERR_DECODE, "is not valid JSON (error near byte 5)" },
	{ "{\"a\":\"\\u12\"}", RQ_ERR_DECODE, "is not valid JSON (error near byte 6)" },
	{ "{\"a\":1} x", RQ_ERR_DECODE, "unexpected data after the value at byte 8" },
	{ "{\"a\":1}{}", RQ_ERR_DECODE, "unexpected data after the value at byte 7" },
	{ "[1]", RQ_ERR_DECODE, "network configuration: expected a JSON object" },
	{ "\"x\"", RQ_ERR_DECODE, "network configuration: expected a JSON object" },
	{ "{\"name\":\"n\"}", RQ_ERR_CONFIG, "cniVersion: required" },
	{ "{\"CNIVersion\":\"1.0.0\",\"name\":\"n\"}", RQ_ERR_CONFIG, "cniVersion: required" },
	{ "{\"cniVersion\":1,\"name\":\"n\"}", RQ_ERR_CONFIG, "cniVersion: expected a string" },
	{ "{\"cniVersion\":\"0.2.0\",\"name\":\"n\"}", RQ_ERR_VERSION,
	  "cniVersion: \"0.2.0\" is not supported (supported: 0.3.0, 0.3.1, 0.4.0, 1.0.0, "
	  "1.1.0)" },
	{ "{\"cniVersion\":\"1.2.0\",\"name\":\"n\"}", RQ_ERR_VERSION,
	  "cniVersion: \"1.2.0\" is not supported" },
	{ "{\"cniVersion\":\"1.0\",\"name\":\"n\"}", RQ_ERR_VERSION,
	  "cniVersion: \"1.0\" is not supported" },
	{ "{\"cniVersion\":\"\",\"name\":\"n\"}", RQ_ERR_VERSION, "cniVersion: \"\" is not" },
	{ "{\"cniVersion\":\"1.0.0\"}", RQ_ERR_CONFIG, "name: required" },
	{ "{\"cniVersion\":\"1.0.0\",\"name\":\"\"}", RQ_ERR_CONFIG, "name: required" },
	{ "{\"cniVersion\":\"1.0.0\",\"Name\":\"n\"}", RQ_ERR_CONFIG, "name: required" },
	{ "{\"cniVersion\":\"1.0.0\",\"name\":5}", RQ_ERR_CONFIG, "name: expected a string" },
	{ "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":1}", RQ_ERR_CONFIG,
	  "type: expected a string" },
	{ "{\"cniVersion\":\"1.0.0\",\"cniVersion\":\"1.0.0\",\"name\":\"n\"}", RQ_ERR_CONFIG,
	  "cniVersion: duplicate key" },
};

START_TEST(test_netconf_docs)
{
	struct rq_netconf *nc;
	struct rq_error e;

	ck_assert_int_eq(parse(docs[_i].json, &nc, &e), docs[_i].code);
	ck_assert_msg(strstr(e.msg, docs[_i].msg), "message \"%s\" lacks \"%s\"", e.msg,
		      docs[_i].msg);
}
END_TEST

/* Fields appended to a valid HEAD; refused with RQ_ERR_CONFIG and exactly @msg. */
struct field_case {
	const char *extra;
	const char *msg;
};

#define LOGFILE_MSG                                                                           \
	"logFile: must be a bare file name ([A-Za-z0-9._-], at most 64, not starting with "   \
	"'.'); it is always placed in " RQ_LOG_DIR
#define VA "\"cni.dev/valid-attachments\""

static const struct field_case fields[] = {
	{ "\"profile\":1", "profile: expected a string" },
	{ "\"profile\":\"\"", "profile: \"\" is not a profile name ([A-Za-z0-9._-], 1-63)" },
	{ "\"profile\":\"../gold\"",
	  "profile: \"../gold\" is not a profile name ([A-Za-z0-9._-], 1-63)" },
	{ "\"profile\":\"gold silver\"",
	  "profile: \"gold silver\" is not a profile name ([A-Za-z0-9._-], 1-63)" },
	{ "\"profile\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
	  "profile: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is not a "
	  "profile name ([A-Za-z0-9._-], 1-63)" },
	{ "\"qos\":[]", "qos: expected an object" },
	{ "\"qos\":\"roce-lossless\"", "qos: expected an object" },
	{ "\"qos\":{\"pfc\":[0,1,9]}", "qos.pfc[2]: 9 out of range 0-7" },
	{ "\"qos\":{\"ets\":{\"tcBw\":[10,10,10,30,10,10,5,5],\"tsa\":[\"ets\",\"ets\",\"ets\","
	  "\"ets\",\"ets\",\"ets\",\"ets\",\"ets\"],\"prioTc\":[0,0,0,0,0,0,0,0]}}",
	  "qos.ets.tcBw: percentages sum to 90, expected 100" },
	{ "\"qos\":{\"Pfc\":[3]}", "qos.Pfc: unknown key (did you mean \"pfc\"?)" },
	{ "\"qos\":{},\"profile\":\"gold\"",
	  "qos: an inline profile and a profile name cannot both be given" },
	{ "\"qos\":{},\"args\":{\"cni\":{\"profile\":\"gold\"}}",
	  "qos: an inline profile and a profile name cannot both be given" },
	{ "\"pf\":\"maybe\"", "pf: expected one of \"ignore\", \"verify\", \"ensure\"" },
	{ "\"pf\":\"Ensure\"", "pf: expected one of \"ignore\", \"verify\", \"ensure\"" },
	{ "\"pf\":2", "pf: expected one of \"ignore\", \"verify\", \"ensure\"" },
	{ "\"numa\":\"loose\"", "numa: expected one of \"off\", \"warn\", \"strict\"" },
	{ "\"numa\":false", "numa: expected one of \"off\", \"warn\", \"strict\"" },
	{ "\"logLevel\":\"trace\"",
	  "logLevel: expected one of \"error\", \"warn\", \"info\", \"debug\"" },
	{ "\"logLevel\":3", "logLevel: expected one of \"error\", \"warn\", \"info\", \"debug\"" },
	{ "\"deviceID\":5", "deviceID: expected a string" },
	{ "\"deviceID\":\"0000:81:10.8\"",
	  "deviceID: \"0000:81:10.8\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000:81:20.0\"",
	  "deviceID: \"0000:81:20.0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000:8G:10.0\"",
	  "deviceID: \"0000:8G:10.0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000:81:1A.0\"",
	  "deviceID: \"0000:81:1A.0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"81:10.0\"",
	  "deviceID: \"81:10.0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000:81:10.0 \"",
	  "deviceID: \"0000:81:10.0 \" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000-81-10.0\"",
	  "deviceID: \"0000-81-10.0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"\"", "deviceID: \"\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"runtimeConfig\":[]", "runtimeConfig: expected an object" },
	{ "\"runtimeConfig\":{\"deviceID\":1}", "runtimeConfig.deviceID: expected a string" },
	{ "\"runtimeConfig\":{\"deviceID\":\"eth0\"}",
	  "runtimeConfig.deviceID: \"eth0\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a shared device plugin's number" },
	{ "\"deviceID\":\"0000:81:10.0\",\"runtimeConfig\":{\"deviceID\":\"0000:81:10.9\"}",
	  "runtimeConfig.deviceID: \"0000:81:10.9\" is not a PCI address dddd:bb:dd.f (lowercase "
	  "hex), nor a shared device plugin's number" },
	{ "\"capabilities\":true", "capabilities: expected an object" },
	{ "\"args\":1", "args: expected an object" },
	{ "\"args\":{\"cni\":[]}", "args.cni: expected an object" },
	{ "\"args\":{\"cni\":{\"profile\":7}}", "args.cni.profile: expected a string" },
	{ "\"args\":{\"cni\":{\"profile\":\"a/b\"}}",
	  "args.cni.profile: \"a/b\" is not a profile name" },
	{ "\"logFile\":1", "logFile: expected a string" },
	{ "\"logFile\":\"/var/log/x.log\"", LOGFILE_MSG },
	{ "\"logFile\":\"../x.log\"", LOGFILE_MSG },
	{ "\"logFile\":\"a/b\"", LOGFILE_MSG },
	{ "\"logFile\":\".hidden\"", LOGFILE_MSG },
	{ "\"logFile\":\"..\"", LOGFILE_MSG },
	{ "\"logFile\":\"\"", LOGFILE_MSG },
	{ "\"logFile\":\"a b\"", LOGFILE_MSG },
	{ "\"logFile\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
	  LOGFILE_MSG },
	{ "\"prevResult\":[]", "prevResult: expected an object" },
	{ VA ":{}", "cni.dev/valid-attachments: expected an array" },
	{ VA ":[1]", "cni.dev/valid-attachments[0]: expected an object" },
	{ VA ":[{\"containerID\":\"a\"}]", "cni.dev/valid-attachments[0].ifname: required" },
	{ VA ":[{\"ifname\":\"a\"}]", "cni.dev/valid-attachments[0].containerID: required" },
	{ VA ":[{\"containerID\":\"a\",\"ifname\":\"b\"},{\"containerID\":\"c\",\"ifname\":1}]",
	  "cni.dev/valid-attachments[1].ifname: expected a string" },
	/* duplicates anywhere, named by their full path */
	{ "\"name\":\"other\"", "name: duplicate key" },
	{ "\"qos\":{\"pfc\":[3],\"pfc\":[4]}", "qos.pfc: duplicate key" },
	{ "\"qos\":{\"dscp2prio\":{\"26\":3,\"26\":4}}", "qos.dscp2prio.26: duplicate key" },
	{ "\"plugins\":[{\"a\":1},{\"b\":{\"c\":1,\"c\":2}}]", "plugins[1].b.c: duplicate key" },
	{ "\"prevResult\":{\"interfaces\":[{\"name\":\"a\",\"mac\":\"x\",\"name\":\"b\"}]}",
	  "prevResult.interfaces[0].name: duplicate key" },
	{ "\"capabilities\":{\"deviceID\":true,\"deviceID\":false}",
	  "capabilities.deviceID: duplicate key" },
	{ "\"x\":[[[{\"k\":{\"k\":1,\"k\":2}}]]]", "x[0][0][0].k.k: duplicate key" },
};

START_TEST(test_netconf_fields)
{
	char json[1024];
	struct rq_netconf *nc;
	struct rq_error e;

	snprintf(json, sizeof(json), HEAD ",%s}", fields[_i].extra);
	ck_assert_int_eq(parse(json, &nc, &e), RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, fields[_i].msg);
}
END_TEST

START_TEST(test_netconf_defaults)
{
	struct rq_netconf *nc;
	struct rq_error e;

	ck_assert_int_eq(parse(HEAD "}", &nc, &e), 0);
	ck_assert_str_eq(nc->cni_version, "1.0.0");
	ck_assert_str_eq(nc->name, "roce");
	ck_assert_str_eq(nc->type, "rdma-qos");
	ck_assert_ptr_null(nc->profile);
	ck_assert_ptr_null(nc->args_profile);
	ck_assert_ptr_null(nc->qos);
	ck_assert(!nc->pf_set);
	ck_assert_int_eq(nc->pf, RQ_PF_ENSURE);
	ck_assert_int_eq(nc->numa, RQ_NUMA_WARN);
	ck_assert_str_eq(nc->device_id, "");
	ck_assert_int_eq(nc->log_level, RQ_LOG_INFO);
	ck_assert_ptr_null(nc->log_file);
	ck_assert_ptr_null(nc->prev_result);
	ck_assert_ptr_null(nc->valid_attachments);
	netconf_free(nc);
	/* "type" is optional here: libcni always sets it, the plugin does not depend on it */
	ck_assert_int_eq(parse("{\"cniVersion\":\"0.3.0\",\"name\":\"n\"}", &nc, &e), 0);
	ck_assert_ptr_null(nc->type);
	netconf_free(nc);
	netconf_free(NULL);
}
END_TEST

START_TEST(test_netconf_all_fields)
{
	struct rq_netconf *nc;
	struct rq_error e;

	ck_assert_int_eq(parse(HEAD ",\"profile\":\"gold.v2_x-1\",\"pf\":\"verify\",\"numa\":"
				    "\"strict\",\"deviceID\":\"0000:81:10.0\",\"capabilities\":{"
				    "\"deviceID\":true},\"args\":{\"cni\":{\"profile\":\"best-effort\"}},"
				    "\"logLevel\":\"debug\",\"logFile\":\"rdma-qos.log\","
				    "\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[]},"
				    "\"cni.dev/valid-attachments\":[{\"containerID\":\"c1\","
				    "\"ifname\":\"net1\"}]}",
			       &nc, &e),
			 0);
	ck_assert_str_eq(nc->profile, "gold.v2_x-1");
	ck_assert_str_eq(nc->args_profile, "best-effort");
	ck_assert(nc->pf_set);
	ck_assert_int_eq(nc->pf, RQ_PF_VERIFY);
	ck_assert_int_eq(nc->numa, RQ_NUMA_STRICT);
	ck_assert_str_eq(nc->device_id, "0000:81:10.0");
	ck_assert_int_eq(nc->log_level, RQ_LOG_DEBUG);
	ck_assert_str_eq(nc->log_file, "rdma-qos.log");
	ck_assert_ptr_nonnull(nc->prev_result);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(nc->prev_result, "cniVersion")->valuestring,
			 "1.0.0");
	ck_assert_int_eq(cJSON_GetArraySize(nc->valid_attachments), 1);
	netconf_free(nc);
}
END_TEST

START_TEST(test_netconf_enums)
{
	static const struct {
		const char *extra;
		int pf, numa, lvl;
	} t[] = {
		{ "\"pf\":\"ignore\"", RQ_PF_IGNORE, RQ_NUMA_WARN, RQ_LOG_INFO },
		{ "\"pf\":\"verify\"", RQ_PF_VERIFY, RQ_NUMA_WARN, RQ_LOG_INFO },
		{ "\"pf\":\"ensure\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_INFO },
		{ "\"numa\":\"off\"", RQ_PF_ENSURE, RQ_NUMA_OFF, RQ_LOG_INFO },
		{ "\"numa\":\"warn\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_INFO },
		{ "\"numa\":\"strict\"", RQ_PF_ENSURE, RQ_NUMA_STRICT, RQ_LOG_INFO },
		{ "\"logLevel\":\"error\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_ERROR },
		{ "\"logLevel\":\"warn\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_WARN },
		{ "\"logLevel\":\"info\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_INFO },
		{ "\"logLevel\":\"debug\"", RQ_PF_ENSURE, RQ_NUMA_WARN, RQ_LOG_DEBUG },
	};
	char json[256];
	struct rq_netconf *nc;
	struct rq_error e;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(json, sizeof(json), HEAD ",%s}", t[i].extra);
		ck_assert_int_eq(parse(json, &nc, &e), 0);
		ck_assert_int_eq(nc->pf, t[i].pf);
		ck_assert_int_eq(nc->pf_set, i < 3);
		ck_assert_int_eq(nc->numa, t[i].numa);
		ck_assert_int_eq(nc->log_level, t[i].lvl);
		netconf_free(nc);
	}
}
END_TEST

START_TEST(test_netconf_versions)
{
	static const char *const v[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" };
	char json[128];
	struct rq_netconf *nc;
	struct rq_error e;

	for (size_t i = 0; i < 5; i++) {
		snprintf(json, sizeof(json), "{\"cniVersion\":\"%s\",\"name\":\"n\"}", v[i]);
		ck_assert_int_eq(parse(json, &nc, &e), 0);
		ck_assert_str_eq(nc->cni_version, v[i]);
		netconf_free(nc);
		ck_assert(netconf_version_supported(v[i]));
	}
	ck_assert(!netconf_version_supported("0.2.0"));
	ck_assert(!netconf_version_supported(NULL));
	ck_assert_int_eq(netconf_version_cmp("1.1.0", "1.0.0"), 1);
	ck_assert_int_eq(netconf_version_cmp("0.4.0", "1.0.0"), -1);
	ck_assert_int_eq(netconf_version_cmp("0.3.1", "0.3.1"), 0);
	ck_assert_int_eq(netconf_version_cmp("0.10.0", "0.9.0"), 1);
}
END_TEST

START_TEST(test_netconf_device_id)
{
	struct rq_netconf *nc;
	struct rq_error e;

	/* runtimeConfig.deviceID wins over deviceID */
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"0000:81:10.0\",\"runtimeConfig\":{"
				    "\"deviceID\":\"0000:81:10.7\"}}",
			       &nc, &e),
			 0);
	ck_assert_str_eq(nc->device_id, "0000:81:10.7");
	netconf_free(nc);
	/* a runtimeConfig without deviceID leaves the top-level one */
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"ffff:ff:1f.7\",\"runtimeConfig\":{}}", &nc, &e),
			 0);
	ck_assert_str_eq(nc->device_id, "ffff:ff:1f.7");
	netconf_free(nc);
	ck_assert_int_eq(parse(HEAD ",\"runtimeConfig\":{\"deviceID\":\"0000:00:00.0\"}}", &nc, &e),
			 0);
	ck_assert_str_eq(nc->device_id, "0000:00:00.0");
	netconf_free(nc);
	/* an SF pool's auxiliary device: kept aside for ADD to refuse, no parse error */
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"mlx5_core.sf.4\"}", &nc, &e), 0);
	ck_assert_str_eq(nc->device_sf, "mlx5_core.sf.4");
	ck_assert_str_eq(nc->device_id, "");
	netconf_free(nc);
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"mlx5_core.sf.4\",\"runtimeConfig\":{"
				    "\"deviceID\":\"0000:81:10.7\"}}",
			       &nc, &e),
			 0);
	ck_assert_str_eq(nc->device_sf, "");
	ck_assert_str_eq(nc->device_id, "0000:81:10.7");
	netconf_free(nc);
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"mlx5_core.sf.\"}", &nc, &e), RQ_ERR_CONFIG);
	ck_assert_int_eq(parse(HEAD ",\"deviceID\":\"Mlx5.sf.1\"}", &nc, &e), RQ_ERR_CONFIG);
	ck_assert(netconf_pci_addr_valid("0000:3b:02.1"));
	ck_assert(!netconf_pci_addr_valid("0000:3B:02.1"));
	ck_assert(!netconf_pci_addr_valid(NULL));
	ck_assert(!netconf_pci_addr_valid("0000:3b:02.10"));
}
END_TEST

START_TEST(test_netconf_names)
{
	ck_assert(netconf_name_valid("a"));
	ck_assert(netconf_name_valid("roce-lossless"));
	ck_assert(netconf_name_valid("A.b_c-9"));
	ck_assert(netconf_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")); /* 63 */
	ck_assert(!netconf_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	ck_assert(!netconf_name_valid(""));
	ck_assert(!netconf_name_valid("a/b"));
	ck_assert(!netconf_name_valid("a\"b"));
}
END_TEST

START_TEST(test_netconf_case_and_unknown)
{
	struct rq_netconf *nc;
	struct rq_error e;

	/* lookups are case-sensitive and unknown keys are a conflist's business */
	ck_assert_int_eq(parse(HEAD ",\"Profile\":\"x/y\",\"PF\":\"bogus\",\"QOS\":1,\"ipam\":{},"
				    "\"dns\":{\"nameservers\":[]},\"plugins\":[1,2]}",
			       &nc, &e),
			 0);
	ck_assert_ptr_null(nc->profile);
	ck_assert(!nc->pf_set);
	ck_assert_ptr_null(nc->qos);
	netconf_free(nc);
}
END_TEST

START_TEST(test_netconf_buffer_bounds)
{
	/* stdin bytes are not NUL-terminated: only @len bytes count */
	static const char buf[] = HEAD "}GARBAGE";
	struct rq_netconf *nc = NULL;
	struct rq_error e;

	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(buf, strlen(HEAD "}"), &nc, &e), 0);
	ck_assert_str_eq(nc->name, "roce");
	netconf_free(nc);
	nc = NULL;
	ck_assert_int_eq(netconf_parse(HEAD "}\n\t \r\n", strlen(HEAD "}\n\t \r\n"), &nc, &e), 0);
	netconf_free(nc);
	nc = NULL;
	ck_assert_int_eq(netconf_parse(buf, sizeof(buf), &nc, &e), -EBADMSG);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
	ck_assert_ptr_null(nc);
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(NULL, 0, &nc, &e), -EBADMSG);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
}
END_TEST

START_TEST(test_netconf_inline_qos)
{
	struct rq_netconf *nc;
	struct rq_error e;

	ck_assert_int_eq(parse(HEAD ",\"qos\":{\"pfc\":[5],\"trafficClass\":160}}", &nc, &e), 0);
	ck_assert_ptr_nonnull(nc->qos);
	ck_assert(cJSON_IsObject(nc->qos));
	netconf_free(nc);
}
END_TEST

/* @depth nested arrays under key "x" */
static char *nested(size_t depth, size_t *ret_len)
{
	size_t n = strlen(HEAD) + 2 * depth + 16, o;
	char *b = malloc(n);

	ck_assert_ptr_nonnull(b);
	o = (size_t)snprintf(b, n, HEAD ",\"x\":");
	memset(b + o, '[', depth);
	memset(b + o + depth, ']', depth);
	o += 2 * depth;
	b[o++] = '}';
	b[o] = '\0';
	*ret_len = o;
	return b;
}

START_TEST(test_netconf_deep)
{
	struct rq_netconf *nc = NULL;
	struct rq_error e;
	size_t len;
	char *b;

	/* deep nesting never crashes: cJSON's own bound (1000 levels) -> decode error ... */
	b = nested(1000, &len);
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_parse(b, len, &nc, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
	ck_assert_ptr_null(nc);
	free(b);
	b = nested(100000, &len);
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_parse(b, len, &nc, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
	free(b);
	/* ... and within it, ours (64) -> config error naming where */
	b = nested(998, &len);
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_parse(b, len, &nc, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
	ck_assert_msg(strstr(e.msg, ": nested deeper than 64 levels"), "%s", e.msg);
	ck_assert_msg(!strncmp(e.msg, "x[0][0]", 7), "%s", e.msg);
	free(b);
	/* 63 levels under the root are fine */
	b = nested(63, &len);
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(b, len, &nc, &e), 0);
	netconf_free(nc);
	free(b);
}
END_TEST

START_TEST(test_netconf_many_keys_duplicate)
{
	/* big objects take the sorted path: still exact about the duplicate */
	size_t n = 4000 * 16 + 256, o;
	char *b = malloc(n);
	struct rq_netconf *nc = NULL;
	struct rq_error e;

	ck_assert_ptr_nonnull(b);
	o = (size_t)snprintf(b, n, HEAD ",\"m\":{");
	for (int i = 0; i < 4000; i++)
		o += (size_t)snprintf(b + o, n - o, "\"k%d\":%d,", i, i);
	o += (size_t)snprintf(b + o, n - o, "\"k1234\":0}}");
	rq_err_clear(&e);
	ck_assert_int_lt(netconf_parse(b, o, &nc, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "m.k1234: duplicate key");
	/* and without the duplicate it parses */
	o = (size_t)snprintf(b, n, HEAD ",\"m\":{");
	for (int i = 0; i < 4000; i++)
		o += (size_t)snprintf(b + o, n - o, "%s\"k%d\":%d", i ? "," : "", i, i);
	o += (size_t)snprintf(b + o, n - o, "}}");
	ck_assert_int_eq(netconf_parse(b, o, &nc, &e), 0);
	netconf_free(nc);
	free(b);
}
END_TEST

Suite *suite_netconf(void);

Suite *suite_netconf(void)
{
	Suite *s = suite_create("netconf");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_netconf_docs, 0, (int)(sizeof(docs) / sizeof(docs[0])));
	tcase_add_loop_test(tc, test_netconf_fields, 0, (int)(sizeof(fields) / sizeof(fields[0])));
	tcase_add_test(tc, test_netconf_defaults);
	tcase_add_test(tc, test_netconf_all_fields);
	tcase_add_test(tc, test_netconf_enums);
	tcase_add_test(tc, test_netconf_versions);
	tcase_add_test(tc, test_netconf_device_id);
	tcase_add_test(tc, test_netconf_names);
	tcase_add_test(tc, test_netconf_case_and_unknown);
	tcase_add_test(tc, test_netconf_buffer_bounds);
	tcase_add_test(tc, test_netconf_inline_qos);
	tcase_add_test(tc, test_netconf_deep);
	tcase_add_test(tc, test_netconf_many_keys_duplicate);
	suite_add_tcase(s, tc);
	return s;
}
