// SPDX-License-Identifier: Apache-2.0
/*
 * The "Who" families (DESIGN.md "Who"), derived over the interval between
 * two telemetry samples (core/tel_who.c): no series without an interval.
 */
#include <stdio.h>
#include <stdlib.h>

#include "plugin/agent/agent.h"
#include "plugin/core/tel_who.h"

static void who_port(FILE *f, const struct tel_sample *prev, const struct tel_sample *cur)
{
	bool head = false;
	char pf[64];

	for (size_t i = 0; i < cur->n_pfs; i++) {
		double v;

		if (tel_roce_off_pfc(prev, cur, &cur->pfs[i], &v) < 0)
			continue;
		if (!head)
			(void)fprintf(
			    f, "# HELP rdma_qos_port_roce_off_pfc_ratio Share (0..1) of the "
			       "RoCE tx bytes of the PF's lossless attachments that its PFC "
			       "priorities did not carry during the last interval (only when "
			       "they sent at least 1 MiB).\n"
			       "# TYPE rdma_qos_port_roce_off_pfc_ratio gauge\n");
		head = true;
		(void)fprintf(f, "rdma_qos_port_roce_off_pfc_ratio{pf=\"%s\"} %.4f\n",
			      metrics_label_esc(cur->pfs[i].name, pf, sizeof(pf)), v);
	}
}

char *metrics_render_who(const struct tel_sample *prev, const struct tel_sample *cur)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = prev ? open_memstream(&s, &len) : NULL;

	if (!f)
		return NULL;
	who_port(f, prev, cur);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}
