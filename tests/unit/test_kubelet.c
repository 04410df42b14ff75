// SPDX-License-Identifier: Apache-2.0
/* pkg/kubelet: the checkpoint parsers on good, odd and hostile input. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"

#define CPU(b, c) (((b)[(c) / 64] >> ((c) % 64)) & 1)

static int cpus(const char *s, uint64_t *bits)
{
	return kubelet_cpuset_parse(s, bits);
}

static int count(const uint64_t *bits)
{
	int n = 0;

	for (int i = 0; i < RQ_CPU_WORDS; i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

START_TEST(cpuset_good)
{
	uint64_t b[RQ_CPU_WORDS];

	ck_assert_int_eq(cpus("0-3,8,10-11", b), 0);
	ck_assert_uint_eq(b[0], 0xd0f);
	ck_assert_int_eq(count(b), 7);
	ck_assert_int_eq(cpus("", b), 0);
	ck_assert_int_eq(count(b), 0);
	ck_assert_int_eq(cpus(" 5\n", b), 0);
	ck_assert_uint_eq(b[0], 0x20);
	ck_assert_int_eq(cpus("4095", b), 0);
	ck_assert_int_eq(CPU(b, 4095), 1);
	ck_assert_int_eq(count(b), 1);
	ck_assert_int_eq(cpus("0-4095", b), 0);
	ck_assert_int_eq(count(b), 4096);
	ck_assert_int_eq(cpus("64-65,3-3", b), 0);
	ck_assert_uint_eq(b[0], 0x8);
	ck_assert_uint_eq(b[1], 0x3);
}
END_TEST

START_TEST(cpuset_bad)
{
	uint64_t b[RQ_CPU_WORDS];
	static const char *const einval[] = {"a",   "1,,2",  "1,",  ",1",  "-1", "1-",	"3-1",
					     "1 2", "1-2-3", "0x1", "1;2", "+1", "1,\n"};

	memset(b, 0xab, sizeof(b));
	for (size_t i = 0; i < sizeof(einval) / sizeof(einval[0]); i++)
		ck_assert_msg(cpus(einval[i], b) == -EINVAL, "\"%s\" accepted", einval[i]);
	ck_assert_int_eq(cpus("4096", b), -ERANGE);
	ck_assert_int_eq(cpus("0-4096", b), -ERANGE);
	ck_assert_int_eq(cpus("99999999999999999999999999", b), -ERANGE);
	ck_assert_int_eq(cpus("1,2-100000", b), -ERANGE);
	ck_assert_uint_eq(b[0], 0xababababababababULL); /* untouched on failure */
}
END_TEST

static int cpu_mgr(const char *json, const char *uid, uint64_t *b)
{
	return kubelet_cpu_manager(json, strlen(json), uid, b);
}

START_TEST(cpu_manager_good)
{
	uint64_t b[RQ_CPU_WORDS];
	const char *j = "{\"policyName\":\"static\",\"defaultCpuSet\":\"0,9-15\",\"entries\":"
			"{\"pod-a\":{\"app\":\"1-2\",\"side\":\"4\",\"shared\":\"\"},"
			"\"pod-b\":{\"app\":\"5\"}},\"checksum\":1234}";

	ck_assert_int_eq(cpu_mgr(j, "pod-a", b), 0);
	ck_assert_uint_eq(b[0], 0x16);
	ck_assert_int_eq(cpu_mgr(j, "pod-b", b), 0);
	ck_assert_uint_eq(b[0], 0x20);
	/* a pod in the shared pool only */
	memset(b, 0xab, sizeof(b));
	ck_assert_int_eq(cpu_mgr(j, "pod-c", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"\"}}}", "p", b), -ENOENT);
	ck_assert_uint_eq(b[0], 0xababababababababULL);
	/* the length bounds the parse: trailing bytes are not read */
	ck_assert_int_eq(
	    kubelet_cpu_manager("{\"entries\":{\"p\":{\"c\":\"3\"}}}GARBAGE", 28, "p", b), 0);
	ck_assert_uint_eq(b[0], 0x8);
}
END_TEST

START_TEST(cpu_manager_bad)
{
	uint64_t b[RQ_CPU_WORDS];
	char *big;

	ck_assert_int_eq(cpu_mgr("", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"1-", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"1-\"}}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"0-5000\"}}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("not json", "p", b), -EBADMSG);
	ck_assert_int_eq(kubelet_cpu_manager(NULL, 0, "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{}", NULL, b), -EINVAL);
	/* wrong types are "nothing for this pod" */
	ck_assert_int_eq(cpu_mgr("null", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("[1,2]", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"entries\":[]}", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":\"0-3\"}}", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":3}}}", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":1e999}}}", "p", b), -ENOENT);
	ck_assert_int_eq(cpu_mgr("{\"Entries\":{\"p\":{\"c\":\"1\"}}}", "p", b), -ENOENT);
	/* over the size bound, even if valid */
	big = malloc(RQ_KUBELET_FILE_MAX + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', RQ_KUBELET_FILE_MAX + 1);
	memcpy(big, "{\"entries\":{\"p\":{\"c\":\"1\"}}}", 27);
	big[RQ_KUBELET_FILE_MAX + 1] = '\0';
	ck_assert_int_eq(kubelet_cpu_manager(big, RQ_KUBELET_FILE_MAX + 1, "p", b), -EBADMSG);
	ck_assert_int_eq(kubelet_cpu_manager(big, RQ_KUBELET_FILE_MAX, "p", b), 0);
	free(big);
}
END_TEST

/* 10000-deep nesting must neither crash nor recurse without bound. */
START_TEST(deep_nesting)
{
	size_t depth = 10000, i;
	char *s = malloc(2 * depth + 1);
	uint64_t b[RQ_CPU_WORDS], nodes = 0;
	struct rq_kubelet_dev d[1];
	size_t n = 5;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < depth; i++) {
		s[i] = '[';
		s[depth + i] = ']';
	}
	s[2 * depth] = '\0';
	ck_assert_int_eq(kubelet_cpu_manager(s, 2 * depth, "p", b), -EBADMSG);
	ck_assert_int_eq(kubelet_devices(s, 2 * depth, "p", d, 1, &n), -EBADMSG);
	ck_assert_int_eq(kubelet_memory(s, 2 * depth, "p", &nodes), -EBADMSG);
	ck_assert_uint_eq(n, 5);
	free(s);
}
END_TEST

static int devs(const char *json, const char *uid, struct rq_kubelet_dev *d, size_t max, size_t *n)
{
	return kubelet_devices(json, strlen(json), uid, d, max, n);
}

START_TEST(devices_topology)
{
	struct rq_kubelet_dev d[RQ_KUBELET_MAX_DEVS];
	size_t n = 99;
	const char *j =
	    "{\"Data\":{\"PodDeviceEntries\":["
	    "{\"PodUID\":\"p\",\"ContainerName\":\"c\",\"ResourceName\":\"nvidia.com/gpu\","
	    "\"DeviceIDs\":{\"0\":[\"GPU-1\",\"GPU-2\"],\"1\":[\"GPU-3\"]},\"AllocResp\":\"\"},"
	    "{\"PodUID\":\"q\",\"ContainerName\":\"c\",\"ResourceName\":\"nvidia.com/gpu\","
	    "\"DeviceIDs\":{\"1\":[\"GPU-4\"]}},"
	    "{\"PodUID\":\"p\",\"ContainerName\":\"d\",\"ResourceName\":\"rdma/vf\","
	    "\"DeviceIDs\":{\"-1\":[\"0000:81:00.1\"]}}"
	    "],\"RegisteredDevices\":{\"nvidia.com/gpu\":[\"GPU-1\"]}},\"Checksum\":42}";

	ck_assert_int_eq(devs(j, "p", d, RQ_KUBELET_MAX_DEVS, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(d[0].resource, "nvidia.com/gpu");
	ck_assert_str_eq(d[0].id, "GPU-1");
	ck_assert_int_eq(d[0].node, 0);
	ck_assert_str_eq(d[1].id, "GPU-2");
	ck_assert_int_eq(d[1].node, 0);
	ck_assert_str_eq(d[2].id, "GPU-3");
	ck_assert_int_eq(d[2].node, 1);
	ck_assert_str_eq(d[3].resource, "rdma/vf");
	ck_assert_str_eq(d[3].id, "0000:81:00.1");
	ck_assert_int_eq(d[3].node, -1);
	ck_assert_int_eq(devs(j, "nobody", d, RQ_KUBELET_MAX_DEVS, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* at most @max */
	ck_assert_int_eq(devs(j, "p", d, 2, &n), 0);
	ck_assert_uint_eq(n, 2);
}
END_TEST

START_TEST(devices_flat_and_odd)
{
	struct rq_kubelet_dev d[4];
	size_t n = 99;
	char j[1024], id[300];

	/* pre-1.20: a flat list, no topology */
	ck_assert_int_eq(devs("{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\",\"ResourceName\":"
			      "\"x/y\",\"DeviceIDs\":[\"a\",7,\"b\"]}]}}",
			      "p", d, 4, &n),
			 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(d[0].id, "a");
	ck_assert_int_eq(d[0].node, -1);
	ck_assert_str_eq(d[1].id, "b");
	/* bad node keys, non-array values, a missing ResourceName */
	ck_assert_int_eq(devs("{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\",\"DeviceIDs\":"
			      "{\"x\":[\"a\"],\"64\":[\"b\"],\"-2\":[\"c\"],\"1e3\":[\"d\"],"
			      "\"\":[\"e\"],\"2\":\"f\",\"3\":[\"g\"]}}]}}",
			      "p", d, 4, &n),
			 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(d[0].id, "g");
	ck_assert_int_eq(d[0].node, 3);
	ck_assert_str_eq(d[0].resource, "?");
	/* wrong types all the way down */
	ck_assert_int_eq(devs("{\"Data\":{\"PodDeviceEntries\":{}}}", "p", d, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(devs("{\"Data\":[]}", "p", d, 4, &n), 0);
	ck_assert_int_eq(
	    devs("{\"Data\":{\"PodDeviceEntries\":[1,null,\"s\",{\"PodUID\":5}]}}", "p", d, 4, &n),
	    0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(
	    devs("{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\",\"DeviceIDs\":5}]}}", "p", d,
		 4, &n),
	    0);
	ck_assert_uint_eq(n, 0);
	/* an over-long ID is truncated, not overflowed */
	memset(id, 'i', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	snprintf(
	    j, sizeof(j),
	    "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\",\"DeviceIDs\":{\"0\":[\"%s\"]}}]}}",
	    id);
	ck_assert_int_eq(devs(j, "p", d, 4, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(strlen(d[0].id), sizeof(d[0].id) - 1);
	/* malformed */
	n = 99;
	ck_assert_int_eq(devs("{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"p\"", "p", d, 4, &n),
			 -EBADMSG);
	ck_assert_int_eq(devs("", "p", d, 4, &n), -EBADMSG);
	ck_assert_int_eq(devs("{}", NULL, d, 4, &n), -EINVAL);
	ck_assert_uint_eq(n, 99);
}
END_TEST

static int mem(const char *json, const char *uid, uint64_t *nodes)
{
	return kubelet_memory(json, strlen(json), uid, nodes);
}

START_TEST(memory)
{
	uint64_t nodes = 77;

	ck_assert_int_eq(
	    mem("{\"policyName\":\"Static\",\"entries\":{\"p\":{\"c\":[{\"numaAffinity\":"
		"[1],\"type\":\"memory\",\"size\":1073741824}]}},\"checksum\":1}",
		"p", &nodes),
	    0);
	ck_assert_uint_eq(nodes, 0x2);
	ck_assert_int_eq(mem("{\"entries\":{\"p\":{\"c\":[{\"numaAffinity\":[0,1]}],"
			     "\"d\":[{\"numaAffinity\":[3],\"type\":\"hugepages-1Gi\"}]}}}",
			     "p", &nodes),
			 0);
	ck_assert_uint_eq(nodes, 0xb);
	ck_assert_int_eq(
	    mem("{\"entries\":{\"p\":{\"c\":[{\"numaAffinity\":[63]}]}}}", "p", &nodes), 0);
	ck_assert_uint_eq(nodes, 1ULL << 63);
	nodes = 77;
	/* out of range, fractional, huge, strings, wrong shapes: no node */
	ck_assert_int_eq(
	    mem("{\"entries\":{\"p\":{\"c\":[{\"numaAffinity\":[-1,64,1.5,1e300,\"0\","
		"null,[0]]},{\"numaAffinity\":0},5,\"x\"],\"d\":{\"numaAffinity\":[0]}}}}",
		"p", &nodes),
	    -ENOENT);
	ck_assert_int_eq(mem("{\"entries\":{\"q\":{\"c\":[{\"numaAffinity\":[0]}]}}}", "p", &nodes),
			 -ENOENT);
	ck_assert_int_eq(mem("{\"entries\":{\"p\":[]}}", "p", &nodes), -ENOENT);
	ck_assert_int_eq(mem("{\"entries\":{\"p\":{\"c\":[{\"numaAffinity\":[0]}]}", "p", &nodes),
			 -EBADMSG);
	ck_assert_int_eq(mem("{}", NULL, &nodes), -EINVAL);
	ck_assert_uint_eq(nodes, 77);
}
END_TEST

Suite *suite_kubelet(void);
Suite *suite_kubelet(void)
{
	Suite *s = suite_create("kubelet");
	TCase *tc = tcase_create("parsers");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, cpuset_good);
	tcase_add_test(tc, cpuset_bad);
	tcase_add_test(tc, cpu_manager_good);
	tcase_add_test(tc, cpu_manager_bad);
	tcase_add_test(tc, deep_nesting);
	tcase_add_test(tc, devices_topology);
	tcase_add_test(tc, devices_flat_and_odd);
	tcase_add_test(tc, memory);
	suite_add_tcase(s, tc);
	return s;
}
