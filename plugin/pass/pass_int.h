/* SPDX-License-Identifier: Apache-2.0 */
/* One pass's working state, shared by pass.c (records), pf_repair.c and orphans. */
#ifndef RQ_AGENT_PASS_INT_H
#define RQ_AGENT_PASS_INT_H

#include <stdio.h>
#include <string.h>

#include "plugin/agent/agent.h"

/* What the pass gathered about one PF from the records of its attachments. */
struct pf_acc {
	struct rq_pf pf;
	struct rq_profile ensure, verify;
	bool any_ensure, any_verify;
	bool baseline; /* the node baseline covers it (with or without attachments) */
};

struct pass {
	struct agent *a;
	struct rq_catalog *cat;
	struct pass_report *rep;
	struct pf_acc *pfs;
	size_t n_pfs;
	struct fight_book *fights; /* NULL: unreadable, no back-off this pass */
};

/* A fresh context for one attachment (or one PF), sharing the agent's env and catalog. */
static inline void pass_ctx_init(struct rq_ctx *c, struct pass *p, const char *key)
{
	memset(c, 0, sizeof(*c));
	c->env = p->a->env;
	c->cat = p->cat;
	(void)snprintf(c->key, sizeof(c->key), "%s", key);
	rq_err_clear(&c->err);
}
/* The PF's target: what its attachments (ensure and verify) and the node baseline require. */
void pass_pf_target(struct pass *p, const struct pf_acc *acc, struct rq_profile *ret);
/* peer_metrics.c: each PF's target, MTU and DCBX mode for the link partner's judge */
void peer_pass_collect(struct pass *p, const struct dcb_ops *ops, void *dcb);
/*
 * unchained_pass.c: the watched PFs' VFs in a pod's netns with no record, by
 * node.unchained: reported, adopted, or ignored. *@ret_keys (malloc'd, each
 * key too; NULL when none) are the records it adopted, which the caller
 * (pass.c) passes like any other: unchained_pass.c never calls back into pass.c.
 */
void pass_unchained(struct pass *p, char ***ret_keys, size_t *ret_n);
/*
 * hostnet_pass.c: the node's host-network pods on shared devices (attach/hostnet.h)
 * into p->rep->hostnet; pass.c adds their PFs and verdicts.
 */
void pass_hostnet(struct pass *p);
/* Repair (pf: ensure) or report (verify) one PF against what its attachments require. */
void pass_pf(struct pass *p, struct pf_acc *acc, const struct dcb_ops *ops, void *dcb);

#endif
