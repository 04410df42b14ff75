// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show [--json]`: per PF its trust, PFC, DSCP map, ETS and ECN, what
 * it is required to offer (node baseline and every listed attachment) and
 * which of that is unmet; per VF its RDMA device, each traffic-class knob, the
 * class's scope, the class the attachment requires, NUMA node and attachment.
 * Strictly read-only: it creates nothing, not even the configfs rdma_cm/<dev>
 * directory that ADD makes to reach default_roce_tos.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/attach/unchained.h"
#include "plugin/tools/tools.h"
#include "plugin/attach/pf_require.h"
#include "plugin/attach/vf_class.h"

static cJSON *records_by_vf(const struct rq_env *env)
{
	cJSON *map = cJSON_CreateObject();
	char **keys = NULL;
	size_t n = 0;

	if (!map || state_record_list(&env->root, &keys, &n) < 0)
		return map;
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;
		const char *vf;

		/* a shared attachment has no VF: by its key, which is never a PCI address */
		if (state_record_read(&env->root, keys[i], &rec) == 0 &&
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "shared")))
			cJSON_AddItemToObject(map, keys[i], rec);
		else if (rec && (vf = json_str(rec, "vf")))
			cJSON_AddItemToObject(map, vf, rec);
		else
			cJSON_Delete(rec);
		free(keys[i]);
	}
	free(keys);
	return map;
}

static void dscp_map_json(cJSON *pf, const struct dcb_port_state *st)
{
	cJSON *m = cJSON_AddObjectToObject(pf, "dscp2prio");

	for (size_t i = 0; m && i < st->n_app; i++) {
		char k[8];

		if (st->app[i].selector != IEEE_8021QAZ_APP_SEL_DSCP)
			continue;
		snprintf(k, sizeof(k), "%u", st->app[i].protocol);
		cJSON_AddNumberToObject(m, k, st->app[i].priority);
	}
}

static cJSON *prio_array(uint8_t mask)
{
	cJSON *a = cJSON_CreateArray();

	for (int p = 0; a && p < 8; p++)
		if (mask & (1u << p))
			cJSON_AddItemToArray(a, cJSON_CreateNumber(p));
	return a;
}

/*
 * What the PF must offer: the node baseline and the requirements of every
 * attachment its index lists. *ret_any false when nobody requires anything.
 */
void show_pf_required(const struct rq_env *env, const struct rq_catalog *cat, const char *pci,
		      struct rq_profile *ret, bool *ret_any)
{
	struct rq_profile p;
	struct rq_error e;
	cJSON *idx = NULL, *it;

	profile_empty(ret, "required");
	if (catalog_baseline(cat, &p) == 0)
		profile_req_merge(ret, &p);
	if (pci[0] && state_pf_read(&env->root, pci, &idx) == 0)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
		{
			const cJSON *req = cJSON_GetObjectItemCaseSensitive(it, "req");

			rq_err_clear(&e);
			if (profile_from_json(
				req ?: cJSON_GetObjectItemCaseSensitive(idx, "profile"), "req",
				"entry", &p, &e) == 0)
				profile_req_merge(ret, &p);
		}
	cJSON_Delete(idx);
	*ret_any = profile_has_pf_req(ret);
}

/* "required X, port has Y" per unmet requirement, DCB and ECN */
static void pf_unmet_json(const struct rq_env *env, cJSON *o, const char *ifname,
			  const struct dcb_port_state *st, const struct rq_profile *req)
{
	char buf[4096];
	cJSON *a = cJSON_AddArrayToObject(o, "unmet");
	uint8_t on = 0;
	bool avail = false;

	if (st)
		profile_dcb_describe(st, req, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "dcb: required, port has none\n");
	for (char *line = strtok(buf, "\n"); a && line; line = strtok(NULL, "\n"))
		cJSON_AddItemToArray(a, cJSON_CreateString(line));
	if (req->ecn && ecn_probe(&env->root, ifname, req->ecn, &avail) == 0 && avail &&
	    ecn_get(&env->root, ifname, req->ecn, &on) == 0 && (on & req->ecn) != req->ecn) {
		char x[32], y[32];

		dcb_prio_text(req->ecn & ~on, x, sizeof(x));
		dcb_prio_text(on, y, sizeof(y));
		snprintf(buf, sizeof(buf), "ecn: required priority %s, port has %s", x, y);
		cJSON_AddItemToArray(a, cJSON_CreateString(buf));
	}
	buf[0] = '\0';
	pfqos_cnp_describe(&env->root, ifname, req, buf, sizeof(buf));
	for (char *line = strtok(buf, "\n"); a && line; line = strtok(NULL, "\n"))
		cJSON_AddItemToArray(a, cJSON_CreateString(line));
}

cJSON *show_pf_unmet_with(const struct rq_env *env, const struct rq_catalog *cat,
			  const char *ifname, const char *pci, const struct rq_profile *extra,
			  char *why, size_t why_len)
{
	struct dcb_port_state *st = calloc(1, sizeof(*st));
	const struct dcb_ops *ops = NULL;
	struct rq_profile req;
	cJSON *o = cJSON_CreateObject(), *unmet = NULL;
	void *ctx = NULL;
	bool any = false;
	int r = st && o ? env->dcb_open(env, &ops, &ctx) : -ENOMEM;

	if (r == 0) {
		r = ops->get(ctx, ifname, st);
		ops->free(ctx);
	}
	if (r < 0) {
		(void)snprintf(why, why_len, "the PF's DCB could not be read: %s", strerror(-r));
	} else {
		show_pf_required(env, cat, pci, &req, &any);
		profile_req_merge(&req, extra);
		pf_unmet_json(env, o, ifname, st, &req);
		unmet = cJSON_DetachItemFromObjectCaseSensitive(o, "unmet");
	}
	cJSON_Delete(o);
	free(st);
	return unmet;
}

static void pf_dcb_json(const struct rq_env *env, const struct rq_catalog *cat, cJSON *o,
			const char *ifname, const char *pci)
{
	struct rq_profile req;
	bool any = false;
	cJSON *facts;
	const struct dcb_ops *ops = NULL;
	struct dcb_port_state *st = calloc(1, sizeof(*st));
	void *ctx = NULL;
	uint8_t on = 0;
	bool avail = false;
	int r;

	if (!st)
		return;
	r = env->dcb_open(env, &ops, &ctx);
	if (r == 0) {
		r = ops->get(ctx, ifname, st);
		ops->free(ctx);
	}
	if (r < 0) {
		cJSON_AddStringToObject(o, "dcb", r == -EOPNOTSUPP ? "none" : strerror(-r));
	} else {
		bool dscp = false;

		for (size_t i = 0; i < st->n_app; i++)
			dscp |= st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
		cJSON_AddStringToObject(o, "trust", dscp ? "dscp" : "pcp");
		cJSON_AddItemToObject(o, "pfc", prio_array(st->pfc_en));
		dscp_map_json(o, st);
		if (st->has_ets) {
			cJSON *ets = cJSON_AddObjectToObject(o, "ets");
			int bw[8], tsa[8], ptc[8];

			for (int i = 0; i < 8; i++) {
				bw[i] = st->tc_tx_bw[i];
				tsa[i] = st->tc_tsa[i];
				ptc[i] = st->prio_tc[i];
			}
			cJSON_AddItemToObject(ets, "tcBw", cJSON_CreateIntArray(bw, 8));
			cJSON_AddItemToObject(ets, "tsa", cJSON_CreateIntArray(tsa, 8));
			cJSON_AddItemToObject(ets, "prioTc", cJSON_CreateIntArray(ptc, 8));
		}
	}
	if (ecn_probe(&env->root, ifname, 0xff, &avail) == 0 && avail &&
	    ecn_get(&env->root, ifname, 0xff, &on) == 0)
		cJSON_AddItemToObject(o, "ecn", prio_array(on));
	else
		cJSON_AddStringToObject(o, "ecn", "no control");
	facts = pf_facts_json(env, ifname, r < 0 ? NULL : st);
	while (facts && facts->child) {
		cJSON *f = cJSON_DetachItemViaPointer(facts, facts->child);

		cJSON_AddItemToObject(o, f->string, f);
	}
	cJSON_Delete(facts);
	show_pf_required(env, cat, pci, &req, &any);
	cJSON_AddItemToObject(o, "required", profile_req_to_json(&req));
	if (any)
		pf_unmet_json(env, o, ifname, r < 0 ? NULL : st, &req);
	else
		cJSON_AddArrayToObject(o, "unmet");
	show_peer_json(env, o, ifname, r < 0 ? NULL : st, &req, any);
	show_wiring_json(cat, o, ifname, pci);
	free(st);
}

/* "inPod": false once a driver reload took the VF out of its pod (absent when unknown). */
static void vf_home_show(const struct rq_env *env, const cJSON *rec, cJSON *a)
{
	char why[160];
	int r = vf_home_judge(env, rec, why, sizeof(why));

	if (r < 0)
		return;
	cJSON_AddBoolToObject(a, "inPod", r == 1);
	if (r == 0)
		cJSON_AddStringToObject(a, "notInPod", why);
}

static void attachment_json(const struct rq_env *env, const cJSON *rec, cJSON *v);

static cJSON *vf_json(const struct rq_env *env, const char *pci, const cJSON *recs)
{
	cJSON *v = cJSON_CreateObject();
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(recs, pci);
	int node = -1;

	cJSON_AddStringToObject(v, "pci", pci);
	if (numa_pci_node(&env->root, pci, &node) == 0)
		cJSON_AddNumberToObject(v, "numaNode", node);
	tos_show_json(env, pci, rec, v);
	attachment_json(env, rec, v);
	return v;
}

/*
 * A shared attachment on the PF's own RDMA device (issue 50): shaped as a VF's entry with
 * "pci" "" and "shared" true, its device's knobs (found by the PCI function it sits on), and
 * the pod's GIDs as ADD (or the agent) recorded them.
 */
static cJSON *shared_json(const struct rq_env *env, const char *key, const cJSON *rec)
{
	cJSON *v = cJSON_CreateObject();

	if (!v)
		return NULL;
	cJSON_AddStringToObject(v, "pci", "");
	cJSON_AddTrueToObject(v, "shared");
	cJSON_AddStringToObject(v, "key", key);
	cJSON_AddStringToObject(v, "kind", json_str(rec, "kind") ?: "");
	tos_show_json(env, json_str(rec, "rdmaPci") ?: "", rec, v);
	cJSON_AddItemToObject(v, "gids",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "gids"), true));
	cJSON_AddItemToObject(
	    v, "gidsPending",
	    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "gidsPending"), true));
	attachment_json(env, rec, v);
	return v;
}

static void attachment_json(const struct rq_env *env, const cJSON *rec, cJSON *v)
{
	if (rec) {
		int want =
		    json_int(cJSON_GetObjectItemCaseSensitive(rec, "profile"), "trafficClass", -1);

		if (want >= 0)
			cJSON_AddNumberToObject(v, "trafficClassRequired", want);
	}
	if (rec) {
		cJSON *a = cJSON_AddObjectToObject(v, "attachment");

		/* as the metrics name them */
		cJSON_AddStringToObject(a, "namespace", json_str(rec, "podNamespace") ?: "");
		cJSON_AddStringToObject(a, "pod", json_str(rec, "podName") ?: "");
		cJSON_AddStringToObject(a, "containerID", json_str(rec, "containerID") ?: "");
		cJSON_AddStringToObject(a, "ifname", json_str(rec, "ifname") ?: "");
		cJSON_AddStringToObject(a, "profile", json_str(rec, "profileName") ?: "");
		/* the agent adopted it: no chain ran rdma-qos for it (node.unchained: adopt) */
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "adopted")))
			cJSON_AddTrueToObject(a, "adopted");
		if (json_str(rec, "numaVerdict"))
			cJSON_AddStringToObject(a, "numaVerdict", json_str(rec, "numaVerdict"));
		/* where ADD read the NUMA evidence: the API, or the files and why */
		if (json_str(rec, "numaSource"))
			cJSON_AddStringToObject(a, "numaSource", json_str(rec, "numaSource"));
		show_gdr_json(rec, a);
		vf_home_show(env, rec, a);
	}
}

/*
 * The items of the PF the agent stopped repairing (another writer keeps undoing
 * them). The book is keyed by PCI address; one of 0.2.0 (keyed by name, the
 * items right under it) is read as it is until the agent's next pass takes it over.
 */
static void pf_suspended_json(const struct rq_env *env, cJSON *o, const char *ifname,
			      const char *pci)
{
	cJSON *book = show_agent_file(env, RQ_FIGHT_FILE), *arr, *pfs, *items, *e;

	arr = cJSON_AddArrayToObject(o, "repairSuspended");
	pfs = cJSON_GetObjectItemCaseSensitive(book, "pfs");
	items = pci[0] ? cJSON_GetObjectItemCaseSensitive(
			     cJSON_GetObjectItemCaseSensitive(pfs, pci), "items")
		       : NULL;
	if (!items)
		items = cJSON_GetObjectItemCaseSensitive(pfs, ifname);
	cJSON_ArrayForEach(e, items)
	{
		if (arr && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "suspended")))
			cJSON_AddItemToArray(arr, cJSON_CreateString(e->string));
	}
	cJSON_Delete(book);
}

/* The shared attachments whose device sits on PF @pci (a bond's: on its first slave). */
void show_gids_text(const cJSON *sh, char *buf, size_t len)
{
	const cJSON *g;
	size_t n = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(sh, "gids"))
	{
		if (!strcmp(json_str(g, "type") ?: "", "RoCE v2") && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%sRoCE v2 GID %d (%s)",
					      n ? ", " : "", json_int(g, "index", -1),
					      json_str(g, "ip") ?: "?");
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(sh, "gidsPending"))
	{
		if (cJSON_IsString(g) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%sGID of %s pending",
					      n ? ", " : "", g->valuestring);
	}
}

static void shared_of_pf(const struct rq_env *env, cJSON *o, const char *pci, const cJSON *recs)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "shared");
	const cJSON *rec;

	cJSON_ArrayForEach(rec, recs)
	{
		const cJSON *pf0 =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "pfs"), 0);

		if (arr && pci[0] &&
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "shared")) &&
		    !strcmp(json_str(pf0, "pci") ?: "", pci))
			cJSON_AddItemToArray(arr, shared_json(env, rec->string, rec));
	}
}

static cJSON *pf_json(const struct rq_env *env, const struct rq_catalog *cat, const char *ifname,
		      const cJSON *recs)
{
	char path[512], pci[64];
	char **names = NULL;
	size_t n = 0;
	cJSON *o = cJSON_CreateObject(), *vfs;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (sysfs_readlink_base(&env->root, path, pci, sizeof(pci)) < 0)
		pci[0] = '\0';
	cJSON_AddStringToObject(o, "name", ifname);
	cJSON_AddStringToObject(o, "pci", pci);
	pf_dcb_json(env, cat, o, ifname, pci);
	pf_suspended_json(env, o, ifname, pci);
	shared_of_pf(env, o, pci, recs);
	vfs = cJSON_AddArrayToObject(o, "vfs");
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
	if (sysfs_list(&env->root, path, &names, &n) < 0)
		return o;
	for (size_t i = 0; i < n; i++) {
		char link[600], vpci[64];

		if (!strncmp(names[i], "virtfn", 6)) {
			snprintf(link, sizeof(link), "%s/%s", path, names[i]);
			if (sysfs_readlink_base(&env->root, link, vpci, sizeof(vpci)) == 0)
				cJSON_AddItemToArray(vfs, vf_json(env, vpci, recs));
		}
	}
	sysfs_list_free(names, n);
	return o;
}

static void print_required(const cJSON *pf)
{
	char *req = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pf, "required"));
	const cJSON *unmet = cJSON_GetObjectItemCaseSensitive(pf, "unmet"), *u;

	if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pf, "required")))
		printf("  required: nothing (no baseline, no attachment with PF requirements)\n");
	else
		printf("  required %s: %s\n", req ? req : "-",
		       cJSON_GetArraySize(unmet) ? "NOT MET" : "met");
	cJSON_ArrayForEach(u, unmet) printf("    %s\n", u->valuestring);
	free(req);
	req = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pf, "repairSuspended"))
		  ? cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pf, "repairSuspended"))
		  : NULL;
	if (req)
		printf(
		    "  REPAIR SUSPENDED %s: another writer keeps undoing it; the agent leaves the "
		    "port alone until the catalog changes or " RQ_FIGHT_FILE " is deleted\n",
		    req);
	free(req);
}

/* CNP, DCQCN count, buffers, storm prevention: reported only */
static void print_facts(const cJSON *pf)
{
	const cJSON *cnp = cJSON_GetObjectItemCaseSensitive(pf, "cnp");
	const cJSON *bu = cJSON_GetObjectItemCaseSensitive(pf, "buffer");
	const cJSON *tout = cJSON_GetObjectItemCaseSensitive(pf, "pfcPreventionMs");

	if (cnp)
		printf("  cnp dscp %d prio %d, dcqcn %d parameters\n", json_int(cnp, "dscp", -1),
		       json_int(cnp, "prio", -1),
		       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pf, "dcqcn")));
	if (bu) {
		char *p2b =
		    cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(bu, "prio2buffer"));
		char *sz =
		    cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(bu, "bufferSize"));
		int shared = json_int(bu, "sharedLosslessMask", 0);

		printf("  buffers: prio2buffer %s, sizes %s%s\n", p2b ? p2b : "-", sz ? sz : "-",
		       shared ? ", A LOSSLESS PRIORITY SHARES A BUFFER WITH LOSSY ONES" : "");
		free(p2b);
		free(sz);
	}
	/* mlx5 stores "auto" as 100 ms (MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC) and reads back 100 */
	if (cJSON_IsNumber(tout) && tout->valueint == 100)
		printf("  pfc storm prevention: 100 ms (what mlx5 stores for auto)\n");
	else if (cJSON_IsNumber(tout) && tout->valueint > 0)
		printf("  pfc storm prevention: %d ms\n", tout->valueint);
	else if (cJSON_IsNumber(tout))
		printf("  pfc storm prevention: %s\n", tout->valueint < 0 ? "auto" : "off");
}

static void print_text(const cJSON *pfs)
{
	const cJSON *pf, *vf;

	cJSON_ArrayForEach(pf, pfs)
	{
		char *pfc = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pf, "pfc"));
		char *ecn = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pf, "ecn"));
		const cJSON *map = cJSON_GetObjectItemCaseSensitive(pf, "dscp2prio");

		printf("PF %s (%s): dcb %s, trust %s, pfc %s, ecn %s, dscp map %d entries%s\n",
		       json_str(pf, "name"), json_str(pf, "pci"),
		       json_str(pf, "dcb") ? json_str(pf, "dcb") : "yes",
		       json_str(pf, "trust") ?: "-", pfc ? pfc : "-", ecn ? ecn : "-",
		       cJSON_GetArraySize(map),
		       cJSON_GetObjectItemCaseSensitive(pf, "ets") ? ", ets set" : "");
		free(pfc);
		free(ecn);
		print_facts(pf);
		print_required(pf);
		show_peer_text(pf);
		cJSON_ArrayForEach(vf, cJSON_GetObjectItemCaseSensitive(pf, "vfs"))
		{
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(vf, "attachment");
			char tc[96];

			int want = json_int(vf, "trafficClassRequired", -1);
			char req[48] = "";

			tos_show_text(vf, tc, sizeof(tc));
			if (want >= 0)
				snprintf(req, sizeof(req), " (required %d%s)", want,
					 want == json_int(vf, "trafficClass", -1) ? ""
										  : ", NOT MET");
			printf("  VF %s  numa %d  rdma %-10s tc %s%s  %s%s%s%s%s%s%s%s\n",
			       json_str(vf, "pci"), json_int(vf, "numaNode", -1),
			       json_str(vf, "rdma") ?: "-", tc, req,
			       a ? json_str(a, "namespace") : "(free)", a ? "/" : "",
			       a ? json_str(a, "pod") : "", a ? " profile " : "",
			       a ? json_str(a, "profile") : "",
			       a && cJSON_GetObjectItemCaseSensitive(a, "adopted") ? " (adopted)"
										   : "",
			       a && json_str(a, "notInPod") ? "  LEFT ITS POD: " : "",
			       a ? json_str(a, "notInPod") ?: "" : "");
			if (a && json_str(a, "numaSource"))
				printf("    NUMA %s, evidence from %s\n",
				       json_str(a, "numaVerdict") ?: "?",
				       json_str(a, "numaSource"));
			if (a)
				show_gdr_text(a);
		}
		cJSON_ArrayForEach(vf, cJSON_GetObjectItemCaseSensitive(pf, "shared"))
		{
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(vf, "attachment");
			char tc[96], gids[160];

			tos_show_text(vf, tc, sizeof(tc));
			show_gids_text(vf, gids, sizeof(gids));
			printf("  SHARED %s %s  rdma %-10s tc %s  %s/%s profile %s  %s\n",
			       json_str(vf, "kind") ?: "", json_str(a, "ifname") ?: "",
			       json_str(vf, "rdma") ?: "-", tc, json_str(a, "namespace") ?: "",
			       json_str(a, "pod") ?: "", json_str(a, "profile") ?: "", gids);
		}
	}
}

/* The watched PFs' VFs in a pod's netns with no record, as the agent finds them. */
static cJSON *unchained_json(const struct rq_env *env, const struct rq_catalog *cat)
{
	char(*pfs)[RQ_PCI_ADDR_MAX] = NULL;
	struct rq_unchained *u = NULL;
	size_t npf = 0, n = 0;
	cJSON *arr = cJSON_CreateArray();

	if (!arr || (cat && cat->unchained == RQ_UNCHAINED_IGNORE) ||
	    unchained_watched_pfs(env, cat, &pfs, &npf) < 0)
		return arr;
	if (unchained_scan(env, cat ? cat->kubelet_dir : RQ_KUBELET_DIR_DEFAULT, pfs, npf, NULL, &u,
			   &n) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		if (!o)
			break;
		cJSON_AddStringToObject(o, "vf", u[i].vf);
		cJSON_AddStringToObject(o, "pf", u[i].pf);
		cJSON_AddStringToObject(o, "rdmaDev", u[i].rdma_dev);
		cJSON_AddStringToObject(o, "netns", u[i].netns);
		cJSON_AddStringToObject(o, "ifname", u[i].ifname);
		cJSON_AddStringToObject(o, "namespace", u[i].pod_ns);
		cJSON_AddStringToObject(o, "pod", u[i].pod_name);
		if (u[i].pod_known)
			cJSON_AddStringToObject(o, "namedBy", u[i].by);
		else
			cJSON_AddStringToObject(o, "podUnknown", u[i].pod_why);
		cJSON_AddItemToArray(arr, o);
	}
	free(u);
	free(pfs);
	return arr;
}

static void print_unchained(const cJSON *arr, const struct rq_catalog *cat)
{
	const cJSON *u;

	cJSON_ArrayForEach(u, arr)
	{
		printf("UNCHAINED VF %s of PF %s in netns %s (interface %s, rdma %s): ",
		       json_str(u, "vf"), json_str(u, "pf"), json_str(u, "netns"),
		       json_str(u, "ifname"),
		       json_str(u, "rdmaDev")[0] ? json_str(u, "rdmaDev") : "-");
		if (json_str(u, "namedBy") &&
		    !strcmp(json_str(u, "namedBy"), RQ_UNCHAINED_BY_NETNS))
			printf("pod %s/%s (its netns's processes: no PodResources container names "
			       "it)",
			       json_str(u, "namespace"), json_str(u, "pod"));
		else if (json_str(u, "namedBy"))
			printf("pod %s/%s (PodResources: %s)", json_str(u, "namespace"),
			       json_str(u, "pod"), json_str(u, "namedBy"));
		else
			printf("pod unknown (%s)", json_str(u, "podUnknown"));
		printf("; no chain ran rdma-qos for it (node.unchained: %s)\n",
		       catalog_unchained_name(cat ? cat->unchained : RQ_UNCHAINED_REPORT));
	}
}

/* The node catalog for the baseline; show works without one, or with a bad one. */
struct rq_catalog *show_catalog(const struct rq_env *env)
{
	struct rq_catalog *cat = NULL;
	struct rq_error e;
	char *buf = NULL;
	size_t len = 0;

	rq_err_clear(&e);
	if (sysfs_read_file(&env->root, RQ_CATALOG_PATH, 4 * 1024 * 1024, &buf, &len) == 0 &&
	    catalog_parse(buf, len, &cat, &e) < 0)
		cat = NULL;
	free(buf);
	return cat;
}

int show_node_json(const struct rq_env *env, const struct rq_catalog *cat, cJSON **ret,
		   cJSON **ret_recs)
{
	char **names = NULL;
	size_t n = 0;
	cJSON *recs, *out = cJSON_CreateObject(), *pfs, *gdr;
	int r;

	if (!out)
		return -ENOMEM;
	recs = records_by_vf(env);
	pfs = cJSON_AddArrayToObject(out, "pfs");
	r = sysfs_list(&env->root, "/sys/class/net", &names, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		char path[512];

		snprintf(path, sizeof(path), "/sys/class/net/%s/device/sriov_numvfs", names[i]);
		/* switchdev representors share the PF's device: only the uplink is the PF */
		if (sysfs_exists(&env->root, path) &&
		    !device_netdev_is_representor(&env->root, names[i]))
			cJSON_AddItemToArray(pfs, pf_json(env, cat, names[i], recs));
	}
	sysfs_list_free(names, n);
	cJSON_AddNumberToObject(out, "attachments", cJSON_GetArraySize(recs));
	cJSON_AddItemToObject(out, "unchained", unchained_json(env, cat));
	if ((gdr = show_gdr_node_json(env, recs)))
		cJSON_AddItemToObject(out, "gdr", gdr);
	*ret = out;
	*ret_recs = recs;
	return r == -ENOENT ? 0 : r;
}

void show_print_json(const cJSON *o)
{
	char *s = cJSON_Print(o);

	if (s)
		puts(s);
	free(s);
}

int cmd_show(struct rq_env *env, bool json)
{
	struct rq_catalog *cat = show_catalog(env);
	cJSON *recs = NULL, *out = NULL, *pfs;
	int r = show_node_json(env, cat, &out, &recs);

	if (!out) {
		catalog_free(cat);
		return r;
	}
	pfs = cJSON_GetObjectItemCaseSensitive(out, "pfs");
	if (json) {
		show_print_json(out);
	} else {
		show_gdr_node_text(cJSON_GetObjectItemCaseSensitive(out, "gdr"));
		print_text(pfs);
		print_unchained(cJSON_GetObjectItemCaseSensitive(out, "unchained"), cat);
		printf("%d attachment record(s)\n", cJSON_GetArraySize(recs));
	}
	cJSON_Delete(recs);
	cJSON_Delete(out);
	catalog_free(cat);
	return r;
}

/*
 * For each PF of `show --counters` / `top` (@o's "pfs"): "partner", the word
 * the NFD label judges the PF by (show_peer_word).
 */
void show_peer_annotate(const struct rq_env *env, cJSON *o)
{
	struct rq_catalog *cat = show_catalog(env);
	cJSON *pf;

	cJSON_ArrayForEach(pf, cJSON_GetObjectItemCaseSensitive(o, "pfs"))
	{
		const char *ifname = json_str(pf, "pf");
		struct rq_profile *req = calloc(1, sizeof(*req));
		char path[512], pci[64] = "";
		bool any = false;

		if (!ifname || !req) {
			free(req);
			continue;
		}
		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
		if (sysfs_readlink_base(&env->root, path, pci, sizeof(pci)) < 0)
			pci[0] = '\0';
		show_pf_required(env, cat, pci, req, &any);
		cJSON_AddStringToObject(pf, "partner", show_peer_word(env, ifname, req, any));
		free(req);
	}
	catalog_free(cat);
}
