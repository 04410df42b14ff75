// SPDX-License-Identifier: Apache-2.0
/*
 * An RDMA device port's hw_counters. mlx5 (hw/mlx5/counters.c) has its
 * Q-counters and, where firmware allows (cc_query_allowed), the congestion
 * counters; rxe (rxe_hw_counters.c) its own names. The kernel caches a read
 * for `lifespan` ms; nothing here writes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pkg/rdma/rdma.h"

#define CTR_MAX 512 /* mlx5 has ~60; more is not a device's */

void rdma_counters_fini(struct rdma_counters *c)
{
	if (!c)
		return;
	free(c->names);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

static int ctr_add(struct rdma_counters *c, size_t *cap, const char *name, size_t nl,
		   const char *val)
{
	unsigned long long v;
	char *end;

	if (nl == 0 || nl >= RQ_RDMA_CTR_NAME || (nl == 8 && !memcmp(name, "lifespan", 8)))
		return 0;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || end == val || (*end && *end != '\n' && *end != ' ') || val[0] == '-')
		return 0;
	if (c->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		char(*nn)[RQ_RDMA_CTR_NAME];
		uint64_t *nv;

		if (nc > CTR_MAX)
			return -E2BIG;
		nn = realloc(c->names, nc * RQ_RDMA_CTR_NAME);
		if (!nn)
			return -ENOMEM;
		c->names = nn;
		nv = realloc(c->vals, nc * sizeof(uint64_t));
		if (!nv)
			return -ENOMEM;
		c->vals = nv;
		*cap = nc;
	}
	memcpy(c->names[c->n], name, nl);
	c->names[c->n][nl] = '\0';
	c->vals[c->n++] = v;
	return 0;
}

int rdma_counters_parse(const char *text, struct rdma_counters *ret)
{
	size_t cap = 0;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	for (const char *l = text; r == 0 && l && *l;) {
		const char *sp = strchr(l, ' '), *nl = strchr(l, '\n');

		if (!nl)
			nl = l + strlen(l);
		if (sp && sp < nl)
			r = ctr_add(ret, &cap, l, (size_t)(sp - l), sp + 1);
		l = *nl ? nl + 1 : nl;
	}
	if (r < 0)
		rdma_counters_fini(ret);
	return r;
}

/* One getdents64 pass and an openat per entry: no DIR (a malloc and two syscalls per device). */
static int read_host(int dfd, struct rdma_counters *ret)
{
	char ents[8192];
	size_t cap = 0;
	long n;
	int r = 0;

	while (r == 0 && (n = syscall(SYS_getdents64, dfd, ents, sizeof(ents))) > 0)
		for (long off = 0; r == 0 && off < n;) {
			const struct linux_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (const void *)(ents + off);
			char v[64];
			ssize_t got;
			int fd;

			off += d->reclen;
			/* lifespan is the kernel's cache setting, not a counter: not even opened */
			if (d->name[0] == '.' || !strcmp(d->name, "lifespan"))
				continue;
			fd = openat(dfd, d->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue; /* not readable (a counter the driver refuses): no series
					   */
			got = read(fd, v, sizeof(v) - 1);
			close(fd);
			if (got <= 0)
				continue;
			v[got] = '\0';
			r = ctr_add(ret, &cap, d->name, strlen(d->name), v);
		}
	if (r == 0 && n < 0)
		r = -errno;
	close(dfd);
	return r;
}

int rdma_counters_read(const struct rq_root *r, const char *netns, const char *dev, int port,
		       struct rdma_counters *ret)
{
	char path[256];
	int fd, rc;

	memset(ret, 0, sizeof(*ret));
	if (!dev[0] || strchr(dev, '/') || dev[0] == '.' || port < 1)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters", dev,
		     port) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (netns && netns[0]) {
		char *buf = malloc(8192);

		if (!buf)
			return -ENOMEM;
		rc = podsys_read_dir(netns, path, buf, 8192);
		if (rc == 0)
			rc = rdma_counters_parse(buf, ret);
		free(buf);
		return rc;
	}
	fd = root_openat(r, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	rc = read_host(fd, ret);
	if (rc < 0)
		rdma_counters_fini(ret);
	return rc;
}

static const struct {
	const char *name;
	enum rdma_ctr kind;
	int dir;
} known[] = {
    /* mlx5: congestion control (cc_query_allowed) */
    {"np_cnp_sent", RC_CNP_SENT, 1},
    {"rp_cnp_handled", RC_CNP_HANDLED, 0},
    {"np_ecn_marked_roce_packets", RC_ECN_MARKED, 0},
    /*
     * mlx5 Q-counters of the requester: each one a retransmission (or what
     * made the QP resend): a NAK for a sequence error, an ACK timeout, an
     * implied NAK, adaptive retransmission (hw/mlx5/counters.c)
     */
    {"packet_seq_err", RC_RETRANS, 0},
    {"local_ack_timeout_err", RC_RETRANS, 0},
    {"implied_nak_seq_err", RC_RETRANS, 0},
    {"roce_adp_retrans", RC_RETRANS, 0},
    {"roce_adp_retrans_to", RC_RETRANS, 0},
    /* the responder's PSN gaps, per packet received after a loss */
    {"out_of_sequence", RC_OUT_OF_SEQ, 0},
    /*
     * rxe (rxe_comp.c, the requester's completer): a sequence NAK received, a
     * retry started (timeout), an RNR NAK received; out_of_seq_request is the
     * responder's (rxe_resp.c). duplicate_request, the responder seeing a
     * resent packet, is any other counter.
     */
    {"rcvd_seq_err", RC_RETRANS, 0},
    {"completer_retry_err", RC_RETRANS, 0},
    {"rcvd_rnr_err", RC_RETRANS, 0},
    {"out_of_seq_request", RC_OUT_OF_SEQ, 0},
    {"sent_pkts", RC_PACKETS, 1},
    {"rcvd_pkts", RC_PACKETS, 0},
    /*
     * mlx5: not hw_counters but the VF netdev's ethtool vport counters
     * (pkg/ethtool ethtool_vport_rdma_names), which telemetry/telemetry.c adds
     * to an attachment's counters when its device has no packets/bytes
     */
    {"rx_vport_rdma_unicast_packets", RC_PACKETS, 0},
    {"tx_vport_rdma_unicast_packets", RC_PACKETS, 1},
    {"rx_vport_rdma_unicast_bytes", RC_BYTES, 0},
    {"tx_vport_rdma_unicast_bytes", RC_BYTES, 1},
};

enum rdma_ctr rdma_counter_classify(const char *name, int *ret_dir)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name)) {
			*ret_dir = known[i].dir;
			return known[i].kind;
		}
	*ret_dir = 0;
	return RC_OTHER;
}

/* rxe's own names: its counters are atomic64 (rxe_hw_counters.c) */
static const char *const rxe64[] = {
    "sent_pkts",
    "rcvd_pkts",
    "out_of_seq_request",
    "rcvd_seq_err",
    "completer_retry_err",
    "rcvd_rnr_err",
    "send_rnr_err",
    "ack_deferred",
    "retry_exceeded_err",
    "retry_rnr_exceeded_err",
    "send_err",
    "link_downed",
    "rdma_sends",
    "rdma_recvs",
};

int rdma_counter_bits(const char *name)
{
	int dir;
	enum rdma_ctr k = rdma_counter_classify(name, &dir);

	/* the congestion counters come from QUERY_CONG_STATISTICS, 64-bit fields */
	if (k == RC_CNP_SENT || k == RC_CNP_HANDLED || k == RC_ECN_MARKED || k == RC_PACKETS ||
	    k == RC_BYTES || !strncmp(name, "np_", 3) || !strncmp(name, "rp_", 3))
		return 64;
	for (size_t i = 0; i < sizeof(rxe64) / sizeof(rxe64[0]); i++)
		if (!strcmp(name, rxe64[i]))
			return 64;
	return 32;
}

uint64_t rdma_counter_delta(uint64_t prev, uint64_t cur, int bits)
{
	if (cur >= prev)
		return cur - prev;
	/* mlx5 Q-counters: 32 bits in the firmware's answer, so 2^32 - 1 wraps to 0 */
	if (bits == 32 && prev > (1ULL << 31) && prev <= UINT32_MAX)
		return cur + (1ULL << 32) - prev;
	return cur;
}
