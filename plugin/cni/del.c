// SPDX-License-Identifier: Apache-2.0
/*
 * DEL: restore the VF traffic class this attachment changed, drop it from
 * the PF indexes, remove the record. PF-wide settings stay. Never fails on
 * what is already gone: record, netns, VF, RDMA device.
 */
#include <errno.h>
#include <string.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "plugin/cni/commands.h"

/*
 * DESIGN.md "State, locking, errors": a record that does not parse no longer
 * says what the attachment set or over what, but the VF is still the one
 * deviceID names, and left at the attachment's class it would go back to the
 * pool with it (the next pod of a lossy NAD sending on the lossless
 * priority). So it gets the driver's default (MOFED's unset, configfs 0),
 * under the PF locks, unless another attachment's record holds the VF now
 * (a lost DEL's VF handed on: that class is the holder's). The key leaves
 * the PF indexes too.
 */
static void corrupt_restore(struct rq_ctx *c)
{
	const char *pci = c->nc ? c->nc->device_id : "";
	int fds[RQ_MAX_PFS], r;
	struct rq_vf_info vf;
	struct rq_rdma_dev dev;
	bool held = false;

	for (size_t i = 0; i < RQ_MAX_PFS; i++)
		fds[i] = -1;
	if (!pci[0]) {
		log_warn("%s: no deviceID in the network config: the VF's traffic class is left as "
			 "it is",
			 c->key);
		return;
	}
	memset(&vf, 0, sizeof(vf));
	r = device_resolve_vf(&c->env.root, pci, &vf, &c->err);
	if (r == 0 && vf.has_pf)
		r = attach_lock_pfs(c, &vf, fds);
	if (r < 0) {
		log_warn("%s: VF %s (deviceID): %s: its traffic class is left as it is", c->key,
			 pci, c->err.msg[0] ? c->err.msg : strerror(-r));
		rq_err_clear(&c->err);
		return;
	}
	for (size_t i = 0; vf.has_pf && i < vf.n_pf; i++) {
		cJSON *idx = NULL, *holder = NULL;

		if (state_pf_read(&c->env.root, vf.pf[i].pci, &idx) == 0)
			holder = attach_vf_holder(c, idx, vf.pci);
		if (holder) {
			held = true;
			log_warn("%s: VF %s is held by attachment %s/%s now: its traffic class is "
				 "theirs, left as it is",
				 c->key, vf.pci, json_str(holder, "podNamespace") ?: "?",
				 json_str(holder, "podName") ?: "?");
		}
		cJSON_Delete(holder);
		cJSON_Delete(idx);
		(void)state_pf_detach(&c->env.root, vf.pf[i].pci, c->key);
	}
	memset(&dev, 0, sizeof(dev));
	if (!held && (rdma_find_by_pci(&c->env.root, vf.pci, &dev) < 0 ||
		      rdma_tos_locate(&c->env.root, &dev, false, &c->err) < 0)) {
		log_warn("%s: VF %s has no RDMA device with a traffic-class knob in the host: "
			 "nothing to restore",
			 c->key, vf.pci);
		rq_err_clear(&c->err);
		held = true;
	}
	for (int k = 0; !held && k < RQ_KNOB_N; k++) {
		int def = k == RQ_KNOB_MOFED ? -1 : 0;

		if (!dev.has[k])
			continue;
		r = rdma_tos_write(&c->env.root, &dev, k, def);
		if (r < 0)
			log_warn("%s: restoring %s %s traffic class to the driver's default: %s",
				 c->key, dev.name, rdma_knob_name(k), strerror(-r));
		else
			log_warn("%s: VF %s: %s %s traffic class set to the driver's default (%s): "
				 "the record that said what to put back does not parse",
				 c->key, vf.pci, dev.name, rdma_knob_name(k),
				 def < 0 ? "unset" : "0");
	}
	attach_unlock_pfs(&vf, fds);
}

int cmd_del(struct rq_ctx *c)
{
	cJSON *rec = NULL;
	int r;

	r = state_record_read(&c->env.root, c->key, &rec);
	if (r == -ENOENT) {
		log_debug("%s: no record: nothing to restore", c->key);
		attach_drop_orphans(c);
		return 0;
	}
	if (r == -EBADMSG) {
		log_warn("%s: record is corrupt: removing it", c->key);
		corrupt_restore(c);
		r = state_record_remove(&c->env.root, c->key);
		return r < 0 ? rq_err(&c->err, RQ_ERR_IO, r, "removing record %s: %s", c->key,
				      strerror(-r))
			     : 0;
	}
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading record %s: %s", c->key, strerror(-r));
	r = attach_release(c, rec, true);
	cJSON_Delete(rec);
	if (r == 0)
		log_info("%s: DEL done", c->key);
	return r;
}
