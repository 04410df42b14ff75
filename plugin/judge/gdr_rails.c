// SPDX-License-Identifier: Apache-2.0
/* A pod's rails matched to its GPUs within gdrLevel (gdr_rails.h) */
#include <stdio.h>
#include <string.h>

#include "pkg/json/jget.h"
#include "plugin/judge/gdr_rails.h"

/* Kuhn's augmenting path: rail @u to a GPU, moving earlier rails along */
static bool augment(size_t u, const bool (*edge)[RQ_GPU_MAX], size_t n_gpu, int *match_gpu,
		    bool *seen)
{
	for (size_t v = 0; v < n_gpu; v++) {
		if (!edge[u][v] || seen[v])
			continue;
		seen[v] = true;
		if (match_gpu[v] < 0 ||
		    augment((size_t)match_gpu[v], edge, n_gpu, match_gpu, seen)) {
			match_gpu[v] = (int)u;
			return true;
		}
	}
	return false;
}

void gdr_rails_add(struct pod_rails *p, const cJSON *it)
{
	const char *pf = json_str(it, "pf") ?: "";
	const cJSON *g;
	size_t i;

	for (i = 0; i < p->n_pf && strcmp(p->pf[i], pf); i++)
		;
	if (i == p->n_pf && p->n_pf < POD_RAILS)
		(void)snprintf(p->pf[p->n_pf++], RQ_PCI_NAME, "%s", pf);
	if (i < p->n_pf)
		p->n_on_pf[i]++;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(it, "gpus"))
	{
		size_t k;

		if (!cJSON_IsString(g))
			continue;
		for (k = 0; k < p->n_gpu && strcmp(p->gpu[k], g->valuestring); k++)
			;
		if (k == p->n_gpu && p->n_gpu < RQ_GPU_MAX)
			(void)snprintf(p->gpu[p->n_gpu++], RQ_PCI_NAME, "%s", g->valuestring);
	}
}

size_t gdr_rails_unmatched(const struct rq_root *r, const struct pod_rails *p)
{
	bool edge[POD_RAILS][RQ_GPU_MAX] = {{false}}, seen[RQ_GPU_MAX];
	struct rq_pci_pos gpos[RQ_GPU_MAX], npos;
	bool gok[RQ_GPU_MAX];
	int match_gpu[RQ_GPU_MAX];
	size_t matched = 0;

	for (size_t v = 0; v < p->n_gpu; v++) {
		gok[v] = pci_position(r, p->gpu[v], &gpos[v]) == 0;
		match_gpu[v] = -1;
	}
	for (size_t u = 0; u < p->n_pf; u++) {
		if (pci_position(r, p->pf[u], &npos) < 0)
			continue;
		for (size_t v = 0; v < p->n_gpu; v++) {
			struct rq_pci_pair pr;

			if (!gok[v])
				continue;
			pci_pair_level(&npos, &gpos[v], false, &pr);
			edge[u][v] = pci_level_within(pr.level, p->level);
		}
	}
	for (size_t u = 0; u < p->n_pf; u++) {
		memset(seen, 0, sizeof(seen));
		matched += augment(u, edge, p->n_gpu, match_gpu, seen);
	}
	return p->n_gpu - matched;
}
