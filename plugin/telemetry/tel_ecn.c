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
 *
 * Pauses that ECN could not have prevented, or that are not the pods' to
 * prevent, give 0 even with no ECN mark and no CNP (issue 37 item 4):
 * - the host's own congestion: the PF itself sent pause frames on the same
 *   priority during the interval (tx_prio<N>_pause went up). Its receive side
 *   could not drain (a slow consumer, PCIe, the PF's own RoCE or the pods'
 *   receive side): the switch's queue toward the host backs up because the
 *   host paused it, and the pauses it sends back are the echo of the host's
 *   own, which no marking in the fabric would have spared;
 * - a pause storm, as rdma_qos_port_pause_storm{pf} defines it for the same
 *   interval (tel_pause_storm): the driver's storm counters moved
 *   (tx_pause_storm_warning_events / _error_events: mlx5's PFC stall
 *   watchdog, the device_stall_minor/critical_watermark_cnt of the PRM's
 *   PPCNT per-priority group, saw the port held in pause past its
 *   watermark), or the port was paused for more than TEL_STORM_SHARE of the
 *   interval. A stuck receiver or a PFC deadlock, not congestion DCQCN
 *   reacts to; RdmaQosPauseStorm says it;
 * - the pauses held the PF's own RoCE (or other traffic), not the pods':
 *   every attachment whose RoCE leaves on that priority (or whose priority
 *   is unknown) counts its tx packets or bytes and none sent anything during
 *   the interval. The PF's own QPs count their CNPs on the PF's RDMA device,
 *   which is no attachment's. Where an attachment on the priority has no tx
 *   counter this cannot be told, and the verdict is as before.
 */
#include <string.h>

#include "plugin/telemetry/tel_ecn.h"

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

/*
 * Did the attachments on @pf whose RoCE leaves on @p send anything? 1 yes, 0
 * none (every one of them counts its tx and none moved, or none leaves on
 * @p), -1 cannot tell (one of them has no tx counter).
 */
static int pods_sent(const struct tel_sample *prev, const struct tel_sample *cur, const char *pf,
		     int p)
{
	int v = 0;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i], *o;
		bool counted = false;

		if (!tel_att_on_pf(a, pf) || (a->prio >= 0 && a->prio != p))
			continue;
		o = tel_att_prev(prev, a, i);
		for (size_t c = 0; o && a->has_ctr && c < a->ctr.n; c++) {
			int dir;
			enum rdma_ctr k = rdma_counter_classify(a->ctr.names[c], &dir);
			uint64_t d;

			if ((k != RC_PACKETS && k != RC_BYTES) || dir != 1 ||
			    tel_att_delta(a, o, a->ctr.names[c], &d) < 0)
				continue;
			counted = true;
			if (d > 0)
				return 1;
		}
		if (!counted)
			v = -1;
	}
	return v;
}

void tel_ecn_ineffective(const struct tel_sample *prev, const struct tel_sample *cur,
			 const struct tel_pf *pf, int8_t ret[PS_PRIOS])
{
	const struct tel_pf *o = tel_pf_find(prev, pf->name);
	int moved, storm;
	uint64_t d;

	memset(ret, -1, PS_PRIOS);
	if (!o || !pf->has_dcb || !o->has_stats || !pf->has_stats || cur->t - prev->t <= 0)
		return;
	moved = ecn_moved(prev, cur, pf->name);
	if (moved < 0)
		return;
	storm = tel_pause_storm(o, pf, cur->t - prev->t);
	for (int p = 0; p < PS_PRIOS; p++) {
		bool paused;

		/* index 0: rx, the pause frames the partner sent us */
		if (!(pf->pfc_en & (1u << p)) || !o->ps.has[PS_PAUSE_FRAMES][p][0] ||
		    !pf->ps.has[PS_PAUSE_FRAMES][p][0])
			continue;
		paused =
		    tel_delta(o->ps.v[PS_PAUSE_FRAMES][p][0], pf->ps.v[PS_PAUSE_FRAMES][p][0]) > 0;
		/* index 1: tx, the host paused the partner on the same priority */
		if (paused && tel_port_delta(o, pf, PS_PAUSE_FRAMES, p, 1, &d) && d > 0)
			paused = false;
		if (paused && (storm == 1 || pods_sent(prev, cur, pf->name, p) == 0))
			paused = false;
		ret[p] = paused && !moved;
	}
}
