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

/* below the fastest mode both ends advertise in common (not min of each side's best) */
static bool speed_short(const struct eth_link_health *e)
{
	return e->has_speed && e->speed_mbps > 0 && e->common_max_mbps > 0 &&
	       e->speed_mbps < e->common_max_mbps;
}

/*
 * Uncorrectable FEC blocks above the floor: 802.3 allows a non-zero post-FEC
 * loss at 200/400G, so one codeword now and then is no fault. Counted over a
 * window of at least a minute (or the --interval, if longer), so that passes
 * an event raised a second apart do not shrink what the floor allows: the
 * window closes when it is that old, or as soon as it holds more than the
 * floor allows a whole window (the reason then holds from this reading). A
 * count that went back (driver reload) opens a new window.
 */
static bool fec_above(struct link_pf *x, double now, double per_min, int interval_s)
{
	const struct link_reading *c = &x->cur;
	double win = interval_s > 60 ? interval_s : 60, age, allowed;
	uint64_t n;
	bool above;

	if (!c->eth.has_fec_uncorrectable) {
		x->fec_t0 = 0;
		return false;
	}
	if (x->fec_t0 <= 0 || c->eth.fec_uncorrectable < x->fec_c0 || now < x->fec_t0) {
		x->fec_t0 = now;
		x->fec_c0 = c->eth.fec_uncorrectable;
		return false;
	}
	n = c->eth.fec_uncorrectable - x->fec_c0;
	age = now - x->fec_t0;
	allowed = per_min * (age > win ? age : win) / 60.0;
	above = (double)n > allowed;
	if (above || age >= win) {
		x->fec_t0 = now;
		x->fec_c0 = c->eth.fec_uncorrectable;
	}
	return above;
}

/* the reasons that hold between the previous reading and this one */
void link_judge_pf(struct link_pf *x, double now, double fec_per_min, int interval_s)
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
		held[LINK_SYMBOL] = c->eth.has_symbol_errors && p->eth.has_symbol_errors &&
				    c->eth.symbol_errors > p->eth.symbol_errors;
		for (size_t i = 0; i < c->n_rep; i++) {
			bool found;
			uint64_t before = reporter_errors(p, c->rep[i].name, &found);

			held[LINK_HEALTH] |= found && c->rep[i].errors > before;
		}
	}
	held[LINK_FEC] = fec_above(x, now, fec_per_min, interval_s);
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
			     : reason == LINK_FEC    ? c->eth.has_fec_uncorrectable
			     : reason == LINK_SYMBOL ? c->eth.has_symbol_errors
			     : reason == LINK_HEALTH ? c->n_rep > 0
						     : c->eth.has_speed && c->eth.common_max_mbps;

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
