// SPDX-License-Identifier: Apache-2.0
/*
 * The agent's link health per PF as `show --pod` and `top` read it
 * (RQ_LINK_FILE, judge/peer.h, written by agent/link_save.c after each pass
 * that read it): the reasons a PF's link was degraded in the agent's last
 * interval. A file older than 3 of the agent's intervals says nothing (the
 * agent stopped), nor does a PF the agent does not watch or whose driver
 * reports no link health: the `link` check stays unknown with why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/judge/peer.h"
#include "plugin/tools/tools.h"

cJSON *show_link_file(const struct rq_env *env)
{
	return show_agent_file(env, RQ_LINK_FILE);
}

const char *show_link_reasons(const cJSON *file, const char *pf, char *buf, size_t len, char *why,
			      size_t why_len)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(file, "pfs"), pf ?: "");
	const cJSON *it;
	double iv = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(file, "interval"));
	double age = (double)time(NULL) -
		     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(file, "written"));
	size_t n = 0;

	buf[0] = '\0';
	if (!file) {
		(void)snprintf(why, why_len,
			       "no link health from the agent (no %s: is the agent running?)",
			       RQ_LINK_FILE);
		return NULL;
	}
	if (!(iv > 0) || !(age <= 3 * iv)) {
		(void)snprintf(why, why_len,
			       "the agent's link health is %.0f s old, more than 3 intervals (is "
			       "the agent running?)",
			       age);
		return NULL;
	}
	if (!e) {
		(void)snprintf(why, why_len, "the agent does not read the link health of PF %s",
			       pf ?: "?");
		return NULL;
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "reported")) == 0) {
		(void)snprintf(why, why_len, "the driver of PF %s reports no link health",
			       pf ?: "?");
		return NULL;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(e, "degraded"))
	{
		if (cJSON_IsString(it) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      it->valuestring);
	}
	return buf;
}

/* "linkDegraded": the reasons, on each attachment of @o whose PF is degraded now */
void show_link_annotate(const struct rq_env *env, cJSON *o)
{
	cJSON *file = show_link_file(env), *a;
	char r[128], why[160];

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(o, "attachments"))
	{
		const char *l =
		    show_link_reasons(file, json_str(a, "pf"), r, sizeof(r), why, sizeof(why));

		if (l && l[0])
			cJSON_AddStringToObject(a, "linkDegraded", l);
	}
	cJSON_Delete(file);
}
