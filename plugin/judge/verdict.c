// SPDX-License-Identifier: Apache-2.0
/*
 * The per-attachment verdict (verdict.h): the table of checks and their
 * judges. A judge turns its caller's findings into ok / PROBLEM with the
 * evidence / unknown with why; a check with nothing to judge is unknown and
 * fails nothing (DESIGN.md "One answer per pod").
 */
#include "plugin/judge/verdict.h"
#include "plugin/telemetry/tel_qps.h"
#include "plugin/attach/vf_class.h"

#include <stdio.h>
#include <string.h>

/*
 * @list ("a; b" or "a, b" by @sep) without the items that start with "pfc": what a lossy
 * profile requires of the PF (another pod's PFC on it is that pod's), into @buf.
 */
static const char *drop_pfc(const char *list, const char *sep, char *buf, size_t len)
{
	size_t n = 0, sl = strlen(sep);
	const char *p = list;

	if (!list)
		return NULL;
	buf[0] = '\0';
	while (*p) {
		const char *e = strstr(p, sep);
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (strncmp(p, "pfc", 3) != 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? sep : "", (int)l, p);
		p += l + (e ? sl : 0);
	}
	return buf;
}

static enum verdict_state judge_pf_profile(const struct verdict_facts *f, char *ev, size_t len)
{
	char unmet[1024], susp[256];
	struct verdict_facts lf;

	/* a lossy profile: the PF's PFC is no requirement of it (DESIGN.md "not required") */
	if (!verdict_profile_lossless(f->rec)) {
		lf = *f;
		lf.pf_unmet = drop_pfc(f->pf_unmet, "; ", unmet, sizeof(unmet));
		lf.pf_suspended = drop_pfc(f->pf_suspended, ", ", susp, sizeof(susp));
		f = &lf;
	}
	/* a suspended repair leaves the port as the other writer wants it: never ok */
	if (f->pf_suspended && f->pf_suspended[0]) {
		(void)snprintf(ev, len,
			       "repair of %s suspended: another writer keeps undoing it (rdma-qos "
			       "resume %s ITEM once it is stopped)%s%s",
			       f->pf_suspended, f->pf_name ?: "PF",
			       f->pf_unmet && f->pf_unmet[0] ? "; " : "", f->pf_unmet ?: "");
		return VERDICT_PROBLEM;
	}
	if (!f->pf_unmet) {
		(void)snprintf(ev, len, "%s", f->pf_why ?: "the PF's DCB could not be read");
		return VERDICT_UNKNOWN;
	}
	if (f->pf_unmet[0]) {
		(void)snprintf(ev, len, "%s", f->pf_unmet);
		return VERDICT_PROBLEM;
	}
	(void)snprintf(ev, len, "PF %s meets every requirement", f->pf_name ?: "");
	return VERDICT_OK;
}

/* A host-network pod (attach/hostnet.h): no CNI ran for it, no VF, no NAD. */
static bool hostnet(const struct verdict_facts *f)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f->rec, "hostNetwork"));
}

static enum verdict_state judge_vf_class(const struct verdict_facts *f, char *ev, size_t len)
{
	int want =
	    json_int(cJSON_GetObjectItemCaseSensitive(f->rec, "profile"), "trafficClass", -1);
	size_t n = 0;
	bool bad = false, any = false;

	if (hostnet(f)) {
		(void)snprintf(ev, len,
			       "a host-network pod has no VF and asks nothing of the shared "
			       "device's class (no CNI ran for it)");
		return VERDICT_UNKNOWN;
	}

	if (f->in_pod == 0) {
		(void)snprintf(ev, len, "the VF left its pod (%s)", f->vf_why ?: "?");
		return VERDICT_PROBLEM;
	}
	if (want < 0) {
		(void)snprintf(ev, len, "the profile leaves the VF's class alone");
		return VERDICT_UNKNOWN;
	}
	if (!f->tc_read) {
		(void)snprintf(ev, len, "%s", f->vf_why ?: "the VF's RDMA device was not found");
		return VERDICT_UNKNOWN;
	}
	/* every knob that applies must hold the class: each reaches different QPs */
	for (int k = 0; k < RQ_KNOB_N; k++) {
		char a[8];

		if (!f->tc_has[k])
			continue;
		any = true;
		if (f->tc[k] == want)
			continue;
		bad = true;
		if (n < len)
			n += (size_t)snprintf(ev + n, len - n, "%s%s %s, required %d",
					      n ? "; " : "", rdma_knob_name(k),
					      vf_tos_str(f->tc[k], a, sizeof(a)), want);
	}
	if (bad)
		return VERDICT_PROBLEM;
	if (!any) {
		(void)snprintf(ev, len, "the VF's RDMA device has no traffic-class knob");
		return VERDICT_UNKNOWN;
	}
	(void)snprintf(ev, len, "class %d on every knob", want);
	return VERDICT_OK;
}

static enum verdict_state judge_peer(const struct verdict_facts *f, char *ev, size_t len)
{
	struct peer_judgement lossy;
	const struct peer_judgement *pj = f->peer;
	bool lossless = verdict_profile_lossless(f->rec);
	enum peer_verdict w;
	size_t n = 0;

	if (!pj) {
		(void)snprintf(ev, len, "%s", f->peer_why ?: "no link partner heard");
		return VERDICT_UNKNOWN;
	}
	/* a lossy profile never needs the partner's PFC (another pod's on the PF is theirs) */
	if (!lossless) {
		lossy = *pj;
		lossy.v[PEER_PFC] = PEER_UNKNOWN;
		lossy.why[PEER_PFC][0] = '\0';
		pj = &lossy;
	}
	w = peer_word(pj);
	for (int i = 0; i < PEER_ITEM_N; i++) {
		bool say =
		    w == PEER_DISAGREES ? pj->v[i] == PEER_DISAGREES : pj->v[i] == PEER_UNKNOWN;

		if (say && pj->why[i][0] && n < len)
			n += (size_t)snprintf(ev + n, len - n, "%s%s: %s", n ? "; " : "",
					      peer_item_names[i], pj->why[i]);
	}
	if (w == PEER_DISAGREES)
		return VERDICT_PROBLEM;
	if (!lossless) {
		if (!n)
			(void)snprintf(ev, len,
				       "not required: the profile is lossy (no PFC needed of the "
				       "link partner)");
		return VERDICT_UNKNOWN;
	}
	if (w == PEER_AGREES) {
		(void)snprintf(ev, len, "the link partner has PFC where the PF needs it");
		return VERDICT_OK;
	}
	if (!n)
		(void)snprintf(ev, len, "the link partner does not say its PFC");
	return VERDICT_UNKNOWN;
}

static enum verdict_state judge_qps(const struct verdict_facts *f, char *ev, size_t len)
{
	if (f->qps_off < 0) {
		(void)snprintf(ev, len, "%s", f->qps_why ?: "no QP census");
		return VERDICT_UNKNOWN;
	}
	if (f->qps_off > 0) {
		(void)snprintf(ev, len,
			       "%d QP(s) in RTS/RTR send on a priority without PFC (rdma-qos show "
			       "--qps)",
			       f->qps_off);
		return VERDICT_PROBLEM;
	}
	(void)snprintf(ev, len, "every sending QP is on a lossless priority");
	return VERDICT_OK;
}

static enum verdict_state judge_numa(const struct verdict_facts *f, char *ev, size_t len)
{
	const char *v = json_str(f->rec, "numaVerdict") ?: "";
	const char *src = json_str(f->rec, "numaSource");
	const char *dev = hostnet(f) ? "the shared device's PF" : "the VF";

	if (!strcmp(v, "misaligned")) {
		(void)snprintf(ev, len, "%s is on NUMA node %d, not the pod's CPUs' (evidence: %s)",
			       dev, json_int(f->rec, "numaNode", -1), src ?: "PodResources");
		return VERDICT_PROBLEM;
	}
	if (!strcmp(v, "aligned")) {
		(void)snprintf(ev, len, "%s is on the pod's NUMA node %d", dev,
			       json_int(f->rec, "numaNode", -1));
		return VERDICT_OK;
	}
	(void)snprintf(ev, len, "NUMA %s%s%s", v[0] ? v : "not judged", src ? ": " : "", src ?: "");
	return VERDICT_UNKNOWN;
}

/* gdr: far fails; a near pair with a degradation (ACS, link, peer memory, IOMMU) fails as
 * performance; no GPU, or a GPU that cannot be placed, is unknown */
static enum verdict_state judge_gdr(const struct verdict_facts *f, char *ev, size_t len)
{
	const char *v = json_str(f->rec, "gdrVerdict") ?: "";
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(f->rec, "gdrGpu");
	const cJSON *deg =
	    f->gdr_degraded ?: cJSON_GetObjectItemCaseSensitive(f->rec, "gdrDegraded");
	const char *path = json_str(f->rec, "gdrPath") ?: "?";
	const char *level = json_str(f->rec, "gdrLevel") ?: "pxb";
	const char *gpci = json_str(gpu, "pci") ?: "?";
	char reasons[160] = "";
	const cJSON *it;
	size_t n = 0;

	if (!strcmp(v, "far")) {
		(void)snprintf(ev, len,
			       "the nearest GPU %s is %s from the VF, beyond %s: NCCL stages "
			       "this rail through host memory",
			       gpci, path, level);
		return VERDICT_PROBLEM;
	}
	if (strcmp(v, "near") != 0) {
		const char *why = json_str(f->rec, "gdrEvidence");

		(void)snprintf(ev, len, "GPUDirect %s%s%s", v[0] ? v : "not judged",
			       why ? ": " : "", why ?: "");
		return VERDICT_UNKNOWN;
	}
	cJSON_ArrayForEach(it, deg)
	{
		if (cJSON_IsString(it))
			n += (size_t)snprintf(reasons + n,
					      n < sizeof(reasons) ? sizeof(reasons) - n : 0, "%s%s",
					      n ? ", " : "", it->valuestring);
	}
	if (reasons[0]) {
		(void)snprintf(ev, len, "near (%s to GPU %s) but degraded: %s", path, gpci,
			       reasons);
		return VERDICT_PROBLEM;
	}
	(void)snprintf(ev, len, "%s to GPU %s, within %s", path, gpci, level);
	return VERDICT_OK;
}

/* wiring: the PF's one current partner against its node.wiring rule */
static enum verdict_state judge_wiring(const struct verdict_facts *f, char *ev, size_t len)
{
	if (f->wiring == 2) {
		(void)snprintf(ev, len, "the PF's cable: %s", f->wiring_text ?: "MISWIRED");
		return VERDICT_PROBLEM;
	}
	if (f->wiring == 1) {
		(void)snprintf(ev, len, "%s", f->wiring_text ?: "as node.wiring plans");
		return VERDICT_OK;
	}
	(void)snprintf(ev, len, "no node.wiring rule for the PF, or not one current partner");
	return VERDICT_UNKNOWN;
}

/* link: the PF's link health in the agent's last interval */
static enum verdict_state judge_link(const struct verdict_facts *f, char *ev, size_t len)
{
	if (!f->link_reasons) {
		(void)snprintf(ev, len, "%s",
			       f->link_why
				   ?: "no link health read for the PF (the agent's, where "
				      "the driver reports it: rdma_qos_port_link_degraded)");
		return VERDICT_UNKNOWN;
	}
	if (f->link_reasons[0]) {
		(void)snprintf(ev, len, "the PF's link is degraded: %s", f->link_reasons);
		return VERDICT_PROBLEM;
	}
	(void)snprintf(ev, len,
		       "no flap, FEC or symbol errors, health error or low speed in the "
		       "last interval");
	return VERDICT_OK;
}

/* config: NAD keys ADD ignored (unknown to this version: a typo), from the record */
static enum verdict_state judge_config(const struct verdict_facts *f, char *ev, size_t len)
{
	const cJSON *it;
	size_t n = 0;

	if (hostnet(f)) {
		(void)snprintf(ev, len,
			       "no NAD: a host-network pod (the namespace's default "
			       "profile applies)");
		return VERDICT_UNKNOWN;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(f->rec, "ignoredKeys"))
	{
		const char *k = json_str(it, "key"), *near = json_str(it, "nearest");

		if (!k || n >= len)
			continue;
		if (near)
			n += (size_t)snprintf(ev + n, len - n,
					      "%sNAD key \"%s\" ignored (did you mean \"%s\"?)",
					      n ? "; " : "", k, near);
		else
			n += (size_t)snprintf(ev + n, len - n, "%sNAD key \"%s\" ignored",
					      n ? "; " : "", k);
	}
	if (n)
		return VERDICT_PROBLEM;
	(void)snprintf(ev, len, "every NAD key is one this version reads");
	return VERDICT_OK;
}

/* The checks, in the order show prints them and the headline names the first failing one. */
const struct verdict_check verdict_checks[] = {
    {"pf_profile", "the PF does not meet the profile", true, judge_pf_profile},
    {"vf_class", "the VF's traffic class is wrong", true, judge_vf_class},
    {"peer", "the link partner disagrees", true, judge_peer},
    {"qps", "QPs send on a priority without PFC", true, judge_qps},
    {"numa", "the VF is on another NUMA node", false, judge_numa},
    {"gdr", "the VF is far from the pod's GPUs, or the path is degraded", false, judge_gdr},
    {"wiring", "the PF is cabled to another rail than planned", false, judge_wiring},
    {"link", "the PF's link is degraded", false, judge_link},
    {"config", "the NAD has a key ADD ignored", false, judge_config},
};
const size_t verdict_n_checks = sizeof(verdict_checks) / sizeof(verdict_checks[0]);

_Static_assert(sizeof(verdict_checks) / sizeof(verdict_checks[0]) <= VERDICT_MAX_CHECKS,
	       "struct verdict holds VERDICT_MAX_CHECKS");

bool verdict_profile_lossless(const cJSON *rec)
{
	struct rq_profile p;
	struct rq_error e;

	rq_err_clear(&e);
	return profile_from_json(cJSON_GetObjectItemCaseSensitive(rec, "profile"), "profile", "?",
				 &p, &e) == 0 &&
	       p.pfc != 0;
}

void verdict_judge(const struct verdict_facts *f, struct verdict *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->first_lossless = ret->first_problem = -1;
	ret->lossless_profile = verdict_profile_lossless(f->rec);
	for (size_t i = 0; i < verdict_n_checks; i++) {
		ret->st[i] = verdict_checks[i].judge(f, ret->ev[i], sizeof(ret->ev[i]));
		if (ret->st[i] != VERDICT_PROBLEM)
			continue;
		if (ret->first_problem < 0)
			ret->first_problem = (int)i;
		if (verdict_checks[i].lossless && ret->first_lossless < 0)
			ret->first_lossless = (int)i;
	}
}

const char *verdict_state_name(enum verdict_state s)
{
	return s == VERDICT_OK ? "ok" : s == VERDICT_PROBLEM ? "PROBLEM" : "unknown";
}

void verdict_headline(const struct verdict *v, char *buf, size_t len)
{
	if (!v->lossless_profile)
		(void)snprintf(buf, len, "lossless: not required (the profile has no pfc)");
	else if (v->first_lossless < 0)
		(void)snprintf(buf, len, "lossless: yes");
	else
		(void)snprintf(buf, len, "lossless: NO (%s: %s)",
			       verdict_checks[v->first_lossless].words, v->ev[v->first_lossless]);
}

cJSON *verdict_to_json(const struct verdict *v)
{
	cJSON *o = cJSON_CreateObject(), *checks;

	if (!o)
		return NULL;
	if (v->lossless_profile)
		cJSON_AddBoolToObject(o, "lossless", v->first_lossless < 0);
	if (v->first_problem >= 0)
		cJSON_AddStringToObject(o, "firstProblem", verdict_checks[v->first_problem].name);
	checks = cJSON_AddObjectToObject(o, "checks");
	for (size_t i = 0; checks && i < verdict_n_checks; i++) {
		cJSON *c = cJSON_AddObjectToObject(checks, verdict_checks[i].name);

		/* lower case in JSON: scripts compare it */
		cJSON_AddStringToObject(c, "state",
					v->st[i] == VERDICT_PROBLEM ? "problem"
								    : verdict_state_name(v->st[i]));
		cJSON_AddStringToObject(c, "evidence", v->ev[i]);
	}
	return o;
}

void verdict_qps_facts(const struct tel_att *a, struct verdict_facts *f, char *why, size_t len)
{
	f->qps_off = a ? tel_census_off(a) : -1;
	f->qps_why = why;
	if (!a)
		(void)snprintf(why, len, "no QP census of the attachment yet");
	else if (a->census == 0)
		(void)snprintf(why, len, "no QP census: the pod's netns is not reachable");
	else if (a->census < 0)
		(void)snprintf(why, len, "no QP census: %s", strerror(-a->census));
	else if (f->qps_off < 0)
		(void)snprintf(why, len, "%s",
			       a->pfc_req ? "some sending QP's class is not in the driver's dump "
					    "(DCI, DCT, driver QPs)"
					  : "the profile is not lossless");
	else
		why[0] = '\0';
}
