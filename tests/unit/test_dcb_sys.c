// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/dcb against "the system": ECN over a fake sysfs tree, and the netlink
 * backend against the running kernel in a private netns.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/dcb/dcb.h"

static char tmpl[64];
static struct rq_root root;

static void setup(void)
{
	unit_tmp(tmpl, sizeof(tmpl), "rq-dcbsys");
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_int_eq(root_open(tmpl, &root), 0);
}

static void teardown(void)
{
	char cmd[128];

	root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	(void)!system(cmd);
}

/* ---- ECN over a fake sysfs tree ---- */

static void ecn_file(const char *side, int prio, const char *val)
{
	char path[256], cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/class/net/p0/ecn/%s/enable", tmpl, side);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/sys/class/net/p0/ecn/%s/enable/%d", tmpl, side, prio);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(val, f);
	fclose(f);
}

static int ecn_read(const char *side, int prio)
{
	char path[256];
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/net/p0/ecn/%s/enable/%d", tmpl, side, prio);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &v), 1);
	fclose(f);
	return v;
}

START_TEST(ecn_probe_get_enable)
{
	bool avail = true;
	uint8_t on = 0xff;
	uint16_t changed = 0xffff;

	ck_assert_int_eq(ecn_probe(&root, "p0", 0x08, &avail), 0);
	ck_assert(!avail);
	for (int p = 0; p < 8; p++) {
		ecn_file("roce_np", p, p == 5 ? "1\n" : "0\n");
		ecn_file("roce_rp", p, p == 5 ? "1\n" : "0\n");
	}
	ecn_file("roce_np", 3, "1\n"); /* NP alone is not "on" */
	ck_assert_int_eq(ecn_probe(&root, "p0", 0x28, &avail), 0);
	ck_assert(avail);
	ck_assert_int_eq(ecn_get(&root, "p0", 0xff, &on), 0);
	ck_assert_uint_eq(on, 0x20);
	ck_assert_int_eq(ecn_enable(&root, "p0", 0x28, &changed), 0);
	/* only roce_rp of priority 3 was written (bit 2 * 3 + 1) */
	ck_assert_uint_eq(changed, 0x80);
	ck_assert_uint_eq(ecn_written_prios(changed), 0x08);
	ck_assert_int_eq(ecn_read("roce_rp", 3), 1);
	ck_assert_int_eq(ecn_get(&root, "p0", 0xff, &on), 0);
	ck_assert_uint_eq(on, 0x28);
	ck_assert_int_eq(ecn_enable(&root, "p0", 0x28, &changed), 0);
	ck_assert_uint_eq(changed, 0);
}
END_TEST

/* The undo of a failed ADD turns off what that ADD wrote, never a side the operator had on. */
START_TEST(ecn_revert_written_sides_only)
{
	char path[256];
	uint16_t written = 0;

	ecn_file("roce_np", 3, "1\n");
	ecn_file("roce_rp", 3, "0\n");
	ecn_file("roce_np", 4, "0\n");
	ecn_file("roce_rp", 4, "0\n");
	ck_assert_int_eq(ecn_enable(&root, "p0", 0x18, &written), 0);
	ck_assert_uint_eq(written, (1u << 7) | (1u << 8) | (1u << 9));
	ck_assert_uint_eq(ecn_written_prios(written), 0x18);
	ck_assert_int_eq(ecn_revert(&root, "p0", written), 0);
	ck_assert_int_eq(ecn_read("roce_np", 3), 1);
	ck_assert_int_eq(ecn_read("roce_rp", 3), 0);
	ck_assert_int_eq(ecn_read("roce_np", 4), 0);
	ck_assert_int_eq(ecn_read("roce_rp", 4), 0);
	/* a file gone since: the error comes back, the other files are still written */
	ck_assert_int_eq(ecn_enable(&root, "p0", 0x18, &written), 0);
	snprintf(path, sizeof(path), "%s/sys/class/net/p0/ecn/roce_np/enable/4", tmpl);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_lt(ecn_revert(&root, "p0", written), 0);
	ck_assert_int_eq(ecn_read("roce_rp", 4), 0);
	ck_assert_int_eq(ecn_read("roce_rp", 3), 0);
}
END_TEST

START_TEST(ecn_enable_all_or_nothing)
{
	uint16_t changed = 0xaa;

	ecn_file("roce_np", 3, "0\n");
	ecn_file("roce_rp", 3, "0\n");
	ecn_file("roce_np", 4, "0\n"); /* roce_rp/enable/4 missing */
	ck_assert_int_lt(ecn_enable(&root, "p0", 0x18, &changed), 0);
	ck_assert_uint_eq(changed, 0xaa); /* untouched */
	ck_assert_int_eq(ecn_read("roce_np", 3), 0);
	ck_assert_int_eq(ecn_read("roce_rp", 3), 0);
	ck_assert_int_eq(ecn_read("roce_np", 4), 0);
}
END_TEST

/* ---- the kernel backend, in a private netns (root only) ---- */

START_TEST(netlink_errnos)
{
	const struct dcb_ops *ops;
	struct dcb_port_state st;
	void *ctx;

	if (unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "netlink_errnos: skipped, unshare(CLONE_NEWNET): %s\n",
			strerror(errno));
		return;
	}
	ck_assert_int_eq(dcb_nl_new(&ops, &ctx), 0);
	/* lo has no dcbnl ops; the kernel's own errno must come through */
	ck_assert_int_eq(ops->get(ctx, "lo", &st), -EOPNOTSUPP);
	ck_assert_int_eq(ops->get(ctx, "rqnosuch0", &st), -ENODEV);
	ck_assert_int_eq(ops->set_pfc(ctx, "lo", &st, 0x08), -EOPNOTSUPP);
	ck_assert_int_eq(ops->app_add(ctx, "rqnosuch0", &(struct dcb_app_entry){5, 26, 3}, 1),
			 -ENODEV);
	ck_assert_int_eq(ops->get(ctx, "a-name-longer-than-15", &st), -EINVAL);
	/* the socket is still in step after errors */
	ck_assert_int_eq(ops->get(ctx, "lo", &st), -EOPNOTSUPP);
	ops->free(ctx);
}
END_TEST

Suite *suite_dcb_sys(void);
Suite *suite_dcb_sys(void)
{
	Suite *s = suite_create("dcb_sys");
	TCase *te = tcase_create("ecn");
	TCase *tn = tcase_create("netlink");

	tcase_add_checked_fixture(te, setup, teardown);
	tcase_add_test(te, ecn_probe_get_enable);
	tcase_add_test(te, ecn_enable_all_or_nothing);
	tcase_add_test(te, ecn_revert_written_sides_only);
	suite_add_tcase(s, te);
	tcase_add_test(tn, netlink_errnos);
	suite_add_tcase(s, tn);
	return s;
}
