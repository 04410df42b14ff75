/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who is behind a port's traffic (DESIGN.md "Who"): the share of the lossless
 * attachments' RoCE the PF's PFC priorities did not carry, and each
 * attachment's share of the traffic of a paused port (tel_who.c).
 */
#ifndef RQ_PLUGIN_TEL_WHO_H
#define RQ_PLUGIN_TEL_WHO_H

#include "plugin/telemetry/telemetry.h"

/* Below this much RoCE sent over the interval the ratio says nothing (no series). */
#define TEL_OFF_PFC_MIN_BYTES (1024ull * 1024ull)

/*
 * A CNP as the vport counters may count it, at most: Ethernet 14, 802.1Q 4,
 * IPv6 40, UDP 8, BTH 12, the 16 reserved bytes, ICRC 4, FCS 4.
 */
#define TEL_CNP_BYTES 102ull

/*
 * rdma_qos_port_roce_off_pfc_ratio of @pf over @prev -> @cur, a measure of
 * what left the port lossy (issue 37 item 6): min(L - C, N) / L, clamped to
 * [0, 1], where C is the port's tx bytes on its PFC priorities, N its tx
 * bytes on the others (what left lossy can be no more: issue 42 item 5) and
 * L what the lossless attachments' RoCE surely left the port with: their
 * RoCE tx bytes less, for each, what the other attachments on @pf received
 * (RoCE the eswitch may have switched between two VFs of the PF, which never
 * reaches the port's per-priority counters) and less its CNPs (np_cnp_sent,
 * else every tx packet, at TEL_CNP_BYTES: CNPs leave on the CNP priority,
 * lossy by design). 0 and *ret set; -ENODATA (no series): no interval, no
 * DCB or port stats, a priority without a tx_prio<N>_bytes counter, no
 * lossless attachment with byte counters, an attachment on @pf without an
 * rx byte counter or a lossless one with neither a CNP nor a tx packet
 * counter (the counters cannot tell), L under TEL_OFF_PFC_MIN_BYTES, or no
 * priority's tx bytes moved (nothing left the port).
 */
int tel_roce_off_pfc(const struct tel_sample *prev, const struct tel_sample *cur,
		     const struct tel_pf *pf, double *ret);

enum tel_pause_cause {
	TEL_CAUSE_HOST_RX = 0, /* the port sent pause frames: its host could not drain */
	TEL_CAUSE_FABRIC,      /* the port received pause frames: the fabric could not drain */
	TEL_CAUSE_N
};
extern const char *const tel_cause_names[TEL_CAUSE_N];

/*
 * rdma_qos_vf_paused_traffic_share over @prev -> @cur: @ret[i][c] for
 * cur->atts[i] and cause @c, in [0, 1], or -1 (no series). For a PF that
 * sent pause frames (any priority, or link-level pause) each lossless
 * attachment's share of the attachments' RoCE rx bytes (host_rx); for one
 * that received them, of their tx bytes (fabric). Attachments that moved no
 * bytes on a paused port: 0 each. @ret holds cur->n_atts entries.
 */
void tel_paused_shares(const struct tel_sample *prev, const struct tel_sample *cur,
		       double (*ret)[TEL_CAUSE_N]);

#endif
