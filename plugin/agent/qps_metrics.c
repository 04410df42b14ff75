// SPDX-License-Identifier: Apache-2.0
/*
 * The QP census families (DESIGN.md "Who"; telemetry/tel_qps.c): no series for
 * an attachment whose census was not taken (its device not
 * reachable), no class series where the driver dumps no QP context, and
 * off_lossless only where every sending QP's class is known and its sending
 * QPs are not UD only (tel_census_judges). A shared device's attachments
 * carry vf="" and the device; its QPs no attachment owns are
 * rdma_qos_dev_qps_unattributed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/telemetry/tel_qps.h"
#include "plugin/agent/metrics.h"

#define QP_KINDS 32

static void labels(const struct tel_att *a, char *out, size_t len)
{
	char e[6][520];

	(void)snprintf(out, len,
		       "namespace=\"%s\",pod=\"%s\",interface=\"%s\",vf=\"%s\",rdma_dev=\"%s\","
		       "pf=\"%s\"",
		       prom_label_esc(a->ns, e[0], sizeof(e[0])),
		       prom_label_esc(a->pod, e[1], sizeof(e[1])),
		       prom_label_esc(a->ifname, e[2], sizeof(e[2])),
		       prom_label_esc(a->vf, e[3], sizeof(e[3])),
		       prom_label_esc(a->rdma_dev, e[4], sizeof(e[4])),
		       prom_label_esc(a->pf, e[5], sizeof(e[5])));
}

static void head(FILE *f, bool *done, const char *name, const char *help)
{
	if (!*done)
		prom_family(f, name, "gauge", help);
	*done = true;
}

/* rdma_qos_vf_qps by (type, state), or (@by_class) rdma_qos_vf_qps_by_class by class */
static void qps_counts(FILE *f, const struct tel_sample *cur, bool by_class)
{
	struct tel_qp_count c[QP_KINDS];
	char l[3300], t[40], st[24];
	bool done = false;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i];
		size_t n = by_class ? tel_census_by_class(a, c, QP_KINDS)
				    : tel_census_by_type(a, c, QP_KINDS);

		if (n)
			labels(a, l, sizeof(l));
		for (size_t k = 0; k < n; k++) {
			if (by_class) {
				head(
				    f, &done, "rdma_qos_vf_qps_by_class",
				    "Connected QPs in RTS or RTR by the traffic class (ToS byte) "
				    "their "
				    "primary path sends with, where the driver dumps QP contexts.");
				(void)fprintf(f, "rdma_qos_vf_qps_by_class{%s,class=\"%d\"} %u\n",
					      l, c[k].tclass, c[k].n);
				continue;
			}
			head(f, &done, "rdma_qos_vf_qps",
			     "QPs of the attachment's RDMA device by type and state, from RDMA "
			     "netlink's resource tracker.");
			(void)fprintf(f, "rdma_qos_vf_qps{%s,type=\"%s\",state=\"%s\"} %u\n", l,
				      prom_label_esc(c[k].type, t, sizeof(t)),
				      prom_label_esc(c[k].state, st, sizeof(st)), c[k].n);
		}
	}
}

static void qps_off(FILE *f, const struct tel_sample *cur)
{
	char l[3300];
	bool done = false;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i];
		int n = tel_census_off(a);

		if (n < 0)
			continue;
		labels(a, l, sizeof(l));
		head(f, &done, "rdma_qos_vf_qps_off_lossless",
		     "QPs in RTS or RTR of a lossless attachment whose class the PF's DSCP map "
		     "sends to a priority without PFC.");
		(void)fprintf(f, "rdma_qos_vf_qps_off_lossless{%s} %d\n", l, n);
	}
}

/* A shared device's user QPs no attachment owns (tel_shared.c), by type and state. */
static void qps_unattributed(FILE *f, const struct tel_sample *cur)
{
	struct tel_att dev;
	struct tel_qp_count c[QP_KINDS];
	char e[2][520], t[40], st[24];
	bool done = false;

	for (size_t i = 0; i < cur->n_devs; i++) {
		const struct tel_dev *d = &cur->devs[i];
		size_t n;

		if (d->census != 1)
			continue;
		/* counted by the attachments' own counter, on a stand-in holding the device's QPs
		 */
		memset(&dev, 0, sizeof(dev));
		dev.census = 1;
		dev.qps = d->qps;
		n = tel_census_by_type(&dev, c, QP_KINDS);
		if (n)
			head(f, &done, "rdma_qos_dev_qps_unattributed",
			     "User QPs of a shared RDMA device that no attachment owns (no RDMA-CM "
			     "id, "
			     "source GID or cgroup of a pod on it: host processes, host-network "
			     "pods "
			     "without hostPID), by type and state.");
		(void)prom_label_esc(d->rdma_dev, e[0], sizeof(e[0]));
		(void)prom_label_esc(d->pf, e[1], sizeof(e[1]));
		for (size_t k = 0; k < n; k++)
			(void)fprintf(f,
				      "rdma_qos_dev_qps_unattributed{rdma_dev=\"%s\",pf=\"%s\","
				      "type=\"%s\",state=\"%s\"} %u\n",
				      e[0], e[1], prom_label_esc(c[k].type, t, sizeof(t)),
				      prom_label_esc(c[k].state, st, sizeof(st)), c[k].n);
	}
}

char *metrics_render_qps(const struct tel_sample *cur)
{
	struct prom_text t;
	FILE *f = prom_begin(&t);

	if (!f)
		return NULL;
	qps_counts(f, cur, false);
	qps_counts(f, cur, true);
	qps_off(f, cur);
	qps_unattributed(f, cur);
	return prom_end(&t);
}
