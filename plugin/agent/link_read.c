// SPDX-License-Identifier: Apache-2.0
/* One reading of a watched PF's link health (link_health.h) */
#include <string.h>

#include "plugin/agent/link_health.h"
#include "plugin/judge/peer.h"
#include "pkg/sysfs/carrier.h"

void link_read_pf(const struct rq_env *env, const struct ethtool_link_ops *eo, void *ectx,
		  const struct devlink_ops *dops, void *dctx, const struct peer_target *t,
		  struct link_reading *r)
{
	long v;

	memset(r, 0, sizeof(*r));
	r->own_note = -1;
	if (carrier_down_read(&env->root, t->pf, &v) == 0) {
		r->has_flaps = true;
		r->flaps = (uint64_t)v;
	}
	/* after the count: a toggle counted here was noted before, or is read next pass with it */
	if (r->has_flaps && t->pci[0]) {
		cJSON *idx = NULL;
		const cJSON *n;

		if (state_pf_read(&env->root, t->pci, &idx) == 0 &&
		    cJSON_IsNumber(
			n = cJSON_GetObjectItemCaseSensitive(idx, "carrierDownAfterWrite")) &&
		    n->valuedouble >= 0)
			r->own_note = (long)n->valuedouble;
		cJSON_Delete(idx);
	}
	if (eo && eo->health(ectx, t->pf, &r->eth) < 0)
		memset(&r->eth, 0, sizeof(r->eth));
	if (dops && t->dl_bus[0] && dops->health(dctx, t->dl_bus, t->dl_dev, r->rep, &r->n_rep) < 0)
		r->n_rep = 0;
}
