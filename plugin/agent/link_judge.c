// SPDX-License-Identifier: Apache-2.0
/* The link health's reasons, judged between two readings (link_health.h) */
#include <stdio.h>
#include <string.h>

#include "plugin/agent/link_health.h"

const char *const link_reason_names[LINK_REASON_N] = {"flap", "fec_uncorrectable", "symbol_errors",
						      "health", "speed"};

static uint64_t reporter_errors(const struct link_reading *r, const char *name, bool *ret_found)
{
	for (size_t i = 0; i < r->n_rep; i++)
		if (!strcmp(r->rep[i].name, name)) {
			*ret_found = true;
			return r->rep[i].errors;
		}
	*ret_found = false;
	return 0;
}

static bool speed_short(const struct eth_link_health *e)
{
	uint32_t both =
	    e->local_max_mbps < e->partner_max_mbps ? e->local_max_mbps : e->partner_max_mbps;

	return e->has_speed && e->speed_mbps > 0 && both > 0 && e->speed_mbps < both;
}

/* the reasons that hold between the previous reading and this one */
void link_judge_pf(struct link_pf *x, double now)
{
	const struct link_reading *p = &x->prev, *c = &x->cur;
	bool held[LINK_REASON_N] = {false};

	if (x->has_prev) {
		uint64_t own = 0;

		/*
		 * the drops up to a new note (an ADD's or repair's own PFC write: mlx5
		 * toggles the link) that this interval counted are ours, not flaps
		 */
		if (c->has_flaps && p->has_flaps && c->flaps > p->flaps && c->own_note >= 0 &&
		    c->own_note != x->own_used) {
			uint64_t from = p->flaps, to = (uint64_t)c->own_note;

			if (x->own_used >= 0 && (uint64_t)x->own_used > from)
				from = (uint64_t)x->own_used;
			if (to > c->flaps)
				to = c->flaps;
			own = to > from ? to - from : 0;
		}
		if (c->own_note >= 0)
			x->own_used = c->own_note;
		x->own += own;
		if (c->has_flaps && x->own > c->flaps)
			x->own = 0; /* the count went back (a driver reload): nothing to take off */
		held[LINK_FLAP] = c->has_flaps && p->has_flaps && c->flaps > p->flaps + own;
		held[LINK_FEC] = c->eth.has_fec && p->eth.has_fec &&
				 c->eth.fec_uncorrectable > p->eth.fec_uncorrectable;
		held[LINK_SYMBOL] = c->eth.has_symbol_errors && p->eth.has_symbol_errors &&
				    c->eth.symbol_errors > p->eth.symbol_errors;
		for (size_t i = 0; i < c->n_rep; i++) {
			bool found;
			uint64_t before = reporter_errors(p, c->rep[i].name, &found);

			held[LINK_HEALTH] |= found && c->rep[i].errors > before;
		}
	}
	held[LINK_SPEED] = speed_short(&c->eth);
	for (int k = 0; k < LINK_REASON_N; k++)
		if (held[k])
			x->last[k] = now;
}

/* 1: @reason held within the last interval; 0: not; -1: the driver does not report it */
int link_degraded(const struct agent *a, const char *pf, enum link_reason reason)
{
	for (size_t i = 0; a->links && i < a->links->n; i++) {
		const struct link_pf *x = &a->links->pf[i];
		const struct link_reading *c = &x->cur;
		bool known = reason == LINK_FLAP     ? c->has_flaps
			     : reason == LINK_FEC    ? c->eth.has_fec
			     : reason == LINK_SYMBOL ? c->eth.has_symbol_errors
			     : reason == LINK_HEALTH ? c->n_rep > 0
						     : c->eth.has_speed && c->eth.local_max_mbps &&
							   c->eth.partner_max_mbps;

		if (strcmp(x->pf, pf) != 0)
			continue;
		if (!known)
			return -1;
		return x->last[reason] > 0 &&
		       agent_wall_now() - x->last[reason] < (double)a->o.interval_s;
	}
	return -1;
}

/* The reasons @pf is degraded for, comma-separated ("" none); for logs, top and show */
void link_reasons_text(const struct agent *a, const char *pf, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int k = 0; k < LINK_REASON_N && o < len; k++)
		if (link_degraded(a, pf, (enum link_reason)k) == 1)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "",
					      link_reason_names[k]);
}

/* link_reasons_text, true when the agent read some link health of @pf (else unknown) */
bool link_reasons_known(const struct agent *a, const char *pf, char *buf, size_t len)
{
	bool known = false;

	for (int k = 0; k < LINK_REASON_N; k++)
		known |= link_degraded(a, pf, (enum link_reason)k) >= 0;
	link_reasons_text(a, pf, buf, len);
	return known;
}
