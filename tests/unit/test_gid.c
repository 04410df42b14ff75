// SPDX-License-Identifier: Apache-2.0
/* pkg/rdma/gid: a RoCE port's GID table from sysfs, the entries of an address (issue 50). */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pkg/rdma/gid.h"
#include "tests/simnode/simnode.h"

static struct simnode node;

static void teardown(void)
{
	sim_destroy(&node);
}

#define PORT "$R/sys/class/infiniband/mlx5_0/ports/1"

START_TEST(from_ip)
{
	uint8_t g[16];
	char s[40];

	/* IPv4 as the IPv4-mapped GID, the prefix of a prevResult address ignored */
	ck_assert_int_eq(rdma_gid_from_ip("10.99.0.11/24", g), 0);
	rdma_gid_format(g, s);
	ck_assert_str_eq(s, "0000:0000:0000:0000:0000:ffff:0a63:000b");
	ck_assert_int_eq(rdma_gid_from_ip("::ffff:10.99.0.11", g), 0);
	rdma_gid_format(g, s);
	ck_assert_str_eq(s, "0000:0000:0000:0000:0000:ffff:0a63:000b");
	/* IPv6 of global scope (a ULA is global to the kernel) as itself */
	ck_assert_int_eq(rdma_gid_from_ip("fd00:99::5/64", g), 0);
	rdma_gid_format(g, s);
	ck_assert_str_eq(s, "fd00:0099:0000:0000:0000:0000:0000:0005");
	ck_assert_int_eq(rdma_gid_from_ip("2001:db8::1", g), 0);
	/* addresses no pod's RoCE traffic uses */
	ck_assert_int_eq(rdma_gid_from_ip("fe80::1/64", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("febf::1", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("fec0::1", g), 0); /* not link-local (site-local, old) */
	ck_assert_int_eq(rdma_gid_from_ip("::1", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("::", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("ff02::1", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("127.0.0.1", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("0.0.0.0/0", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("224.0.0.1", g), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_from_ip("::ffff:127.0.0.1", g), -EADDRNOTAVAIL);
	/* not addresses */
	ck_assert_int_eq(rdma_gid_from_ip("10.99.0", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("10.99.0.11/33", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("10.99.0.11/", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("10.99.0.11/2x", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("fd00::5/129", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("/24", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip(NULL, g), -EINVAL);
	ck_assert_int_eq(rdma_gid_from_ip("net1", g), -EINVAL);
}
END_TEST

START_TEST(parse_and_types)
{
	uint8_t g[16];
	char s[40];

	ck_assert_int_eq(rdma_gid_parse("fe80:0000:0000:0000:0202:c9ff:fe00:0001", g), 0);
	rdma_gid_format(g, s);
	ck_assert_str_eq(s, "fe80:0000:0000:0000:0202:c9ff:fe00:0001");
	ck_assert(!rdma_gid_is_zero(g));
	ck_assert_int_eq(rdma_gid_parse("0000:0000:0000:0000:0000:0000:0000:0000", g), 0);
	ck_assert(rdma_gid_is_zero(g));
	ck_assert_int_eq(rdma_gid_parse("fe80:0000", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_parse("", g), -EINVAL);
	ck_assert_int_eq(rdma_gid_type_parse("RoCE v2"), RDMA_GID_ROCE_V2);
	ck_assert_int_eq(rdma_gid_type_parse("IB/RoCE v1"), RDMA_GID_ROCE_V1);
	ck_assert_int_eq(rdma_gid_type_parse(""), RDMA_GID_NONE);
	ck_assert_int_eq(rdma_gid_type_parse("RoCE v3"), RDMA_GID_OTHER);
	ck_assert_str_eq(rdma_gid_type_name(RDMA_GID_ROCE_V2), "v2");
	ck_assert_str_eq(rdma_gid_type_name(RDMA_GID_ROCE_V1), "v1");
	ck_assert_str_eq(rdma_gid_type_name(RDMA_GID_NONE), "");
}
END_TEST

/* the table mknode --pf-rdma makes: the default GIDs in slots 0 and 1, the rest empty */
START_TEST(table_fresh)
{
	struct rdma_gid_table t;
	char s[40];

	sim_build(&node, "--pfs 2 --vfs 1 --pf-rdma yes --gid-slots 12");
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), 0);
	ck_assert_uint_eq(t.size, 12);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_int_eq(t.e[0].index, 0);
	ck_assert_int_eq(t.e[0].type, RDMA_GID_ROCE_V1);
	ck_assert_int_eq(t.e[1].index, 1);
	ck_assert_int_eq(t.e[1].type, RDMA_GID_ROCE_V2);
	ck_assert_str_eq(t.e[1].ndev, "simpf0");
	rdma_gid_format(t.e[1].gid, s);
	ck_assert_str_eq(s, "fe80:0000:0000:0000:0000:00ff:fe81:0001");
	rdma_gid_table_fini(&t);
	/* the VF devices have no table; no such device or port */
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_2", 1, &t), -ENOENT);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_9", 1, &t), -ENOENT);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 2, &t), -ENOENT);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "..", 1, &t), -EINVAL);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "a/b", 1, &t), -EINVAL);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 0, &t), -EINVAL);
}
END_TEST

/* Entries found by address, never by netdev: two pods' "net1" on one device */
START_TEST(find_by_address)
{
	struct rdma_gid_table t;
	struct rdma_gid_match m;

	sim_build(&node, "--pfs 1 --vfs 0 --pf-rdma yes --gid-slots 12");
	/* the kernel fills slots in order: pod A (v1 2, v2 3), pod B v2 only at 4 */
	ck_assert_int_eq(sim_sh(&node,
				"\"$MKNODE\" --root \"$R\" gid mlx5_0 --ip 10.99.0.11 "
				">/dev/null && \"$MKNODE\" --root \"$R\" gid mlx5_0 --ip "
				"10.99.0.12/24 --type v2 >/dev/null && \"$MKNODE\" --root \"$R\" "
				"gid mlx5_0 --ip fd00:99::12 >/dev/null"),
			 0);
	/* an entry that emptied while read (a v2 entry at 11 whose type reads empty) is no v2 */
	ck_assert_int_eq(
	    sim_sh(&node, "echo 0000:0000:0000:0000:0000:ffff:0a63:000d > " PORT "/gids/11"), 0);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), 0);
	ck_assert_uint_eq(t.size, 12);
	ck_assert_uint_eq(t.n, 8);
	/* index order, though sysfs lists 10 and 11 before 2 */
	ck_assert_int_eq(t.e[7].index, 11);
	ck_assert_int_eq(t.e[7].type, RDMA_GID_NONE);
	ck_assert_str_eq(t.e[7].ndev, "");
	ck_assert_str_eq(t.e[2].ndev, "net1");

	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.11/24", &m), 0);
	ck_assert_int_eq(m.v1, 2);
	ck_assert_int_eq(m.v2, 3);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.12", &m), 0);
	ck_assert_int_eq(m.v1, -1);
	ck_assert_int_eq(m.v2, 4);
	ck_assert_int_eq(rdma_gid_find(&t, "fd00:99::12/64", &m), 0);
	ck_assert_int_eq(m.v1, 5);
	ck_assert_int_eq(m.v2, 6);
	/* not there yet: pending, the table has room */
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.13", &m), -ENOENT);
	ck_assert_int_eq(m.v2, -1);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.21", &m), -ENOENT);
	ck_assert_int_eq(rdma_gid_find(&t, "fe80::1", &m), -EADDRNOTAVAIL);
	ck_assert_int_eq(rdma_gid_find(&t, "pod", &m), -EINVAL);
	rdma_gid_table_fini(&t);

	/* the same address with its v1 entry only (a RoCE v1 device): no v2 index */
	ck_assert_int_eq(sim_sh(&node, "\"$MKNODE\" --root \"$R\" gid mlx5_0 --ip 10.99.0.14 "
				       "--type v1 >/dev/null"),
			 0);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), 0);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.14", &m), -ENOENT);
	ck_assert_int_eq(m.v1, 7);
	ck_assert_int_eq(m.v2, -1);
	rdma_gid_table_fini(&t);

	/* an address removed: its slots read the zero GID again */
	ck_assert_int_eq(sim_sh(&node, "\"$MKNODE\" --root \"$R\" gid mlx5_0 --del 10.99.0.11 "
				       ">/dev/null"),
			 0);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), 0);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.11", &m), -ENOENT);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.12", &m), 0);
	ck_assert_int_eq(m.v2, 4);
	rdma_gid_table_fini(&t);
}
END_TEST

/* A full table: the kernel cannot add the pod's entry, and that is told apart from pending */
START_TEST(table_full)
{
	struct rdma_gid_table t;
	struct rdma_gid_match m;

	sim_build(&node, "--pfs 1 --vfs 0 --pf-rdma yes --gid-slots 4");
	ck_assert_int_eq(sim_sh(&node, "\"$MKNODE\" --root \"$R\" gid mlx5_0 --ip 10.99.0.11 "
				       ">/dev/null"),
			 0);
	/* mknode says so too */
	ck_assert_int_ne(sim_sh(&node, "\"$MKNODE\" --root \"$R\" gid mlx5_0 --ip 10.99.0.12 "
				       ">/dev/null 2>&1"),
			 0);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), 0);
	ck_assert_uint_eq(t.size, 4);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.12", &m), -ENOSPC);
	ck_assert_int_eq(rdma_gid_find(&t, "10.99.0.11", &m), 0);
	ck_assert_int_eq(m.v2, 3);
	rdma_gid_table_fini(&t);
	/* a slot text that is no GID: the table is refused, not guessed */
	ck_assert_int_eq(sim_sh(&node, "echo garbage > " PORT "/gids/2"), 0);
	ck_assert_int_eq(rdma_gid_table_read(&node.root, "mlx5_0", 1, &t), -EBADMSG);
}
END_TEST

Suite *suite_gid(void);
Suite *suite_gid(void)
{
	Suite *s = suite_create("gid");
	TCase *tc = tcase_create("gid");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, from_ip);
	tcase_add_test(tc, parse_and_types);
	tcase_add_test(tc, table_fresh);
	tcase_add_test(tc, find_by_address);
	tcase_add_test(tc, table_full);
	suite_add_tcase(s, tc);
	return s;
}
