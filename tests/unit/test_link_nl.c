// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/ethtool/link_nl.c and pkg/devlink/devlink_nl.c on this kernel, in a
 * netns of their own: a veth reports its speed through ETHTOOL_MSG_LINKMODES_GET
 * (10000 Mb/s, veth_get_link_ksettings) and neither FEC nor PHY statistics
 * (not reported, not an error); an unknown netdev is -ENODEV; a PCI address
 * with no devlink instance has no reporter. The link mode table: the fastest
 * mode of a bitmap.
 */
#include <check.h>
#include <errno.h>
#include <linux/ethtool.h>
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
	ck_assert(!h.has_fec);
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
	tcase_add_test(tc, link_nl_veth);
	suite_add_tcase(s, tc);
	return s;
}
