// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the node layer's parsers of untrusted bytes
 * (make fuzz-kubelet): kubelet's three checkpoints, cpusets, the RDMA ToS
 * file text and RDMA netlink PORT_GET replies. The first input byte picks
 * the parser; the rest is copied into an exactly-sized buffer so ASan sees
 * any read past the end. Each parser's own promises are checked and a
 * broken one aborts.
 */
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/rdma/rdma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define UID "pod-a"

static void cpuset(const char *s)
{
	uint64_t bits[RQ_CPU_WORDS];

	(void)kubelet_cpuset_parse(s, bits);
}

static void cpu_manager(const char *buf, size_t len)
{
	uint64_t bits[RQ_CPU_WORDS];
	int any = 0;

	if (kubelet_cpu_manager(buf, len, UID, bits) != 0)
		return;
	for (int i = 0; i < RQ_CPU_WORDS; i++)
		any |= bits[i] != 0;
	if (!any) /* success promises exclusive CPUs */
		abort();
}

static void devices(const char *buf, size_t len)
{
	struct rq_kubelet_dev d[4];
	size_t n = 0;

	if (kubelet_devices(buf, len, UID, d, 4, &n) != 0)
		return;
	if (n > 4)
		abort();
	for (size_t i = 0; i < n; i++)
		if (d[i].node < -1 || d[i].node > 63 || !memchr(d[i].id, '\0', sizeof(d[i].id)) ||
		    !memchr(d[i].resource, '\0', sizeof(d[i].resource)))
			abort();
}

static void memory(const char *buf, size_t len)
{
	uint64_t nodes = 0;

	if (kubelet_memory(buf, len, UID, &nodes) == 0 && nodes == 0)
		abort();
}

static void tos(const char *s)
{
	int v = -100;

	if (rdma_tos_parse(s, &v) == 0 && (v < -1 || v > 255))
		abort();
}

static void nl_port(const uint8_t *buf, size_t len)
{
	struct rq_rdma_dev d;

	/* the caller (nl_dump) hands over aligned messages of at least a header */
	if (len < NLMSG_HDRLEN)
		return;
	if (rdma_nl_parse_port((const struct nlmsghdr *)buf, len, 7, &d) == 1 &&
	    (d.port < 1 || !d.name[0] || !memchr(d.name, '\0', sizeof(d.name))))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1;
	/* malloc is aligned enough for the netlink header; a netlink message gets no extra byte */
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	/* the string parsers need a NUL; the JSON parsers get @len and must not read it */
	buf[len] = '\0';
	switch (data[0] % 6) {
	case 0:
		cpuset(buf);
		break;
	case 1:
		cpu_manager(buf, len);
		break;
	case 2:
		devices(buf, len);
		break;
	case 3:
		memory(buf, len);
		break;
	case 4:
		tos(buf);
		break;
	default:
		free(buf);
		buf = malloc(len ? len : 1);
		if (!buf)
			return 0;
		memcpy(buf, data + 1, len);
		nl_port((const uint8_t *)buf, len);
		break;
	}
	free(buf);
	return 0;
}
