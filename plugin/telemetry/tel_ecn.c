// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_qos_port_ecn_ineffective{pf,prio}: the link partner paused a PFC
 * priority while no attachment on the PF counted an ECN mark or a CNP, and
 * the three cases that give 0 instead (the host's own congestion, a pause
 * storm, the PF's own RoCE): docs/design.md "ECN that never fires". Judged
 * only where the priority's rx pause counter exists and an attachment on the
 * PF has a congestion counter (cc_query_allowed); otherwise no series.
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
