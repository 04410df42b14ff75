// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's part of DESIGN.md "Shared RDMA devices" for host-network pods:
 * each pass, the pods PodResources names holding a node.sharedResources
 * resource with no record (attach/hostnet.c finds them) join the pass's
 * report (rep->hostnet), logged once when they come and when they go. pass.c
 * then adds their PFs (verified against the pod's profile, never written) and
 * their verdicts: hostnet_pass.c never calls back into pass.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/attach/hostnet.h"
#include "plugin/pass/pass_int.h"

void pass_hostnet(struct pass *p)
{
	cJSON *found = NULL, *seen = cJSON_CreateObject(), *o, *it;
	char why[256];
	int r;

	if (!seen)
		return;
	r = hostnet_scan(&p->a->env, p->cat, NULL, &found, why, sizeof(why));
	if (r < 0)
		log_warn("agent: host-network pods: %s", strerror(-r));
	if (why[0])
		log_warn("agent: host-network pods (node.sharedResources): %s", why);
	cJSON_ArrayForEach(o, found)
	{
		char key[600];
		const cJSON *pf = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "pfs"), 0);

		(void)snprintf(key, sizeof(key), "%s/%s %s", json_str(o, "podNamespace") ?: "",
			       json_str(o, "podName") ?: "", json_str(pf, "ifname") ?: "");
		if (!cJSON_GetObjectItemCaseSensitive(p->a->hostnet_seen, key))
			log_info("agent: host-network pod %s/%s holds %s: shared RDMA device %s "
				 "on PF %s, profile %s%s%s",
				 json_str(o, "podNamespace"), json_str(o, "podName"),
				 json_str(o, "resource"),
				 (json_str(o, "rdmaDev") ?: "")[0] ? json_str(o, "rdmaDev")
								   : "none",
				 json_str(pf, "ifname") ?: "?",
				 (json_str(o, "profileName") ?: "")[0] ? json_str(o, "profileName")
								       : "none",
				 json_str(o, "noVerdict") ? ": no verdict: " : "",
				 json_str(o, "noVerdict") ?: "");
		if (!cJSON_GetObjectItemCaseSensitive(seen, key))
			cJSON_AddTrueToObject(seen, key);
	}
	cJSON_ArrayForEach(it, p->a->hostnet_seen)
	{
		if (!cJSON_GetObjectItemCaseSensitive(seen, it->string))
			log_info("agent: host-network pod %s: gone from PodResources", it->string);
	}
	cJSON_Delete(p->a->hostnet_seen);
	p->a->hostnet_seen = seen;
	/* the report owns them from here: pass.c, the verdict and the census read them there */
	while (found && found->child)
		cJSON_AddItemToArray(p->rep->hostnet,
				     cJSON_DetachItemViaPointer(found, found->child));
	cJSON_Delete(found);
}
