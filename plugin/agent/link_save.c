// SPDX-License-Identifier: Apache-2.0
/* RQ_LINK_FILE: the link health saved for `show --pod`, `top` and a restarted agent */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/agent/link_health.h"
#include "plugin/judge/peer.h"

/*
 * The drops an earlier agent discounted as its own toggles (RQ_LINK_FILE's
 * ownDrops of @pf), so that rdma_qos_port_link_flaps_total does not jump up by
 * them at a restart; 0 when unknown or more than the count now (it went back).
 */
uint64_t link_own_saved(const struct agent *a, const char *pf, uint64_t flaps)
{
	char *buf = NULL;
	size_t len = 0;
	cJSON *o;
	const cJSON *n;
	uint64_t v = 0;

	if (sysfs_read_file(&a->env.root, RQ_LINK_FILE, 1024 * 1024, &buf, &len) < 0)
		return 0;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	n = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "pfs"), pf),
	    "ownDrops");
	if (cJSON_IsNumber(n) && n->valuedouble > 0 && n->valuedouble <= (double)flaps)
		v = (uint64_t)n->valuedouble;
	cJSON_Delete(o);
	return v;
}

/* RQ_LINK_FILE (judge/peer.h): per PF the reasons degraded now and those the driver reports */
void link_file_save(const struct agent *a)
{
	cJSON *o = cJSON_CreateObject(), *pfs = cJSON_AddObjectToObject(o, "pfs");
	char *s;
	int r;

	cJSON_AddNumberToObject(o, "written", agent_wall_now());
	cJSON_AddNumberToObject(o, "interval", a->o.interval_s);
	for (size_t i = 0; pfs && i < a->links->n; i++) {
		cJSON *e = cJSON_AddObjectToObject(pfs, a->links->pf[i].pf);
		cJSON *deg = cJSON_AddArrayToObject(e, "degraded");
		cJSON *known = cJSON_AddArrayToObject(e, "reported");

		/* the drops discounted as rdma-qos's own toggles: a restarted agent goes on from
		 * them */
		if (e && a->links->pf[i].own)
			cJSON_AddNumberToObject(e, "ownDrops", (double)a->links->pf[i].own);

		for (int k = 0; deg && known && k < LINK_REASON_N; k++) {
			int d = link_degraded(a, a->links->pf[i].pf, (enum link_reason)k);

			if (d >= 0)
				cJSON_AddItemToArray(known,
						     cJSON_CreateString(link_reason_names[k]));
			if (d == 1)
				cJSON_AddItemToArray(deg, cJSON_CreateString(link_reason_names[k]));
		}
	}
	s = pfs ? cJSON_PrintUnformatted(o) : NULL;
	r = s ? sysfs_write_replace(&a->env.root, RQ_LINK_FILE, s, strlen(s)) : -ENOMEM;
	if (r < 0)
		log_warn("agent: writing %s: %s", RQ_LINK_FILE, strerror(-r));
	free(s);
	cJSON_Delete(o);
}
