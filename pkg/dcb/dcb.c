// SPDX-License-Identifier: Apache-2.0
/*
 * Desired PF state from a profile, the diff against what the port reports,
 * the ordered apply, and the restore by state after a failure. Backend-agnostic.
 *
 * Apply order, and why: the port must never have PFC on a priority while the
 * traffic that should land there is not classified by DSCP, or lossless
 * traffic pauses the wrong queue (and a PFC change flaps the mlx5 link, so
 * it is done once, last). So: DSCP APP entries are added first (mlx5 trusts
 * DSCP as soon as one DSCP entry exists), then the replaced entries are
 * deleted ("add missing, then delete replaced": adding an existing entry is
 * -EEXIST on the generic path; mlx5's add replaces the entry of that DSCP
 * itself, so its delete of the old entry is -ENOENT and is reconciled by
 * re-reading the port), then apptrust, then ETS, then PFC. When the plan only
 * turns PFC off, PFC goes first instead: priorities stop being lossless
 * before their classification changes.
 *
 * A failure half-way is undone by state, not by replaying steps backwards:
 * the kernel applies an APP batch entry by entry and stops at the first
 * error, so a failed step may be half applied.
 */
#include "pkg/dcb/dcb.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/dcbnl.h>
#include <stdio.h>
#include <string.h>

#include "pkg/log/log.h"

static bool app_in(const struct dcb_app_entry *v, size_t n, const struct dcb_app_entry *a)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].selector == a->selector && v[i].protocol == a->protocol &&
		    v[i].priority == a->priority)
			return true;
	return false;
}

static bool app_has(const struct dcb_port_state *cur, uint8_t sel, uint16_t proto, uint8_t prio)
{
	const struct dcb_app_entry a = {sel, proto, prio};

	return app_in(cur->app, cur->n_app, &a);
}

static void trust_want(const struct rq_profile *p, uint8_t *sel, size_t *n)
{
	if (p->trust == RQ_TRUST_DSCP) {
		sel[0] = IEEE_8021QAZ_APP_SEL_DSCP;
		sel[1] = RQ_DCB_APP_SEL_PCP;
		*n = 2;
	} else {
		sel[0] = RQ_DCB_APP_SEL_PCP;
		*n = 1;
	}
}

/*
 * TCs whose bandwidth is compared: ETS TCs of the profile, within the port's
 * ets_cap. mlx5 reports tc_tx_bw 100 for strict and vendor TCs (profiles
 * must say 0 there), so comparing those would never find the port equal.
 */
static bool ets_bw_compared(const struct dcb_port_state *cur, const struct rq_ets *ets, int tc)
{
	return (!cur->ets_cap || tc < cur->ets_cap) && ets->tsa[tc] == RQ_TSA_ETS;
}

static bool ets_equal(const struct dcb_port_state *cur, const struct rq_ets *ets)
{
	if (!cur->has_ets || memcmp(cur->prio_tc, ets->prio_tc, 8) != 0)
		return false;
	for (int tc = 0; tc < 8; tc++) {
		if (cur->ets_cap && tc >= cur->ets_cap)
			break;
		if (cur->tc_tsa[tc] != ets->tsa[tc])
			return false;
		if (ets_bw_compared(cur, ets, tc) && cur->tc_tx_bw[tc] != ets->tc_bw[tc])
			return false;
	}
	return true;
}

void dcb_plan_from(const struct dcb_port_state *cur, const struct rq_profile *p,
		   struct dcb_plan *ret)
{
	uint8_t tsel[RQ_DCB_TRUST_MAX];
	size_t tn = 0;

	memset(ret, 0, sizeof(*ret));
	for (int d = 0; p->trust == RQ_TRUST_DSCP && d < RQ_NDSCP; d++)
		if (!app_has(cur, IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)d, p->dscp_prio[d]))
			ret->add[ret->n_add++] = (struct dcb_app_entry){
			    IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)d, p->dscp_prio[d]};
	for (size_t i = 0; i < cur->n_app && ret->n_del < RQ_DCB_APP_MAX; i++) {
		const struct dcb_app_entry *a = &cur->app[i];

		if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP)
			continue;
		if (p->trust == RQ_TRUST_PCP || a->protocol >= RQ_NDSCP ||
		    a->priority != p->dscp_prio[a->protocol])
			ret->del[ret->n_del++] = *a;
	}
	if (cur->has_trust) {
		trust_want(p, tsel, &tn);
		if (cur->n_trust != tn || memcmp(cur->trust, tsel, tn) != 0) {
			ret->set_trust = true;
			ret->n_trust = tn;
			memcpy(ret->trust, tsel, tn);
		}
	}
	/* a driver without ieee_getpfc reports nothing: only a wanted PFC is a difference */
	if (cur->has_pfc ? cur->pfc_en != p->pfc : p->pfc != 0) {
		ret->set_pfc = true;
		ret->pfc_en = p->pfc;
	}
	if (p->ets.present && !ets_equal(cur, &p->ets)) {
		ret->set_ets = true;
		ret->ets = p->ets;
	}
}

bool dcb_plan_empty(const struct dcb_plan *plan)
{
	return !plan->set_pfc && !plan->set_ets && !plan->set_trust && !plan->n_add && !plan->n_del;
}

static void prio_text(uint8_t mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < 8 && off < len; i++)
		if (mask & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
	if (!buf[0])
		(void)snprintf(buf, len, "none");
}

static size_t line(char *buf, size_t len, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t line(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off >= len)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return n < 0 ? off : off + (size_t)n;
}

static const char *trust_name(const struct dcb_port_state *cur)
{
	if (cur->has_trust)
		return cur->n_trust && cur->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP ? "dscp" : "pcp";
	/* mlx5 has no trust knob: it trusts DSCP while a DSCP APP entry exists */
	for (size_t i = 0; i < cur->n_app; i++)
		if (cur->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
			return "dscp";
	return "pcp";
}

static void trust_text(const uint8_t *sel, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					sel[i] == IEEE_8021QAZ_APP_SEL_DSCP ? "dscp"
					: sel[i] == RQ_DCB_APP_SEL_PCP	    ? "pcp"
									    : "other");
	if (!buf[0])
		(void)snprintf(buf, len, "none");
}

/* Priorities the port maps @dscp to (several when entries were added but not replaced). */
static void dscp_current(const struct dcb_port_state *cur, unsigned dscp, char *buf, size_t len)
{
	uint8_t mask = 0;

	for (size_t i = 0; i < cur->n_app; i++)
		if (cur->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP &&
		    cur->app[i].protocol == dscp && cur->app[i].priority < 8)
			mask |= (uint8_t)(1u << cur->app[i].priority);
	prio_text(mask, buf, len);
}

#define DESCRIBE_DSCP_MAX 8 /* DSCP lines before the rest is summarised */

static size_t describe_dscp(const struct dcb_port_state *cur, const struct rq_profile *p,
			    const struct dcb_plan *plan, char *buf, size_t len, size_t off, int *n)
{
	uint64_t diff = 0;
	int shown = 0, total;
	char b[32];

	for (size_t i = 0; i < plan->n_add; i++)
		if (plan->add[i].protocol < RQ_NDSCP)
			diff |= 1ull << plan->add[i].protocol;
	for (size_t i = 0; i < plan->n_del; i++)
		if (plan->del[i].protocol < RQ_NDSCP)
			diff |= 1ull << plan->del[i].protocol;
	total = __builtin_popcountll(diff);
	for (unsigned d = 0; d < RQ_NDSCP && shown < DESCRIBE_DSCP_MAX; d++) {
		if (!(diff & (1ull << d)))
			continue;
		dscp_current(cur, d, b, sizeof(b));
		if (p->trust == RQ_TRUST_DSCP)
			off = line(buf, len, off, "dscp %u: configured prio %u, current prio %s\n",
				   d, p->dscp_prio[d], b);
		else
			off = line(buf, len, off,
				   "dscp %u: configured no entry (trust pcp), current prio %s\n", d,
				   b);
		shown++;
		(*n)++;
	}
	if (total > shown) {
		off = line(buf, len, off, "dscp map: %d more DSCP entries differ\n", total - shown);
		(*n)++;
	}
	return off;
}

/* Bandwidths not compared (non-ETS TCs, beyond ets_cap) print as "-", as ets_equal sees them. */
static void ets_text(const struct dcb_port_state *cur, const struct rq_ets *want, const uint8_t *bw,
		     const uint8_t *tsa, const uint8_t *ptc, char *buf, size_t len)
{
	char b[8][4];

	for (int i = 0; i < 8; i++)
		if (ets_bw_compared(cur, want, i))
			(void)snprintf(b[i], sizeof(b[i]), "%u", bw[i]);
		else
			(void)snprintf(b[i], sizeof(b[i]), "-");
	(void)snprintf(buf, len,
		       "tcBw %s/%s/%s/%s/%s/%s/%s/%s tsa %u/%u/%u/%u/%u/%u/%u/%u prioTc "
		       "%u/%u/%u/%u/%u/%u/%u/%u",
		       b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], tsa[0], tsa[1], tsa[2],
		       tsa[3], tsa[4], tsa[5], tsa[6], tsa[7], ptc[0], ptc[1], ptc[2], ptc[3],
		       ptc[4], ptc[5], ptc[6], ptc[7]);
}

int dcb_plan_describe(const struct dcb_port_state *cur, const struct rq_profile *p, char *buf,
		      size_t len)
{
	struct dcb_plan plan;
	const char *want = p->trust == RQ_TRUST_DSCP ? "dscp" : "pcp";
	char a[160], b[160];
	size_t off = 0;
	int n = 0;

	dcb_plan_from(cur, p, &plan);
	if (len)
		buf[0] = '\0';
	if (strcmp(want, trust_name(cur)) != 0) {
		off = line(buf, len, off, "trust: configured %s, current %s\n", want,
			   trust_name(cur));
		n++;
	}
	if (plan.set_trust) {
		trust_text(plan.trust, plan.n_trust, a, sizeof(a));
		trust_text(cur->trust, cur->n_trust, b, sizeof(b));
		off = line(buf, len, off, "apptrust: configured %s, current %s\n", a, b);
		n++;
	}
	off = describe_dscp(cur, p, &plan, buf, len, off, &n);
	if (plan.set_pfc) {
		prio_text(p->pfc, a, sizeof(a));
		prio_text(cur->pfc_en, b, sizeof(b));
		off = line(buf, len, off, "pfc: configured prio %s, current %s%s\n", a,
			   cur->has_pfc ? "prio " : "", cur->has_pfc ? b : "not reported");
		n++;
	}
	if (plan.set_ets) {
		ets_text(cur, &p->ets, p->ets.tc_bw, p->ets.tsa, p->ets.prio_tc, a, sizeof(a));
		ets_text(cur, &p->ets, cur->tc_tx_bw, cur->tc_tsa, cur->prio_tc, b, sizeof(b));
		off = line(buf, len, off, "ets: configured %s, current %s\n", a,
			   cur->has_ets ? b : "not reported");
		n++;
	}
	(void)off;
	return n;
}

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
		trust_text(cur->trust, cur->n_trust, a, sizeof(a));
		trust_text(plan->trust, plan->n_trust, b, sizeof(b));
		log_info("PF %s apptrust: %s -> %s", ifname, a, b);
		break;
	case STEP_ETS:
		ets_text(cur, &plan->ets, cur->tc_tx_bw, cur->tc_tsa, cur->prio_tc, a, sizeof(a));
		ets_text(cur, &plan->ets, plan->ets.tc_bw, plan->ets.tsa, plan->ets.prio_tc, b,
			 sizeof(b));
		log_info("PF %s ets: %s -> %s", ifname, cur->has_ets ? a : "unreported", b);
		break;
	case STEP_PFC:
		prio_text(cur->pfc_en, a, sizeof(a));
		prio_text(plan->pfc_en, b, sizeof(b));
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
		    !app_in(b->app, b->n_app, &a->app[i]))
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
		if (app_in(now.app, now.n_app, &plan->del[i]))
			still[n++] = plan->del[i];
	r = app_each(ops, ctx, ifname, false, still, n);
	if (r < 0)
		return r;
	r = ops->get(ctx, ifname, &now);
	if (r < 0)
		return r;
	for (size_t i = 0; i < plan->n_del; i++)
		if (app_in(now.app, now.n_app, &plan->del[i]))
			return -ENOENT;
	for (size_t i = 0; i < plan->n_add; i++)
		if (!app_in(now.app, now.n_app, &plan->add[i]))
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
	prio_text(now->pfc_en, a, sizeof(a));
	prio_text(before->pfc_en, b, sizeof(b));
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
	if (ets_equal(now, &ets))
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
	if (cur->has_dcbx && (cur->dcbx & DCB_CAP_DCBX_LLD_MANAGED) &&
	    !(cur->dcbx & DCB_CAP_DCBX_HOST))
		return rq_err(e, RQ_ERR_DCBX_LOCKED, -EPERM,
			      "PF %s: DCBX is managed by firmware or an LLDP agent (dcbx 0x%02x), "
			      "the host cannot set DCB; configure QoS there and use pf: verify",
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
