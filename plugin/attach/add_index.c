// SPDX-License-Identifier: Apache-2.0
/*
 * ADD's PF index step: every PF the VF hangs off lists the attachment and its
 * requirements, so the next ADD on that PF (and the agent) knows what the port
 * must keep. Old-format indexes are upgraded on write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "pkg/sysfs/carrier.h"
#include "plugin/attach/add.h"

static cJSON *index_entry(const cJSON *att, const char *key)
{
	cJSON *it;

	cJSON_ArrayForEach(it, att)
	{
		const char *k = json_str(it, "key");

		if (k && !strcmp(k, key))
			return it;
	}
	return NULL;
}

/*
 * An index written before requirements were per entry has one "profile" for
 * all: give each entry its own copy, then drop it.
 */
static void index_upgrade(cJSON *idx)
{
	cJSON *old = cJSON_GetObjectItemCaseSensitive(idx, "profile"), *it;

	if (!old)
		return;
	cJSON_ArrayForEach(
	    it, cJSON_GetObjectItemCaseSensitive(
		    idx, "attachments")) if (!cJSON_GetObjectItemCaseSensitive(it, "req"))
	    cJSON_AddItemToObject(it, "req", cJSON_Duplicate(old, true));
	cJSON_DeleteItemFromObjectCaseSensitive(idx, "profile");
	cJSON_DeleteItemFromObjectCaseSensitive(idx, "profileName");
}

/*
 * The PF index lists every attachment on the PF with its PF requirements
 * ("req"): the union of those and of the node baseline is what the port must
 * offer, and a new attachment is checked against each of them.
 */
/*
 * The PF's carrier_down_count after this ADD changed its PFC (mlx5 toggles the
 * link on each change), -1 without a PFC write or the file: the agent's link
 * health does not count the drops up to it as flaps (agent/link_judge.c).
 */
static long own_carrier_down(const struct rq_ctx *c, const struct add_tx *tx, size_t i)
{
	long v;

	if (!tx->pf || i >= tx->n_pf_done || !tx->pf[i].plan.set_pfc)
		return -1;
	return carrier_down_read(&c->env.root, tx->t.vf.pf[i].ifname, &v) == 0 ? v : -1;
}

int index_add(struct rq_ctx *c, struct add_tx *tx, size_t i)
{
	const struct rq_pf *pf = &tx->t.vf.pf[i];
	char pod[600];
	cJSON *idx = tx->idx[i], *att, *e, *req;
	long down = own_carrier_down(c, tx, i);
	int r;

	/* a repeated ADD of a listed attachment with the same profile changes nothing */
	if (tx->idx_steady[i] && down < 0)
		return 0;
	/* steady, the index streamed, not kept: read whole to note the count in it */
	if (tx->idx_steady[i] && !idx) {
		if (state_pf_read(&c->env.root, pf->pci, &idx) < 0)
			return 0;
		tx->idx[i] = idx;
	}
	if (!idx && !(idx = tx->idx[i] = cJSON_CreateObject()))
		return -ENOMEM;
	if (!(req = profile_req_to_json(&c->profile)))
		return -ENOMEM;
	att = cJSON_GetObjectItemCaseSensitive(idx, "attachments");
	e = index_entry(att, c->key);
	/* a repeated ADD of a listed attachment with the same profile changes nothing */
	if (e && down < 0 && !strcmp(json_str(e, "profileName") ?: "", c->profile.name) &&
	    json_equal(cJSON_GetObjectItemCaseSensitive(e, "req"), req) &&
	    !cJSON_GetObjectItemCaseSensitive(idx, "profile")) {
		cJSON_Delete(req);
		return 0;
	}
	/* what rollback writes back (taken only when there is something to write) */
	if (cJSON_GetArraySize(att) > 0 && !(tx->idx_before[i] = cJSON_Duplicate(idx, true))) {
		cJSON_Delete(req);
		return -ENOMEM;
	}
	index_upgrade(idx);
	if (!cJSON_IsArray(att)) {
		cJSON_DeleteItemFromObjectCaseSensitive(idx, "attachments");
		att = cJSON_AddArrayToObject(idx, "attachments");
	}
	if (!e) {
		snprintf(pod, sizeof(pod), "%s/%s (container %.12s, %s)", c->args.pod_namespace,
			 c->args.pod_name, c->args.containerid, c->args.ifname);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "key", c->key);
		cJSON_AddStringToObject(e, "pod", pod);
		cJSON_AddStringToObject(e, "vf", tx->t.vf.pci);
		cJSON_AddItemToArray(att, e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(e, "profileName");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "req");
	cJSON_AddStringToObject(e, "profileName", c->profile.name);
	cJSON_AddItemToObject(e, "req", req);
	if (down >= 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(idx, "carrierDownAfterWrite");
		cJSON_AddNumberToObject(idx, "carrierDownAfterWrite", (double)down);
	}
	r = state_pf_write(&c->env.root, pf->pci, idx);
	if (r == 0)
		tx->idx_written[i] = true;
	return r;
}
