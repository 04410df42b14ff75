// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show`'s GPUDirect RDMA lines: per attachment with a GPU, under
 * its NUMA line, the path to the nearest pod GPU and what degrades it; one
 * node line (peer memory, IOMMU) when any attachment has a GPU. show.c calls
 * it, never the other way round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/attach/gdr.h"
#include "plugin/tools/tools.h"

void show_gdr_json(const cJSON *rec, cJSON *a)
{
	static const char *const keys[] = {"gdrVerdict", "gdrPath",	"gdrLevel",
					   "gdrGpu",	 "gdrDegraded", "gdrEvidence"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, keys[i]);

		if (v)
			cJSON_AddItemToObject(a, keys[i], cJSON_Duplicate(v, true));
	}
}

void show_gdr_text(const cJSON *a)
{
	const char *v = json_str(a, "gdrVerdict");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(a, "gdrGpu"), *d;
	char path[8], lvl[8], deg[256] = "";
	size_t off = 0;

	if (!v || !strcmp(v, "no-gpu"))
		return;
	gdr_upper(json_str(a, "gdrPath") ?: "", path, sizeof(path));
	gdr_upper(json_str(a, "gdrLevel") ?: "", lvl, sizeof(lvl));
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(a, "gdrDegraded"))
	{
		if (cJSON_IsString(d) && off < sizeof(deg))
			off += (size_t)snprintf(deg + off, sizeof(deg) - off, "%s%s",
						off ? ", " : "; DEGRADED: ", d->valuestring);
	}
	if (!strcmp(v, "near"))
		printf("    GDR near: %s to GPU %s (%s)%s\n", path, json_str(g, "pci") ?: "?",
		       json_str(g, "id") ?: "?", deg);
	else if (!strcmp(v, "far"))
		printf(
		    "    GDR FAR: %s to nearest GPU %s (%s); NCCL at %s stages this rail through "
		    "host memory\n",
		    path, json_str(g, "pci") ?: "?", json_str(g, "id") ?: "?", lvl);
	else
		printf("    GDR %s: %s\n", v, json_str(a, "gdrEvidence") ?: "");
}

cJSON *show_gdr_node_json(const struct rq_env *env, const cJSON *recs)
{
	const cJSON *it;
	const char *m[4];
	char **names = NULL, type[32] = "none", path[96];
	size_t n = 0, nm;
	bool any = false, loaded_only;
	cJSON *o, *arr;

	cJSON_ArrayForEach(it, recs) any |= cJSON_GetObjectItemCaseSensitive(it, "gdrGpu") != NULL;
	if (!any || !(o = cJSON_CreateObject()))
		return NULL;
	nm = gdr_peer_memory(&env->root, m, 4, &loaded_only);
	arr = cJSON_AddArrayToObject(o, "peerMemory");
	for (size_t i = 0; i < nm; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(m[i]));
	if (loaded_only)
		cJSON_AddTrueToObject(o, "nvidiaPeermemUnregistered");
	/* the groups' type: the kernel's default domain unless one was changed */
	if (sysfs_list(&env->root, "/sys/kernel/iommu_groups", &names, &n) == 0 && n) {
		(void)snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", names[0]);
		if (sysfs_read_str(&env->root, path, type, sizeof(type)) < 0)
			(void)snprintf(type, sizeof(type), "unknown");
	}
	sysfs_list_free(names, n);
	cJSON_AddStringToObject(o, "iommu", type);
	return o;
}

void show_gdr_node_text(const cJSON *o)
{
	const cJSON *m;
	char pm[128] = "";
	size_t off = 0;

	if (!o)
		return;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(o, "peerMemory"))
	{
		if (cJSON_IsString(m) && off < sizeof(pm))
			off += (size_t)snprintf(pm + off, sizeof(pm) - off, "%s%s", off ? ", " : "",
						m->valuestring);
	}
	printf("GPUDirect: peer memory %s%s; IOMMU %s\n", off ? pm : "NONE",
	       cJSON_GetObjectItemCaseSensitive(o, "nvidiaPeermemUnregistered")
		   ? "; nvidia-peermem loaded, not registered"
		   : "",
	       json_str(o, "iommu") ?: "?");
}
