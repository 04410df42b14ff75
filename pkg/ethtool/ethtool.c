// SPDX-License-Identifier: Apache-2.0
/*
 * SIOCETHTOOL statistics: GSSET_INFO for the count, GSTRINGS for the names
 * (kept per netdev and fetched again only when the count changes), GSTATS
 * for the values. A count that changes between the calls (PFC toggled
 * meanwhile) makes GSTATS answer another n_stats: read again once.
 */
#include "pkg/ethtool/ethtool.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/netns/netns.h"

/* no driver has near this many; a larger count is not trusted */
#define ETH_STATS_MAX 65536

struct name_cache {
	char ifname[IF_NAMESIZE];
	size_t n;
	char (*names)[RQ_ETH_NAME_LEN];
};

struct ioctl_ctx {
	int fd;
	struct name_cache *c;
	size_t n_c;
};

void eth_stats_fini(struct eth_stats *s)
{
	if (!s)
		return;
	free(s->names);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

int eth_stats_get(const struct eth_stats *s, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->names[i], name, RQ_ETH_NAME_LEN)) {
			*ret = s->vals[i];
			return 0;
		}
	return -ENOENT;
}

static int eth_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return errno == ENOTSUP ? -EOPNOTSUPP : -errno;
	return 0;
}

static int stats_count(int fd, const char *ifname, size_t *ret)
{
	/* the reply's one count lands in hdr.data[0], inside raw */
	union {
		struct ethtool_sset_info hdr;
		uint8_t raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} s;
	int r;

	memset(&s, 0, sizeof(s));
	s.hdr.cmd = ETHTOOL_GSSET_INFO;
	s.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	r = eth_ioctl(fd, ifname, &s);
	if (r < 0)
		return r;
	if (!(s.hdr.sset_mask & (1ULL << ETH_SS_STATS)) || s.hdr.data[0] == 0)
		return -EOPNOTSUPP;
	if (s.hdr.data[0] > ETH_STATS_MAX)
		return -E2BIG;
	*ret = s.hdr.data[0];
	return 0;
}

static int names_fetch(int fd, const char *ifname, size_t n, char (**ret)[RQ_ETH_NAME_LEN])
{
	struct ethtool_gstrings *g = calloc(1, sizeof(*g) + n * ETH_GSTRING_LEN);
	char(*names)[RQ_ETH_NAME_LEN];
	int r;

	if (!g)
		return -ENOMEM;
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_STATS;
	g->len = (uint32_t)n;
	r = eth_ioctl(fd, ifname, g);
	if (r == 0 && g->len != n)
		r = -EAGAIN;
	if (r < 0) {
		free(g);
		return r;
	}
	names = malloc(n * RQ_ETH_NAME_LEN);
	if (!names) {
		free(g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(names[i], g->data + i * ETH_GSTRING_LEN, RQ_ETH_NAME_LEN);
		names[i][RQ_ETH_NAME_LEN - 1] = '\0';
	}
	free(g);
	*ret = names;
	return 0;
}

static struct name_cache *cache_get(struct ioctl_ctx *x, const char *ifname)
{
	struct name_cache *n;

	for (size_t i = 0; i < x->n_c; i++)
		if (!strcmp(x->c[i].ifname, ifname))
			return &x->c[i];
	n = realloc(x->c, (x->n_c + 1) * sizeof(*n));
	if (!n)
		return NULL;
	x->c = n;
	n = &x->c[x->n_c++];
	memset(n, 0, sizeof(*n));
	memcpy(n->ifname, ifname, strlen(ifname) + 1);
	return n;
}

static int stats_once(struct ioctl_ctx *x, const char *ifname, struct eth_stats *ret)
{
	struct name_cache *c;
	struct ethtool_stats *st;
	size_t n;
	int r = stats_count(x->fd, ifname, &n);

	if (r < 0)
		return r;
	c = cache_get(x, ifname);
	if (!c)
		return -ENOMEM;
	if (c->n != n || !c->names) {
		free(c->names);
		c->names = NULL;
		c->n = 0;
		r = names_fetch(x->fd, ifname, n, &c->names);
		if (r < 0)
			return r;
		c->n = n;
	}
	st = calloc(1, sizeof(*st) + n * sizeof(uint64_t));
	if (!st)
		return -ENOMEM;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = (uint32_t)n;
	r = eth_ioctl(x->fd, ifname, st);
	if (r == 0 && st->n_stats != n)
		r = -EAGAIN;
	if (r == 0) {
		ret->names = malloc(n * RQ_ETH_NAME_LEN);
		ret->vals = malloc(n * sizeof(uint64_t));
		if (!ret->names || !ret->vals) {
			eth_stats_fini(ret);
			r = -ENOMEM;
		} else {
			memcpy(ret->names, c->names, n * RQ_ETH_NAME_LEN);
			memcpy(ret->vals, st->data, n * sizeof(uint64_t));
			ret->n = n;
		}
	}
	if (r == -EAGAIN)
		c->n = 0; /* the name list moved under us: fetch it again */
	free(st);
	return r;
}

static int ioctl_stats(void *ctx, const char *ifname, struct eth_stats *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = stats_once(ctx, ifname, ret);
	if (r == -EAGAIN)
		r = stats_once(ctx, ifname, ret);
	return r;
}

static void ioctl_free(void *ctx);

/* A socket made inside @netns keeps it: the ioctls reach that netns's netdevs. */
static int ioctl_stats_netns(void *ctx, const char *netns, const char *ifname,
			     struct eth_stats *ret)
{
	struct ioctl_ctx *x;
	int fd, saved, r;

	memset(ret, 0, sizeof(*ret));
	if (!netns || !netns[0])
		return ioctl_stats(ctx, ifname, ret);
	r = netns_enter_path(netns, &saved);
	if (r < 0)
		return r;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r = fd < 0 ? -errno : 0;
	if (netns_return(saved) < 0 && r == 0)
		r = -EIO; /* cannot come back: refuse to go on in the pod's netns */
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	/* a name cache of its own: "net1" in another pod is another netdev */
	x = calloc(1, sizeof(*x));
	if (!x) {
		close(fd);
		return -ENOMEM;
	}
	x->fd = fd;
	r = ioctl_stats(x, ifname, ret);
	ioctl_free(x);
	return r;
}

static void ioctl_free(void *ctx)
{
	struct ioctl_ctx *x = ctx;

	if (!x)
		return;
	for (size_t i = 0; i < x->n_c; i++)
		free(x->c[i].names);
	free(x->c);
	if (x->fd >= 0)
		close(x->fd);
	free(x);
}

static const struct ethtool_ops ioctl_ops = {
    .stats = ioctl_stats, .stats_netns = ioctl_stats_netns, .free = ioctl_free};

int ethtool_ioctl_new(const struct ethtool_ops **ret_ops, void **ret_ctx)
{
	struct ioctl_ctx *x = calloc(1, sizeof(*x));

	if (!x)
		return -ENOMEM;
	x->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (x->fd < 0) {
		int r = -errno;

		free(x);
		return r;
	}
	*ret_ops = &ioctl_ops;
	*ret_ctx = x;
	return 0;
}
