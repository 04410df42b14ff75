/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RQ_PLUGIN_PFQOS_H
#define RQ_PLUGIN_PFQOS_H

#include "plugin/plugin.h"

/* What one ADD changed on one PF, so a later failure can undo it. */
struct pf_undo {
	struct dcb_port_state before;
	struct dcb_plan plan;
	bool dcb_applied;
	uint16_t ecn_written; /* ECN files ecn_enable wrote: bit 2 * prio + side */
};

/* -> RQ_ERR_PF_CONFLICT when live attachments on @pf use PF-wide settings that differ. */
int pfqos_conflict_check(struct rq_ctx *c, const struct rq_pf *pf, cJSON **ret_idx);
/* pf: ensure -> apply the diff; pf: verify -> fail on any difference. */
int pfqos_ensure(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		 struct pf_undo *u);
void pfqos_undo(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		const struct pf_undo *u);
/* Append "configured X, current Y" lines for @pf to @drift. */
int pfqos_check(struct rq_ctx *c, const struct dcb_ops *ops, void *ctx, const struct rq_pf *pf,
		char *drift, size_t len);

/* "a\nb\n" -> "a; b" in place */
void join_lines(char *s, size_t cap);

#endif
