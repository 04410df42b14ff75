// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_qos_port_ecn_ineffective{pf,prio} (DESIGN.md "Congestion telemetry"):
 * over one consumer's interval, the link partner paused a PFC priority of the
 * PF (rx_prio<N>_pause went up: the switch could not drain what the host sent)
 * while no attachment on the PF counted an ECN-marked packet or a CNP. DCQCN
 * should have slowed the senders before the switch had to pause: PFC is doing
 * ECN's job, so ECN marking is off on the switch's lossless queue, or ECN is
 * off at the NIC. Judged only where both sides are countable: the priority's
 * rx pause counter exists (mlx5 has it for priorities with PFC on) and at
 * least one attachment on the PF has a congestion counter (cc_query_allowed);
 * otherwise no series.
 */
#include <string.h>

#include "plugin/core/tel_ecn.h"

/* -1: no attachment on @pf has a congestion counter; else whether any of them moved */
static int ecn_moved(const struct tel_sample *prev, const struct tel_sample *cur, const char *pf)
{
	int moved = -1;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i], *p;

		if (!a->has_ctr || !tel_att_on_pf(a, pf) || !(p = tel_att_prev(prev, a, i)))
			continue;
		for (size_t c = 0; c < a->ctr.n; c++) {
			int dir;
			enum rdma_ctr k = rdma_counter_classify(a->ctr.names[c], &dir);
			uint64_t d;

			if ((k != RC_CNP_SENT && k != RC_CNP_HANDLED && k != RC_ECN_MARKED) ||
			    tel_att_delta(a, p, a->ctr.names[c], &d) < 0)
				continue;
			if (moved < 0)
				moved = 0;
			if (d > 0)
				return 1;
		}
	}
	return moved;
}

void tel_ecn_ineffective(const struct tel_sample *prev, const struct tel_sample *cur,
			 const struct tel_pf *pf, int8_t ret[PS_PRIOS])
{
	const struct tel_pf *o = tel_pf_find(prev, pf->name);
	int moved;

	memset(ret, -1, PS_PRIOS);
	if (!o || !pf->has_dcb || !o->has_stats || !pf->has_stats || cur->t - prev->t <= 0)
		return;
	moved = ecn_moved(prev, cur, pf->name);
	if (moved < 0)
		return;
	for (int p = 0; p < PS_PRIOS; p++) {
		/* index 0: rx, the pause frames the partner sent us */
		if (!(pf->pfc_en & (1u << p)) || !o->ps.has[PS_PAUSE_FRAMES][p][0] ||
		    !pf->ps.has[PS_PAUSE_FRAMES][p][0])
			continue;
		ret[p] = tel_delta(o->ps.v[PS_PAUSE_FRAMES][p][0],
				   pf->ps.v[PS_PAUSE_FRAMES][p][0]) > 0 &&
			 !moved;
	}
}
