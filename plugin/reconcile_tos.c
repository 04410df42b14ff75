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
#include "plugin/agent.h"

/*
 * The VF's RDMA device now. The CM resets default_roce_tos when a device
 * re-registers, possibly under a new name: the VF's PCI address finds it
 * again. A device found over RDMA netlink only (rxe) keeps its recorded name.
 */
/*
 * A device without a PCI link (rxe) is found as ADD finds it: over RDMA
 * netlink by the ifindex of the pod's interface, asked from inside the pod
 * netns (the kernel reports a port's netdev index only to its own netns).
 */
static int find_by_netlink(const cJSON *rec, struct rq_rdma_dev *d)
{
	const char *ns = json_str(rec, "netns"), *ifname = json_str(rec, "ifname");
	int fd = -1, saved = -1, ifindex, r;

	if (!ns || !*ns || !ifname || netns_open(ns, &fd) < 0)
		return -ENOENT;
	r = netns_enter(fd, &saved);
	close(fd);
	if (r < 0)
		return r;
	ifindex = netns_link_ifindex(ifname);
	r = ifindex > 0 ? rdma_find_by_ifindex(ifindex, d) : -ENODEV;
	netns_return(saved);
	return r;
}

static int find_dev(struct rq_ctx *c, const cJSON *rec, const char *vf_pci, struct rq_rdma_dev *d)
{
	if (rdma_find_by_pci(&c->env.root, vf_pci, d) == 0)
		return 0;
	return find_by_netlink(rec, d);
}

/* The record follows the device, so DEL restores the class where it now lives. */
static void record_follow(struct rq_ctx *c, cJSON *rec, const struct rq_rdma_dev *d)
{
	cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	const char *old = json_str(rd, "device") ?: "";
	int r;

	if (!rd || (!strcmp(old, d->name) && !strcmp(json_str(rd, "tosPath") ?: "", d->tos_path)))
		return;
	log_info("agent: %s: VF %s RDMA device is %s now (was %s)", c->key,
		 json_str(rec, "vf") ?: "?", d->name, old[0] ? old : "none");
	cJSON_ReplaceItemInObjectCaseSensitive(rd, "device", cJSON_CreateString(d->name));
	cJSON_ReplaceItemInObjectCaseSensitive(rd, "tosPath", cJSON_CreateString(d->tos_path));
	cJSON_ReplaceItemInObjectCaseSensitive(rd, "tosKind",
					       cJSON_CreateString(tos_kind_name(d->tos_kind)));
	r = state_record_write(&c->env.root, c->key, rec);
	if (r < 0)
		log_warn("agent: %s: updating the record: %s", c->key, strerror(-r));
}

static void tc_metric(struct pass_report *rep, const char *vf, const struct rq_rdma_dev *d, int v)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "vf", vf);
	cJSON_AddStringToObject(o, "rdmaDev", d->name);
	cJSON_AddStringToObject(o, "knob", tos_kind_name(d->tos_kind));
	cJSON_AddNumberToObject(o, "value", v);
	cJSON_AddItemToArray(rep->vf_tc, o);
}

/* Under the VF's PF locks, as ADD writes it: locate, read, write when it differs. */
static int tos_fix(struct rq_ctx *c, cJSON *rec, struct rq_rdma_dev *d, const char *pf,
		   bool *ret_drift, struct agent *a, int *ret_cur)
{
	int want = c->profile.traffic_class, cur = -1, r;

	r = rdma_tos_locate(&c->env.root, d, &c->err);
	if (r < 0)
		return r;
	r = rdma_tos_read(&c->env.root, d, &cur);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading traffic class of %s: %s", d->name,
			      strerror(-r));
	*ret_cur = cur;
	record_follow(c, rec, d);
	if (cur == want)
		return 0;
	r = rdma_tos_write(&c->env.root, d, want);
	if (r < 0) {
		*ret_drift = true;
		return rq_err(&c->err, RQ_ERR_IO, r, "writing traffic class %d to %s: %s", want,
			      d->tos_path, strerror(-r));
	}
	log_info("agent: VF %s RDMA %s repaired traffic_class (%s): was %d, now %d",
		 json_str(rec, "vf") ?: "?", d->name, tos_kind_name(d->tos_kind), cur, want);
	agent_count_repair(a, pf, ITEM_TRAFFIC_CLASS);
	*ret_cur = want;
	return 0;
}

int reconcile_tos(struct rq_ctx *c, cJSON *rec, const struct rq_vf_info *vf, bool *ret_drift,
		  struct pass_report *rep, struct agent *a)
{
	const char *pf = vf->has_pf && vf->n_pf ? vf->pf[0].ifname : vf->pci;
	struct rq_rdma_dev d;
	int fds[RQ_MAX_PFS], cur = -1, r;

	*ret_drift = false;
	if (c->profile.traffic_class < 0)
		return 0; /* the profile leaves the VF's class alone */
	if (find_dev(c, rec, vf->pci, &d) < 0) {
		log_warn("agent: %s: VF %s has no RDMA device now: traffic class not kept", c->key,
			 vf->pci);
		*ret_drift = true;
		pass_report_drift(rep, pf, ITEM_TRAFFIC_CLASS, true);
		return 0;
	}
	r = attach_lock_pfs(c, vf, fds);
	if (r < 0) {
		pass_report_drift(rep, pf, ITEM_TRAFFIC_CLASS, true);
		return r;
	}
	r = tos_fix(c, rec, &d, pf, ret_drift, a, &cur);
	attach_unlock_pfs(vf, fds);
	if (r < 0)
		*ret_drift = true;
	else
		tc_metric(rep, vf->pci, &d, cur);
	pass_report_drift(rep, pf, ITEM_TRAFFIC_CLASS, *ret_drift);
	return r;
}
