// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show --pod NAMESPACE/NAME [--json]`: the pod's attachments on
 * this node, each judged by judge/verdict.c from what `show` reads (the PF's
 * unmet requirements and suspended repairs, the VF's knobs, the link
 * partner, the agent's link health file) and a QP census of its device now.
 * First line `lossless: yes` or `lossless: NO (...)`. Exit 0: every
 * attachment as its profile requires; 1: a check fails (or a VF of the pod
 * is unchained); 2: no attachment of the pod on this node. Read-only, like
 * `show`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/telemetry/tel_qps.h"
#include "plugin/judge/verdict.h"
#include "plugin/attach/hostnet.h"
#include "plugin/tools/tools.h"

/* "a; b" of a JSON array of strings, into @buf */
static void join_array(const cJSON *arr, const char *sep, char *buf, size_t len)
{
	const cJSON *it;
	size_t n = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, arr)
	{
		if (cJSON_IsString(it) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? sep : "",
					      it->valuestring);
	}
}

/* The partner as show_peer_json said it, back into the judgement it printed. */
static const struct peer_judgement *peer_facts(const cJSON *pf, struct peer_judgement *j, char *why,
					       size_t len)
{
	const cJSON *peer = cJSON_GetObjectItemCaseSensitive(pf, "peer");
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(peer, "items");
	const char *state = json_str(peer, "state") ?: "not listening";

	if (strcmp(state, "heard") != 0) {
		(void)snprintf(why, len, "link partner %s%s", state,
			       !strcmp(state, "not listening") ? " (is the agent running?)" : "");
		return NULL;
	}
	for (int i = 0; i < PEER_ITEM_N; i++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(items, peer_item_names[i]);
		const char *v = json_str(it, "verdict") ?: "unknown";

		j->v[i] = !strcmp(v, "agrees")	    ? PEER_AGREES
			  : !strcmp(v, "disagrees") ? PEER_DISAGREES
						    : PEER_UNKNOWN;
		(void)snprintf(j->why[i], sizeof(j->why[i]), "%s", json_str(it, "why") ?: "");
	}
	return j;
}

/* The VF's knobs as tos_show_json said them. */
static void vf_facts(const cJSON *vf, const cJSON *a, struct verdict_facts *f)
{
	const cJSON *tos = cJSON_GetObjectItemCaseSensitive(vf, "tos");

	f->in_pod = cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(a, "inPod"))
			? cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "inPod"))
			: -1;
	f->vf_why = json_str(a, "notInPod");
	f->tc_read = tos != NULL;
	for (int k = 0; k < RQ_KNOB_N; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(tos, rdma_knob_name(k));

		f->tc_has[k] = cJSON_IsNumber(v);
		f->tc[k] = f->tc_has[k] ? v->valueint : -1;
	}
	/* a shared device's class is the device's, judged on the shared path (ADD's, the agent's)
	 */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(vf, "shared")) && !f->tc_read)
		f->vf_why = "a shared device: its class is the device's, not judged by show --pod";
	if (!f->tc_read && !f->vf_why)
		f->vf_why = json_str(vf, "rdma") ? "the VF's traffic-class knobs could not be read"
						 : "the VF has no RDMA device now";
}

struct pod_ctx {
	const struct rq_env *env;
	const struct rq_catalog *cat;
	const char *ns, *name;
	struct tel_sample cur; /* the census of the pod's attachments */
	bool census_ok;
	cJSON *links; /* the agent's link health (show_link.c), NULL: none */
	cJSON *atts;  /* JSON out */
	int n;
	/* the first attachment that is not lossless, the first with another problem */
	char lossless_no[VERDICT_EVIDENCE_MAX + 160], other[VERDICT_EVIDENCE_MAX + 160];
};

/* @all: the node's records (tel_load_records), NULL when they could not be read */
static void census(struct pod_ctx *p, const struct tel_sample *all)
{
	size_t k = 0;

	tel_sample_init(&p->cur);
	/* only this pod's attachments: a census is a dump per QP on mlx5 */
	if (!all || tel_copy_targets(all, &p->cur) < 0)
		return;
	for (size_t i = 0; i < p->cur.n_atts; i++)
		if (!strcmp(p->cur.atts[i].ns, p->ns) && !strcmp(p->cur.atts[i].pod, p->name))
			p->cur.atts[k++] = p->cur.atts[i];
		else
			tel_att_fini(&p->cur.atts[i]); /* a shared attachment's owner is its own */
	p->cur.n_atts = k;
	p->cur.census = true;
	p->census_ok = tel_collect(p->env, &p->cur, NULL) == 0;
}

/* The census of the attachment of record @rec (NULL: of VF @vf), by tel_key. */
static const struct tel_att *census_of(const struct pod_ctx *p, const cJSON *rec, const char *vf)
{
	char want[600], key[600];

	if (rec)
		tel_rec_key(rec, want, sizeof(want));
	else
		tel_key(vf, NULL, NULL, NULL, want, sizeof(want));
	for (size_t i = 0; p->census_ok && i < p->cur.n_atts; i++) {
		const struct tel_att *a = &p->cur.atts[i];

		tel_key(a->vf, a->ns, a->pod, a->ifname, key, sizeof(key));
		if (!strcmp(key, want))
			return a;
	}
	return NULL;
}

/*
 * A shared attachment's GIDs: each address's RoCE v2 index, and the one NCCL_IB_GID_INDEX
 * must name in the pod (its first IPv4 address's; else its first address's), or pending.
 */
static void gids_json(const cJSON *sh, cJSON *o)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "gids");
	const cJSON *g;
	int nccl = -1;
	bool v4 = false;

	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(sh, "gids"))
	{
		const char *ip = json_str(g, "ip") ?: "";
		cJSON *e;

		if (strcmp(json_str(g, "type") ?: "", "RoCE v2") != 0 || !arr)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "ip", ip);
		cJSON_AddNumberToObject(e, "index", json_int(g, "index", -1));
		cJSON_AddItemToArray(arr, e);
		if (nccl < 0 || (!v4 && !strchr(ip, ':'))) {
			nccl = json_int(g, "index", -1);
			v4 = !strchr(ip, ':');
		}
	}
	cJSON_AddItemToObject(
	    o, "gidsPending",
	    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(sh, "gidsPending"), true));
	if (nccl >= 0)
		cJSON_AddNumberToObject(o, "ncclIbGidIndex", nccl);
}

/* wiring: show's own judgement of the PF's partner (show_wiring.c); link: the agent's file */
static void wiring_facts(const cJSON *pf, struct verdict_facts *f)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(pf, "peer"), "wiring");
	const char *v = json_str(w, "verdict") ?: "";

	f->wiring = !strcmp(v, "ok") ? 1 : !strcmp(v, "miswired") ? 2 : 0;
	f->wiring_text = json_str(w, "text");
}

static void judge_one(struct pod_ctx *p, const cJSON *pf, const cJSON *vf, const cJSON *rec)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(vf, "attachment");
	struct verdict_facts f;
	struct peer_judgement j;
	struct verdict *v = calloc(1, sizeof(*v));
	char unmet[2048], susp[256], pwhy[160], qwhy[160], head[VERDICT_EVIDENCE_MAX + 64];
	char lr[128], lwhy[200];
	cJSON *o;

	if (!v)
		return;
	memset(&f, 0, sizeof(f));
	f.rec = rec;
	f.pf_name = json_str(pf, "name");
	join_array(cJSON_GetObjectItemCaseSensitive(pf, "unmet"), "; ", unmet, sizeof(unmet));
	f.pf_unmet = unmet;
	join_array(cJSON_GetObjectItemCaseSensitive(pf, "repairSuspended"), ", ", susp,
		   sizeof(susp));
	f.pf_suspended = susp;
	vf_facts(vf, a, &f);
	f.peer = peer_facts(pf, &j, pwhy, sizeof(pwhy));
	f.peer_why = pwhy;
	verdict_qps_facts(census_of(p, rec, json_str(vf, "pci") ?: ""), &f, qwhy, sizeof(qwhy));
	wiring_facts(pf, &f);
	f.link_reasons = show_link_reasons(p->links, f.pf_name, lr, sizeof(lr), lwhy, sizeof(lwhy));
	f.link_why = lwhy;
	verdict_judge(&f, v);
	verdict_headline(v, head, sizeof(head));

	o = verdict_to_json(v);
	if (o) {
		cJSON_AddStringToObject(o, "interface", json_str(a, "ifname") ?: "");
		cJSON_AddStringToObject(o, "vf", json_str(vf, "pci") ?: "");
		cJSON_AddStringToObject(o, "pf", f.pf_name ?: "");
		cJSON_AddStringToObject(o, "profile", json_str(a, "profile") ?: "");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(vf, "shared"))) {
			cJSON_AddTrueToObject(o, "shared");
			cJSON_AddStringToObject(o, "rdmaDev", json_str(vf, "rdma") ?: "");
			gids_json(vf, o);
		}
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "adopted")))
			cJSON_AddTrueToObject(o, "adopted");
		cJSON_AddStringToObject(o, "headline", head);
		cJSON_AddItemToArray(p->atts, o);
	}
	p->n++;
	if (v->lossless_profile && v->first_lossless >= 0 && !p->lossless_no[0])
		(void)snprintf(p->lossless_no, sizeof(p->lossless_no), "%s: %s: %s",
			       json_str(a, "ifname") ?: "?",
			       verdict_checks[v->first_lossless].words, v->ev[v->first_lossless]);
	else if (v->first_problem >= 0 && !p->other[0])
		(void)snprintf(p->other, sizeof(p->other), "%s: %s: %s",
			       json_str(a, "ifname") ?: "?", verdict_checks[v->first_problem].words,
			       v->ev[v->first_problem]);
	free(v);
}

/* show's own entry of PF @name in the node's JSON, or NULL */
static const cJSON *node_pf(const cJSON *node, const char *name)
{
	const cJSON *pf;

	cJSON_ArrayForEach(pf, cJSON_GetObjectItemCaseSensitive(node, "pfs"))
	{
		if (!strcmp(json_str(pf, "name") ?: "", name))
			return pf;
	}
	return NULL;
}

/*
 * A host-network pod on a shared device (attach/hostnet.h): judged by the same table,
 * its PF against the namespace's default profile, its QPs not told apart (why said).
 */
static void judge_hostnet(struct pod_ctx *p, const cJSON *node, const cJSON *o)
{
	const cJSON *pf0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "pfs"), 0);
	const char *pfname = json_str(pf0, "ifname") ?: "";
	const cJSON *pf = node_pf(node, pfname);
	struct verdict *v = calloc(1, sizeof(*v));
	struct verdict_facts f;
	struct peer_judgement j;
	struct rq_profile prof;
	struct rq_error e;
	char unmet[2048], susp[256], pwhy[160], qwhy[256], uwhy[160], lr[128], lwhy[200];
	char head[VERDICT_EVIDENCE_MAX + 64];
	cJSON *arr = NULL, *out;

	if (!v)
		return;
	memset(&f, 0, sizeof(f));
	rq_err_clear(&e);
	f.rec = o;
	f.pf_name = pfname;
	f.in_pod = -1;
	if (profile_from_json(cJSON_GetObjectItemCaseSensitive(o, "profile"), "profile", "?", &prof,
			      &e) == 0)
		arr = show_pf_unmet_with(p->env, p->cat, pfname, json_str(pf0, "pci") ?: "", &prof,
					 uwhy, sizeof(uwhy));
	else
		(void)snprintf(uwhy, sizeof(uwhy), "%s", e.msg);
	join_array(arr, "; ", unmet, sizeof(unmet));
	f.pf_unmet = arr ? unmet : NULL;
	f.pf_why = uwhy;
	cJSON_Delete(arr);
	join_array(cJSON_GetObjectItemCaseSensitive(pf, "repairSuspended"), ", ", susp,
		   sizeof(susp));
	f.pf_suspended = susp;
	f.peer = peer_facts(pf, &j, pwhy, sizeof(pwhy));
	f.peer_why = pwhy;
	if (hostnet_pids_visible() && p->census_ok)
		verdict_qps_facts(census_of(p, o, ""), &f, qwhy, sizeof(qwhy));
	else
		f.qps_off = hostnet_qps_fact(o, hostnet_pids_visible(), qwhy, sizeof(qwhy));
	f.qps_why = qwhy;
	wiring_facts(pf, &f);
	f.link_reasons = show_link_reasons(p->links, pfname, lr, sizeof(lr), lwhy, sizeof(lwhy));
	f.link_why = lwhy;
	verdict_judge(&f, v);
	verdict_headline(v, head, sizeof(head));
	out = verdict_to_json(v);
	if (out) {
		cJSON_AddStringToObject(out, "interface", "");
		cJSON_AddStringToObject(out, "vf", "");
		cJSON_AddStringToObject(out, "pf", pfname);
		cJSON_AddStringToObject(out, "profile", json_str(o, "profileName") ?: "");
		cJSON_AddTrueToObject(out, "hostNetwork");
		cJSON_AddStringToObject(out, "rdmaDev", json_str(o, "rdmaDev") ?: "");
		cJSON_AddStringToObject(out, "resource", json_str(o, "resource") ?: "");
		cJSON_AddBoolToObject(out, "pidsVisible", hostnet_pids_visible());
		cJSON_AddStringToObject(out, "headline", head);
		cJSON_AddItemToArray(p->atts, out);
	}
	p->n++;
	if (v->lossless_profile && v->first_lossless >= 0 && !p->lossless_no[0])
		(void)snprintf(p->lossless_no, sizeof(p->lossless_no), "host network: %s: %s",
			       verdict_checks[v->first_lossless].words, v->ev[v->first_lossless]);
	else if (v->first_problem >= 0 && !p->other[0])
		(void)snprintf(p->other, sizeof(p->other), "host network: %s: %s",
			       verdict_checks[v->first_problem].words, v->ev[v->first_problem]);
	free(v);
}

static void print_text(const cJSON *out)
{
	const cJSON *a, *u;

	printf("%s\n", json_str(out, "headline"));
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(out, "attachments"))
	{
		const cJSON *c;

		const cJSON *g;

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "hostNetwork")))
			printf(
			    "%s/%s host network: shared RDMA device %s of PF %s (%s), profile %s "
			    "(the namespace's default): %s\n",
			    json_str(out, "namespace"), json_str(out, "pod"),
			    json_str(a, "rdmaDev")[0] ? json_str(a, "rdmaDev") : "-",
			    json_str(a, "pf"), json_str(a, "resource"), json_str(a, "profile"),
			    json_str(a, "headline"));
		else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "shared")))
			printf("%s/%s %s: shared RDMA device %s of PF %s, profile %s: %s\n",
			       json_str(out, "namespace"), json_str(out, "pod"),
			       json_str(a, "interface"), json_str(a, "rdmaDev"), json_str(a, "pf"),
			       json_str(a, "profile"), json_str(a, "headline"));
		else
			printf("%s/%s %s: VF %s of PF %s, profile %s%s: %s\n",
			       json_str(out, "namespace"), json_str(out, "pod"),
			       json_str(a, "interface"), json_str(a, "vf"), json_str(a, "pf"),
			       json_str(a, "profile"),
			       cJSON_GetObjectItemCaseSensitive(a, "adopted") ? " (adopted)" : "",
			       json_str(a, "headline"));
		cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(a, "gids"))
		    printf("  %-11s %-8s RoCE v2 GID index %d for %s\n", "gid", "",
			   json_int(g, "index", -1), json_str(g, "ip") ?: "?");
		cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(a, "gidsPending"))
		    printf("  %-11s %-8s %s: no RoCE v2 GID yet (the agent records it when the "
			   "kernel adds it)\n",
			   "gid", "pending", cJSON_IsString(g) ? g->valuestring : "?");
		if (cJSON_GetObjectItemCaseSensitive(a, "ncclIbGidIndex"))
			printf("  %-11s %-8s NCCL_IB_GID_INDEX=%d in this pod\n", "gid", "",
			       json_int(a, "ncclIbGidIndex", -1));
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "pidsVisible")))
			printf("  cannot tell which QPs of the shared device are the pod's: the "
			       "agent sees no host PIDs (agent.hostPID: false), so the pod's QPs "
			       "cannot be told from the host's\n");
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(a, "checks"))
		{
			const char *st = json_str(c, "state") ?: "?";

			printf("  %-11s %-8s %s\n", c->string,
			       !strcmp(st, "problem") ? "PROBLEM" : st, json_str(c, "evidence"));
		}
	}
	cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(out, "unchained"))
	    printf("%s/%s %s: UNCHAINED: VF %s of PF %s is in the pod, but no chain ran "
		   "rdma-qos for it: nothing is judged or kept\n",
		   json_str(out, "namespace"), json_str(out, "pod"), json_str(u, "ifname"),
		   json_str(u, "vf"), json_str(u, "pf"));
	cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(out, "hostNetworkUnjudged")) printf(
	    "%s/%s host network: shared RDMA device %s of PF %s (%s): no verdict: %s\n",
	    json_str(out, "namespace"), json_str(out, "pod"),
	    (json_str(u, "rdmaDev") ?: "")[0] ? json_str(u, "rdmaDev") : "-",
	    json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(u, "pfs"), 0), "ifname"),
	    json_str(u, "resource"), json_str(u, "noVerdict") ?: json_str(u, "noDevice"));
}

/* Parse NAMESPACE/NAME into @ns/@name; -EINVAL when it is not one. */
int show_pod_parse(const char *arg, char *ns, size_t ns_len, char *name, size_t name_len)
{
	const char *slash = strchr(arg, '/');

	if (!slash || slash == arg || !slash[1] || strchr(slash + 1, '/') ||
	    (size_t)(slash - arg) >= ns_len || strlen(slash + 1) >= name_len)
		return -EINVAL;
	(void)snprintf(ns, ns_len, "%.*s", (int)(slash - arg), arg);
	(void)snprintf(name, name_len, "%s", slash + 1);
	return 0;
}

/* One pod's verdict over the node read once (@node, @recs): its JSON, *ret_status as show --pod's
 */
static cJSON *pod_verdict(struct rq_env *env, const struct rq_catalog *cat, const cJSON *node,
			  const cJSON *recs, const cJSON *hostnet, const struct tel_sample *all,
			  const char *ns, const char *name, int *ret_status)
{
	struct pod_ctx p = {.env = env, .cat = cat, .ns = ns, .name = name};
	cJSON *out = cJSON_CreateObject(), *unch, *unjudged;
	const cJSON *pf, *vf, *u;

	if (!out)
		return NULL;
	census(&p, all);
	p.links = show_link_file(env);
	cJSON_AddStringToObject(out, "namespace", ns);
	cJSON_AddStringToObject(out, "pod", name);
	p.atts = cJSON_AddArrayToObject(out, "attachments");
	cJSON_ArrayForEach(pf, cJSON_GetObjectItemCaseSensitive(node, "pfs"))
	{
		cJSON_ArrayForEach(vf, cJSON_GetObjectItemCaseSensitive(pf, "vfs"))
		{
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(vf, "attachment");

			if (a && !strcmp(json_str(a, "namespace") ?: "", ns) &&
			    !strcmp(json_str(a, "pod") ?: "", name))
				judge_one(
				    &p, pf, vf,
				    cJSON_GetObjectItemCaseSensitive(recs, json_str(vf, "pci")));
		}
		/* the pod's attachments on the PF's own RDMA device (issue 50): by record key */
		cJSON_ArrayForEach(vf, cJSON_GetObjectItemCaseSensitive(pf, "shared"))
		{
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(vf, "attachment");

			if (a && !strcmp(json_str(a, "namespace") ?: "", ns) &&
			    !strcmp(json_str(a, "pod") ?: "", name))
				judge_one(
				    &p, pf, vf,
				    cJSON_GetObjectItemCaseSensitive(recs, json_str(vf, "key")));
		}
	}
	unch = cJSON_AddArrayToObject(out, "unchained");
	cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(node, "unchained"))
	{
		if (!strcmp(json_str(u, "namespace") ?: "", ns) &&
		    !strcmp(json_str(u, "pod") ?: "", name))
			cJSON_AddItemToArray(unch, cJSON_Duplicate(u, 1));
	}
	unjudged = cJSON_AddArrayToObject(out, "hostNetworkUnjudged");
	cJSON_ArrayForEach(u, hostnet)
	{
		if (strcmp(json_str(u, "podNamespace") ?: "", ns) != 0 ||
		    strcmp(json_str(u, "podName") ?: "", name) != 0)
			continue;
		if (json_str(u, "noVerdict") || json_str(u, "noDevice"))
			cJSON_AddItemToArray(unjudged, cJSON_Duplicate(u, 1));
		else
			judge_hostnet(&p, node, u);
	}
	if (!p.n && !cJSON_GetArraySize(unch)) {
		cJSON_AddStringToObject(out, "headline",
					cJSON_GetArraySize(unjudged)
					    ? "lossless: unknown (a host-network pod this node "
					      "cannot judge)"
					    : "lossless: unknown (no attachment of this "
					      "pod on this node)");
		*ret_status = 2;
	} else if (cJSON_GetArraySize(unch)) {
		cJSON_AddStringToObject(out, "headline",
					"lossless: NO (unchained: a VF of the pod has no rdma-qos "
					"in its chain)");
		*ret_status = 1;
	} else if (p.lossless_no[0] || p.other[0]) {
		char h[sizeof(p.other) + 32];

		/* a performance check (numa...) fails the pod, not its losslessness */
		if (p.lossless_no[0])
			(void)snprintf(h, sizeof(h), "lossless: NO (%s)", p.lossless_no);
		else
			(void)snprintf(h, sizeof(h), "lossless: yes, but %s", p.other);
		cJSON_AddStringToObject(out, "headline", h);
		*ret_status = 1;
	} else {
		const cJSON *a;
		bool any = false;

		cJSON_ArrayForEach(a, p.atts) any |=
		    cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(a, "lossless"));
		cJSON_AddStringToObject(
		    out, "headline",
		    any ? "lossless: yes"
			: "lossless: not required (no profile of the pod has pfc)");
		*ret_status = 0;
	}
	tel_sample_fini(&p.cur);
	cJSON_Delete(p.links);
	return out;
}

/* the worse of two show --pod statuses: 1 (a check fails) over 2 (not here) over 0 */
static int worse(int a, int b)
{
	return a == 1 || b == 1 ? 1 : a == 2 || b == 2 ? 2 : 0;
}

int cmd_show_pods(struct rq_env *env, const struct show_pod_arg *pods, size_t n, bool json,
		  int *ret_status)
{
	struct rq_catalog *cat = show_catalog(env);
	cJSON *node = NULL, *recs = NULL, *arr = n > 1 ? cJSON_CreateArray() : NULL;
	cJSON *hostnet = NULL;
	char hwhy[256];
	struct tel_sample all;
	bool all_ok;
	int r = n > 1 && !arr ? -ENOMEM : show_node_json(env, cat, &node, &recs);

	*ret_status = 0;
	if (r < 0 || !node) {
		cJSON_Delete(arr);
		catalog_free(cat);
		return r < 0 ? r : -ENOMEM;
	}
	/* one node read for every pod asked: a caller (kubectl rdma-qos job) asks once per node */
	tel_sample_init(&all);
	all_ok = tel_load_records(env, &all) == 0;
	/* the host-network pods on shared devices, as the agent finds them: one List */
	if (hostnet_scan(env, cat, NULL, &hostnet, hwhy, sizeof(hwhy)) < 0 || hwhy[0])
		fprintf(stderr, "rdma-qos show: host-network pods: %s\n",
			hwhy[0] ? hwhy : "out of memory");
	/* seeing the host's PIDs, they join their device's QP census (by cgroup), as the
	 * agent's pass adds them */
	if (all_ok && hostnet_pids_visible())
		show_hostnet_targets(&all, hostnet);
	for (size_t i = 0; i < n && r == 0; i++) {
		int st = 0;
		cJSON *out = pod_verdict(env, cat, node, recs, hostnet, all_ok ? &all : NULL,
					 pods[i].ns, pods[i].name, &st);

		if (!out) {
			r = -ENOMEM;
			break;
		}
		*ret_status = i ? worse(*ret_status, st) : st;
		if (json && arr) {
			cJSON_AddItemToArray(arr, out);
			continue;
		}
		if (json) {
			show_print_json(out);
		} else {
			if (n > 1)
				printf("%spod %s/%s\n", i ? "\n" : "", pods[i].ns, pods[i].name);
			print_text(out);
		}
		cJSON_Delete(out);
	}
	if (r == 0 && json && arr)
		show_print_json(arr);
	tel_sample_fini(&all);
	cJSON_Delete(hostnet);
	cJSON_Delete(arr);
	cJSON_Delete(node);
	cJSON_Delete(recs);
	catalog_free(cat);
	return r;
}
