// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the node layer's parsers of untrusted bytes
 * (make fuzz-kubelet): kubelet's three checkpoints, cpusets, the RDMA ToS
 * file text, RDMA netlink PORT_GET replies and hw_counters lines. The first input byte picks
 * the parser; the rest is copied into an exactly-sized buffer so ASan sees
 * any read past the end. Each parser's own promises are checked and a
 * broken one aborts.
 *
 * The checkpoints are streamed (pkg/json/jscan.c): this build shrinks the
 * scanner's buffer and the pod-entries bound (kubelet.mk) so that inputs
 * cross both, and the second input byte sets how many bytes each read hands
 * over. Every document the streaming parser accepts is also read by the old
 * whole-tree parser (kubelet_ref.c): the two must agree exactly.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/rdma/rdma.h"
#include "tests/fuzz/kubelet_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define UID "pod-a"

static void cpuset(const char *s)
{
	uint64_t bits[RQ_CPU_WORDS];

	(void)kubelet_cpuset_parse(s, bits);
}

static struct rq_jsrc src(struct rq_jmem *m, const char *buf, size_t len, size_t step)
{
	*m = (struct rq_jmem){.p = buf, .len = len, .step = step};
	return (struct rq_jsrc){.read = jmem_read, .ctx = m};
}

/* Accepted by the stream (a result or "nothing for this pod"): the tree must say the same. */
static bool accepted(int r)
{
	return r == 0 || r == -ENOENT;
}

static void cpu_manager(const char *buf, size_t len, size_t step)
{
	uint64_t bits[RQ_CPU_WORDS], ref[RQ_CPU_WORDS];
	struct rq_jmem m;
	int any = 0, r = kubelet_cpu_manager_src(src(&m, buf, len, step), UID, bits), rr;

	if (r != 0 && r != -ENOENT && r != -EBADMSG && r != -EFBIG)
		abort();
	if (!accepted(r))
		return;
	rr = ref_cpu_manager(buf, len, UID, ref);
	if (rr != r || (r == 0 && memcmp(bits, ref, sizeof(ref))))
		abort();
	if (r != 0)
		return;
	for (int i = 0; i < RQ_CPU_WORDS; i++)
		any |= bits[i] != 0;
	if (!any) /* success promises exclusive CPUs */
		abort();
}

static void devices(const char *buf, size_t len, size_t step)
{
	struct rq_kubelet_dev d[4], ref[4];
	struct rq_jmem m;
	size_t n = 0, rn = 0;
	uint64_t nodes = 0, want = 0;
	int r = kubelet_devices_src(src(&m, buf, len, step), UID, NULL, d, 4, &n, &nodes);

	if (r != 0 && r != -EBADMSG && r != -EFBIG)
		abort();
	if (r != 0)
		return;
	if (n > 4)
		abort();
	for (size_t i = 0; i < n; i++)
		if (d[i].node < -1 || d[i].node > 63 || !memchr(d[i].id, '\0', sizeof(d[i].id)) ||
		    !memchr(d[i].resource, '\0', sizeof(d[i].resource)))
			abort();
	if (ref_devices(buf, len, UID, ref, 4, &rn) != 0 || rn != n)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (strcmp(d[i].id, ref[i].id) || strcmp(d[i].resource, ref[i].resource) ||
		    d[i].node != ref[i].node)
			abort();
		if (d[i].node >= 0)
			want |= 1ULL << d[i].node;
	}
	/* the nodes cover every listed device (and may cover more past the 4) */
	if ((nodes & want) != want || (n < 4 && nodes != want))
		abort();
}

static void memory(const char *buf, size_t len, size_t step)
{
	struct rq_jmem m;
	uint64_t nodes = 0, ref = 0;
	int r = kubelet_memory_src(src(&m, buf, len, step), UID, &nodes);

	if (r == 0 && nodes == 0)
		abort();
	if (!accepted(r))
		return;
	if (ref_memory(buf, len, UID, &ref) != r || (r == 0 && ref != nodes))
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
	char ev[48];

	/* the same bytes as a kobject uevent datagram: no read past @len (ASan), a whole name */
	if (rdma_uevent_dev((const char *)buf, len, ev, sizeof(ev)) == 1 &&
	    (!ev[0] || !memchr(ev, '\0', sizeof(ev))))
		abort();
	/* the callers (the dump, the agent's drain) hand over aligned messages of at least a header */
	if (len < NLMSG_HDRLEN)
		return;
	if (rdma_nl_parse_port((const struct nlmsghdr *)buf, len, 7, &d) == 1 &&
	    (d.port < 1 || !d.name[0] || !memchr(d.name, '\0', sizeof(d.name))))
		abort();
	if (rdma_nl_parse_event((const struct nlmsghdr *)buf, len, ev, sizeof(ev)) == 1 &&
	    (!ev[0] || !memchr(ev, '\0', sizeof(ev))))
		abort();
}

/* hw_counters as "name value" lines (podsys_read_dir's answer): named, bounded, no lifespan. */
static void counters(const char *buf)
{
	struct rdma_counters c;

	if (rdma_counters_parse(buf, &c) < 0)
		return;
	for (size_t i = 0; i < c.n; i++)
		if (!c.names[i][0] || !memchr(c.names[i], '\0', RQ_RDMA_CTR_NAME) ||
		    strchr(c.names[i], '\n') || !strcmp(c.names[i], "lifespan"))
			abort();
	rdma_counters_fini(&c);
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
	switch (data[0] % 7) {
	case 0:
		cpuset(buf);
		break;
	case 1:
	case 2:
	case 3:
		/* byte 1: how many bytes a read hands over (0: as many as asked) */
		if (len < 1)
			break;
		free(buf);
		buf = malloc(len - 1 ? len - 1 : 1);
		if (!buf)
			return 0;
		memcpy(buf, data + 2, len - 1);
		if (data[0] % 7 == 1)
			cpu_manager(buf, len - 1, data[1]);
		else if (data[0] % 7 == 2)
			devices(buf, len - 1, data[1]);
		else
			memory(buf, len - 1, data[1]);
		break;
	case 4:
		tos(buf);
		break;
	case 6:
		counters(buf);
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
