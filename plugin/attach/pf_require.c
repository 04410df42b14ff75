// SPDX-License-Identifier: Apache-2.0
/*
 * The PF part of ADD and CHECK: DCB read/diff/apply or verify, ECN, CNP, the
 * carrier after a PFC change, and the undo of what this ADD changed. Whether
 * the requirements may join the port at all is pf_conflict.c.
 */
#include "plugin/attach/pf_require.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "pkg/sysfs/carrier.h"

void pfqos_target(const struct rq_ctx *c, struct rq_profile *ret)
{
	struct rq_profile base;

	*ret = c->profile;
	if (catalog_baseline(c->cat, &base) == 0)
		profile_req_merge(ret, &base);
}

static int pf_read(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		   struct dcb_port_state *st)
{
	int r = ops->get(ctx, pf->ifname, st);

	if (r == -EOPNOTSUPP)
		return rq_err(&c->err, RQ_ERR_NO_DCB, r, "no DCB on PF %s (driver %s)", pf->ifname,
			      pf->driver[0] ? pf->driver : "unknown");
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading DCB state of PF %s: %s", pf->ifname,
			      strerror(-r));
	return 0;
}

/*
 * mlx5 refuses (EPERM) to turn ECN on while the port's congestion control is
 * not the host's to change: firmware runs QCN (802.1Qau) on it, or the
 * firmware denies the host congestion-control changes. No retry helps.
 */
static int ecn_refused(struct rq_ctx *c, const struct rq_pf *pf, const struct rq_profile *t)
{
	char msg[512];

	(void)snprintf(msg, sizeof(msg),
		       "PF %s refused to turn ECN on for priorities 0x%02x (EPERM): the driver "
		       "does not let the host change congestion control on this port (QCN/"
		       "802.1Qau is on, or the firmware denies it); turn QCN off or enable "
		       "DCQCN with the NIC's firmware tools (mlxconfig), or drop \"ecn\" from "
		       "profile \"%s\"",
		       pf->ifname, t->ecn, c->profile.name);
	if (c->profile.ecn_required)
		return rq_err(&c->err, RQ_ERR_NO_ECN, -EPERM, "%s", msg);
	log_warn("%s; ECN is left to the driver", msg);
	return 0;
}

/*
 * The CNP's DSCP and priority: written where the driver has the files and
 * they differ (pf: ensure), else a mismatch (verify). Without the files
 * (upstream mlx5, other drivers) the firmware's default stands: a warning.
 */
static int cnp_step(struct rq_ctx *c, const struct rq_pf *pf, const struct rq_profile *t,
		    bool write, enum rq_log_level said, struct pf_undo *u)
{
	struct cnp_state st;
	int r;

	if (!t->has_cnp[CNP_DSCP] && !t->has_cnp[CNP_PRIO])
		return 0;
	r = cnp_get(&c->env.root, pf->ifname, &st);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading the CNP settings of PF %s: %s",
			      pf->ifname, strerror(-r));
	if (!st.has[CNP_DSCP] && !st.has[CNP_PRIO]) {
		rq_log(said,
		       "PF %s has no CNP control (ecn/roce_np/cnp_dscp, cnp_802p_prio: MOFED/DOCA "
		       "only): the CNPs' class is the firmware's, not ensured",
		       pf->ifname);
		return 0;
	}
	for (int f = 0; f < CNP_N; f++) {
		if (!t->has_cnp[f])
			continue;
		if (!st.has[f]) {
			rq_log(said,
			       "PF %s has no ecn/roce_np/%s: the CNP's %s is the firmware's, %u "
			       "not ensured",
			       pf->ifname, cnp_field_name(f), f == CNP_DSCP ? "DSCP" : "priority",
			       t->cnp[f]);
			continue;
		}
		if (st.val[f] == t->cnp[f])
			continue;
		if (!write)
			return rq_err(&c->err, RQ_ERR_PF_MISMATCH, -EINVAL,
				      "PF %s cnp: required %s %u, port has %u", pf->ifname,
				      cnp_field_name(f), t->cnp[f], st.val[f]);
		r = cnp_set(&c->env.root, pf->ifname, f, t->cnp[f]);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_IO, r, "setting %s of PF %s to %u: %s",
				      cnp_field_name(f), pf->ifname, t->cnp[f], strerror(-r));
		u->cnp_written[f] = true;
		u->cnp_before[f] = st.val[f];
		log_info("PF %s cnp: %s %u -> %u", pf->ifname, cnp_field_name(f), st.val[f],
			 t->cnp[f]);
	}
	return 0;
}

static int ecn_step(struct rq_ctx *c, const struct rq_pf *pf, const struct rq_profile *t,
		    bool write, enum rq_log_level said, uint16_t *ret_written)
{
	uint8_t on = 0;
	int r;

	*ret_written = 0;
	if (!t->ecn)
		return 0;
	/* the files read at once: one that is not there is a port without ECN control (what
	 * ecn_probe answers, without opening each file twice) */
	r = ecn_get(&c->env.root, pf->ifname, t->ecn, &on);
	if (r == -ENOENT || r == -ENOTDIR) {
		if (c->profile.ecn_required)
			return rq_err(&c->err, RQ_ERR_NO_ECN, -EOPNOTSUPP,
				      "PF %s has no ECN control (/sys/class/net/%s/ecn/roce_np, "
				      "roce_rp) and profile \"%s\" sets ecnRequired",
				      pf->ifname, pf->ifname, c->profile.name);
		rq_log(said,
		       "PF %s has no ECN control: ECN on priorities 0x%02x left to the driver",
		       pf->ifname, t->ecn);
		return 0;
	}
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading ECN of PF %s: %s", pf->ifname,
			      strerror(-r));
	if ((on & t->ecn) == t->ecn)
		return 0;
	if (!write)
		return rq_err(&c->err, RQ_ERR_PF_MISMATCH, -EINVAL,
			      "PF %s ecn: required priorities 0x%02x, port has 0x%02x", pf->ifname,
			      t->ecn, on);
	r = ecn_enable(&c->env.root, pf->ifname, t->ecn, ret_written);
	if (r == -EPERM)
		return ecn_refused(c, pf, t);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "enabling ECN on PF %s: %s", pf->ifname,
			      strerror(-r));
	log_info("PF %s ecn: priorities 0x%02x -> 0x%02x", pf->ifname, on,
		 on | ecn_written_prios(*ret_written));
	return 0;
}

/*
 * A pod must not start NCCL on a port that is still down: after a PFC change
 * (mlx5 toggles the link) wait, bounded, for the carrier it had before.
 */
static int carrier_step(struct rq_ctx *c, const struct rq_pf *pf, bool was_up, long changes)
{
	int secs = c->cat ? c->cat->carrier_wait_s : RQ_CARRIER_WAIT_DEFAULT_S, waited = 0, r;

	if (!was_up)
		return 0;
	r = carrier_wait_up(&c->env.root, pf->ifname, changes, secs * 1000, RQ_CARRIER_SETTLE_MS,
			    &waited);
	if (r == -ETIMEDOUT)
		return rq_err(&c->err, RQ_ERR_NO_CARRIER, r,
			      "PF %s: carrier did not come back within %d s after the PFC change "
			      "(node.carrierWaitSeconds); the port's link is still down",
			      pf->ifname, secs);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "PF %s: reading carrier: %s", pf->ifname,
			      strerror(-r));
	log_info("PF %s carrier up %d ms after the PFC change", pf->ifname, waited);
	return 0;
}

/*
 * mlx5 toggles the link on each PFC change: the PF's carrier_down_count after
 * our own write goes to its PF index (where one exists; ADD's index step
 * writes it too), so the agent's link health does not count that drop as a
 * flap (agent/link_judge.c). Best effort: a failure costs one false flap.
 */
static void note_own_toggle(struct rq_ctx *c, const struct rq_pf *pf)
{
	cJSON *idx = NULL;
	long v;

	if (carrier_down_read(&c->env.root, pf->ifname, &v) < 0 ||
	    state_pf_read(&c->env.root, pf->pci, &idx) < 0)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(idx, "carrierDownAfterWrite");
	if (cJSON_AddNumberToObject(idx, "carrierDownAfterWrite", (double)v))
		(void)state_pf_write(&c->env.root, pf->pci, idx);
	cJSON_Delete(idx);
}

static int pf_apply(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		    struct pf_undo *u)
{
	bool was_up = false;
	long changes = 0;
	int r;

	if (u->plan.set_pfc && carrier_read(&c->env.root, pf->ifname, &was_up, &changes) < 0)
		was_up = false;
	log_info("PF %s: adding what profile \"%s\" requires and the port lacks", pf->ifname,
		 c->profile.name);
	r = dcb_apply_ex(ops, ctx, pf->ifname, pf->driver, &u->before, &u->plan, &c->err);
	if (r < 0)
		return r;
	u->dcb_applied = true;
	if (u->plan.set_pfc)
		note_own_toggle(c, pf);
	if (u->plan.set_pfc && c->carrier_defer) {
		u->carrier_pending = was_up;
		u->carrier_changes = changes;
		return 0;
	}
	if (!u->plan.set_pfc)
		return 0;
	r = carrier_step(c, pf, was_up, changes);
	note_own_toggle(c, pf); /* the drop the wait saw is ours too */
	return r;
}

int pfqos_carrier_wait(struct rq_ctx *c, const struct rq_pf *pf, const struct pf_undo *u)
{
	return u->carrier_pending ? carrier_step(c, pf, true, u->carrier_changes) : 0;
}

int pfqos_ensure(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		 bool announce, struct pf_undo *u)
{
	char diff[2048];
	int r;

	memset(u, 0, sizeof(*u));
	pfqos_target(c, &u->target);
	r = pf_read(c, ops, ctx, pf, &u->before);
	if (r < 0)
		return r;
	profile_dcb_plan(&u->before, &u->target, &u->plan);
	if (!dcb_plan_empty(&u->plan)) {
		if (c->pf_mode == RQ_PF_VERIFY) {
			profile_dcb_describe(&u->before, &u->target, diff, sizeof(diff));
			join_lines(diff, sizeof(diff));
			return rq_err(&c->err, RQ_ERR_PF_MISMATCH, -EINVAL,
				      "PF %s does not meet profile \"%s\" and pf is \"verify\": %s",
				      pf->ifname, c->profile.name, diff);
		}
		r = pf_apply(c, ops, ctx, pf, u);
		if (r < 0)
			return r;
	} else {
		log_debug("PF %s already meets profile \"%s\": no DCB write", pf->ifname,
			  c->profile.name);
	}
	/* said once, where the PF changes: not by every steady ADD (issue 49 item 8) */
	r = ecn_step(c, pf, &u->target, c->pf_mode == RQ_PF_ENSURE,
		     announce || u->dcb_applied ? RQ_LOG_WARN : RQ_LOG_DEBUG, &u->ecn_written);
	if (r < 0)
		return r;
	return cnp_step(c, pf, &u->target, c->pf_mode == RQ_PF_ENSURE,
			announce || u->dcb_applied || u->ecn_written ? RQ_LOG_WARN : RQ_LOG_DEBUG,
			u);
}

/* Exactly the files this ADD wrote: a side the operator had on stays on. */
static void undo_ecn(struct rq_ctx *c, const struct rq_pf *pf, uint16_t written)
{
	int r;

	if (!written)
		return;
	r = ecn_revert(&c->env.root, pf->ifname, written);
	if (r < 0)
		log_warn("PF %s: turning ECN back off (files 0x%04x) failed: %s", pf->ifname,
			 written, strerror(-r));
	else
		log_info("PF %s ecn: priorities 0x%02x turned back off (ADD failed)", pf->ifname,
			 ecn_written_prios(written));
}

/*
 * ADD only adds what was missing (and replaces what its own requirements
 * contradict, which nobody live requires: that would have been a 102), so
 * putting the port back as this ADD found it never takes away what another
 * attachment relies on.
 */
void pfqos_undo(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		const struct pf_undo *u)
{
	for (int f = 0; f < CNP_N; f++)
		if (u->cnp_written[f] && cnp_set(&c->env.root, pf->ifname, f, u->cnp_before[f]) < 0)
			log_warn("PF %s: putting %s back to %u failed", pf->ifname,
				 cnp_field_name(f), u->cnp_before[f]);
	undo_ecn(c, pf, u->ecn_written);
	if (!u->dcb_applied)
		return;
	/* by state, against what the port reports now: no inverse plan, no nested rollback */
	if (dcb_restore(ops, ctx, pf->ifname, &u->before) < 0)
		log_error("PF %s: rollback of this ADD's DCB changes is incomplete (see above)",
			  pf->ifname);
	else
		log_info("PF %s: DCB changes of the failed ADD rolled back", pf->ifname);
}

int pfqos_check(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		char *drift, size_t len)
{
	struct dcb_port_state st;
	struct rq_profile t;
	size_t n = strlen(drift);
	uint8_t on = 0;
	bool avail = false;
	int r;

	pfqos_target(c, &t);
	if (!profile_has_pf_req(&c->profile))
		return 0;
	r = pf_read(c, ops, ctx, pf, &st);
	if (r < 0)
		return r;
	if (n < len)
		profile_dcb_describe(&st, &t, drift + n, len - n);
	if (t.ecn && ecn_probe(&c->env.root, pf->ifname, t.ecn, &avail) == 0 && avail &&
	    ecn_get(&c->env.root, pf->ifname, t.ecn, &on) == 0 && (on & t.ecn) != t.ecn) {
		char a[32], b[32];

		n = strlen(drift);
		dcb_prio_text(t.ecn & ~on, a, sizeof(a));
		dcb_prio_text(on, b, sizeof(b));
		snprintf(drift + n, len - n, "ecn: required priority %s, port has %s\n", a, b);
	}
	pfqos_cnp_describe(&c->env.root, pf->ifname, &t, drift, len);
	return 0;
}

void pfqos_cnp_describe(const struct rq_root *root, const char *ifname, const struct rq_profile *t,
			char *drift, size_t len)
{
	struct cnp_state st;

	if (cnp_get(root, ifname, &st) < 0)
		return;
	for (int f = 0; f < CNP_N; f++) {
		size_t n = strlen(drift);

		if (t->has_cnp[f] && st.has[f] && st.val[f] != t->cnp[f] && n < len)
			snprintf(drift + n, len - n, "cnp: required %s %u, port has %u\n",
				 cnp_field_name(f), t->cnp[f], st.val[f]);
	}
}
