// SPDX-License-Identifier: Apache-2.0
/*
 * A RoCE port's GID table from sysfs, and the entries of one address
 * (gid.h). What reading a slot gives follows drivers/infiniband/core/
 * sysfs.c: the zero GID for an empty one, a failing read of its type and
 * ndev.
 */
#include "pkg/rdma/gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rdma_gid_type rdma_gid_type_parse(const char *s)
{
	if (!s || !s[0])
		return RDMA_GID_NONE;
	if (!strcmp(s, "RoCE v2"))
		return RDMA_GID_ROCE_V2;
	if (!strcmp(s, "IB/RoCE v1"))
		return RDMA_GID_ROCE_V1;
	return RDMA_GID_OTHER;
}

const char *rdma_gid_type_name(enum rdma_gid_type t)
{
	switch (t) {
	case RDMA_GID_ROCE_V1:
		return "v1";
	case RDMA_GID_ROCE_V2:
		return "v2";
	case RDMA_GID_OTHER:
		return "other";
	case RDMA_GID_NONE:
	default:
		return "";
	}
}

int rdma_gid_parse(const char *s, uint8_t ret[16])
{
	uint8_t g[16];

	if (!s || inet_pton(AF_INET6, s, g) != 1)
		return -EINVAL;
	memcpy(ret, g, sizeof(g));
	return 0;
}

void rdma_gid_format(const uint8_t gid[16], char buf[40])
{
	for (int i = 0; i < 8; i++)
		(void)snprintf(buf + i * 5, 6, "%02x%02x%s", gid[2 * i], gid[2 * i + 1],
			       i < 7 ? ":" : "");
}

bool rdma_gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return !memcmp(gid, zero, sizeof(zero));
}

/* Whether an IPv4 address (network order) is one an interface holds as its own. */
static bool v4_usable(const uint8_t a[4])
{
	if (!a[0] && !a[1] && !a[2] && !a[3])
		return false;
	if (a[0] == 127 || a[0] >= 224) /* loopback, multicast, class E and broadcast */
		return false;
	return true;
}

int rdma_gid_from_ip(const char *ip, uint8_t ret[16])
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	size_t n;
	uint8_t a[16];

	if (!ip)
		return -EINVAL;
	slash = strchr(ip, '/');
	n = slash ? (size_t)(slash - ip) : strlen(ip);
	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, ip, n);
	buf[n] = '\0';
	if (slash) {
		char *end;
		long p = strtol(slash + 1, &end, 10);

		if (!slash[1] || *end || p < 0 || p > (strchr(buf, ':') ? 128 : 32))
			return -EINVAL;
	}
	if (inet_pton(AF_INET, buf, a) == 1) {
		if (!v4_usable(a))
			return -EADDRNOTAVAIL;
		memset(ret, 0, 10);
		ret[10] = ret[11] = 0xff;
		memcpy(ret + 12, a, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, buf, a) != 1)
		return -EINVAL;
	/* ::ffff:a.b.c.d spelled as IPv6 is the IPv4 address */
	if (!memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
		if (!v4_usable(a + 12))
			return -EADDRNOTAVAIL;
		memcpy(ret, a, 16);
		return 0;
	}
	/* global scope only: not unspecified, loopback, multicast (ff00::/8), link-local
	 * (fe80::/10) */
	if (rdma_gid_is_zero(a) ||
	    (!memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15) && a[15] == 1) || a[0] == 0xff ||
	    (a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return -EADDRNOTAVAIL;
	memcpy(ret, a, 16);
	return 0;
}

void rdma_gid_table_fini(struct rdma_gid_table *t)
{
	if (!t)
		return;
	free(t->e);
	t->e = NULL;
	t->n = t->size = 0;
}

/* A slot's attribute: "" when the kernel's read fails as it does for an empty slot. */
static int read_attr(const struct rq_root *r, const char *base, const char *what, int idx,
		     char *buf, size_t len)
{
	char path[512];
	int rr;

	if (snprintf(path, sizeof(path), "%s/gid_attrs/%s/%d", base, what, idx) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	rr = sysfs_read_str(r, path, buf, len);
	if (rr == -ENODATA || rr == -EINVAL || rr == -ENOENT) {
		buf[0] = '\0';
		return 0;
	}
	return rr;
}

static int by_index(const void *a, const void *b)
{
	const struct rdma_gid *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* a slot file's name: a decimal index, nothing else */
static int slot_index(const char *name)
{
	char *end;
	long v;

	if (!name[0] || name[0] < '0' || name[0] > '9')
		return -1;
	v = strtol(name, &end, 10);
	return (*end || v < 0 || v > 65535) ? -1 : (int)v;
}

int rdma_gid_table_read(const struct rq_root *r, const char *dev, int port,
			struct rdma_gid_table *ret)
{
	struct rdma_gid_table t = {0};
	char base[256], path[512], buf[64];
	char **names = NULL;
	size_t nn = 0;
	int rr;

	if (!dev || !dev[0] || strchr(dev, '/') || !strcmp(dev, ".") || !strcmp(dev, "..") ||
	    port < 1)
		return -EINVAL;
	if (snprintf(base, sizeof(base), "/sys/class/infiniband/%s/ports/%d", dev, port) >=
	    (int)sizeof(base))
		return -ENAMETOOLONG;
	(void)snprintf(path, sizeof(path), "%s/gids", base);
	rr = sysfs_list(r, path, &names, &nn);
	if (rr < 0)
		return rr == -ENOTDIR ? -ENOENT : rr;
	if (nn) {
		t.e = calloc(nn, sizeof(*t.e));
		if (!t.e) {
			sysfs_list_free(names, nn);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < nn; i++) {
		struct rdma_gid *g = &t.e[t.n];
		int idx = slot_index(names[i]);

		if (idx < 0)
			continue;
		t.size++;
		(void)snprintf(path, sizeof(path), "%s/gids/%d", base, idx);
		rr = sysfs_read_str(r, path, buf, sizeof(buf));
		if (rr == -ENOENT) /* the slot went under the listing: the device is going */
			continue;
		if (rr < 0)
			goto fail;
		if (rdma_gid_parse(buf, g->gid) < 0) {
			rr = -EBADMSG;
			goto fail;
		}
		if (rdma_gid_is_zero(g->gid))
			continue;
		g->index = idx;
		rr = read_attr(r, base, "types", idx, buf, sizeof(buf));
		if (rr < 0)
			goto fail;
		g->type = rdma_gid_type_parse(buf);
		rr = read_attr(r, base, "ndevs", idx, g->ndev, sizeof(g->ndev));
		if (rr == -ENAMETOOLONG)
			g->ndev[0] = '\0';
		else if (rr < 0)
			goto fail;
		t.n++;
	}
	sysfs_list_free(names, nn);
	if (t.n)
		qsort(t.e, t.n, sizeof(*t.e), by_index);
	*ret = t;
	return 0;
fail:
	sysfs_list_free(names, nn);
	rdma_gid_table_fini(&t);
	return rr;
}

int rdma_gid_slot_read(const struct rq_root *r, const char *dev, int port, int idx,
		       struct rdma_gid *ret)
{
	char base[256], path[512], buf[64];
	int rr;

	if (!dev || !dev[0] || strchr(dev, '/') || !strcmp(dev, ".") || !strcmp(dev, "..") ||
	    port < 1 || idx < 0)
		return -EINVAL;
	if (snprintf(base, sizeof(base), "/sys/class/infiniband/%s/ports/%d", dev, port) >=
	    (int)sizeof(base))
		return -ENAMETOOLONG;
	memset(ret, 0, sizeof(*ret));
	ret->index = idx;
	(void)snprintf(path, sizeof(path), "%s/gids/%d", base, idx);
	rr = sysfs_read_str(r, path, buf, sizeof(buf));
	if (rr < 0)
		return rr;
	if (rdma_gid_parse(buf, ret->gid) < 0)
		return -EBADMSG;
	if (rdma_gid_is_zero(ret->gid))
		return 0;
	rr = read_attr(r, base, "types", idx, buf, sizeof(buf));
	if (rr < 0)
		return rr;
	ret->type = rdma_gid_type_parse(buf);
	return 0;
}

int rdma_gid_find(const struct rdma_gid_table *t, const char *ip, struct rdma_gid_match *ret)
{
	uint8_t want[16];
	int rr = rdma_gid_from_ip(ip, want);

	ret->v1 = ret->v2 = -1;
	if (rr < 0)
		return rr;
	for (size_t i = 0; i < t->n; i++) {
		const struct rdma_gid *g = &t->e[i];

		if (memcmp(g->gid, want, sizeof(want)) != 0)
			continue;
		if (g->type == RDMA_GID_ROCE_V2 && ret->v2 < 0)
			ret->v2 = g->index;
		else if (g->type == RDMA_GID_ROCE_V1 && ret->v1 < 0)
			ret->v1 = g->index;
	}
	if (ret->v2 >= 0)
		return 0;
	return t->n >= t->size ? -ENOSPC : -ENOENT;
}
