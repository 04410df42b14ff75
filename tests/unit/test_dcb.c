// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/dcb diff and apply over the file-backed fake (exact writes read back
 * from the port file), the order of SETs through a recording ops table,
 * error mapping. Rollback/restore and mlx5 APP semantics: test_dcb_rollback.c;
 * ECN and the netlink backend: test_dcb_sys.c.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/dcb/dcb.h"
#include "tests/unit/dcb_fixture.h"

static char tmpl[64];
static struct rq_root root;
const struct dcb_ops *fops;
void *fctx;

void dcbt_setup(void)
{
	char d[128];

	unit_tmp(tmpl, sizeof(tmpl), "rq-dcb");
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(d, sizeof(d), "%s/dcb", tmpl);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	ck_assert_int_eq(root_open(tmpl, &root), 0);
	ck_assert_int_eq(dcb_fake_new(&root, &fops, &fctx), 0);
}

void dcbt_teardown(void)
{
	char cmd[128];

	fops->free(fctx);
	root_close(&root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	(void)!system(cmd);
}

void port_write(const char *ifname, const char *json)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/dcb/%s.json", tmpl, ifname);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(json, f);
	fclose(f);
}

static cJSON *port_read(const char *ifname)
{
	char path[256], buf[65536];
	size_t n;
	FILE *f;
	cJSON *o;

	snprintf(path, sizeof(path), "%s/dcb/%s.json", tmpl, ifname);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	o = cJSON_Parse(buf);
	ck_assert_ptr_nonnull(o);
	return o;
}

int port_writes(const char *ifname)
{
	cJSON *o = port_read(ifname);
	int w = cJSON_GetObjectItem(o, "writes")->valueint;

	cJSON_Delete(o);
	return w;
}

/* "key" of the port file as compact JSON, e.g. "[3]"; "null" when missing. */
static char *port_key(const char *ifname, const char *key)
{
	cJSON *o = port_read(ifname);
	cJSON *v = cJSON_GetObjectItem(o, key);
	char *s = v ? cJSON_PrintUnformatted(v) : strdup("null");

	cJSON_Delete(o);
	return s;
}

void assert_key(const char *ifname, const char *key, const char *want)
{
	char *s = port_key(ifname, key);

	ck_assert_str_eq(s, want);
	free(s);
}

/* Number of APP entries with @sel, and the priority of (sel, proto) or -1. */
int app_count(const char *ifname, int sel)
{
	cJSON *o = port_read(ifname), *it;
	int n = 0;

	cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "app")) n +=
	    cJSON_GetObjectItem(it, "selector")->valueint == sel;
	cJSON_Delete(o);
	return n;
}

int app_prio(const char *ifname, int sel, int proto)
{
	cJSON *o = port_read(ifname), *it;
	int p = -1;

	cJSON_ArrayForEach(
	    it, cJSON_GetObjectItem(
		    o, "app")) if (cJSON_GetObjectItem(it, "selector")->valueint == sel &&
				   cJSON_GetObjectItem(it, "protocol")->valueint == proto) p =
	    cJSON_GetObjectItem(it, "priority")->valueint;
	cJSON_Delete(o);
	return p;
}

/* A port file with the full default DSCP map of the built-in profile. */
void port_write_right(const char *ifname, const char *extra)
{
	struct rq_profile p;
	char buf[8192];
	size_t off;

	profile_builtin(&p);
	off = (size_t)snprintf(buf, sizeof(buf), "{%s\"app\":[", extra);
	for (int d = 0; d < RQ_NDSCP; d++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					"%s{\"selector\":5,\"protocol\":%d,\"priority\":%d}",
					d ? "," : "", d, p.dscp_prio[d]);
	snprintf(buf + off, sizeof(buf) - off, "]}");
	port_write(ifname, buf);
}

int get_plan_apply(const char *ifname, const struct rq_profile *p, struct dcb_plan *plan,
		   struct rq_error *e)
{
	struct dcb_port_state *st = calloc(1, sizeof(*st));
	int r;

	ck_assert_ptr_nonnull(st);
	r = fops->get(fctx, ifname, st);
	if (r == 0) {
		profile_dcb_plan(st, p, plan);
		r = dcb_apply_ex(fops, fctx, ifname, "mlx5_core", st, plan, e);
	}
	free(st);
	return r;
}

START_TEST(fresh_port)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct dcb_port_state st;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert(st.has_pfc && st.has_trust && !st.has_ets && !st.has_dcbx);
	ck_assert_uint_eq(st.n_trust, 1);
	ck_assert_uint_eq(st.trust[0], RQ_DCB_APP_SEL_PCP);
	profile_dcb_plan(&st, &p, &plan);
	ck_assert_uint_eq(plan.n_add, 64);
	ck_assert_uint_eq(plan.n_del, 0);
	ck_assert(plan.set_trust && plan.set_pfc && !plan.set_ets);
	ck_assert_uint_eq(plan.pfc_en, 0x08);
	ck_assert_int_eq(dcb_apply(fops, fctx, "p0", &st, &plan, &e), 0);
	ck_assert_int_eq(e.code, 0);
	/* exactly: one batched APP add, apptrust, PFC */
	ck_assert_int_eq(port_writes("p0"), 3);
	assert_key("p0", "pfc", "[3]");
	assert_key("p0", "trust", "[\"dscp\",\"pcp\"]");
	ck_assert_int_eq(app_count("p0", 5), 64);
	ck_assert_int_eq(app_prio("p0", 5, 26), 3);
	ck_assert_int_eq(app_prio("p0", 5, 48), 6);
	ck_assert_int_eq(app_prio("p0", 5, 10), 1);
	ck_assert_int_eq(app_prio("p0", 5, 63), 7);
	/* and a second pass finds nothing to do */
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(dcb_plan_empty(&plan));
	ck_assert_int_eq(profile_dcb_describe(&st, &p, e.msg, sizeof(e.msg)), 0);
	ck_assert_str_eq(e.msg, "");
}
END_TEST

START_TEST(already_right_zero_writes)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write_right("p0", "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(dcb_plan_empty(&plan));
	ck_assert_int_eq(port_writes("p0"), 0);
}
END_TEST

/*
 * PCP trusted, a few DSCP entries: the required entries are added (26 replaced), the
 * entry nobody requires (10 -> 1) and a non-DSCP entry are kept as found.
 */
START_TEST(pcp_trusted_with_entries)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"trust\":[\"pcp\"],\"vendor\":{\"keep\":true},\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":1},"
			 "{\"selector\":5,\"protocol\":10,\"priority\":1},"
			 "{\"selector\":1,\"protocol\":35093,\"priority\":4}]}");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert_uint_eq(plan.n_add, 2);
	ck_assert_uint_eq(plan.n_del, 1);
	ck_assert_uint_eq(plan.del[0].protocol, 26);
	ck_assert_uint_eq(plan.del[0].priority, 1);
	ck_assert_int_eq(port_writes("p0"), 4); /* add, del, trust, pfc */
	ck_assert_int_eq(app_count("p0", 5), 3);
	ck_assert_int_eq(app_prio("p0", 5, 26), 3);
	ck_assert_int_eq(app_prio("p0", 5, 48), 6);
	ck_assert_int_eq(app_prio("p0", 5, 10), 1);
	ck_assert_int_eq(app_prio("p0", 1, 35093), 4);
	assert_key("p0", "vendor", "{\"keep\":true}");
	assert_key("p0", "trust", "[\"dscp\",\"pcp\"]");
}
END_TEST

START_TEST(trust_pcp_profile_removes_dscp)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.trust = RQ_TRUST_PCP;
	port_write_right("p0", "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert_uint_eq(plan.n_add, 0);
	ck_assert_uint_eq(plan.n_del, 64);
	ck_assert_int_eq(port_writes("p0"), 2); /* del, trust */
	ck_assert_int_eq(app_count("p0", 5), 0);
	assert_key("p0", "trust", "[\"pcp\"]");
	assert_key("p0", "pfc", "[3]");
}
END_TEST

/* An admin's lossless priority 4 (iSCSI) is nobody's requirement to remove: it stays. */
START_TEST(pfc_on_other_prios)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct dcb_port_state st;
	struct rq_error e = {0};
	char buf[512];

	profile_builtin(&p);
	port_write_right("p0", "\"writes\":5,\"pfc\":[3,4],\"trust\":[\"dscp\",\"pcp\"],");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, sizeof(buf)), 0);
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(dcb_plan_empty(&plan));
	ck_assert_int_eq(port_writes("p0"), 5);
	assert_key("p0", "pfc", "[3,4]");
	/* PFC 4 only: 3 is added beside it, in one SET */
	port_write_right("p0", "\"writes\":0,\"pfc\":[4],\"trust\":[\"dscp\",\"pcp\"],");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "pfc: required priority 3, port has 4\n");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(plan.set_pfc && !plan.n_add && !plan.n_del && !plan.set_trust);
	ck_assert_uint_eq(plan.pfc_en, 0x18);
	ck_assert_int_eq(port_writes("p0"), 1);
	assert_key("p0", "pfc", "[3,4]");
}
END_TEST

START_TEST(ets_present_and_absent)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};
	const struct rq_ets ets = {.present = true,
				   .tc_bw = {50, 50, 0, 0, 0, 0, 0, 0},
				   .tsa = {2, 2, 0, 0, 0, 0, 0, 0},
				   .prio_tc = {0, 0, 0, 1, 0, 0, 0, 0}};

	profile_builtin(&p);
	/* absent from the profile: left alone whatever the port has */
	port_write_right("p0", "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],\"ets\":{"
			       "\"tcBw\":[100,0,0,0,0,0,0,0],\"tsa\":[2,0,0,0,0,0,0,0],"
			       "\"prioTc\":[0,0,0,0,0,0,0,0]},");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(!plan.set_ets);
	ck_assert_int_eq(port_writes("p0"), 0);
	/* present: written once, then equal */
	p.ets = ets;
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(plan.set_ets);
	ck_assert_int_eq(port_writes("p0"), 1);
	assert_key("p0", "ets",
		   "{\"tcBw\":[50,50,0,0,0,0,0,0],\"tsa\":[2,2,0,0,0,0,0,0],"
		   "\"prioTc\":[0,0,0,1,0,0,0,0]}");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(dcb_plan_empty(&plan));
	ck_assert_int_eq(port_writes("p0"), 1);
}
END_TEST

/*
 * mlx5 reports tc_tx_bw 100 for strict and vendor TCs: only ETS TCs' bandwidth
 * is compared, so a port already right sends no SET, and the diff shows "-".
 */
START_TEST(ets_strict_bw_not_compared)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct dcb_port_state st;
	struct rq_error e = {0};
	char buf[512];

	profile_builtin(&p);
	p.ets = (struct rq_ets){.present = true,
				.tc_bw = {10, 0, 0, 60, 0, 0, 30, 0},
				.tsa = {2, 0, 0, 2, 0, 0, 2, 255},
				.prio_tc = {0, 0, 0, 3, 0, 0, 6, 0}};
	port_write_right("p0",
			 "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],\"ets\":{"
			 "\"tcBw\":[10,100,100,60,100,100,30,100],\"tsa\":[2,0,0,2,0,0,2,255],"
			 "\"prioTc\":[0,0,0,3,0,0,6,0]},");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(dcb_plan_empty(&plan));
	ck_assert_int_eq(port_writes("p0"), 0);
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, sizeof(buf)), 0);
	/* an ETS TC's bandwidth, a TSA and a priority's TC still differ */
	port_write_right("p0",
			 "\"writes\":0,\"pfc\":[3],\"trust\":[\"dscp\",\"pcp\"],\"ets\":{"
			 "\"tcBw\":[20,100,100,50,100,100,30,100],\"tsa\":[2,0,0,2,0,0,2,255],"
			 "\"prioTc\":[0,0,0,3,0,0,6,0]},");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf,
			 "ets: required tcBw 10/-/-/60/-/-/30/- tsa 2/0/0/2/0/0/2/255 prioTc "
			 "0/0/0/3/0/0/6/0, port has tcBw 20/-/-/50/-/-/30/- tsa "
			 "2/0/0/2/0/0/2/255 prioTc 0/0/0/3/0/0/6/0\n");
	st.tc_tsa[1] = 2;
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(plan.set_ets);
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	st.tc_tx_bw[0] = 10;
	st.tc_tx_bw[3] = 60;
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(!plan.set_ets);
	st.prio_tc[7] = 7;
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(plan.set_ets);
	/* TCs beyond the port's ets_cap are not compared */
	st.prio_tc[7] = 0;
	st.tc_tsa[7] = 0;
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(plan.set_ets);
	st.ets_cap = 7;
	profile_dcb_plan(&st, &p, &plan);
	ck_assert(!plan.set_ets);
}
END_TEST

/* ---- order, through an ops table recording each call before passing it on ---- */

char calls[512];

static void rec(const char *op)
{
	size_t n = strlen(calls);

	snprintf(calls + n, sizeof(calls) - n, "%s%s", n ? "," : "", op);
}

static int rec_get(void *c, const char *i, struct dcb_port_state *r)
{
	return fops->get(c, i, r);
}

static int rec_pfc(void *c, const char *i, const struct dcb_port_state *cur, uint8_t en)
{
	rec("pfc");
	return fops->set_pfc(c, i, cur, en);
}

static int rec_ets(void *c, const char *i, const struct dcb_port_state *cur, const struct rq_ets *e)
{
	rec("ets");
	return fops->set_ets(c, i, cur, e);
}

static int rec_add(void *c, const char *i, const struct dcb_app_entry *a, size_t n)
{
	rec("add");
	return fops->app_add(c, i, a, n);
}

static int rec_del(void *c, const char *i, const struct dcb_app_entry *a, size_t n)
{
	rec("del");
	return fops->app_del(c, i, a, n);
}

static int rec_trust(void *c, const char *i, const uint8_t *s, size_t n)
{
	rec("trust");
	return fops->set_trust(c, i, s, n);
}

static const struct dcb_ops rec_ops = {
    .name = "rec",
    .get = rec_get,
    .set_pfc = rec_pfc,
    .set_ets = rec_ets,
    .app_add = rec_add,
    .app_del = rec_del,
    .set_trust = rec_trust,
};

int rec_apply(const char *ifname, const struct rq_profile *p, struct rq_error *e)
{
	struct dcb_port_state st;
	struct dcb_plan plan;
	int r;

	calls[0] = '\0';
	ck_assert_int_eq(fops->get(fctx, ifname, &st), 0);
	profile_dcb_plan(&st, p, &plan);
	r = dcb_apply_ex(&rec_ops, fctx, ifname, "mlx5_core", &st, &plan, e);
	return r;
}

START_TEST(order_pfc_last_when_turning_on)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	p.ets = (struct rq_ets){.present = true, .tc_bw = {100}, .tsa = {2}};
	port_write("p0",
		   "{\"writes\":0,\"app\":[{\"selector\":5,\"protocol\":26,\"priority\":1}]}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), 0);
	ck_assert_str_eq(calls, "add,del,trust,ets,pfc");
}
END_TEST

/* Requirements never turn a priority's PFC off, whatever the port has beyond them. */
START_TEST(order_pfc_first_when_only_turning_off)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"pfc\":[3,4]}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), 0);
	ck_assert_str_eq(calls, "add,trust");
	assert_key("p0", "pfc", "[3,4]");
}
END_TEST

START_TEST(no_dcb_maps_to_code)
{
	struct rq_profile p;
	struct dcb_port_state st;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_builtin(&p);
	ck_assert_int_eq(fops->get(fctx, "p9", &st), -EOPNOTSUPP);
	/* the port loses its dcbnl ops between the read and the write */
	memset(&st, 0, sizeof(st));
	profile_dcb_plan(&st, &p, &plan);
	ck_assert_int_eq(dcb_apply_ex(fops, fctx, "p9", "ice", &st, &plan, &e), -EOPNOTSUPP);
	ck_assert_int_eq(e.code, RQ_ERR_NO_DCB);
	ck_assert_str_eq(e.msg, "no DCB on PF p9 (driver ice)");
	rq_err_clear(&e);
	ck_assert_int_eq(dcb_apply(fops, fctx, "p9", &st, &plan, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "no DCB on PF p9 (driver unknown)");
}
END_TEST

START_TEST(dcbx_locked_before_any_write)
{
	struct rq_profile p;
	struct rq_error e = {0};
	struct dcb_port_state st;

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"dcbxLocked\":true}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert(st.has_dcbx);
	ck_assert_uint_eq(st.dcbx, DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE);
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_DCBX_LOCKED);
	ck_assert_str_eq(calls, "");
	ck_assert_int_eq(port_writes("p0"), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "use pf: verify"));
	/* mlx5 in firmware mode: VER_CEE|VER_IEEE, no HOST, setters that do not refuse */
	port_write("p0", "{\"writes\":0,\"dcbx\":12}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert(dcb_dcbx_not_host(&st));
	rq_err_clear(&e);
	calls[0] = '\0';
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_DCBX_LOCKED);
	ck_assert_str_eq(calls, "");
	ck_assert_int_eq(port_writes("p0"), 0);
	/* host-managed DCBX is fine; so is a driver that reports no DCBX at all */
	port_write("p0", "{\"writes\":0,\"dcbx\":9}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert(!dcb_dcbx_not_host(&st));
	rq_err_clear(&e);
	ck_assert_int_eq(rec_apply("p0", &p, &e), 0);
	ck_assert_int_eq(port_writes("p0"), 3);
	port_write("p0", "{\"writes\":0}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	ck_assert(!dcb_dcbx_not_host(&st));
}
END_TEST

/* A pcp requirement drops dscp from apptrust but keeps the port's other selectors in order. */
START_TEST(pcp_requirement_keeps_other_selectors)
{
	struct rq_profile p;
	struct dcb_plan plan;
	struct rq_error e = {0};

	profile_empty(&p, "pcp");
	p.has_trust = true;
	p.trust = RQ_TRUST_PCP;
	port_write("p0", "{\"writes\":0,\"trust\":[\"dscp\",\"ethtype\",\"pcp\"],\"pfc\":[4],"
			 "\"app\":[{\"selector\":5,\"protocol\":26,\"priority\":3},"
			 "{\"selector\":1,\"protocol\":35093,\"priority\":4}]}");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert_uint_eq(plan.n_del, 1);
	ck_assert(!plan.set_pfc);
	assert_key("p0", "trust", "[\"ethtype\",\"pcp\"]");
	assert_key("p0", "pfc", "[4]");
	ck_assert_int_eq(app_count("p0", 5), 0);
	ck_assert_int_eq(app_prio("p0", 1, 35093), 4);
	/* a dscp requirement on that port puts dscp first and keeps the rest */
	profile_builtin(&p);
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	assert_key("p0", "trust", "[\"dscp\",\"ethtype\",\"pcp\"]");
	assert_key("p0", "pfc", "[3,4]");
	ck_assert_int_eq(app_count("p0", 5), 64);
	/* nothing required: no plan at all */
	profile_empty(&p, "lossy");
	ck_assert_int_eq(get_plan_apply("p0", &p, &plan, &e), 0);
	ck_assert(dcb_plan_empty(&plan));
}
END_TEST

START_TEST(eperm_on_set_maps_to_locked)
{
	struct rq_profile p;
	struct rq_error e = {0};

	profile_builtin(&p);
	port_write("p0", "{\"writes\":0,\"fail\":{\"app_add\":1}}");
	ck_assert_int_eq(rec_apply("p0", &p, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_DCBX_LOCKED);
	ck_assert_int_eq(port_writes("p0"), 0);
}
END_TEST

START_TEST(fake_app_semantics)
{
	struct dcb_app_entry a = {5, 26, 3}, b = {5, 26, 1};

	port_write("p0", "{\"writes\":0}");
	ck_assert_int_eq(fops->app_add(fctx, "p0", &a, 1), 0);
	ck_assert_int_eq(fops->app_add(fctx, "p0", &a, 1), -EEXIST);
	/* same DSCP, another priority: a second entry, as on the kernel's IEEE path */
	ck_assert_int_eq(fops->app_add(fctx, "p0", &b, 1), 0);
	ck_assert_int_eq(app_count("p0", 5), 2);
	ck_assert_int_eq(fops->app_del(fctx, "p0", &a, 1), 0);
	ck_assert_int_eq(fops->app_del(fctx, "p0", &a, 1), -ENOENT);
	ck_assert_int_eq(port_writes("p0"), 3);
	ck_assert_int_eq(fops->set_trust(fctx, "p0", (const uint8_t[]){5, 255, 1}, 3), 0);
	assert_key("p0", "trust", "[\"dscp\",\"pcp\",\"ethtype\"]");
	ck_assert_int_eq(fops->app_add(fctx, "../p0", &a, 1), -ENODEV);
}
END_TEST

START_TEST(fake_corrupt_file)
{
	struct dcb_port_state st;

	port_write("p0", "{\"pfc\":[9]}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), -EBADMSG);
	port_write("p0", "{\"trust\":[\"bogus\"]}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), -EBADMSG);
	port_write("p0", "{\"app\":[{\"selector\":5,\"protocol\":1,\"priority\":8}]}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), -EBADMSG);
	port_write("p0", "[1,2");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), -EBADMSG);
}
END_TEST

START_TEST(describe_lines)
{
	struct rq_profile p;
	struct dcb_port_state st;
	char buf[2048];

	profile_builtin(&p);
	for (int d = 0; d < 12; d++) {
		p.dscp_override |= 1ULL << d;
		p.dscp_prio[d] = 5;
	}
	port_write("p0", "{\"pfc\":[4],\"trust\":[\"pcp\"],\"app\":["
			 "{\"selector\":5,\"protocol\":26,\"priority\":1}]}");
	ck_assert_int_eq(fops->get(fctx, "p0", &st), 0);
	/* trust, 8 of the 14 required DSCP lines + a summary of the other 6, pfc */
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, sizeof(buf)), 11);
	ck_assert_ptr_nonnull(strstr(buf, "dscp 0: required priority 5, port has priority none\n"));
	ck_assert_ptr_nonnull(strstr(buf, "dscp map: 6 more required DSCP entries missing\n"));
	ck_assert_ptr_nonnull(strstr(buf, "pfc: required priority 3, port has 4\n"));
	ck_assert(!strncmp(buf, "trust: required dscp, port trusts pcp\n", 38));
	/* DSCP trusted by its entries but apptrust says pcp first: the apptrust line */
	st.n_trust = 2;
	st.trust[0] = RQ_DCB_APP_SEL_PCP;
	st.trust[1] = IEEE_8021QAZ_APP_SEL_DSCP;
	st.has_trust = false;
	ck_assert(strstr(buf, "apptrust") == NULL);
	/* a small buffer is cut, never overrun */
	ck_assert_int_eq(profile_dcb_describe(&st, &p, buf, 10), 10);
	ck_assert_uint_eq(strlen(buf), 9);
}
END_TEST

Suite *suite_dcb(void);
Suite *suite_dcb(void)
{
	Suite *s = suite_create("dcb");
	TCase *tc = tcase_create("fake");

	tcase_add_checked_fixture(tc, dcbt_setup, dcbt_teardown);
	tcase_add_test(tc, fresh_port);
	tcase_add_test(tc, already_right_zero_writes);
	tcase_add_test(tc, pcp_trusted_with_entries);
	tcase_add_test(tc, trust_pcp_profile_removes_dscp);
	tcase_add_test(tc, pfc_on_other_prios);
	tcase_add_test(tc, ets_present_and_absent);
	tcase_add_test(tc, ets_strict_bw_not_compared);
	tcase_add_test(tc, order_pfc_last_when_turning_on);
	tcase_add_test(tc, order_pfc_first_when_only_turning_off);
	tcase_add_test(tc, no_dcb_maps_to_code);
	tcase_add_test(tc, dcbx_locked_before_any_write);
	tcase_add_test(tc, pcp_requirement_keeps_other_selectors);
	tcase_add_test(tc, eperm_on_set_maps_to_locked);
	tcase_add_test(tc, fake_app_semantics);
	tcase_add_test(tc, fake_corrupt_file);
	tcase_add_test(tc, describe_lines);
	suite_add_tcase(s, tc);
	return s;
}
