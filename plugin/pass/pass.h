/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's reconcile pass (pass.c) and what the agent's other files call of pass/. */
#ifndef RQ_PLUGIN_PASS_H
#define RQ_PLUGIN_PASS_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/agent/agent.h"

/* pass.c: one pass over every record; 0, or <0 when the pass could not run at all */
int agent_pass(struct agent *a, struct pass_report *rep);

/*
 * vf_repair.c: the VF traffic class of one attachment (the one seam to
 * the ToS code): find the RDMA device again from the VF's PCI address (it may
 * have come back under another name), repair the class when it drifted,
 * update the record when the device name changed. *ret_drift: drift left.
 */
int reconcile_tos(struct rq_ctx *c, cJSON *rec, const struct rq_vf_info *vf, bool *ret_drift,
		  struct pass_report *rep, struct agent *a);

/* pf_repair.c: what the PF's port says beyond its requirements (CNP, DCQCN, PFC buffers) */
void pf_facts_collect(struct pass_report *rep, const struct rq_env *env, const struct rq_pf *pf,
		      const struct dcb_ops *ops, void *dcb);

/* pass/wiring_ports.c: each watched PF's node.wiring rule, and the ports a rule names */
void wiring_pass_collect(struct peer_target *t, const struct rq_catalog *cat, const char *pci);
/*
 * The node's physical ports (device_port_parent) that a node.wiring rule
 * names and that are not among the @n targets of *t already, appended to *t
 * (realloc'd); the new count. Their partner, wiring and link health are
 * watched before any pod lands on them.
 */
size_t wiring_pass_ports(const struct rq_root *root, const struct rq_catalog *cat,
			 struct peer_target **t, size_t n);

/* unchained_pass.c: a link event of @name (its PCI parent @pci, may be "") is a watched PF's VF */
bool agent_vf_link(const struct agent *a, const char *name, const char *pci);

#endif
