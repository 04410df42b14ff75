// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show`'s partner per PF: who the agent last heard on the wire
 * (RQ_PEER_FILE, which the agent rewrites whenever a partner comes, changes,
 * refreshes or goes) and each item judged against what the PF is required to
 * offer now, with the same judge as the agent's metrics (plugin/core/peer.c).
 * A partner whose TTL ran out by the wall clock (the agent stopped) is silent.
 */
#include <linux/dcbnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/core/peer.h"
#include "plugin/tools/tools.h"

static cJSON *peer_file(const struct rq_env *env)
{
	cJSON *o = NULL;
	char *buf = NULL;
	size_t len = 0;

	if (sysfs_read_file(&env->root, RQ_PEER_FILE, (size_t)1024 * 1024, &buf, &len) == 0)
		o = cJSON_ParseWithLength(buf, len);
	free(buf);
	return o;
}

static bool listening(const cJSON *book, const char *ifname)
{
	const cJSON *it;

	cJSON_ArrayForEach(
	    it, cJSON_GetObjectItemCaseSensitive(
		    book, "listening")) if (cJSON_IsString(it) &&
					    !strcmp(it->valuestring, ifname)) return true;
	return false;
}

static void dcbx_json(cJSON *o, const struct dcb_port_state *st)
{
	cJSON *a;

	if (!st || !st->has_dcbx || !(a = cJSON_AddArrayToObject(o, "dcbx")))
		return;
	if (st->dcbx & DCB_CAP_DCBX_HOST)
		cJSON_AddItemToArray(a, cJSON_CreateString("host"));
	if (st->dcbx & DCB_CAP_DCBX_LLD_MANAGED)
		cJSON_AddItemToArray(a, cJSON_CreateString("lld_managed"));
	if (st->dcbx & DCB_CAP_DCBX_VER_CEE)
		cJSON_AddItemToArray(a, cJSON_CreateString("cee"));
	if (st->dcbx & DCB_CAP_DCBX_VER_IEEE)
		cJSON_AddItemToArray(a, cJSON_CreateString("ieee"));
}

void show_peer_json(const struct rq_env *env, cJSON *o, const char *ifname,
		    const struct dcb_port_state *st, const struct rq_profile *req, bool any_req)
{
	cJSON *book = peer_file(env), *out = cJSON_AddObjectToObject(o, "peer"), *items;
	const cJSON *e =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(book, "pfs"), ifname);
	struct lldp_peer p;
	struct peer_judgement j;
	bool heard = e && peer_from_json(cJSON_GetObjectItemCaseSensitive(e, "peer"), &p) == 0 &&
		     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "expires")) >
			 (double)time(NULL);

	dcbx_json(o, st);
	if (!out) {
		cJSON_Delete(book);
		return;
	}
	cJSON_AddStringToObject(out, "state",
				heard			  ? "heard"
				: listening(book, ifname) ? "silent"
							  : "not listening");
	if (heard) {
		cJSON_AddItemToObject(
		    out, "partner",
		    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(e, "peer"), 1));
		cJSON_AddNumberToObject(
		    out, "heard",
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "heard")));
	}
	peer_judge(heard ? &p : NULL, any_req ? req : NULL, peer_pf_mtu(&env->root, ifname), &j);
	items = cJSON_AddObjectToObject(out, "items");
	for (int i = 0; items && i < PEER_ITEM_N; i++) {
		cJSON *it;

		/* ets only where the target has ETS, as the metric */
		if (i == PEER_ETS && !(any_req && req->ets.present))
			continue;
		it = cJSON_AddObjectToObject(items, peer_item_names[i]);
		cJSON_AddStringToObject(it, "verdict", peer_verdict_name(j.v[i]));
		if (j.why[i][0])
			cJSON_AddStringToObject(it, "why", j.why[i]);
	}
	cJSON_Delete(book);
}

void show_peer_text(const cJSON *pf)
{
	const cJSON *peer = cJSON_GetObjectItemCaseSensitive(pf, "peer");
	const cJSON *who = cJSON_GetObjectItemCaseSensitive(peer, "partner"), *it;
	const cJSON *dcbx = cJSON_GetObjectItemCaseSensitive(pf, "dcbx");
	bool lld = false, host = false;

	cJSON_ArrayForEach(it, dcbx)
	{
		lld |= !strcmp(it->valuestring, "lld_managed");
		host |= !strcmp(it->valuestring, "host");
	}
	if (!peer)
		return;
	if (who)
		printf("  partner %s port %s (%s, chassis %s):",
		       json_str(who, "systemName")[0] ? json_str(who, "systemName")
						      : "(no system name)",
		       json_str(who, "portId"),
		       json_str(who, "portDescription")[0] ? json_str(who, "portDescription")
							   : "no description",
		       json_str(who, "chassisId"));
	else if (!strcmp(json_str(peer, "state"), "silent"))
		printf("  partner silent:");
	else /* no agent, --once only, or a PF without attachment or baseline */
		printf("  partner not listened to (the agent watches PFs with attachments or a "
		       "baseline):");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(peer, "items"))
	{
		const char *v = json_str(it, "verdict");

		printf(" %s %s", it->string, !strcmp(v, "disagrees") ? "DISAGREES" : v);
		if (!strcmp(v, "disagrees") && json_str(it, "why"))
			printf(" (%s)", json_str(it, "why"));
		printf(it->next ? "," : "");
	}
	printf("\n");
	/* mlx5 in firmware mode reports the DCBX versions without HOST and never
	 * LLD_MANAGED (mlx5e_dcbnl_initialize): a report without HOST is the same hint */
	if (!who && (lld || (cJSON_GetArraySize(dcbx) > 0 && !host)))
		printf("    DCBX is %s: the NIC firmware's own LLDP agent may take the "
		       "partner's LLDP before the host sees it (docs/operations.md)\n",
		       lld ? "lld_managed" : "not host-managed (firmware)");
}

/* One word per PF, as the NFD label says it for the node: any item disagrees -> disagrees;
 * at least one agrees and none disagrees -> agrees; else unknown. */
void show_peer_annotate(const struct rq_env *env, cJSON *o)
{
	struct rq_catalog *cat = show_catalog(env);
	cJSON *pf;

	cJSON_ArrayForEach(pf, cJSON_GetObjectItemCaseSensitive(o, "pfs"))
	{
		const char *ifname = json_str(pf, "pf"), *word = "unknown";
		struct rq_profile *req = calloc(1, sizeof(*req));
		cJSON *tmp = cJSON_CreateObject(), *it;
		char path[512], pci[64] = "";
		bool any = false;

		if (!ifname || !req || !tmp) {
			free(req);
			cJSON_Delete(tmp);
			continue;
		}
		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
		if (sysfs_readlink_base(&env->root, path, pci, sizeof(pci)) < 0)
			pci[0] = '\0';
		show_pf_required(env, cat, pci, req, &any);
		show_peer_json(env, tmp, ifname, NULL, req, any);
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(
					   cJSON_GetObjectItemCaseSensitive(tmp, "peer"), "items"))
		{
			const char *v = json_str(it, "verdict");

			if (v && !strcmp(v, "disagrees"))
				word = "disagrees";
			else if (v && !strcmp(v, "agrees") && strcmp(word, "disagrees") != 0)
				word = "agrees";
		}
		cJSON_AddStringToObject(pf, "partner", word);
		cJSON_Delete(tmp);
		free(req);
	}
	catalog_free(cat);
}
