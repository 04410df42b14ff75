// SPDX-License-Identifier: Apache-2.0
/*
 * The per-attachment verdict as the agent exports it (DESIGN.md "One answer
 * per pod"): rdma_qos_attachment_lossless and rdma_qos_attachment_problem,
 * judged by judge/verdict.c from what the pass found (the PF's drift and
 * suspended repairs, the VF's knobs, whether it is in its pod), the link
 * partner as the agent hears it and the collector's last QP census. Adopted
 * attachments are judged the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"
#include "plugin/agent/agent.h"
#include "plugin/judge/verdict.h"
#include "plugin/agent/agent_tel.h"
#include "plugin/agent/link_health.h"
#include "plugin/agent/metrics.h"
#include "plugin/attach/hostnet.h"

void verdict_pass_note(struct pass_report *rep, const cJSON *rec, const char *pf, bool vf_gone)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "pf", pf);
	if (vf_gone)
		cJSON_AddTrueToObject(o, "vfGone");
	cJSON_AddItemToObject(o, "rec", cJSON_Duplicate(rec, 1));
	cJSON_AddItemToArray(rep->verdict, o);
}

/* pf_profile: what the pass left drifted on the PF (its VF's class is vf_class's) */
static void pf_facts_of(const struct pass_report *rep, const char *pf, struct verdict_facts *f,
			char *unmet, size_t ulen, char *susp, size_t slen)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(rep->pfs, pf), *it;
	unsigned bits = m ? (unsigned)m->valuedouble : 0;
	size_t n = 0, k = 0;

	unmet[0] = susp[0] = '\0';
	f->pf_name = pf;
	f->pf_unmet = m ? unmet : NULL;
	f->pf_why = "the pass did not judge the PF";
	f->pf_suspended = susp;
	if (bits & (1u << ITEM_DCB))
		n += (size_t)snprintf(unmet, ulen, "the PF's DCB could not be read");
	for (int i = ITEM_DCB + 1; i < ITEM_N && n < ulen; i++)
		if (i != ITEM_TRAFFIC_CLASS && (bits & (1u << i)))
			n += (size_t)snprintf(unmet + n, ulen - n, "%s%s not as required",
					      n ? "; " : "", agent_item_names[i]);
	cJSON_ArrayForEach(it, rep->suspended)
	{
		if (json_int(it, "value", 0) == 1 && !strcmp(json_str(it, "pf") ?: "", pf) &&
		    k < slen)
			k += (size_t)snprintf(susp + k, slen - k, "%s%s", k ? ", " : "",
					      json_str(it, "item") ?: "?");
	}
}

/* vf_class: the knobs as the VF repair left them, and whether the VF is in its pod */
static void vf_facts_of(const struct pass_report *rep, const cJSON *e, struct verdict_facts *f)
{
	const char *vf = json_str(f->rec, "vf") ?: "";
	const cJSON *it;

	f->in_pod = -1;
	cJSON_ArrayForEach(it, rep->vf_home)
	{
		if (!strcmp(json_str(it, "vf") ?: "", vf))
			f->in_pod = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "inPod"));
	}
	f->vf_why = f->in_pod == 0 ? "rdma_qos_vf_in_pod 0" : "no RDMA device of the VF now";
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "vfGone"))) {
		f->in_pod = 0;
		f->vf_why = "the VF is gone (a driver reload?)";
	}
	for (int k = 0; k < RQ_KNOB_N; k++)
		f->tc[k] = -1;
	cJSON_ArrayForEach(it, rep->vf_tc)
	{
		/* a shared device's knobs (vf "") are told apart by the device */
		if (strcmp(json_str(it, "vf") ?: "", vf) != 0 ||
		    (!vf[0] &&
		     strcmp(json_str(it, "rdmaDev") ?: "", json_str(f->rec, "rdmaDev") ?: "") != 0))
			continue;
		for (int k = 0; k < RQ_KNOB_N; k++)
			if (!strcmp(json_str(it, "knob") ?: "", rdma_knob_name(k))) {
				f->tc_has[k] = true;
				f->tc[k] = json_int(it, "value", -1);
				f->tc_read = true;
			}
	}
}

static void labels(const cJSON *e, char *out, size_t len)
{
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(e, "rec");
	char x[5][520];

	(void)snprintf(out, len, "namespace=\"%s\",pod=\"%s\",interface=\"%s\",vf=\"%s\",pf=\"%s\"",
		       prom_label_esc(json_str(rec, "podNamespace") ?: "", x[0], sizeof(x[0])),
		       prom_label_esc(json_str(rec, "podName") ?: "", x[1], sizeof(x[1])),
		       prom_label_esc(json_str(rec, "ifname") ?: "", x[2], sizeof(x[2])),
		       prom_label_esc(json_str(rec, "vf") ?: "", x[3], sizeof(x[3])),
		       prom_label_esc(json_str(e, "pf") ?: "", x[4], sizeof(x[4])));
}

char *verdict_metrics_render(const struct agent *a, const struct pass_report *rep)
{
	struct verdict *v = calloc(1, sizeof(*v));
	struct prom_text to, tp;
	char *out, *prob, *all = NULL;
	FILE *f = v ? prom_begin(&to) : NULL;
	FILE *g = f ? prom_begin(&tp) : NULL;
	const cJSON *e;

	if (!g) {
		if (f)
			free(prom_end(&to));
		free(v);
		return NULL;
	}
	/* the families are named even when no attachment has a series: dashboards find them */
	prom_family(f, "rdma_qos_attachment_lossless", "gauge",
		    "1 when the attachment's path is lossless: pf_profile, vf_class, peer and qps "
		    "hold (unknown fails nothing); only for lossless profiles.");
	prom_family(g, "rdma_qos_attachment_problem", "gauge",
		    "1 for each check of the attachment that fails (rdma-qos show --pod says the "
		    "evidence).");
	/* the census this verdict judges: a later one raises a pass that judges it (agent_tel.c) */
	agent_tel_qps_judging(a->tel);
	cJSON_ArrayForEach(e, rep->verdict)
	{
		struct verdict_facts fa;
		struct peer_judgement j;
		char unmet[512], susp[128], pwhy[160], qwhy[160], lwhy[96], l[2900], key[600];
		int w;
		const char *pf = json_str(e, "pf") ?: "";

		memset(&fa, 0, sizeof(fa));
		fa.rec = cJSON_GetObjectItemCaseSensitive(e, "rec");
		pf_facts_of(rep, pf, &fa, unmet, sizeof(unmet), susp, sizeof(susp));
		vf_facts_of(rep, e, &fa);
		fa.peer = peer_pass_judge(a, rep, pf, &j, pwhy, sizeof(pwhy));
		fa.peer_why = pwhy;
		/* a host-network pod's QPs are the shared device's census's, attributed by cgroup,
		 * only when the agent sees the host's PIDs; else it cannot tell */
		tel_rec_key(fa.rec, key, sizeof(key));
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fa.rec, "hostNetwork")) &&
		    !hostnet_pids_visible())
			fa.qps_off = hostnet_qps_fact(fa.rec, false, qwhy, sizeof(qwhy));
		else
			fa.qps_off = agent_tel_qps(a->tel, key, qwhy, sizeof(qwhy));
		fa.qps_why = qwhy;
		fa.gdr_degraded = agent_gdr_degraded(rep, json_str(fa.rec, "vf") ?: "");
		w = wiring_pf_verdict(a, rep, pf);
		fa.wiring = w == 1 ? 1 : w == 0 ? 2 : 0;
		fa.link_reasons = link_reasons_known(a, pf, lwhy, sizeof(lwhy)) ? lwhy : NULL;
		verdict_judge(&fa, v);
		labels(e, l, sizeof(l));
		if (v->lossless_profile)
			(void)fprintf(f, "rdma_qos_attachment_lossless{%s} %d\n", l,
				      v->first_lossless < 0);
		for (size_t i = 0; i < verdict_n_checks; i++)
			if (v->st[i] == VERDICT_PROBLEM)
				(void)fprintf(g, "rdma_qos_attachment_problem{%s,check=\"%s\"} 1\n",
					      l, verdict_checks[i].name);
	}
	free(v);
	out = prom_end(&to);
	prob = prom_end(&tp);
	if (!out || !prob || asprintf(&all, "%s%s", out, prob) < 0)
		all = NULL;
	free(out);
	free(prob);
	return all;
}
