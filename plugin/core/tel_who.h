/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who is behind a port's traffic (DESIGN.md "Who"): the share of the lossless
 * attachments' RoCE the PF's PFC priorities did not carry (tel_who.c).
 */
#ifndef RQ_PLUGIN_TEL_WHO_H
#define RQ_PLUGIN_TEL_WHO_H

#include "plugin/core/telemetry.h"

/* Below this much RoCE sent over the interval the ratio says nothing (no series). */
#define TEL_OFF_PFC_MIN_BYTES (1024ull * 1024ull)

/*
 * rdma_qos_port_roce_off_pfc_ratio of @pf over @prev -> @cur: 1 - (the
 * port's tx bytes on its PFC priorities) / (the RoCE tx bytes of its lossless
 * attachments), clamped to [0, 1]. 0 and *ret set; -ENODATA (no series): no
 * interval, no DCB or port stats, a PFC priority without a tx_prio<N>_bytes
 * counter, no lossless attachment with byte counters, or under
 * TEL_OFF_PFC_MIN_BYTES sent.
 */
int tel_roce_off_pfc(const struct tel_sample *prev, const struct tel_sample *cur,
		     const struct tel_pf *pf, double *ret);

#endif
