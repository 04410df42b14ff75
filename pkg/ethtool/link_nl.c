// SPDX-License-Identifier: Apache-2.0
/*
 * Link health over ethtool generic netlink (link.h): FEC_GET with
 * ETHTOOL_FLAG_STATS, STATS_GET for the ETH_PHY group, LINKMODES_GET with
 * compact bitsets. A request the driver cannot answer (-EOPNOTSUPP: no
 * get_fec_stats, no get_eth_phy_stats, no link modes) leaves that part
 * unreported; any other error is the netdev's (-ENODEV).
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/ethtool/link.h"
#include "pkg/genl/genl.h"
#include "pkg/nlparse/nlparse.h"

struct link_nl {
	struct genl_sock s;
	uint16_t family;
};

static void header(struct genl_req *m, uint16_t type, const char *ifname, uint32_t flags)
{
	genl_nest_start(m, type);
	genl_put_str(m, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	if (flags)
		genl_put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags);
	genl_nest_end(m);
}

/*
 * The first u64 of an ETHTOOL_A_FEC_STAT_* array: the total (net/ethtool/fec.c
 * fec_stats_recalc). A counter the driver left at ETHTOOL_STAT_NOT_SET comes
 * as an empty attribute: not reported, never a zero.
 */
static bool stat_total(const struct nlattr *a, uint64_t *ret)
{
	if (!a || nla_len(a) < (int)sizeof(uint64_t))
		return false;
	memcpy(ret, nla_data(a), sizeof(*ret));
	return true;
}

int ethtool_fec_reply(const struct nlmsghdr *h, struct eth_link_health *e)
{
	struct nlattr *tb[ETHTOOL_A_FEC_MAX + 1], *st[ETHTOOL_A_FEC_STAT_MAX + 1];
	int r = nlparse_msg(h, h->nlmsg_len, GENL_HDRLEN, tb, ETHTOOL_A_FEC_MAX, NULL);

	if (r < 0)
		return r;
	if (!tb[ETHTOOL_A_FEC_STATS])
		return 0;
	if ((r = nlparse_nested(tb[ETHTOOL_A_FEC_STATS], st, ETHTOOL_A_FEC_STAT_MAX, NULL)) < 0)
		return r;
	/* each counter on its own: a driver that fills only corrected blocks has no uncorrectable
	 */
	e->has_fec_corrected = stat_total(st[ETHTOOL_A_FEC_STAT_CORRECTED], &e->fec_corrected);
	e->has_fec_uncorrectable = stat_total(st[ETHTOOL_A_FEC_STAT_UNCORR], &e->fec_uncorrectable);
	return 0;
}

static int fec_cb(const struct nlmsghdr *h, void *arg)
{
	return ethtool_fec_reply(h, arg);
}

/* one ETHTOOL_A_STATS_GRP: the ETH_PHY group's SymbolErrorDuringCarrier */
static int phy_group(const struct nlattr *grp, struct eth_link_health *e)
{
	struct nlattr *g[ETHTOOL_A_STATS_GRP_MAX + 1];
	const struct nlattr *it;
	int rem, r = nlparse_nested(grp, g, ETHTOOL_A_STATS_GRP_MAX, NULL);

	if (r < 0)
		return r;
	if (!g[ETHTOOL_A_STATS_GRP_ID] || nla_len(g[ETHTOOL_A_STATS_GRP_ID]) < 4 ||
	    nla_get_u32(g[ETHTOOL_A_STATS_GRP_ID]) != ETHTOOL_STATS_ETH_PHY)
		return 0;
	/* each statistic is its own ETHTOOL_A_STATS_GRP_STAT nest holding one u64 by index */
	nla_for_each_nested(it, grp, rem)
	{
		const struct nlattr *v;
		int rem2;

		if (nla_type(it) != ETHTOOL_A_STATS_GRP_STAT)
			continue;
		nla_for_each_nested(v, it,
				    rem2) if (nla_type(v) == ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR &&
					      nla_len(v) >= 8)
		{
			memcpy(&e->symbol_errors, nla_data(v), sizeof(uint64_t));
			e->has_symbol_errors = true;
		}
	}
	return 0;
}

static int stats_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *it;
	int rem, r = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	nla_for_each_attr(it, (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN),
			  (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), rem)
	{
		if (nla_type(it) == ETHTOOL_A_STATS_GRP && (r = phy_group(it, arg)) < 0)
			return r;
	}
	return 0;
}

/* a compact bitset's value: its words into @bits (@max words), their bit count into *ret_n */
static int bitset_value(const struct nlattr *set, uint32_t *bits, unsigned max, unsigned *ret_n)
{
	struct nlattr *b[ETHTOOL_A_BITSET_MAX + 1];
	int r = nlparse_nested(set, b, ETHTOOL_A_BITSET_MAX, NULL);
	unsigned n, words;

	if (r < 0)
		return r;
	if (!b[ETHTOOL_A_BITSET_SIZE] || !b[ETHTOOL_A_BITSET_VALUE] ||
	    nla_len(b[ETHTOOL_A_BITSET_SIZE]) < 4)
		return -EBADMSG;
	n = nla_get_u32(b[ETHTOOL_A_BITSET_SIZE]);
	words = (n + 31) / 32;
	if (words > max)
		words = max, n = max * 32;
	if ((unsigned)nla_len(b[ETHTOOL_A_BITSET_VALUE]) < words * 4)
		return -EBADMSG;
	memcpy(bits, nla_data(b[ETHTOOL_A_BITSET_VALUE]), words * 4);
	*ret_n = n;
	return 0;
}

static int modes_cb(const struct nlmsghdr *h, void *arg)
{
	struct eth_link_health *e = arg;
	struct nlattr *tb[ETHTOOL_A_LINKMODES_MAX + 1];
	uint32_t ours[ETH_LINK_MODE_WORDS], peer[ETH_LINK_MODE_WORDS];
	unsigned n_ours = 0, n_peer = 0;
	int r = nlparse_msg(h, h->nlmsg_len, GENL_HDRLEN, tb, ETHTOOL_A_LINKMODES_MAX, NULL);

	if (r < 0)
		return r;
	if (tb[ETHTOOL_A_LINKMODES_SPEED] && nla_len(tb[ETHTOOL_A_LINKMODES_SPEED]) >= 4) {
		uint32_t s = nla_get_u32(tb[ETHTOOL_A_LINKMODES_SPEED]);

		/* SPEED_UNKNOWN (-1) while the carrier is down */
		e->has_speed = true;
		e->speed_mbps = s == (uint32_t)SPEED_UNKNOWN ? 0 : s;
	}
	memset(ours, 0, sizeof(ours));
	memset(peer, 0, sizeof(peer));
	if (tb[ETHTOOL_A_LINKMODES_OURS] &&
	    bitset_value(tb[ETHTOOL_A_LINKMODES_OURS], ours, ETH_LINK_MODE_WORDS, &n_ours) == 0)
		e->local_max_mbps = ethtool_link_modes_max(ours, n_ours);
	if (tb[ETHTOOL_A_LINKMODES_PEER] &&
	    bitset_value(tb[ETHTOOL_A_LINKMODES_PEER], peer, ETH_LINK_MODE_WORDS, &n_peer) == 0)
		e->partner_max_mbps = ethtool_link_modes_max(peer, n_peer);
	/* the modes both advertise: a lane or media mismatch shares fewer than either's best */
	e->common_max_mbps =
	    ethtool_link_modes_common_max(ours, peer, n_ours > n_peer ? n_ours : n_peer);
	return 0;
}

/* one request; -EOPNOTSUPP (and -EINVAL from a kernel without the flag) is "not reported" */
static int ask(struct link_nl *x, uint8_t cmd, uint16_t hdr, const char *ifname, uint32_t flags,
	       bool groups, int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	struct genl_req m;
	int r;

	genl_req_init(&m, x->family, cmd, ETHTOOL_GENL_VERSION, 0);
	header(&m, hdr, ifname, flags);
	if (groups) {
		uint32_t want = 1u << ETHTOOL_STATS_ETH_PHY;

		genl_nest_start(&m, ETHTOOL_A_STATS_GROUPS);
		genl_put(&m, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
		genl_put_u32(&m, ETHTOOL_A_BITSET_SIZE, ETHTOOL_STATS_ETH_PHY + 1);
		genl_put(&m, ETHTOOL_A_BITSET_VALUE, &want, sizeof(want));
		genl_nest_end(&m);
	}
	r = genl_talk(&x->s, &m, cb, arg);
	return r == -EOPNOTSUPP || r == -EINVAL ? 0 : r;
}

static int nl_health(void *ctx, const char *ifname, struct eth_link_health *ret)
{
	struct link_nl *x = ctx;
	struct eth_link_health e;
	int r;

	memset(&e, 0, sizeof(e));
	if ((r = ask(x, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, ifname, ETHTOOL_FLAG_STATS,
		     false, fec_cb, &e)) < 0 ||
	    (r = ask(x, ETHTOOL_MSG_STATS_GET, ETHTOOL_A_STATS_HEADER, ifname, 0, true, stats_cb,
		     &e)) < 0 ||
	    (r = ask(x, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, ifname,
		     ETHTOOL_FLAG_COMPACT_BITSETS, false, modes_cb, &e)) < 0)
		return r;
	*ret = e;
	return 0;
}

static void nl_free(void *ctx)
{
	struct link_nl *x = ctx;

	genl_close(&x->s);
	free(x);
}

static const struct ethtool_link_ops nl_ops = {.health = nl_health, .free = nl_free};

int ethtool_link_nl_new(const struct ethtool_link_ops **ret_ops, void **ret_ctx)
{
	struct link_nl *x = calloc(1, sizeof(*x));
	int r;

	if (!x)
		return -ENOMEM;
	if ((r = genl_open(&x->s)) < 0 ||
	    (r = genl_family(&x->s, ETHTOOL_GENL_NAME, &x->family)) < 0) {
		if (x->s.fd >= 0)
			genl_close(&x->s);
		free(x);
		return r;
	}
	*ret_ops = &nl_ops;
	*ret_ctx = x;
	return 0;
}
