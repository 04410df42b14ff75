// SPDX-License-Identifier: Apache-2.0
/*
 * What a port lacks against a set of PF requirements (a profile, or the
 * union of several), as a plan of SETs, and the same difference in words.
 *
 * Requirements only add: a PFC priority someone else turned on stays on, a
 * DSCP entry nobody requires stays as found, and what nobody requires is
 * never written. The exceptions are what a requirement itself contradicts:
 * a DSCP entry mapped to another priority than required is replaced, and a
 * "pcp" trust requirement removes DSCP entries (mlx5 trusts DSCP while one
 * exists). Callers refuse contradictions between requirements (102) before
 * a plan is made, so a replaced entry is never one somebody requires.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pkg/dcb/dcb_int.h"

bool dcb_app_in(const struct dcb_app_entry *v, size_t n, const struct dcb_app_entry *a)
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

	return dcb_app_in(cur->app, cur->n_app, &a);
}

static bool any_dscp(const struct dcb_port_state *cur)
{
	for (size_t i = 0; i < cur->n_app; i++)
		if (cur->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
			return true;
	return false;
}

/* apptrust where the driver has it; else (mlx5 < 6.2) DSCP is trusted while a DSCP entry exists */
static bool trusts_dscp(const struct dcb_port_state *cur)
{
	if (cur->has_trust)
		return cur->n_trust && cur->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP;
	return any_dscp(cur);
}

/*
 * apptrust for a trust requirement, keeping the port's other selectors in
 * their order: dscp first for "dscp", dscp removed for "pcp" (pcp alone when
 * nothing is left). Returns false when the port already meets it.
 */
static bool trust_plan(const struct dcb_port_state *cur, enum rq_trust want, struct dcb_plan *ret)
{
	size_t n = 0;

	if (want == RQ_TRUST_DSCP) {
		if (trusts_dscp(cur))
			return false;
		ret->trust[n++] = IEEE_8021QAZ_APP_SEL_DSCP;
	} else if (!memchr(cur->trust, IEEE_8021QAZ_APP_SEL_DSCP, cur->n_trust)) {
		return false;
	}
	for (size_t i = 0; i < cur->n_trust && n < RQ_DCB_TRUST_MAX; i++)
		if (cur->trust[i] != IEEE_8021QAZ_APP_SEL_DSCP)
			ret->trust[n++] = cur->trust[i];
	if (n == 0)
		ret->trust[n++] = RQ_DCB_APP_SEL_PCP;
	ret->n_trust = n;
	ret->set_trust = true;
	return true;
}

/*
 * TCs whose bandwidth is compared: ETS TCs of the requirement, within the
 * port's ets_cap. mlx5 reports tc_tx_bw 100 for strict and vendor TCs
 * (profiles must say 0 there), so comparing those would never find it equal.
 */
static bool ets_bw_compared(const struct dcb_port_state *cur, const struct rq_ets *ets, int tc)
{
	return (!cur->ets_cap || tc < cur->ets_cap) && ets->tsa[tc] == RQ_TSA_ETS;
}

bool dcb_ets_equal(const struct dcb_port_state *cur, const struct rq_ets *ets)
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

/*
 * DSCP trust: required entries that are missing are added; a port with no
 * DSCP entry at all gets the full 64-entry map (dscp >> 3 where nothing is
 * required), as `mlnx_qos --trust dscp` installs it. Entries of a required
 * DSCP that map elsewhere are replaced. "pcp" trust: every DSCP entry goes.
 */
static void dscp_plan(const struct dcb_port_state *cur, const struct dcb_target *p,
		      struct dcb_plan *ret)
{
	bool fresh = !any_dscp(cur);

	for (size_t i = 0; i < cur->n_app && ret->n_del < RQ_DCB_APP_MAX; i++) {
		const struct dcb_app_entry *a = &cur->app[i];

		if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP)
			continue;
		if (p->trust == RQ_TRUST_PCP ||
		    (a->protocol < RQ_NDSCP && (p->dscp_override & (1ULL << a->protocol)) &&
		     a->priority != p->dscp_prio[a->protocol]))
			ret->del[ret->n_del++] = *a;
	}
	if (p->trust != RQ_TRUST_DSCP)
		return;
	for (int d = 0; d < RQ_NDSCP; d++) {
		bool required = p->dscp_override & (1ULL << d);

		if ((required || fresh) &&
		    !app_has(cur, IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)d, p->dscp_prio[d]))
			ret->add[ret->n_add++] = (struct dcb_app_entry){
			    IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)d, p->dscp_prio[d]};
	}
}

void dcb_plan_from(const struct dcb_port_state *cur, const struct dcb_target *p,
		   struct dcb_plan *ret)
{
	uint8_t have = cur->has_pfc ? cur->pfc_en : 0;

	memset(ret, 0, sizeof(*ret));
	if (p->has_trust) {
		dscp_plan(cur, p, ret);
		if (cur->has_trust)
			(void)trust_plan(cur, p->trust, ret);
	}
	/* a driver without ieee_getpfc reports nothing: only a required PFC is a difference */
	if ((p->pfc & ~have) || (!cur->has_pfc && p->pfc)) {
		ret->set_pfc = true;
		ret->pfc_en = have | p->pfc;
	}
	if (p->ets.present && !dcb_ets_equal(cur, &p->ets)) {
		ret->set_ets = true;
		ret->ets = p->ets;
	}
}

bool dcb_plan_empty(const struct dcb_plan *plan)
{
	return !plan->set_pfc && !plan->set_ets && !plan->set_trust && !plan->n_add && !plan->n_del;
}

void dcb_prio_text(uint8_t mask, char *buf, size_t len)
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

void dcb_trust_text(const uint8_t *sel, size_t n, char *buf, size_t len)
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
	dcb_prio_text(mask, buf, len);
}

#define DESCRIBE_DSCP_MAX 8 /* DSCP lines before the rest is summarised */

static size_t describe_dscp(const struct dcb_port_state *cur, const struct dcb_target *p,
			    const struct dcb_plan *plan, char *buf, size_t len, size_t off, int *n)
{
	uint64_t diff = 0;
	int shown = 0, total;
	char b[32];

	if (p->has_trust && p->trust == RQ_TRUST_PCP) {
		if (plan->n_del) {
			off = line(buf, len, off,
				   "dscp map: required no DSCP entries (trust pcp), port has %zu\n",
				   plan->n_del);
			(*n)++;
		}
		return off;
	}
	for (size_t i = 0; i < plan->n_add; i++)
		if (p->dscp_override & (1ULL << plan->add[i].protocol))
			diff |= 1ULL << plan->add[i].protocol;
	total = __builtin_popcountll(diff);
	for (unsigned d = 0; d < RQ_NDSCP && shown < DESCRIBE_DSCP_MAX; d++) {
		if (!(diff & (1ULL << d)))
			continue;
		dscp_current(cur, d, b, sizeof(b));
		off = line(buf, len, off, "dscp %u: required priority %u, port has priority %s\n",
			   d, p->dscp_prio[d], b);
		shown++;
		(*n)++;
	}
	if (total > shown) {
		off = line(buf, len, off, "dscp map: %d more required DSCP entries missing\n",
			   total - shown);
		(*n)++;
	}
	return off;
}

void dcb_ets_text(const struct dcb_port_state *cur, const struct rq_ets *want, const uint8_t *bw,
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

int dcb_plan_describe(const struct dcb_port_state *cur, const struct dcb_target *p, char *buf,
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
	if (p->has_trust && (p->trust == RQ_TRUST_DSCP) != trusts_dscp(cur)) {
		off = line(buf, len, off, "trust: required %s, port trusts %s\n", want,
			   trusts_dscp(cur) ? "dscp" : "pcp");
		n++;
	} else if (plan.set_trust) {
		dcb_trust_text(cur->trust, cur->n_trust, b, sizeof(b));
		off = line(buf, len, off, "apptrust: required %s, port has %s\n", want, b);
		n++;
	}
	off = describe_dscp(cur, p, &plan, buf, len, off, &n);
	if (plan.set_pfc) {
		dcb_prio_text(p->pfc & ~(cur->has_pfc ? cur->pfc_en : 0), a, sizeof(a));
		dcb_prio_text(cur->pfc_en, b, sizeof(b));
		off = line(buf, len, off, "pfc: required priority %s, port has %s\n", a,
			   cur->has_pfc ? b : "not reported");
		n++;
	}
	if (plan.set_ets) {
		dcb_ets_text(cur, &p->ets, p->ets.tc_bw, p->ets.tsa, p->ets.prio_tc, a, sizeof(a));
		dcb_ets_text(cur, &p->ets, cur->tc_tx_bw, cur->tc_tsa, cur->prio_tc, b, sizeof(b));
		off = line(buf, len, off, "ets: required %s, port has %s\n", a,
			   cur->has_ets ? b : "not reported");
		n++;
	}
	(void)off;
	return n;
}
