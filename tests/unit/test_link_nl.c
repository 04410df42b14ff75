// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/ethtool/link_nl.c and pkg/devlink/devlink_nl.c on this kernel, in a
 * netns of their own: a veth reports its speed through ETHTOOL_MSG_LINKMODES_GET
 * (10000 Mb/s, veth_get_link_ksettings) and neither FEC nor PHY statistics
 * (not reported, not an error); an unknown netdev is -ENODEV; a PCI address
 * with no devlink instance has no reporter. The link mode table: the fastest
 * mode of a bitmap, and of two (both ends'); a FEC reply read per counter.
 */
#include <check.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/devlink/devlink.h"
#include "pkg/ethtool/link.h"

START_TEST(link_modes_max)
{
	uint32_t bits[4] = {0};

	ck_assert_uint_eq(ethtool_link_modes_max(bits, 128), 0);
	bits[ETHTOOL_LINK_MODE_25000baseCR_Full_BIT / 32] |=
	    1u << (ETHTOOL_LINK_MODE_25000baseCR_Full_BIT % 32);
	bits[ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT / 32] |=
	    1u << (ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT % 32);
	ck_assert_uint_eq(ethtool_link_modes_max(bits, 128), 100000);
	/* a bitmap shorter than the bit: not counted */
	ck_assert_uint_eq(ethtool_link_modes_max(bits, ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT),
			  25000);
}
END_TEST

static void set_bit(uint32_t *bits, unsigned b)
{
	bits[b / 32] |= 1u << (b % 32);
}

/*
 * The fastest mode both ends advertise in common, not the slower of each
 * side's best: a NIC with 200G PAM4 and 100G NRZ over 4 lanes on a port that
 * offers 400G over 4 lanes and 100G over 4 shares only 100G (issue 49 item 4).
 */
START_TEST(link_modes_common)
{
	uint32_t ours[ETH_LINK_MODE_WORDS] = {0}, peer[ETH_LINK_MODE_WORDS] = {0};

	set_bit(ours, ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT);
	set_bit(ours, ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT);
	set_bit(peer, ETHTOOL_LINK_MODE_400000baseCR4_Full_BIT);
	set_bit(peer, ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT);
	ck_assert_uint_eq(ethtool_link_modes_max(ours, ETH_LINK_MODE_WORDS * 32), 200000);
	ck_assert_uint_eq(ethtool_link_modes_common_max(ours, peer, ETH_LINK_MODE_WORDS * 32),
			  100000);
	memset(peer, 0, sizeof(peer));
	ck_assert_uint_eq(ethtool_link_modes_common_max(ours, peer, ETH_LINK_MODE_WORDS * 32), 0);
	ck_assert_int_eq(ethtool_link_mode_bit("100000baseCR4/Full"),
			 ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT);
	ck_assert_int_eq(ethtool_link_mode_bit("100000baseLR4_ER4/Full"),
			 ETHTOOL_LINK_MODE_100000baseLR4_ER4_Full_BIT);
	ck_assert_int_eq(ethtool_link_mode_bit("100000baseCR4/Half"), -EINVAL);
	ck_assert_int_eq(ethtool_link_mode_bit("100000baseCR4"), -EINVAL);
}
END_TEST

/* one attribute of @type and @len bytes of @data at @b + *off; its start returned */
static size_t put_attr(uint8_t *b, size_t *off, uint16_t type, const void *data, uint16_t len)
{
	size_t at = *off;
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};

	memcpy(b + at, &a, sizeof(a));
	if (len)
		memcpy(b + at + NLA_HDRLEN, data, len);
	*off = at + NLA_ALIGN(a.nla_len);
	return at;
}

/*
 * A FEC_GET reply as net/ethtool/fec.c builds it for a driver that fills only
 * corrected blocks: the uncorrectable array is empty (fec_stats_recalc leaves
 * its count 0 when the total is ETHTOOL_STAT_NOT_SET). Not reported, not 0
 * (issue 49 item 5).
 */
START_TEST(fec_reply_per_counter)
{
	uint8_t buf[256] __attribute__((aligned(8)));
	uint64_t corr[3] = {1234, 1000, 234}; /* the total, then two lanes */
	struct eth_link_health e;
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlattr *nest;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, at;

	memset(buf, 0, sizeof(buf));
	at = put_attr(buf, &off, ETHTOOL_A_FEC_STATS | NLA_F_NESTED, NULL, 0);
	put_attr(buf, &off, ETHTOOL_A_FEC_STAT_CORRECTED, corr, sizeof(corr));
	put_attr(buf, &off, ETHTOOL_A_FEC_STAT_UNCORR, NULL, 0);
	put_attr(buf, &off, ETHTOOL_A_FEC_STAT_CORR_BITS, NULL, 0);
	nest = (struct nlattr *)(buf + at);
	nest->nla_len = (uint16_t)(off - at);
	h->nlmsg_len = (uint32_t)off;
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(ethtool_fec_reply(h, &e), 0);
	ck_assert(e.has_fec_corrected);
	ck_assert_uint_eq(e.fec_corrected, 1234);
	ck_assert(!e.has_fec_uncorrectable);
	/* both filled: both reported, a zero too */
	off = at;
	at = put_attr(buf, &off, ETHTOOL_A_FEC_STATS | NLA_F_NESTED, NULL, 0);
	put_attr(buf, &off, ETHTOOL_A_FEC_STAT_CORRECTED, corr, 8);
	put_attr(buf, &off, ETHTOOL_A_FEC_STAT_UNCORR, (uint64_t[]){0}, 8);
	nest = (struct nlattr *)(buf + at);
	nest->nla_len = (uint16_t)(off - at);
	h->nlmsg_len = (uint32_t)off;
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(ethtool_fec_reply(h, &e), 0);
	ck_assert(e.has_fec_corrected && e.has_fec_uncorrectable);
	ck_assert_uint_eq(e.fec_uncorrectable, 0);
}
END_TEST

START_TEST(link_nl_veth)
{
	const struct ethtool_link_ops *ops;
	const struct devlink_ops *dops;
	struct devlink_reporter rep[RQ_DEVLINK_REPORTERS];
	struct eth_link_health h;
	void *ctx, *dctx;
	size_t n = 99;

	if (unshare(CLONE_NEWNET) < 0 ||
	    system("ip link add rqlk0 type veth peer name rqlk1 && ip link set rqlk0 up && "
		   "ip link set rqlk1 up") != 0) {
		fprintf(stderr, "link_nl_veth: skipped, no netns or no veth here\n");
		return;
	}
	ck_assert_int_eq(ethtool_link_nl_new(&ops, &ctx), 0);
	ck_assert_int_eq(ops->health(ctx, "rqlk0", &h), 0);
	ck_assert(h.has_speed);
	ck_assert_uint_eq(h.speed_mbps, 10000);
	ck_assert(!h.has_fec_corrected && !h.has_fec_uncorrectable);
	ck_assert(!h.has_symbol_errors);
	ck_assert_int_eq(ops->health(ctx, "rqnosuch0", &h), -ENODEV);
	/* still in step after an error */
	ck_assert_int_eq(ops->health(ctx, "rqlk1", &h), 0);
	ck_assert_uint_eq(h.speed_mbps, 10000);
	ops->free(ctx);
	if (devlink_nl_new(&dops, &dctx) < 0) {
		fprintf(stderr, "link_nl_veth: devlink part skipped, no devlink family\n");
		return;
	}
	ck_assert_int_eq(dops->health(dctx, "pci", "0000:ff:1f.7", rep, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(dops->health(dctx, "netdevsim", "netdevsim999", rep, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(dops->health(dctx, "pci", "../x", rep, &n), -ENODEV);
	ck_assert_int_eq(dops->health(dctx, "", "0000:ff:1f.7", rep, &n), -ENODEV);
	dops->free(dctx);
}
END_TEST

Suite *suite_link_nl(void);
Suite *suite_link_nl(void)
{
	Suite *s = suite_create("link_nl");
	TCase *tc = tcase_create("ethtool netlink");

	tcase_add_test(tc, link_modes_max);
	tcase_add_test(tc, link_modes_common);
	tcase_add_test(tc, fec_reply_per_counter);
	tcase_add_test(tc, link_nl_veth);
	suite_add_tcase(s, tc);
	return s;
}
