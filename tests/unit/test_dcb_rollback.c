// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/dcb restore by state after a failure half-way (dcb_apply_ex, dcb_restore),
 * the kernel's half-applied APP batches, and mlx5's APP replace semantics
 * converging with the generic kernel path; over the file-backed fake, with
 * the fixture and helpers of test_dcb.c.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/dcb/dcb.h"
#include "tests/unit/dcb_fixture.h"

/* PFC (last) fails: the port is restored to the state read before, the first error reported. */
START_TEST(rollback_when_pfc_fails)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"fail\":{\"set_pfc\":-5},\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":1}]}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EIO);
	/* restored by state: re-add what was there, delete what was not, then apptrust */
	ck_assert_str_eq(calls, "add,del,trust,pfc,add,del,trust");
	ck_assert_int_eq(e.code, RQ_ERR_IO);
	ck_assert_str_eq(e.msg, "PF p0: DCB PFC write failed: Input/output error");
	/* back to what it was: 3 SETs and 3 restores applied */
	ck_assert_int_eq(port_writes("p0"), 6);
	ck_assert_int_eq(app_count("p0", 5), 1);
	ck_assert_int_eq(app_prio("p0", 5, 26), 1);
	assert_key("p0", "trust", "[\"pcp\"]");
	assert_key("p0", "pfc", "null");
}
END_TEST

/* Half-way: apptrust fails after the APP add and delete went in; both are restored. */
START_TEST(rollback_when_trust_fails)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"fail\":{\"set_trust\":-16},\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":1}]}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EBUSY);
	ck_assert_str_eq(calls, "add,del,trust,add,del");
	ck_assert_int_eq(e.code, RQ_ERR_DCBX_LOCKED);
	ck_assert_int_eq(port_writes("p0"), 4);
	ck_assert_int_eq(app_count("p0", 5), 1);
	ck_assert_int_eq(app_prio("p0", 5, 26), 1);
}
END_TEST

/* Best effort: when the restore itself fails, what went in stays, and the first error is kept. */
START_TEST(rollback_when_del_fails)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"fail\":{\"app_del\":5},\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":1}]}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EIO);
	/* the restore's batch delete fails, then each of the 2 added entries is tried alone */
	ck_assert_str_eq(calls, "add,del,del,del,del");
	ck_assert_str_eq(e.msg, "PF p0: DCB DSCP APP delete write failed: Input/output error");
	ck_assert_int_eq(port_writes("p0"), 1);
	ck_assert_int_eq(app_count("p0", 5), 3);
}
END_TEST

/* A profile moving DSCP 26 from prio 3 to 5, on a port already right otherwise. */
static void port_write_dscp26(const char *extra)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],%s",
		 extra);
	port_write_right("p0", buf);
}

/*
 * Both APP semantics converge. Generic kernel path: the add keeps 26:3 beside
 * 26:5 and the delete removes it. mlx5: the add replaces 26:3, the delete of
 * 26:3 is -ENOENT; the port is re-read and nothing is left to delete.
 */
START_TEST(dscp_change_generic_and_mlx5)
{
	static const char *const extra[] = {"", "\"appReplace\":true,"};
	static const int writes[] = {2, 1};
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.dscp_prio[26] = 5;
	for (int i = 0; i < 2; i++) {
		port_write_dscp26(extra[i]);
		rq_err_clear(&e);
		ck_assert_int_eq(rec_apply("p0", &p, &e), 0);
		ck_assert_str_eq(calls, "add,del");
		ck_assert_int_eq(port_writes("p0"), writes[i]);
		ck_assert_int_eq(app_count("p0", 5), 64);
		ck_assert_int_eq(app_prio("p0", 5, 26), 5);
		ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
		ck_assert(dcb_plan_empty(&plan));
		ck_assert_int_eq(port_writes("p0"), writes[i]);
	}
}
END_TEST

/* mlx5, several DSCPs moved: the batch delete stops at its first entry; all converge. */
START_TEST(dscp_change_mlx5_several)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.dscp_prio[26] = 5;
	p.dscp_prio[48] = 2;
	p.dscp_prio[10] = 4;
	p.dscp_override |= 1ULL << 10;
	port_write_dscp26("\"appReplace\":true,");
	ck_assert_int_eq(rec_apply("p0", &p, &e), 0);
	ck_assert_int_eq(app_count("p0", 5), 64);
	ck_assert_int_eq(app_prio("p0", 5, 26), 5);
	ck_assert_int_eq(app_prio("p0", 5, 48), 2);
	ck_assert_int_eq(app_prio("p0", 5, 10), 4);
}
END_TEST

/*
 * mlx5, and PFC fails afterwards: the restore re-adds 26:3 (replacing 26:5)
 * and tolerates the -ENOENT of deleting 26:5.
 */
START_TEST(rollback_mlx5_restores_dscp)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.dscp_prio[26] = 5;
	p.pfc = 0x18;
	port_write_dscp26("\"appReplace\":true,\"fail\":{\"set_pfc\":-5},");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EIO);
	ck_assert_str_eq(e.msg, "PF p0: DCB PFC write failed: Input/output error");
	ck_assert_int_eq(app_count("p0", 5), 64);
	ck_assert_int_eq(app_prio("p0", 5, 26), 3);
	assert_key("p0", "pfc", "[3]");
}
END_TEST

/* The kernel stops a batch at its first failing entry: the first 10 adds stay and are undone. */
START_TEST(rollback_partial_add)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"failAfter\":{\"app_add\":10}}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EIO);
	ck_assert_str_eq(e.msg, "PF p0: DCB DSCP APP add write failed: Input/output error");
	ck_assert_str_eq(calls, "add,del");
	ck_assert_int_eq(app_count("p0", 5), 0);
	ck_assert_int_eq(port_writes("p0"), 2); /* the partial add, the restore's delete */
	assert_key("p0", "trust", "null");
	assert_key("p0", "pfc", "null");
}
END_TEST

/* Trust pcp: the batch delete of 64 stops after 20; the restore puts those 20 back. */
START_TEST(rollback_partial_del)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.trust = RQ_TRUST_PCP;
	port_write_right("p0", "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],"
			       "\"failAfter\":{\"app_del\":20},");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EIO);
	ck_assert_str_eq(calls, "del,add");
	ck_assert_int_eq(app_count("p0", 5), 64);
	ck_assert_int_eq(app_prio("p0", 5, 0), 0);
	ck_assert_int_eq(app_prio("p0", 5, 26), 3);
	assert_key("p0", "trust", "[\"dscp\",\"pcp\"]");
	ck_assert_int_eq(port_writes("p0"), 2);
}
END_TEST

/* dcb_restore straight: nothing to do writes nothing; ETS of non-ETS TCs goes back as 0. */
START_TEST(restore_by_state)
{
	struct dcb_port_state before;

	port_write("p0", "{\"writes\":0,\"pfc\":[3],\"ets\":{\"tcBw\":[40,100,100,60,100,100,100,"
			 "100],\"tsa\":[2,0,0,2,0,0,0,0],\"prioTc\":[0,0,0,3,0,0,0,0]}}");
	ck_assert_int_eq(fops->get(fctx, "p0", &before), 0);
	ck_assert_int_eq(dcb_restore(fops, fctx, "p0", &before), 0);
	ck_assert_int_eq(port_writes("p0"), 0);
	port_write("p0", "{\"writes\":0,\"pfc\":[3,4],\"trust\":[\"dscp\",\"pcp\"],\"ets\":{"
			 "\"tcBw\":[50,0,0,50,0,0,0,0],\"tsa\":[2,0,0,2,0,0,0,0],"
			 "\"prioTc\":[0,0,0,3,0,0,0,0]},\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":3},"
			 "{\"selector\":1,\"protocol\":35093,\"priority\":4}]}");
	ck_assert_int_eq(dcb_restore(fops, fctx, "p0", &before), 0);
	ck_assert_int_eq(port_writes("p0"), 4); /* del, trust, ets, pfc */
	assert_key("p0", "pfc", "[3]");
	assert_key("p0", "trust", "[\"pcp\"]");
	assert_key("p0", "ets",
		   "{\"tcBw\":[40,0,0,60,0,0,0,0],\"tsa\":[2,0,0,2,0,0,0,0],"
		   "\"prioTc\":[0,0,0,3,0,0,0,0]}");
	ck_assert_int_eq(app_count("p0", 5), 0);
	ck_assert_int_eq(app_prio("p0", 1, 35093), 4); /* not DSCP: not ours */
	/* an unreadable port is left alone */
	ck_assert_int_eq(dcb_restore(fops, fctx, "p9", &before), -EOPNOTSUPP);
}
END_TEST

START_TEST(fake_app_replace_and_partial)
{
	struct dcb_app_entry a = {5, 26, 3}, b = {5, 26, 1}, c = {5, 27, 1};
	struct dcb_app_entry batch[3] = {{5, 1, 0}, {5, 2, 0}, {5, 3, 0}};

	port_write("p0", "{\"writes\":0,\"appReplace\":true}");
	ck_assert_int_eq(fops->app_add(fctx, "p0", &a, 1), 0);
	ck_assert_int_eq(fops->app_add(fctx, "p0", &a, 1), 0); /* mlx5: same mapping, fine */
	ck_assert_int_eq(fops->app_add(fctx, "p0", &b, 1), 0);
	ck_assert_int_eq(app_count("p0", 5), 1);
	ck_assert_int_eq(app_prio("p0", 5, 26), 1);
	ck_assert_int_eq(fops->app_del(fctx, "p0", &a, 1), -ENOENT);
	ck_assert_int_eq(fops->app_add(fctx, "p0", &c, 1), 0);
	ck_assert_int_eq(app_count("p0", 5), 2);
	/* a batch stops at its failing entry; those before it stay, as one write */
	port_write("p0", "{\"writes\":0,\"app\":[{\"selector\":5,\"protocol\":2,\"priority\":0}]}");
	ck_assert_int_eq(fops->app_add(fctx, "p0", batch, 3), -EEXIST);
	ck_assert_int_eq(app_count("p0", 5), 2);
	ck_assert_int_eq(port_writes("p0"), 1);
	port_write("p0", "{\"writes\":0,\"failAfter\":{\"app_add\":2}}");
	ck_assert_int_eq(fops->app_add(fctx, "p0", batch, 3), -EIO);
	ck_assert_int_eq(app_count("p0", 5), 2);
	ck_assert_int_eq(fops->app_add(fctx, "p0", &batch[2], 1), 0);
	ck_assert_int_eq(app_count("p0", 5), 3);
}
END_TEST

/* PFC goes last: a failed DSCP step leaves the port's PFC as it was, nothing to restore. */
START_TEST(rollback_pfc_first)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"pfc\":[4],\"fail\":{\"app_add\":-28}}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -ENOSPC);
	ck_assert_str_eq(calls, "add");
	assert_key("p0", "pfc", "[4]");
	ck_assert_int_eq(port_writes("p0"), 0);
}
END_TEST

Suite *suite_dcb_rollback(void);
Suite *suite_dcb_rollback(void)
{
	Suite *s = suite_create("dcb_rollback");
	TCase *tc = tcase_create("fake");

	tcase_add_checked_fixture(tc, dcbt_setup, dcbt_teardown);
	tcase_add_test(tc, rollback_when_pfc_fails);
	tcase_add_test(tc, rollback_when_trust_fails);
	tcase_add_test(tc, rollback_when_del_fails);
	tcase_add_test(tc, dscp_change_generic_and_mlx5);
	tcase_add_test(tc, dscp_change_mlx5_several);
	tcase_add_test(tc, rollback_mlx5_restores_dscp);
	tcase_add_test(tc, rollback_partial_add);
	tcase_add_test(tc, rollback_partial_del);
	tcase_add_test(tc, restore_by_state);
	tcase_add_test(tc, fake_app_replace_and_partial);
	tcase_add_test(tc, rollback_pfc_first);
	suite_add_tcase(s, tc);
	return s;
}
