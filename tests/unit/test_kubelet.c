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
	/* bytes after the top-level value are not read (cJSON ignores them too) */
	big = malloc(1 << 20);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', 1 << 20);
	memcpy(big, "{\"entries\":{\"p\":{\"c\":\"1\"}}}", 27);
	ck_assert_int_eq(kubelet_cpu_manager(big, 1 << 20, "p", b), 0);
	free(big);
	/* a pod UID longer than any key the scanner compares */
	big = calloc(1, RQ_KUBELET_KEY_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'u', RQ_KUBELET_KEY_MAX);
	ck_assert_int_eq(cpu_mgr("{}", big, b), -EINVAL);
	free(big);
}
END_TEST

/* An endless document: "{"entries":{"p":{"c":"1"}},"pad":[0" and then spaces. */
struct endless {
	uint64_t off;
};

static ssize_t endless_read(void *ctx, char *buf, size_t n)
{
	static const char head[] = "{\"entries\":{\"p\":{\"c\":\"1\"}},\"pad\":[0";
	struct endless *e = ctx;

	memset(buf, ' ', n);
	for (size_t i = 0; i < n && e->off + i < sizeof(head) - 1; i++)
		buf[i] = head[e->off + i];
	e->off += n;
	return (ssize_t)n;
}

/* Past the file bound is -EFBIG (never a silent drop), at no memory cost. */
START_TEST(bound_is_an_error)
{
	struct endless e = {0};
	struct rq_jsrc src = {.read = endless_read, .ctx = &e};
	uint64_t b[RQ_CPU_WORDS], nodes;
	struct rq_kubelet_dev d[1];
	size_t n = 0;
	char *v;

	ck_assert_int_eq(kubelet_cpu_manager_src(src, "p", b), -EFBIG);
	ck_assert_uint_eq(e.off, RQ_KUBELET_FILE_MAX + 1);
	e.off = 0;
	ck_assert_int_eq(kubelet_memory_src(src, "p", &nodes), -EFBIG);
	e.off = 0;
	ck_assert_int_eq(kubelet_devices_src(src, "p", NULL, d, 1, &n, NULL), -EFBIG);
	/* a pod's entries past the value bound */
	v = malloc(RQ_KUBELET_VALUE_MAX + 64);
	ck_assert_ptr_nonnull(v);
	strcpy(v, "{\"entries\":{\"p\":{\"c\":\"");
	memset(v + strlen(v), '1', RQ_KUBELET_VALUE_MAX);
	strcpy(v + RQ_KUBELET_VALUE_MAX + 22, "\"}}}");
	ck_assert_int_eq(cpu_mgr(v, "p", b), -EFBIG);
	ck_assert_int_eq(cpu_mgr(v, "q", b), -ENOENT); /* another pod's: skipped, not held */
	free(v);
}
END_TEST

/*
 * A 250-pod device checkpoint as kubelet writes it (8 GPUs and 8 rail VFs a
 * pod, base64 AllocResp blobs): the pod's entries are found wherever they
 * are, through the real buffer and through reads of any size.
 */
static char *big_checkpoint(size_t pods, const char *uid_at, size_t at, size_t *ret_len)
{
	size_t size = pods * 40000 + 4096, len = 0;
	char *j = malloc(size), blob[1401];

	ck_assert_ptr_nonnull(j);
	for (size_t i = 0; i < sizeof(blob) - 1; i++)
		blob[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64];
	blob[sizeof(blob) - 1] = '\0';
	len += (size_t)snprintf(j + len, size - len, "{\"Data\":{\"PodDeviceEntries\":[");
	for (size_t p = 0; p < pods; p++) {
		char uid[64];

		if (p == at)
			snprintf(uid, sizeof(uid), "%s", uid_at);
		else
			snprintf(uid, sizeof(uid), "%08zx-0000-4000-8000-000000000000", p);
		for (int r = 0; r < 9; r++)
			len += (size_t)snprintf(
			    j + len, size - len,
			    "%s{\"PodUID\":\"%s\",\"ContainerName\":\"main\",\"ResourceName\":"
			    "\"%s%d\",\"DeviceIDs\":{\"%d\":[\"dev-%zu-%d\"]},\"AllocResp\":\"%s\"}",
			    p || r ? "," : "", uid, r ? "rdma/rail" : "nvidia.com/gpu", r, r % 2, p,
			    r, blob);
	}
	len += (size_t)snprintf(j + len, size - len,
				"],\"RegisteredDevices\":{\"nvidia.com/gpu\":[\"GPU-0\"]}},"
				"\"Checksum\":1234567890}");
	ck_assert_uint_lt(len, size - 1);
	*ret_len = len;
	return j;
}

START_TEST(stream_big_checkpoint)
{
	static const size_t steps[] = {0, 1, 7, 4093, 65536, 100000};
	struct rq_kubelet_dev d[RQ_KUBELET_MAX_DEVS];
	size_t len, n;
	uint64_t nodes;
	char *j = big_checkpoint(250, "pod-x", 249, &len);

	ck_assert_uint_gt(len, 3 * RQ_JSCAN_BUF);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct rq_jmem m = {.p = j, .len = len, .step = steps[i]};

		n = 0;
		nodes = 0;
		ck_assert_int_eq(kubelet_devices_src((struct rq_jsrc){.read = jmem_read, .ctx = &m},
						     "pod-x", NULL, d, RQ_KUBELET_MAX_DEVS, &n, &nodes),
				 0);
		ck_assert_uint_eq(n, 9);
		ck_assert_str_eq(d[0].resource, "nvidia.com/gpu0");
		ck_assert_str_eq(d[8].id, "dev-249-8");
		ck_assert_uint_eq(nodes, 3);
	}
	/* at most @max stored; the nodes still cover all */
	ck_assert_int_eq(kubelet_devices_src((struct rq_jsrc){.read = jmem_read,
							       .ctx = &(struct rq_jmem){j, len, 0, 0}},
					     "pod-x", NULL, d, 1, &n, &nodes),
			 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(nodes, 3);
	/*
	 * The attachment's own devices are no evidence: with every odd rail skipped (one
	 * spelled in capitals, as PCI addresses may be), node 1 is no longer the pod's.
	 */
	{
		static const char *const own[] = {"dev-249-1", "DEV-249-3", "dev-249-5", "",
						  "dev-249-7", NULL};

		ck_assert_int_eq(
		    kubelet_devices_src((struct rq_jsrc){.read = jmem_read,
							 .ctx = &(struct rq_jmem){j, len, 0, 0}},
					"pod-x", own, d, RQ_KUBELET_MAX_DEVS, &n, &nodes),
		    0);
		ck_assert_uint_eq(n, 5);
		ck_assert_uint_eq(nodes, 1);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(d[i].node, 0);
		ck_assert(kubelet_dev_skipped(own, "DEV-249-1"));
		ck_assert(!kubelet_dev_skipped(own, ""));
		ck_assert(!kubelet_dev_skipped(NULL, "dev-249-1"));
	}
	/* one damaged byte anywhere is malformed, even far from the pod (a comma dropped) */
	*strstr(j + len / 2, ",{\"PodUID\"") = ' ';
	ck_assert_int_eq(kubelet_devices(j, len, "pod-x", d, 4, &n), -EBADMSG);
	free(j);
}
END_TEST

/* Escapes in keys decode as cJSON decodes them; a key cut at a NUL compares as cJSON's does. */
START_TEST(keys_and_escapes)
{
	uint64_t b[RQ_CPU_WORDS];

	ck_assert_int_eq(cpu_mgr("{\"\\u0065ntries\":{\"p\\u00e9\\ud83d\\ude00\":{\"c\":\"2\"}}}",
				 "p\xc3\xa9\xf0\x9f\x98\x80", b),
			 0);
	ck_assert_uint_eq(b[0], 4);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\\u0000x\":{\"c\":\"2\"}}}", "p", b), 0);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"\\ud83d\"}}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"\\q\"}}}", "p", b), -EBADMSG);
	/* the first of a duplicated key counts, as with cJSON's lookup */
	ck_assert_int_eq(cpu_mgr("{\"entries\":{\"p\":{\"c\":\"3\"},\"p\":{\"c\":\"1\"}}}", "p", b),
			 0);
	ck_assert_uint_eq(b[0], 8);
	ck_assert_int_eq(cpu_mgr("{\"entries\":5,\"entries\":{\"p\":{\"c\":\"1\"}}}", "p", b),
			 -ENOENT);
	/* malformed parts the walk skips are still malformed */
	ck_assert_int_eq(cpu_mgr("{\"x\":[1,],\"entries\":{\"p\":{\"c\":\"1\"}}}", "p", b),
			 -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":1e,\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":.,\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":1-2,\"entries\":{}}", "p", b), -EBADMSG);
	/* cJSON reads numbers as strtod does, and so does the scanner */
	ck_assert_int_eq(cpu_mgr("{\"x\":[053,1.,-.5e3],\"entries\":{\"p\":{\"c\":\"1\"}}}",
				 "p", b),
			 0);
	ck_assert_int_eq(cpu_mgr("{\"x\":+1,\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":.5,\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":tru,\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":{\"a\" 1},\"entries\":{}}", "p", b), -EBADMSG);
	ck_assert_int_eq(cpu_mgr("{\"x\":-1.5e+3,\"entries\":{\"p\":{\"c\":\"1\"}}}", "p", b), 0);
	ck_assert_int_eq(cpu_mgr("\xef\xbb\xbf{\"entries\":{\"p\":{\"c\":\"1\"}}}", "p", b),
			 -EBADMSG);
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

/* issue 42 item 6: a pod from its process's cgroup and kubelet's pod log directory */
START_TEST(pod_uid_from_cgroup)
{
	char uid[80];
	static const char sysd[] =
	    "0::/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-pod3f2a_9c1e_4b7d_8e21_0a1b2c3d4e5f.slice/"
	    "cri-containerd-0123abcd.scope\n";
	static const char fs[] = "12:memory:/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/"
				 "abcdef\n0::/\n";
	static const char guar[] = "0::/kubepods.slice/kubepods-pod0badcafe_0000_1111_2222_333344445555.slice/crio-1.scope";

	ck_assert_int_eq(kubelet_cgroup_pod_uid(sysd, strlen(sysd), uid, sizeof(uid)), 0);
	ck_assert_str_eq(uid, "3f2a-9c1e-4b7d-8e21-0a1b2c3d4e5f");
	ck_assert_int_eq(kubelet_cgroup_pod_uid(fs, strlen(fs), uid, sizeof(uid)), 0);
	ck_assert_str_eq(uid, "11111111-2222-3333-4444-555555555555");
	ck_assert_int_eq(kubelet_cgroup_pod_uid(guar, strlen(guar), uid, sizeof(uid)), 0);
	ck_assert_str_eq(uid, "0badcafe-0000-1111-2222-333344445555");
	/* not a pod's: the host's, a "pod" outside kubepods, a UID with other characters */
	ck_assert_int_eq(kubelet_cgroup_pod_uid("0::/system.slice/sshd.service\n", strlen("0::/system.slice/sshd.service\n"), uid, sizeof(uid)), -ENOENT);
	ck_assert_int_eq(kubelet_cgroup_pod_uid("0::/user.slice/pod12345678\n", strlen("0::/user.slice/pod12345678\n"), uid, sizeof(uid)), -ENOENT);
	ck_assert_int_eq(kubelet_cgroup_pod_uid("0::/kubepods/podxyz/../..\n", strlen("0::/kubepods/podxyz/../..\n"), uid, sizeof(uid)), -ENOENT);
	ck_assert_int_eq(kubelet_cgroup_pod_uid("", 0, uid, sizeof(uid)), -ENOENT);
	ck_assert_int_eq(kubelet_cgroup_pod_uid(fs, strlen(fs), uid, 8), -ENAMETOOLONG);
}
END_TEST

START_TEST(pod_log_entry)
{
	char ns[64], name[64];

	ck_assert_int_eq(kubelet_pod_log_entry("ai_trainer-0_u-1234-5678", "u-1234-5678", ns, sizeof(ns), name, sizeof(name)), 0);
	ck_assert_str_eq(ns, "ai");
	ck_assert_str_eq(name, "trainer-0");
	ck_assert_int_eq(kubelet_pod_log_entry("ai_trainer-0_u-1234-5678", "u-9999-5678", ns, sizeof(ns), name, sizeof(name)), -ENOENT);
	ck_assert_int_eq(kubelet_pod_log_entry("x_u-1234-5678", "u-1234-5678", ns, sizeof(ns), name, sizeof(name)), -ENOENT);
	ck_assert_int_eq(kubelet_pod_log_entry("a_b_c_u-1234-5678", "u-1234-5678", ns, sizeof(ns), name, sizeof(name)), -EINVAL);
	ck_assert_int_eq(kubelet_pod_log_entry("_bb_u-1234-5678", "u-1234-5678", ns, sizeof(ns), name, sizeof(name)), -EINVAL);
	ck_assert_int_eq(kubelet_pod_log_entry("ab__u-1234-5678", "u-1234-5678", ns, sizeof(ns), name, sizeof(name)), -EINVAL);
	ck_assert_int_eq(kubelet_pod_log_entry("ai_trainer-0_u-1234-5678", "u-1234-5678", ns, 2, name, sizeof(name)), -ENAMETOOLONG);
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
	tcase_add_test(tc, bound_is_an_error);
	tcase_add_test(tc, stream_big_checkpoint);
	tcase_add_test(tc, keys_and_escapes);
	tcase_add_test(tc, pod_uid_from_cgroup);
	tcase_add_test(tc, pod_log_entry);
	suite_add_tcase(s, tc);
	return s;
}
