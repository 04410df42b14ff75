// SPDX-License-Identifier: Apache-2.0
/*
 * Desired PF state from a profile, the diff against what the port reports,
 * and the ordered apply with rollback. Backend-agnostic.
 *
 * Apply order, and why: the port must never have PFC on a priority while the
 * traffic that should land there is not classified by DSCP, or lossless
 * traffic pauses the wrong queue (and a PFC change flaps the mlx5 link, so
 * it is done once, last). So: DSCP APP entries are added first (mlx5 trusts
 * DSCP as soon as one DSCP entry exists), then the replaced entries are
 * deleted ("add missing, then delete replaced": adding an existing entry is
 * -EEXIST on the generic path), then apptrust, then ETS, then PFC. When the
 * plan only turns PFC off, PFC goes first instead: priorities stop being
 * lossless before their classification changes.
 */
#include "pkg/dcb/dcb.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/dcbnl.h>
#include <stdio.h>
#include <string.h>

#include "pkg/log/log.h"

static bool app_has(const struct dcb_port_state *cur, uint8_t sel, uint16_t proto, uint8_t prio)
{
	for (size_t i = 0; i < cur->n_app; i++)
		if (cur->app[i].selector == sel && cur->app[i].protocol == proto &&
		    cur->app[i].priority == prio)
			return true;
	return false;
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

static bool ets_equal(const struct dcb_port_state *cur, const struct rq_ets *ets)
{
	return cur->has_ets && !memcmp(cur->tc_tx_bw, ets->tc_bw, 8) &&
	       !memcmp(cur->tc_tsa, ets->tsa, 8) && !memcmp(cur->prio_tc, ets->prio_tc, 8);
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
				IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)d, p->dscp_prio[d]
			};
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
		if (cur->n_trust != tn || memcmp(cur->trust, tsel, tn)) {
			ret->set_trust = true;
			ret->n_trust = tn;
			memcpy(ret->trust, tsel, tn);
		}
	}
	if (!cur->has_pfc || cur->pfc_en != p->pfc) {
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
	return !plan->set_pfc && !plan->set_ets && !plan->set_trust && !plan->n_add &&
	       !plan->n_del;
}

static void prio_text(uint8_t mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < 8 && off < len; i++)
		if (mask & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
	if (!buf[0])
		snprintf(buf, len, "none");
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

int dcb_plan_describe(const struct dcb_port_state *cur, const struct rq_profile *p, char *buf,
		      size_t len)
{
	struct dcb_plan plan;
	char a[32], b[32];
	size_t off = 0;
	int n = 0;

	dcb_plan_from(cur, p, &plan);
	buf[0] = '\0';
	if (plan.set_pfc) {
		prio_text(p->pfc, a, sizeof(a));
		prio_text(cur->pfc_en, b, sizeof(b));
		off = line(buf, len, off, "pfc: configured prio %s, current prio %s\n", a, b);
		n++;
	}
	if (plan.n_add || plan.n_del) {
		if (p->trust == RQ_TRUST_DSCP && plan.n_add)
			off = line(buf, len, off,
				   "trust/dscp map: configured dscp (64 DSCP entries), current %zu "
				   "missing, %zu extra (e.g. dscp %u -> prio %u missing)\n",
				   plan.n_add, plan.n_del, plan.add[0].protocol, plan.add[0].priority);
		else
			off = line(buf, len, off,
				   "trust/dscp map: configured %s, current %zu DSCP entries to remove\n",
				   p->trust == RQ_TRUST_DSCP ? "dscp" : "pcp", plan.n_del);
		n++;
	}
	if (plan.set_trust) {
		off = line(buf, len, off, "apptrust: configured %s, current %zu selector(s)%s\n",
			   p->trust == RQ_TRUST_DSCP ? "dscp pcp" : "pcp", cur->n_trust,
			   cur->n_trust && cur->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP ? " (dscp first)"
										 : "");
		n++;
	}
	if (plan.set_ets) {
		off = line(buf, len, off,
			   "ets: configured tcBw %u/%u/%u/%u/%u/%u/%u/%u, current %s%u/%u/%u/%u/%u/%u/"
			   "%u/%u\n",
			   p->ets.tc_bw[0], p->ets.tc_bw[1], p->ets.tc_bw[2], p->ets.tc_bw[3],
			   p->ets.tc_bw[4], p->ets.tc_bw[5], p->ets.tc_bw[6], p->ets.tc_bw[7],
			   cur->has_ets ? "" : "(unreported) ", cur->tc_tx_bw[0], cur->tc_tx_bw[1],
			   cur->tc_tx_bw[2], cur->tc_tx_bw[3], cur->tc_tx_bw[4], cur->tc_tx_bw[5],
			   cur->tc_tx_bw[6], cur->tc_tx_bw[7]);
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
		return plan->set_trust ? ops->set_trust(ctx, ifname, plan->trust, plan->n_trust) : 0;
	case STEP_ETS:
		return plan->set_ets ? ops->set_ets(ctx, ifname, cur, &plan->ets) : 0;
	case STEP_PFC:
		return plan->set_pfc ? ops->set_pfc(ctx, ifname, cur, plan->pfc_en) : 0;
	default:
		return 0;
	}
}

/* Undo one applied step, best effort. */
static void step_undo(const struct dcb_ops *ops, void *ctx, const char *ifname,
		      const struct dcb_port_state *cur, const struct dcb_plan *plan, enum step s)
{
	struct rq_ets ets;

	switch (s) {
	case STEP_ADD:
		(void)ops->app_del(ctx, ifname, plan->add, plan->n_add);
		break;
	case STEP_DEL:
		(void)ops->app_add(ctx, ifname, plan->del, plan->n_del);
		break;
	case STEP_TRUST:
		(void)ops->set_trust(ctx, ifname, cur->trust, cur->n_trust);
		break;
	case STEP_ETS:
		if (!cur->has_ets)
			break;
		memcpy(ets.tc_bw, cur->tc_tx_bw, 8);
		memcpy(ets.tsa, cur->tc_tsa, 8);
		memcpy(ets.prio_tc, cur->prio_tc, 8);
		ets.present = true;
		(void)ops->set_ets(ctx, ifname, cur, &ets);
		break;
	case STEP_PFC:
		(void)ops->set_pfc(ctx, ifname, cur, cur->pfc_en);
		break;
	default:
		break;
	}
}

static void step_log(const char *ifname, const struct dcb_port_state *cur,
		     const struct dcb_plan *plan, enum step s)
{
	char a[32], b[32];

	switch (s) {
	case STEP_ADD:
		if (plan->n_add)
			log_info("PF %s dscp map: added %zu DSCP APP entries (e.g. %u -> prio %u)",
				 ifname, plan->n_add, plan->add[0].protocol, plan->add[0].priority);
		break;
	case STEP_DEL:
		if (plan->n_del)
			log_info("PF %s dscp map: removed %zu replaced DSCP APP entries", ifname,
				 plan->n_del);
		break;
	case STEP_TRUST:
		if (plan->set_trust)
			log_info("PF %s apptrust: %zu selector(s) -> %s", ifname, cur->n_trust,
				 plan->n_trust == 2 ? "dscp pcp" : "pcp");
		break;
	case STEP_ETS:
		if (plan->set_ets)
			log_info("PF %s ets: tcBw %u/%u/%u/%u/%u/%u/%u/%u", ifname,
				 plan->ets.tc_bw[0], plan->ets.tc_bw[1], plan->ets.tc_bw[2],
				 plan->ets.tc_bw[3], plan->ets.tc_bw[4], plan->ets.tc_bw[5],
				 plan->ets.tc_bw[6], plan->ets.tc_bw[7]);
		break;
	case STEP_PFC:
		if (plan->set_pfc) {
			prio_text(cur->pfc_en, a, sizeof(a));
			prio_text(plan->pfc_en, b, sizeof(b));
			log_info("PF %s pfc: prio %s -> prio %s", ifname, a, b);
		}
		break;
	default:
		break;
	}
}

static int map_error(const char *ifname, int r, struct rq_error *e)
{
	if (r == -EOPNOTSUPP)
		return rq_err(e, RQ_ERR_NO_DCB, r, "no DCB on PF %s", ifname);
	if (r == -EPERM || r == -EBUSY)
		return rq_err(e, RQ_ERR_DCBX_LOCKED, r,
			      "PF %s refused the DCB change (%s): DCBX is likely managed by "
			      "firmware or an LLDP agent; use pf: verify",
			      ifname, strerror(-r));
	return rq_err(e, RQ_ERR_IO, r, "DCB write on PF %s: %s", ifname, strerror(-r));
}

int dcb_apply(const struct dcb_ops *ops, void *ctx, const char *ifname,
	      const struct dcb_port_state *cur, const struct dcb_plan *plan, struct rq_error *e)
{
	enum step order[STEP_MAX] = { STEP_ADD, STEP_DEL, STEP_TRUST, STEP_ETS, STEP_PFC };
	bool pfc_only_off = plan->set_pfc && !(plan->pfc_en & ~cur->pfc_en);
	int done = 0, r = 0;

	if (dcb_plan_empty(plan))
		return 0;
	if (cur->has_dcbx && (cur->dcbx & DCB_CAP_DCBX_LLD_MANAGED) &&
	    !(cur->dcbx & DCB_CAP_DCBX_HOST))
		return rq_err(e, RQ_ERR_DCBX_LOCKED, -EPERM,
			      "PF %s: DCBX is managed by firmware or an LLDP agent (dcbx 0x%02x); "
			      "the host cannot set DCB: use pf: verify",
			      ifname, cur->dcbx);
	if (pfc_only_off) {
		memmove(order + 1, order, sizeof(order[0]) * (STEP_MAX - 1));
		order[0] = STEP_PFC;
	}
	for (done = 0; done < STEP_MAX; done++) {
		r = step_do(ops, ctx, ifname, cur, plan, order[done]);
		if (r < 0)
			break;
		step_log(ifname, cur, plan, order[done]);
	}
	if (r == 0)
		return 0;
	map_error(ifname, r, e);
	while (done-- > 0)
		step_undo(ops, ctx, ifname, cur, plan, order[done]);
	return r;
}
