// SPDX-License-Identifier: Apache-2.0
/*
 * What a pass found, as the metrics say it: drifted items per PF, repairs
 * counted over the agent's life. Filled by the pass (pass.c, pf_repair.c) and
 * the VF repair (vf_repair.c); read by metrics.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/agent/agent.h"

const char *const agent_item_names[ITEM_N] = {
    "dcb", "trust", "dscp2prio", "pfc", "ets", "ecn", "traffic_class", "cnp",
};

double agent_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pass_report_init(struct pass_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->fec_uncorr_per_min = RQ_FEC_UNCORR_PER_MIN_DEFAULT;
	rep->attachments = cJSON_CreateArray();
	rep->pfs = cJSON_CreateObject();
	rep->vf_tc = cJSON_CreateArray();
	rep->numa = cJSON_CreateArray();
	rep->gdr = cJSON_CreateArray();
	rep->vf_home = cJSON_CreateArray();
	rep->baseline = cJSON_CreateObject();
	rep->pf_facts = cJSON_CreateObject();
	rep->suspended = cJSON_CreateArray();
	rep->req_pfs = cJSON_CreateObject();
	rep->unchained = cJSON_CreateArray();
	rep->hostnet = cJSON_CreateArray();
	rep->verdict = cJSON_CreateArray();
}

void pass_report_fini(struct pass_report *rep)
{
	cJSON_Delete(rep->attachments);
	cJSON_Delete(rep->pfs);
	cJSON_Delete(rep->vf_tc);
	cJSON_Delete(rep->numa);
	cJSON_Delete(rep->gdr);
	cJSON_Delete(rep->vf_home);
	cJSON_Delete(rep->baseline);
	cJSON_Delete(rep->pf_facts);
	tel_sample_fini(&rep->targets);
	cJSON_Delete(rep->suspended);
	cJSON_Delete(rep->req_pfs);
	cJSON_Delete(rep->unchained);
	cJSON_Delete(rep->hostnet);
	cJSON_Delete(rep->verdict);
	free(rep->peer_t);
	memset(rep, 0, sizeof(*rep));
}

void pass_report_drift(struct pass_report *rep, const char *pf, enum agent_item item, bool drifted)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(rep->pfs, pf);

	if (!m)
		m = cJSON_AddNumberToObject(rep->pfs, pf, 0);
	if (m && drifted) {
		cJSON_SetNumberValue(m, (double)((unsigned)m->valuedouble | (1u << item)));
		rep->drift_left = true;
	}
}

void agent_count_repair(struct agent *a, const char *pf, enum agent_item item)
{
	struct agent_repair *n;

	for (size_t i = 0; i < a->n_repairs; i++)
		if (!strcmp(a->repairs[i].pf, pf) &&
		    !strcmp(a->repairs[i].item, agent_item_names[item])) {
			a->repairs[i].n++;
			return;
		}
	n = realloc(a->repairs, (a->n_repairs + 1) * sizeof(*n));
	if (!n)
		return;
	a->repairs = n;
	n = &a->repairs[a->n_repairs++];
	(void)snprintf(n->pf, sizeof(n->pf), "%s", pf);
	(void)snprintf(n->item, sizeof(n->item), "%s", agent_item_names[item]);
	n->n = 1;
}

/* One more for PF in a per-PF count list (resets, adoptions); an allocation failure drops it. */
static void count_per_pf(struct agent_repair **list, size_t *n_list, const char *pf)
{
	struct agent_repair *n;

	for (size_t i = 0; i < *n_list; i++)
		if (!strcmp((*list)[i].pf, pf)) {
			(*list)[i].n++;
			return;
		}
	n = realloc(*list, (*n_list + 1) * sizeof(*n));
	if (!n)
		return;
	*list = n;
	n = &n[(*n_list)++];
	memset(n, 0, sizeof(*n));
	(void)snprintf(n->pf, sizeof(n->pf), "%s", pf);
	n->n = 1;
}

void agent_count_reset(struct agent *a, const char *pf)
{
	count_per_pf(&a->resets, &a->n_resets, pf);
}

void agent_count_adoption(struct agent *a, const char *pf)
{
	count_per_pf(&a->adoptions, &a->n_adoptions, pf);
}

void vf_home_report(struct pass_report *rep, const cJSON *rec, bool in_pod)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "namespace", json_str(rec, "podNamespace") ?: "");
	cJSON_AddStringToObject(o, "pod", json_str(rec, "podName") ?: "");
	cJSON_AddStringToObject(o, "vf", json_str(rec, "vf") ?: "");
	cJSON_AddStringToObject(o, "interface", json_str(rec, "ifname") ?: "");
	cJSON_AddStringToObject(
	    o, "pf",
	    json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "pfs"), 0), "ifname")
		?: "");
	cJSON_AddBoolToObject(o, "inPod", in_pod);
	cJSON_AddItemToArray(rep->vf_home, o);
}
