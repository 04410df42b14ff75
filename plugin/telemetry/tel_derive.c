// SPDX-License-Identifier: Apache-2.0
/*
 * The derived port signals of one PF over the interval between two samples
 * (DESIGN.md "Congestion telemetry"): a pause storm, discards and host drops
 * on a PFC priority, the lossless attachments' RoCE on a priority without
 * PFC. -1 where the counters to judge by are missing: no series.
 */
#include "plugin/telemetry/telemetry.h"

#include <string.h>

int8_t tel_pause_storm(const struct tel_pf *o, const struct tel_pf *n, double dt)
{
	int8_t v = -1;
	uint64_t d;

	for (int lvl = 0; lvl < 2; lvl++)
		if (tel_port_delta(o, n, PS_STORM_EVENTS, 0, lvl, &d))
			v = d > 0 || v == 1 ? 1 : 0;
	for (int p = 0; p < PS_PRIOS; p++)
		for (int dir = 0; dir < 2; dir++)
			if (tel_port_delta(o, n, PS_PAUSE_USEC, p, dir, &d))
				v = (double)d / 1e6 > TEL_STORM_SHARE * dt || v == 1 ? 1 : 0;
	/* a port running link-level pause instead of PFC: the same verdict on its one pause */
	for (int dir = 0; dir < 2; dir++)
		if (tel_port_delta(o, n, PS_GPAUSE_USEC, 0, dir, &d))
			v = (double)d / 1e6 > TEL_STORM_SHARE * dt || v == 1 ? 1 : 0;
	return v;
}

/* Did the lossless attachments on @pf whose RoCE leaves on @p send anything? -1: cannot tell. */
static int vf_sent(const struct tel_sample *prev, const struct tel_sample *cur,
		   const struct tel_pf *pf, int p)
{
	int v = -1;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i];
		uint64_t d;

		if (!tel_att_on_pf(a, pf->name) || a->prio != p || !a->pfc_req)
			continue;
		if (tel_att_delta(a, tel_att_prev(prev, a, i), "sent_pkts", &d) == 0 ||
		    tel_att_delta(a, tel_att_prev(prev, a, i),
				  ethtool_vport_rdma_names[RQ_VPORT_RDMA_TX_PACKETS], &d) == 0)
			v = d > 0 || v == 1 ? 1 : 0;
	}
	return v;
}

/*
 * Did the traffic class that carries PFC priority @p drop on the host side
 * (buffer or congestion discards, which mlx5 counts per TC)? -1: no map or
 * no such counter.
 */
static int8_t host_drops(const struct tel_pf *o, const struct tel_pf *n, int p)
{
	int8_t v = -1;
	uint64_t d;
	int tc;

	if (!n->has_prio_tc || !o->has_prio_tc || n->prio_tc[p] >= PS_PRIOS)
		return -1;
	tc = n->prio_tc[p];
	if (tel_port_delta(o, n, PS_TC_BUF_DISCARDS, tc, 0, &d))
		v = d > 0;
	if (tel_port_delta(o, n, PS_TC_CONG_DISCARDS, tc, 0, &d))
		v = d > 0 || v == 1;
	return v;
}

void tel_derive(const struct tel_sample *prev, const struct tel_sample *cur,
		const struct tel_pf *pf, struct tel_derived *ret)
{
	const struct tel_pf *o = tel_pf_same(prev, pf);
	double dt = prev ? cur->t - prev->t : 0;
	uint64_t d;

	memset(ret, -1, sizeof(*ret));
	if (!o || dt <= 0)
		return;
	ret->pause_storm = tel_pause_storm(o, pf, dt);
	if (!pf->has_dcb)
		return;
	for (int p = 0; p < PS_PRIOS; p++) {
		bool on = pf->pfc_en & (1u << p);
		int sent;

		if (on) {
			/* the port's own per-priority discards only: the link partner's side */
			if (tel_port_delta(o, pf, PS_PRIO_DISCARDS, p, 0, &d))
				ret->discards_on_pfc[p] = d > 0;
			ret->host_drops_on_pfc[p] = host_drops(o, pf, p);
		}
		if (!(pf->roce_prios & (1u << p)))
			continue;
		/*
		 * The lossless attachments' own RoCE tx, never the port's whole
		 * priority: TCP on priority 0 is not RoCE in the wrong queue
		 */
		sent = vf_sent(prev, cur, pf, p);
		if (on)
			ret->roce_on_lossy[p] = 0;
		else if (sent >= 0)
			ret->roce_on_lossy[p] = (int8_t)sent;
	}
}
