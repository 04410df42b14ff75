// SPDX-License-Identifier: Apache-2.0
/*
 * Who is behind a port's traffic (DESIGN.md "Who"), from counters every
 * driver with per-priority port counters and per-VF byte counters has: no QP
 * dump needed. Both signals count only the lossless attachments whose RoCE
 * can leave by this one PF: an attachment of a VF LAG may leave by either
 * slave, and its bytes cannot be split between them.
 */
#include "plugin/telemetry/tel_who.h"

#include <errno.h>
#include <string.h>

const char *const tel_cause_names[TEL_CAUSE_N] = {"host_rx", "fabric"};

static bool lossless_on(const struct tel_att *a, const struct tel_pf *pf)
{
	return a->pfc_req && a->n_ports == 1 && !strcmp(a->ports[0], pf->name);
}

/* The increase of cur->atts[i]'s counters of @kind in direction @dir (-1 any); false: none. */
static bool att_kind(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		     enum rdma_ctr kind, int dir, uint64_t *ret)
{
	const struct tel_att *a = &cur->atts[i], *p = tel_att_prev(prev, a, i);
	bool any = false;

	*ret = 0;
	for (size_t j = 0; p && a->has_ctr && j < a->ctr.n; j++) {
		uint64_t d;
		int dj;

		if (rdma_counter_classify(a->ctr.names[j], &dj) != kind ||
		    (dir >= 0 && dj != dir) || tel_att_delta(a, p, a->ctr.names[j], &d) < 0)
			continue;
		*ret += d;
		any = true;
	}
	return any;
}

/* The increase of cur->atts[i]'s RDMA bytes in direction @dir (0 rx, 1 tx); false: none. */
static bool att_bytes(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		      int dir, uint64_t *ret)
{
	return att_kind(prev, cur, i, RC_BYTES, dir, ret);
}

/*
 * What lossless attachment i (@sent RoCE tx bytes) surely sent out of the
 * port over the interval: less what may have stayed in the NIC (the eswitch
 * switches a VF's RoCE to another function of the same PF without it leaving
 * the port: at most what the other attachments on the PF received, @rx all
 * of theirs and @own_rx its own share of it) and less its CNPs (sent on the
 * CNP priority, lossy by design: np_cnp_sent of them, or where it has no such
 * counter every tx packet, at TEL_CNP_BYTES each). -ENODATA: no CNP bound.
 */
static int att_left(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		    uint64_t sent, uint64_t rx, uint64_t own_rx, uint64_t *ret)
{
	uint64_t local = rx - own_rx, n, rest;

	if (!att_kind(prev, cur, i, RC_CNP_SENT, -1, &n) &&
	    !att_kind(prev, cur, i, RC_PACKETS, 1, &n))
		return -ENODATA;
	local = local < sent ? local : sent;
	rest = sent - local;
	/* n * TEL_CNP_BYTES, without overflow, at most rest */
	*ret = n >= rest / TEL_CNP_BYTES + 1 ? 0 : rest - n * TEL_CNP_BYTES;
	return 0;
}

int tel_roce_off_pfc(const struct tel_sample *prev, const struct tel_sample *cur,
		     const struct tel_pf *pf, double *ret)
{
	const struct tel_pf *o = tel_pf_same(prev, pf);
	uint64_t left = 0, carried = 0, lossy = 0, off, rx = 0, d;
	bool any = false;

	if (!o || cur->t <= prev->t || !pf->has_dcb || !pf->has_stats || !o->has_stats)
		return -ENODATA;
	/*
	 * Every attachment that can receive by this port, lossless or not: one
	 * without an rx byte counter could have taken any of the others' RoCE
	 * inside the NIC, and then nothing says what left.
	 */
	for (size_t i = 0; i < cur->n_atts; i++) {
		if (!tel_att_on_pf(&cur->atts[i], pf->name))
			continue;
		if (!att_bytes(prev, cur, i, 0, &d))
			return -ENODATA;
		rx += d;
	}
	for (size_t i = 0; i < cur->n_atts; i++) {
		uint64_t sent, own_rx, l;

		if (!lossless_on(&cur->atts[i], pf) || !att_bytes(prev, cur, i, 1, &sent))
			continue;
		(void)att_bytes(prev, cur, i, 0, &own_rx);
		if (att_left(prev, cur, i, sent, rx, own_rx, &l) < 0)
			return -ENODATA;
		left += l;
		any = true;
	}
	if (!any || left < TEL_OFF_PFC_MIN_BYTES)
		return -ENODATA;
	/*
	 * The PFC priorities also carry what else the port sends there (the
	 * PF's own RoCE, lossy pods' classes mapped there): the ratio is then
	 * a lower bound, exact where only the lossless attachments use them.
	 * The other priorities bound what can have left lossy at all: RoCE
	 * sent to a function the agent does not count (the PF's own RDMA
	 * device, a VM's VF) stays in the NIC and moves no port counter, so
	 * without the bound it read as all lossy (issue 42 item 5).
	 */
	for (int p = 0; p < PS_PRIOS; p++) {
		if (!tel_port_delta(o, pf, PS_PRIO_BYTES, p, 1, &d))
			return -ENODATA;
		if (pf->pfc_en & (1u << p))
			carried += d;
		else
			lossy += d;
	}
	/* nothing left the port: a share of nothing says nothing */
	if (!carried && !lossy)
		return -ENODATA;
	off = carried >= left ? 0 : left - carried;
	off = off < lossy ? off : lossy;
	*ret = (double)off / (double)left;
	return 0;
}
/* Did @pf send (@dir 1) or receive (0) pause frames, per priority or link-level? -1: no counter. */
static int paused(const struct tel_pf *o, const struct tel_pf *pf, int dir)
{
	int v = -1;
	uint64_t d;

	for (int p = 0; p < PS_PRIOS; p++)
		if (tel_port_delta(o, pf, PS_PAUSE_FRAMES, p, dir, &d))
			v = d > 0 || v == 1;
	if (tel_port_delta(o, pf, PS_GPAUSE_FRAMES, 0, dir, &d))
		v = d > 0 || v == 1;
	return v;
}

/* One PF and one cause: the share of each of its lossless attachments' bytes. */
static void pf_shares(const struct tel_sample *prev, const struct tel_sample *cur,
		      const struct tel_pf *pf, int c, double (*ret)[TEL_CAUSE_N])
{
	/* host_rx: the port paused its partner, what it received; fabric: the reverse */
	int pause_dir = c == TEL_CAUSE_HOST_RX ? 1 : 0, dir = 1 - pause_dir;
	uint64_t total = 0, d;

	if (paused(tel_pf_same(prev, pf), pf, pause_dir) != 1)
		return;
	for (size_t i = 0; i < cur->n_atts; i++)
		if (lossless_on(&cur->atts[i], pf) && att_bytes(prev, cur, i, dir, &d))
			total += d;
	for (size_t i = 0; i < cur->n_atts; i++)
		if (lossless_on(&cur->atts[i], pf) && att_bytes(prev, cur, i, dir, &d))
			ret[i][c] = total ? (double)d / (double)total : 0;
}

void tel_paused_shares(const struct tel_sample *prev, const struct tel_sample *cur,
		       double (*ret)[TEL_CAUSE_N])
{
	for (size_t i = 0; i < cur->n_atts; i++)
		for (int c = 0; c < TEL_CAUSE_N; c++)
			ret[i][c] = -1;
	if (!prev || cur->t <= prev->t)
		return;
	for (size_t j = 0; j < cur->n_pfs; j++)
		for (int c = 0; c < TEL_CAUSE_N; c++)
			pf_shares(prev, cur, &cur->pfs[j], c, ret);
}
