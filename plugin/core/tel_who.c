// SPDX-License-Identifier: Apache-2.0
/*
 * Who is behind a port's traffic (DESIGN.md "Who"), from counters every
 * driver with per-priority port counters and per-VF byte counters has: no QP
 * dump needed. Both signals count only the lossless attachments whose RoCE
 * can leave by this one PF: an attachment of a VF LAG may leave by either
 * slave, and its bytes cannot be split between them.
 */
#include "plugin/core/tel_who.h"

#include <errno.h>
#include <string.h>

static bool lossless_on(const struct tel_att *a, const struct tel_pf *pf)
{
	return a->pfc_req && a->n_ports == 1 && !strcmp(a->ports[0], pf->name);
}

/* The increase of cur->atts[i]'s RDMA bytes in direction @dir (0 rx, 1 tx); false: none. */
static bool att_bytes(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		      int dir, uint64_t *ret)
{
	const struct tel_att *a = &cur->atts[i], *p = tel_att_prev(prev, a, i);
	bool any = false;

	*ret = 0;
	for (size_t j = 0; p && a->has_ctr && j < a->ctr.n; j++) {
		uint64_t d;
		int dj;

		if (rdma_counter_classify(a->ctr.names[j], &dj) != RC_BYTES || dj != dir ||
		    tel_att_delta(a, p, a->ctr.names[j], &d) < 0)
			continue;
		*ret += d;
		any = true;
	}
	return any;
}

int tel_roce_off_pfc(const struct tel_sample *prev, const struct tel_sample *cur,
		     const struct tel_pf *pf, double *ret)
{
	const struct tel_pf *o = tel_pf_same(prev, pf);
	uint64_t sent = 0, carried = 0, d;
	bool any = false;

	if (!o || cur->t <= prev->t || !pf->has_dcb || !pf->has_stats || !o->has_stats)
		return -ENODATA;
	for (size_t i = 0; i < cur->n_atts; i++)
		if (lossless_on(&cur->atts[i], pf) && att_bytes(prev, cur, i, 1, &d)) {
			sent += d;
			any = true;
		}
	if (!any || sent < TEL_OFF_PFC_MIN_BYTES)
		return -ENODATA;
	/*
	 * The PFC priorities also carry what else the port sends there (the
	 * PF's own RoCE, lossy pods' classes mapped there): the ratio is then
	 * a lower bound, exact where only the lossless attachments use them.
	 */
	for (int p = 0; p < PS_PRIOS; p++) {
		if (!(pf->pfc_en & (1u << p)))
			continue;
		if (!tel_port_delta(o, pf, PS_PRIO_BYTES, p, 1, &d))
			return -ENODATA;
		carried += d;
	}
	*ret = carried >= sent ? 0 : 1 - (double)carried / (double)sent;
	return 0;
}
