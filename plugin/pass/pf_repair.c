// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's PF step: a PF's port against the union of the node baseline and
 * the requirements of its attachments, under the same per-PF lock as ADD.
 * pf: ensure attachments get the missing part written (pfqos_ensure, ADD's
 * code); verify ones only reported. One log line per repaired item: what, was, now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/pass/pass_int.h"
#include "plugin/attach/pf_require.h"
#include "plugin/pass/fights.h"
#include "plugin/pass/pass.h"

/* The PF's state as one word per item, for "was X, now Y". */
static void item_text(enum agent_item it, const struct dcb_port_state *st, uint8_t ecn_on,
		      const struct cnp_state *cnp, const struct dcb_plan *plan, char *buf,
		      size_t len)
{
	size_t n_dscp = 0;
	bool dscp = false;

	for (size_t i = 0; i < st->n_app; i++)
		n_dscp += st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	switch (it) {
	case ITEM_PFC:
		dcb_prio_text(st->pfc_en, buf, len);
		break;
	case ITEM_ECN:
		dcb_prio_text(ecn_on, buf, len);
		break;
	case ITEM_TRUST:
		for (size_t i = 0; i < st->n_trust; i++)
			dscp |= i == 0 && st->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP;
		(void)snprintf(buf, len, "%s", dscp || (!st->has_trust && n_dscp) ? "dscp" : "pcp");
		break;
	case ITEM_DSCP2PRIO:
		if (plan->n_add)
			(void)snprintf(buf, len, "%zu DSCP entries, lacking dscp %u -> prio %u%s",
				       n_dscp, plan->add[0].protocol, plan->add[0].priority,
				       plan->n_add > 1 ? " and more" : "");
		else
			(void)snprintf(buf, len, "%zu DSCP entries", n_dscp);
		break;
	case ITEM_CNP:
		(void)snprintf(buf, len, "dscp %d prio %d",
			       cnp->has[CNP_DSCP] ? cnp->val[CNP_DSCP] : -1,
			       cnp->has[CNP_PRIO] ? cnp->val[CNP_PRIO] : -1);
		break;
	case ITEM_ETS:
		(void)snprintf(buf, len, "tcBw %u,%u,%u,%u,%u,%u,%u,%u", st->tc_tx_bw[0],
			       st->tc_tx_bw[1], st->tc_tx_bw[2], st->tc_tx_bw[3], st->tc_tx_bw[4],
			       st->tc_tx_bw[5], st->tc_tx_bw[6], st->tc_tx_bw[7]);
		break;
	default:
		(void)snprintf(buf, len, "-");
	}
}

/* One PF's state against @t: the bitmap of drifted items (plan and ECN, as pfqos_check reads them).
 */
struct pf_look {
	struct dcb_port_state st;
	struct dcb_plan plan;
	uint8_t ecn_on;
	struct cnp_state cnp;
	unsigned items;
};

static int pf_look(struct rq_env *env, const struct dcb_ops *ops, void *dcb, const struct rq_pf *pf,
		   const struct rq_profile *t, struct pf_look *l)
{
	bool avail = false;
	int r;

	memset(l, 0, sizeof(*l));
	r = ops->get(dcb, pf->ifname, &l->st);
	if (r < 0)
		return r;
	profile_dcb_plan(&l->st, t, &l->plan);
	l->items |= l->plan.set_trust ? 1u << ITEM_TRUST : 0;
	l->items |= l->plan.n_add || l->plan.n_del ? 1u << ITEM_DSCP2PRIO : 0;
	l->items |= l->plan.set_pfc ? 1u << ITEM_PFC : 0;
	l->items |= l->plan.set_ets ? 1u << ITEM_ETS : 0;
	if (t->ecn && ecn_probe(&env->root, pf->ifname, t->ecn, &avail) == 0 && avail &&
	    ecn_get(&env->root, pf->ifname, t->ecn, &l->ecn_on) == 0 &&
	    (l->ecn_on & t->ecn) != t->ecn)
		l->items |= 1u << ITEM_ECN;
	if (cnp_get(&env->root, pf->ifname, &l->cnp) == 0)
		for (int f = 0; f < CNP_N; f++)
			if (t->has_cnp[f] && l->cnp.has[f] && l->cnp.val[f] != t->cnp[f])
				l->items |= 1u << ITEM_CNP;
	return 0;
}

/*
 * True when every DCB part @t sets away from the driver's defaults is back at
 * them, together: the port as mlx5e_dcbnl_initialize leaves it after any
 * mlx5e (re)initialisation. Trust is PCP and no DSCP APP entry exists
 * (mlx5e_trust_initialize reads the firmware's trust state, PCP after a reset,
 * and DSCP entries are only made while trusting DSCP); PFC is off (the firmware's
 * default); no TC shares bandwidth by ETS (mlx5e_ets_init makes every TC a
 * vendor TC, generic drivers report strict or no ETS). The DSCP trust and its
 * map are one part (mlx5 trusts DSCP while an entry exists, one write undoes
 * both); a target that sets fewer than two parts cannot tell a reset from one
 * writer by the port's state, only by a new ifindex.
 */
static bool port_at_defaults(const struct dcb_port_state *st, const struct rq_profile *t)
{
	bool trust_dscp = st->has_trust && st->n_trust && st->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP;
	bool ets_share = false, ets_set = false;
	int parts = 0;

	for (int tc = 0; tc < 8; tc++) {
		ets_set |= t->ets.present && t->ets.tsa[tc] == RQ_TSA_ETS;
		ets_share |= st->has_ets && (!st->ets_cap || tc < st->ets_cap) &&
			     st->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS;
	}
	for (size_t i = 0; i < st->n_app; i++)
		trust_dscp |= st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	if (t->has_trust && t->trust == RQ_TRUST_DSCP && ++parts && trust_dscp)
		return false;
	if (t->pfc && ++parts && st->has_pfc && st->pfc_en)
		return false;
	if (ets_set && ++parts && ets_share)
		return false;
	return parts >= 2;
}

/* The PF netdev's ifindex, 0 when unknown (a simulated node without the file). */
static int pf_ifindex(const struct rq_env *env, const struct rq_pf *pf)
{
	char path[64];
	long v = 0;

	(void)snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", pf->ifname);
	if (sysfs_read_int(&env->root, path, &v) < 0 || v <= 0 || v > INT32_MAX)
		return 0;
	return (int)v;
}

/*
 * pfqos_ensure logs each change it makes at info; the agent says the same in
 * one line per repaired item (item, was, now), so its own lines are the ones
 * kept unless debugging.
 */
static int ensure_quiet(struct rq_ctx *c, const struct dcb_ops *ops, void *dcb,
			const struct rq_pf *pf)
{
	enum rq_log_level lvl = rq_log_get_level();
	struct pf_undo *u = calloc(1, sizeof(*u));
	int r;

	if (!u)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	if (lvl < RQ_LOG_DEBUG)
		rq_log_set_level(RQ_LOG_WARN);
	/* no pod waits on the agent: it never holds the PF lock through a link flap */
	c->carrier_defer = true;
	/* the missing controls are warned of when this repair changes the port */
	r = pfqos_ensure(c, ops, dcb, pf, false, u);
	rq_log_set_level(lvl);
	free(u);
	return r;
}

/* @reset: this pass's repair follows a reset of the port, which is no part of a fight */
static void pf_report(struct pass *p, const struct pf_acc *acc, const struct pf_look *before,
		      const struct pf_look *after, bool reset)
{
	const char *name = acc->pf.ifname;

	for (int it = 0; it < ITEM_N; it++) {
		char was[160], now[160];

		if (!(before->items & (1u << it)) || (after->items & (1u << it)))
			continue;
		item_text((enum agent_item)it, &before->st, before->ecn_on, &before->cnp,
			  &before->plan, was, sizeof(was));
		item_text((enum agent_item)it, &after->st, after->ecn_on, &after->cnp, &after->plan,
			  now, sizeof(now));
		log_info("agent: PF %s repaired %s: was %s, now %s", name, agent_item_names[it],
			 was, now);
		agent_count_repair(p->a, name, (enum agent_item)it);
		if (!reset)
			fight_repaired(p->fights, &acc->pf, 1u << it, agent_wall_now());
	}
	for (int it = 0; it < ITEM_N; it++)
		if (after->items & (1u << it))
			pass_report_drift(p->rep, name, (enum agent_item)it, true);
	if (after->items && acc->any_verify && !acc->any_ensure)
		log_warn("agent: PF %s (pf: verify) does not meet its requirements: %s", name,
			 "see rdma_qos_drift; nothing written");
}

/* The PF's reported-only facts (plugin/attach/pf_facts.c), once per pass. */
void pf_facts_collect(struct pass_report *rep, const struct rq_env *env, const struct rq_pf *pf,
		      const struct dcb_ops *ops, void *dcb)
{
	struct dcb_port_state *st = calloc(1, sizeof(*st));
	cJSON *f;

	if (cJSON_GetObjectItemCaseSensitive(rep->pf_facts, pf->ifname))
		return free(st);
	if (st && ops->get(dcb, pf->ifname, st) < 0) {
		free(st);
		st = NULL;
	}
	f = pf_facts_json(env, pf->ifname, st);
	free(st);
	if (f)
		cJSON_AddItemToObject(rep->pf_facts, pf->ifname, f);
}

/* rdma_qos_baseline_in_profile: the PF against the node baseline alone, as it is now. */
static void baseline_report(struct pass *p, const struct pf_acc *acc, const struct dcb_ops *ops,
			    void *dcb, bool readable, struct pf_look *l)
{
	struct rq_profile base;
	bool met = false;

	if (!acc->baseline || catalog_baseline(p->cat, &base) < 0)
		return;
	if (readable && pf_look(&p->a->env, ops, dcb, &acc->pf, &base, l) == 0)
		met = l->items == 0;
	cJSON_DeleteItemFromObjectCaseSensitive(p->rep->baseline, acc->pf.ifname);
	cJSON_AddNumberToObject(p->rep->baseline, acc->pf.ifname, met ? 1 : 0);
	if (!met)
		log_warn("agent: PF %s does not meet the node baseline \"%s\"%s", acc->pf.ifname,
			 base.name, readable ? "" : " (its DCB cannot be read)");
}

/*
 * Under the PF lock: @l[0] the port before, @l[1] after the repair (the same
 * when nothing was written). A reset of the port (fights.c) is counted and
 * repaired at once; an item undone again and again by another writer backs
 * off, then is left alone.
 */
static int pf_check_repair(struct pass *p, struct pf_acc *acc, struct rq_ctx *c,
			   const struct rq_profile *target, const struct dcb_ops *ops, void *dcb,
			   struct pf_look *l, enum fight_reset *ret_reset)
{
	int r = pf_look(&p->a->env, ops, dcb, &acc->pf, target, &l[0]);

	if (r < 0)
		return r;
	*ret_reset = fight_port_seen(p->fights, &acc->pf, pf_ifindex(&p->a->env, &acc->pf),
				     port_at_defaults(&l[0].st, target));
	if (*ret_reset != FIGHT_NO_RESET)
		agent_count_reset(p->a, acc->pf.ifname);
	l[1] = l[0];
	if (!l[0].items || !acc->any_ensure ||
	    !fight_may_repair(p->fights, &p->a->env, &acc->pf, l[0].items, agent_wall_now())) {
		fight_port_left(p->fights, &acc->pf, port_at_defaults(&l[0].st, target));
		return 0;
	}
	c->profile = acc->ensure;
	(void)snprintf(c->profile.name, sizeof(c->profile.name), "%s", "agent (pf: ensure)");
	c->pf_mode = RQ_PF_ENSURE;
	if (ensure_quiet(c, ops, dcb, &acc->pf) < 0)
		log_warn("agent: PF %s: repair failed: %s", acc->pf.ifname, c->err.msg);
	r = pf_look(&p->a->env, ops, dcb, &acc->pf, target, &l[1]);
	if (r == 0)
		fight_port_left(p->fights, &acc->pf, port_at_defaults(&l[1].st, target));
	return r;
}

void pass_pf_target(struct pass *p, const struct pf_acc *acc, struct rq_profile *ret)
{
	struct rq_ctx c;

	pass_ctx_init(&c, p, "agent");
	/* the union of what the attachments on it require, plus the node baseline */
	profile_empty(ret, "agent");
	profile_req_merge(ret, &acc->ensure);
	profile_req_merge(ret, &acc->verify);
	c.profile = *ret;
	pfqos_target(&c, ret);
}

void pass_pf(struct pass *p, struct pf_acc *acc, const struct dcb_ops *ops, void *dcb)
{
	struct rq_vf_info one = {.has_pf = true, .n_pf = 1};
	enum fight_reset reset = FIGHT_NO_RESET;
	struct rq_profile target;
	struct pf_look *l;
	struct rq_ctx c;
	int fds[RQ_MAX_PFS], r;

	/* lossy and pf: ignore attachments require nothing of the PF: ADD never reads it for them
	 */
	if (!acc->any_ensure && !acc->any_verify) {
		pf_facts_collect(p->rep, &p->a->env, &acc->pf, ops, dcb);
		return;
	}
	l = calloc(2, sizeof(*l));
	if (!l)
		return;
	one.pf[0] = acc->pf;
	pass_ctx_init(&c, p, "agent");
	pass_pf_target(p, acc, &target);
	if (attach_lock_pfs(&c, &one, fds) < 0) {
		log_warn("agent: PF %s: %s: next pass", acc->pf.ifname, c.err.msg);
		pass_report_drift(p->rep, acc->pf.ifname, ITEM_DCB, true);
		free(l);
		return;
	}
	r = pf_check_repair(p, acc, &c, &target, ops, dcb, l, &reset);
	attach_unlock_pfs(&one, fds);
	if (r < 0) {
		/* a PF that vanished mid-pass (driver reload) is drift, not a reason to stop */
		log_warn("agent: PF %s (%s): reading DCB: %s", acc->pf.ifname, acc->pf.pci,
			 strerror(-r));
		pass_report_drift(p->rep, acc->pf.ifname, ITEM_DCB, true);
	} else {
		pf_report(p, acc, &l[0], &l[1], reset != FIGHT_NO_RESET);
	}
	baseline_report(p, acc, ops, dcb, r == 0, &l[0]);
	pf_facts_collect(p->rep, &p->a->env, &acc->pf, ops, dcb); /* as the repair left it */
	free(l);
}
