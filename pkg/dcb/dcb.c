// SPDX-License-Identifier: Apache-2.0
/*
 * The ordered apply of a plan (plan.c) and the restore by state after a
 * failure. Backend-agnostic. The order (DSCP APP entries added, replaced ones
 * deleted, apptrust, ETS, PFC last) and why a failure is undone by state, not
 * by replaying steps: docs/design.md#what-add-does-to-a-pf-and-in-which-order.
 * PFC is set once, last (a PFC change flaps the mlx5 link); when the plan only
 * turns PFC off, PFC goes first instead: priorities stop being lossless
 * before their classification changes.
 */
#include "pkg/dcb/dcb.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/dcbnl.h>
#include <stdio.h>
#include <string.h>

#include "pkg/dcb/dcb_int.h"
#include "pkg/log/log.h"

enum step { STEP_ADD, STEP_DEL, STEP_TRUST, STEP_ETS, STEP_PFC, STEP_MAX };

static int step_do(const struct dcb_ops *ops, void *ctx, const char *ifname,
		   const struct dcb_port_state *cur, const struct dcb_plan *plan, enum step s)
{
	switch (s) {
	case STEP_ADD:
		return plan->n_add ? ops->app_add(ctx, ifname, plan->add, plan->n_add) : 0;
	case STEP_DEL:
		return plan->n_del ? ops->app_del(ctx, ifname, plan->del, plan->n_del) : 0;
	case STEP_TRUST:
		return plan->set_trust ? ops->set_trust(ctx, ifname, plan->trust, plan->n_trust)
				       : 0;
	case STEP_ETS:
		return plan->set_ets ? ops->set_ets(ctx, ifname, cur, &plan->ets) : 0;
	case STEP_PFC:
		return plan->set_pfc ? ops->set_pfc(ctx, ifname, cur, plan->pfc_en) : 0;
	default:
		return 0;
	}
}

static void step_log(const char *ifname, const struct dcb_port_state *cur,
		     const struct dcb_plan *plan, enum step s)
{
	char a[160], b[160];

	switch (s) {
	case STEP_ADD:
		log_info("PF %s dscp map: added %zu DSCP APP entries (first: dscp %u -> prio %u)",
			 ifname, plan->n_add, plan->add[0].protocol, plan->add[0].priority);
		break;
	case STEP_DEL:
		log_info("PF %s dscp map: removed %zu DSCP APP entries (first: dscp %u -> prio %u)",
			 ifname, plan->n_del, plan->del[0].protocol, plan->del[0].priority);
		break;
	case STEP_TRUST:
		dcb_trust_text(cur->trust, cur->n_trust, a, sizeof(a));
		dcb_trust_text(plan->trust, plan->n_trust, b, sizeof(b));
		log_info("PF %s apptrust: %s -> %s", ifname, a, b);
		break;
	case STEP_ETS:
		dcb_ets_text(cur, &plan->ets, cur->tc_tx_bw, cur->tc_tsa, cur->prio_tc, a,
			     sizeof(a));
		dcb_ets_text(cur, &plan->ets, plan->ets.tc_bw, plan->ets.tsa, plan->ets.prio_tc, b,
			     sizeof(b));
		log_info("PF %s ets: %s -> %s", ifname, cur->has_ets ? a : "unreported", b);
		break;
	case STEP_PFC:
		dcb_prio_text(cur->pfc_en, a, sizeof(a));
		dcb_prio_text(plan->pfc_en, b, sizeof(b));
		log_info("PF %s pfc: prio %s -> prio %s", ifname, a, b);
		break;
	default:
		break;
	}
}

static const char *const step_names[STEP_MAX] = {"DSCP APP add", "DSCP APP delete", "apptrust",
						 "ETS", "PFC"};

static int map_error(const char *ifname, const char *driver, enum step s, int r, struct rq_error *e)
{
	if (r == -EOPNOTSUPP)
		return rq_err(e, RQ_ERR_NO_DCB, r, "no DCB on PF %s (driver %s)", ifname,
			      driver && driver[0] ? driver : "unknown");
	if (r == -EPERM || r == -EBUSY)
		return rq_err(e, RQ_ERR_DCBX_LOCKED, r,
			      "PF %s refused the %s change (%s): DCBX is likely managed by "
			      "firmware or an LLDP agent; configure QoS there and use pf: verify",
			      ifname, step_names[s], strerror(-r));
	return rq_err(e, RQ_ERR_IO, r, "PF %s: DCB %s write failed: %s", ifname, step_names[s],
		      strerror(-r));
}

static bool step_wanted(const struct dcb_plan *plan, enum step s)
{
	switch (s) {
	case STEP_ADD:
		return plan->n_add > 0;
	case STEP_DEL:
		return plan->n_del > 0;
	case STEP_TRUST:
		return plan->set_trust;
	case STEP_ETS:
		return plan->set_ets;
	case STEP_PFC:
		return plan->set_pfc;
	default:
		return false;
	}
}

/* DSCP entries of @a that @b lacks, into @ret; returns how many. */
static size_t dscp_missing(const struct dcb_port_state *a, const struct dcb_port_state *b,
			   struct dcb_app_entry *ret)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_app; i++)
		if (a->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP &&
		    !dcb_app_in(b->app, b->n_app, &a->app[i]))
			ret[n++] = a->app[i];
	return n;
}

/*
 * Add or delete @v, tolerating what is already so (-EEXIST on add, -ENOENT on
 * delete). The kernel applies a batch entry by entry and stops at the first
 * error, leaving the ones before it applied: after a failed batch, go one
 * entry at a time, past errors. Returns the first other error.
 */
static int app_each(const struct dcb_ops *ops, void *ctx, const char *ifname, bool add,
		    const struct dcb_app_entry *v, size_t n)
{
	int (*fn)(void *, const char *, const struct dcb_app_entry *, size_t) =
	    add ? ops->app_add : ops->app_del;
	int ok = add ? -EEXIST : -ENOENT, first = 0, failed = 0;

	if (!n || fn(ctx, ifname, v, n) == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int r = fn(ctx, ifname, &v[i], 1);

		if (r < 0 && r != ok) {
			failed++;
			if (!first)
				first = r;
		}
	}
	if (failed)
		log_warn("PF %s: %s %d of %zu DSCP APP entries failed: %s", ifname,
			 add ? "adding" : "deleting", failed, n, strerror(-first));
	return first;
}

/*
 * The delete step got -ENOENT. mlx5's setapp for a DSCP entry replaces the
 * entry of that DSCP itself, and its delapp refuses (-ENOENT) an entry whose
 * priority is not the DSCP's current one: after "add 26:5" the "delete 26:3"
 * fails though 26:3 is gone. Re-read the port, delete only what is still
 * there, and succeed if the port ends as the plan wants.
 */
static int del_converge(const struct dcb_ops *ops, void *ctx, const char *ifname,
			const struct dcb_plan *plan)
{
	struct dcb_port_state now;
	struct dcb_app_entry still[RQ_DCB_APP_MAX];
	size_t n = 0;
	int r = ops->get(ctx, ifname, &now);

	if (r < 0)
		return r;
	for (size_t i = 0; i < plan->n_del; i++)
		if (dcb_app_in(now.app, now.n_app, &plan->del[i]))
			still[n++] = plan->del[i];
	r = app_each(ops, ctx, ifname, false, still, n);
	if (r < 0)
		return r;
	r = ops->get(ctx, ifname, &now);
	if (r < 0)
		return r;
	for (size_t i = 0; i < plan->n_del; i++)
		if (dcb_app_in(now.app, now.n_app, &plan->del[i]))
			return -ENOENT;
	for (size_t i = 0; i < plan->n_add; i++)
		if (!dcb_app_in(now.app, now.n_app, &plan->add[i]))
			return -ENOENT;
	log_info("PF %s dscp map: %zu replaced entries already gone (the driver's add replaced "
		 "them), %zu deleted",
		 ifname, plan->n_del - n, n);
	return 0;
}

static int restore_pfc(const struct dcb_ops *ops, void *ctx, const char *ifname,
		       const struct dcb_port_state *before, const struct dcb_port_state *now)
{
	char a[32], b[32];
	int r;

	if (!before->has_pfc || !now->has_pfc || now->pfc_en == before->pfc_en)
		return 0;
	dcb_prio_text(now->pfc_en, a, sizeof(a));
	dcb_prio_text(before->pfc_en, b, sizeof(b));
	r = ops->set_pfc(ctx, ifname, before, before->pfc_en);
	if (r < 0)
		log_warn("PF %s restore: pfc prio %s -> prio %s failed: %s", ifname, a, b,
			 strerror(-r));
	else
		log_info("PF %s restore: pfc prio %s -> prio %s", ifname, a, b);
	return r;
}

static int restore_trust_ets(const struct dcb_ops *ops, void *ctx, const char *ifname,
			     const struct dcb_port_state *before, const struct dcb_port_state *now)
{
	struct rq_ets ets = {.present = true};
	int r, first = 0;

	if (before->has_trust && now->has_trust &&
	    (now->n_trust != before->n_trust ||
	     memcmp(now->trust, before->trust, now->n_trust) != 0)) {
		r = ops->set_trust(ctx, ifname, before->trust, before->n_trust);
		if (r < 0)
			log_warn("PF %s restore: apptrust failed: %s", ifname, strerror(-r));
		first = r;
	}
	if (!before->has_ets) {
		if (now->has_ets)
			log_warn("PF %s restore: ETS was not reported before, left as set", ifname);
		return first;
	}
	/* bandwidth of the ETS TCs only: mlx5 reports 100 for the others and refuses it */
	for (int i = 0; i < 8; i++)
		ets.tc_bw[i] = before->tc_tsa[i] == RQ_TSA_ETS ? before->tc_tx_bw[i] : 0;
	memcpy(ets.tsa, before->tc_tsa, 8);
	memcpy(ets.prio_tc, before->prio_tc, 8);
	if (dcb_ets_equal(now, &ets))
		return first;
	r = ops->set_ets(ctx, ifname, before, &ets);
	if (r < 0)
		log_warn("PF %s restore: ETS failed: %s", ifname, strerror(-r));
	return first ?: r;
}

int dcb_restore(const struct dcb_ops *ops, void *ctx, const char *ifname,
		const struct dcb_port_state *before)
{
	struct dcb_port_state now;
	struct dcb_app_entry v[RQ_DCB_APP_MAX];
	bool pfc_first;
	size_t n;
	int r, first;

	first = ops->get(ctx, ifname, &now);
	if (first < 0) {
		log_error("PF %s restore: cannot read the port (%s), left as it is", ifname,
			  strerror(-first));
		return first;
	}
	/* as in apply: priorities stop being lossless before their classification changes */
	pfc_first = !(before->pfc_en & ~now.pfc_en);
	if (pfc_first)
		first = restore_pfc(ops, ctx, ifname, before, &now);
	/* re-add first: on mlx5 that replaces the entry of the same DSCP */
	n = dscp_missing(before, &now, v);
	r = app_each(ops, ctx, ifname, true, v, n);
	first = first ?: r;
	n = dscp_missing(&now, before, v);
	r = app_each(ops, ctx, ifname, false, v, n);
	first = first ?: r;
	r = restore_trust_ets(ops, ctx, ifname, before, &now);
	first = first ?: r;
	if (!pfc_first) {
		r = restore_pfc(ops, ctx, ifname, before, &now);
		first = first ?: r;
	}
	return first;
}

/*
 * mlx5e_dcbnl_getdcbx reports DCB_CAP_DCBX_HOST only in host mode and never
 * LLD_MANAGED; in firmware mode it reports the versions alone, and its IEEE
 * setters do not refuse. Other drivers (ice, bnxt, i40e) say LLD_MANAGED. So
 * any DCBX report without HOST means the host does not own DCBX.
 */
bool dcb_dcbx_not_host(const struct dcb_port_state *cur)
{
	return cur->has_dcbx && cur->dcbx && !(cur->dcbx & DCB_CAP_DCBX_HOST);
}

int dcb_apply_ex(const struct dcb_ops *ops, void *ctx, const char *ifname, const char *driver,
		 const struct dcb_port_state *cur, const struct dcb_plan *plan, struct rq_error *e)
{
	enum step order[STEP_MAX] = {STEP_ADD, STEP_DEL, STEP_TRUST, STEP_ETS, STEP_PFC};
	/* no new lossless priority: PFC first (see the top of this file) */
	bool pfc_only_off = plan->set_pfc && !(plan->pfc_en & ~cur->pfc_en);
	int done, r = 0;

	if (dcb_plan_empty(plan))
		return 0;
	/* Firmware/LLDP-agent-owned DCBX: refuse before the first write, not half-way. */
	if (dcb_dcbx_not_host(cur))
		return rq_err(e, RQ_ERR_DCBX_LOCKED, -EPERM,
			      "PF %s: DCBX is managed by firmware or an LLDP agent (dcbx 0x%02x, "
			      "no host mode): the host must not set DCB; configure QoS there and "
			      "use pf: verify",
			      ifname, cur->dcbx);
	if (pfc_only_off) {
		memmove(order + 1, order, sizeof(order[0]) * (STEP_MAX - 1));
		order[0] = STEP_PFC;
	}
	for (done = 0; done < STEP_MAX; done++) {
		if (!step_wanted(plan, order[done]))
			continue;
		r = step_do(ops, ctx, ifname, cur, plan, order[done]);
		if (r == -ENOENT && order[done] == STEP_DEL &&
		    del_converge(ops, ctx, ifname, plan) == 0)
			r = 0;
		if (r < 0)
			break;
		step_log(ifname, cur, plan, order[done]);
	}
	if (r == 0)
		return 0;
	map_error(ifname, driver, order[done], r, e);
	/* by state, not by steps: a failed batch may be half applied (the kernel stops at the
	 * first failing APP entry) */
	log_warn("PF %s: DCB %s failed (%s), restoring the state found before", ifname,
		 step_names[order[done]], strerror(-r));
	if (dcb_restore(ops, ctx, ifname, cur) < 0)
		log_error("PF %s: restore incomplete, the port may be left part-way", ifname);
	return r;
}

int dcb_apply(const struct dcb_ops *ops, void *ctx, const char *ifname,
	      const struct dcb_port_state *cur, const struct dcb_plan *plan, struct rq_error *e)
{
	return dcb_apply_ex(ops, ctx, ifname, NULL, cur, plan, e);
}

int dcb_tc_of_prio(const struct dcb_port_state *st, int prio)
{
	if (prio < 0 || prio > 7)
		return -EINVAL;
	if (st && st->has_ets)
		return st->prio_tc[prio] < 8 ? st->prio_tc[prio] : -EINVAL;
	/* mlx5 keeps TC 0 the lowest: its fresh map swaps priorities 0 and 1 */
	return prio == 0 ? 1 : prio == 1 ? 0 : prio;
}
