// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's VF traffic-class repair: the one place the agent calls into the
 * ToS code (pkg/rdma), so a change of ToS knobs changes this file only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "plugin/agent/agent.h"
#include "plugin/attach/shared.h"
#include "plugin/attach/vf_class.h"
#include "plugin/pass/pass.h"

static void tc_metric(struct pass_report *rep, const char *vf, const char *dev, enum rq_tos_knob k,
		      int v)
{
	cJSON *o;
	const cJSON *it;

	/* a shared device's knobs once, however many attachments share it */
	cJSON_ArrayForEach(it, rep->vf_tc)
	{
		if (!vf[0] && !strcmp(json_str(it, "vf") ?: "", "") &&
		    !strcmp(json_str(it, "rdmaDev") ?: "", dev) &&
		    !strcmp(json_str(it, "knob") ?: "", rdma_knob_name(k)))
			return;
	}
	o = cJSON_CreateObject();
	if (!o)
		return;
	cJSON_AddStringToObject(o, "vf", vf);
	cJSON_AddStringToObject(o, "rdmaDev", dev);
	cJSON_AddStringToObject(o, "knob", rdma_knob_name(k));
	cJSON_AddNumberToObject(o, "value", v);
	cJSON_AddItemToArray(rep->vf_tc, o);
}

/*
 * Every knob of the VF's RDMA device (plugin/attach/vf_class.c finds the device again
 * after a re-registration and writes as ADD does), under the VF's PF locks.
 * The class is the attachment's own choice: it is repaired whatever the
 * PF mode (verify and ignore concern the PF).
 */
int reconcile_tos(struct rq_ctx *c, cJSON *rec, const struct rq_vf_info *vf, bool *ret_drift,
		  struct pass_report *rep, struct agent *a)
{
	const char *pf = vf->has_pf && vf->n_pf ? vf->pf[0].ifname : vf->pci;
	struct tos_seen seen;
	int fds[RQ_MAX_PFS], r;

	*ret_drift = false;
	if (c->profile.traffic_class < 0)
		return 0; /* the profile leaves the VF's class alone */
	r = attach_lock_pfs(c, vf, fds);
	if (r < 0) {
		pass_report_drift(rep, pf, ITEM_TRAFFIC_CLASS, true);
		return r;
	}
	/* a shared device is found by the PCI function it sits on (attach/shared.c) */
	r = tos_reconcile(c, rec, shared_record(rec) ? json_str(rec, "rdmaPci") ?: "" : vf->pci,
			  true, &seen);
	attach_unlock_pfs(vf, fds);
	if (r == -ENODEV) {
		log_warn("agent: %s: VF %s has no RDMA device now: traffic class not kept", c->key,
			 vf->pci);
		r = 0;
		*ret_drift = true;
	} else if (r < 0) {
		*ret_drift = true;
	}
	for (int k = 0; r == 0 && k < RQ_KNOB_N; k++) {
		const struct tos_knob_seen *ks = &seen.k[k];

		if (!ks->present)
			continue;
		if (ks->repaired) {
			log_info("agent: %s %s RDMA %s repaired traffic_class (%s): was %d, now %d",
				 vf->pci[0] ? "VF" : "shared", vf->pci[0] ? vf->pci : "device",
				 seen.dev, rdma_knob_name(k), ks->was, ks->now);
			agent_count_repair(a, pf, ITEM_TRAFFIC_CLASS);
		}
		*ret_drift |= ks->now != c->profile.traffic_class;
		tc_metric(rep, json_str(rec, "vf") ?: vf->pci, seen.dev, k, ks->now);
	}
	pass_report_drift(rep, pf, ITEM_TRAFFIC_CLASS, *ret_drift);
	return r;
}
