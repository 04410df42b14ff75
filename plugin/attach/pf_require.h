/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RQ_PLUGIN_PFQOS_H
#define RQ_PLUGIN_PFQOS_H

#include "plugin/attach/core.h"

/* What one ADD changed on one PF, so a later failure can undo it. */
struct pf_undo {
	struct rq_profile target; /* this attachment's requirements and the node baseline's */
	struct dcb_port_state before;
	struct dcb_plan plan;
	bool dcb_applied;
	uint16_t ecn_written; /* ECN files ecn_enable wrote: bit 2 * prio + side */
	/* c->carrier_defer: a PFC change took down an up carrier; wait with pfqos_carrier_wait */
	bool carrier_pending;
	long carrier_changes; /* carrier_changes before the write */
	bool cnp_written[CNP_N];
	uint8_t cnp_before[CNP_N];
};

/* Settling time of an up carrier after a PFC change before it counts (mlx5 drops it async). */
#define RQ_CARRIER_SETTLE_MS 300

/*
 * Read @pf's index (*ret_idx, NULL when none) and refuse (RQ_ERR_PF_CONFLICT,
 * naming both sides) requirements that contradict the node baseline's or a
 * live attachment's on it. *ret_steady (with @vf_pci, the attachment's VF):
 * the index already lists this attachment as it is and nothing else on it
 * concerns it, so it was only streamed, *ret_idx stays NULL and there is
 * nothing to write to it.
 */
int pfqos_conflict_check(struct rq_ctx *c, const struct rq_pf *pf, const char *vf_pci,
			 cJSON **ret_idx, bool *ret_steady);
/* The PF target of this attachment: its own requirements and the node baseline's. */
void pfqos_target(const struct rq_ctx *c, struct rq_profile *ret);
/*
 * pf: ensure -> add what the target requires and the port lacks (then wait
 * for the carrier after a PFC change); pf: verify -> fail on anything unmet.
 * What the port cannot do (no ECN or CNP control) is a warning where the PF's
 * state changes: @announce (the PF's first attachment) or a write of this
 * call; otherwise a debug line, so that a steady ADD does not repeat it.
 */
int pfqos_ensure(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		 bool announce, struct pf_undo *u);
/*
 * After a deferred PFC change (u->carrier_pending): wait, bounded by
 * node.carrierWaitSeconds, for the carrier to come back. Call it without the
 * PF lock: others may work on the port meanwhile. 0, or RQ_ERR_NO_CARRIER.
 */
int pfqos_carrier_wait(struct rq_ctx *c, const struct rq_pf *pf, const struct pf_undo *u);
void pfqos_undo(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		const struct pf_undo *u);
/* Append "required X, port has Y" lines for @pf to @drift. */
int pfqos_check(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		char *drift, size_t len);

/* Append "cnp: required X, port has Y" lines (files the driver has only) to @drift. */
void pfqos_cnp_describe(const struct rq_root *root, const char *ifname, const struct rq_profile *t,
			char *drift, size_t len);

/* "a\nb\n" -> "a; b" in place */
void join_lines(char *s, size_t cap);

#endif
