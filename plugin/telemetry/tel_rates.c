// SPDX-License-Identifier: Apache-2.0
/*
 * Per-attachment rates for the tools' tables (`show --counters`, `top`) over
 * the interval between two samples, and how bad an attachment looks for
 * sorting them.
 */
#include "plugin/telemetry/telemetry.h"

#include <string.h>

static double rate_of(const struct tel_att *a, const struct tel_att *p, enum rdma_ctr kind,
		      int want_dir, double dt)
{
	double sum = -1;

	for (size_t i = 0; a->has_ctr && p && i < a->ctr.n; i++) {
		uint64_t o;
		int dir;

		if (rdma_counter_classify(a->ctr.names[i], &dir) != kind ||
		    (want_dir >= 0 && dir != want_dir) ||
		    tel_ctr_get(p, a->ctr.names[i], i, &o) < 0)
			continue;
		sum = (sum < 0 ? 0 : sum) +
		      (double)rdma_counter_delta(o, a->ctr.vals[i],
						 rdma_counter_bits(a->ctr.names[i])) /
			  dt;
	}
	return sum;
}

void tel_att_rates(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		   struct tel_att_rates *ret)
{
	const struct tel_att *a = &cur->atts[i], *p = tel_att_prev(prev, a, i);
	double dt = prev ? cur->t - prev->t : 0;
	uint64_t d;

	memset(ret, 0, sizeof(*ret));
	ret->prio = a->prio;
	if (dt <= 0) {
		ret->cnp_sent = ret->cnp_handled = ret->ecn_marked = ret->retrans = -1;
		ret->out_of_seq = -1;
		ret->tx_pkts = ret->rx_pkts = ret->pause_rx = ret->pause_tx = -1;
		return;
	}
	ret->cnp_sent = rate_of(a, p, RC_CNP_SENT, -1, dt);
	ret->cnp_handled = rate_of(a, p, RC_CNP_HANDLED, -1, dt);
	ret->ecn_marked = rate_of(a, p, RC_ECN_MARKED, -1, dt);
	ret->retrans = rate_of(a, p, RC_RETRANS, -1, dt);
	ret->out_of_seq = rate_of(a, p, RC_OUT_OF_SEQ, -1, dt);
	ret->tx_pkts = rate_of(a, p, RC_PACKETS, 1, dt);
	ret->rx_pkts = rate_of(a, p, RC_PACKETS, 0, dt);
	ret->pause_rx = ret->pause_tx = -1;
	/* summed over every port it can leave by (a VF LAG: each slave) */
	for (size_t k = 0; a->prio >= 0 && k < a->n_ports; k++) {
		const struct tel_pf *pf = tel_pf_find(cur, a->ports[k]);
		const struct tel_pf *opf = pf ? tel_pf_same(prev, pf) : NULL;

		for (int dir = 0; pf && dir < 2; dir++) {
			double *v = dir ? &ret->pause_tx : &ret->pause_rx;

			if (tel_port_delta(opf, pf, PS_PAUSE_FRAMES, a->prio, dir, &d))
				*v = (*v < 0 ? 0 : *v) + (double)d / dt;
		}
	}
}

double tel_att_badness(const struct tel_att_rates *r)
{
	double b = 0;

	b += r->cnp_sent > 0 ? r->cnp_sent : 0;
	b += r->cnp_handled > 0 ? r->cnp_handled : 0;
	b += r->retrans > 0 ? 10 * r->retrans : 0;
	b += r->pause_rx > 0 ? r->pause_rx : 0;
	b += r->pause_tx > 0 ? r->pause_tx : 0;
	return b;
}
