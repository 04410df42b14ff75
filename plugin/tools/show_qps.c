// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma-qos show --qps [--json]`: each attachment's QPs as the census sees
 * them now (telemetry/tel_qps.c, the agent's rdma_qos_vf_qps* families): type
 * (mlx5's DCI, REG_UMR, and DCT where the kernel lists it), state, owner, the class a connected QP
 * in RTS or RTR sends with where the driver dumps QP contexts, the priority the PF's DSCP map gives
 * that class, and whether a lossless attachment's QP leaves on a priority without PFC; on a
 * shared device the method that gave each QP to its attachment, and the device's QPs nobody owns.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/json/jget.h"
#include "pkg/rdma/qp_owner.h"
#include "plugin/attach/hostnet.h"
#include "plugin/telemetry/tel_qps.h"
#include "plugin/tools/tools.h"

static const char *census_word(const struct tel_att *a, char *buf, size_t len)
{
	if (a->census == 1)
		return "ok";
	if (a->census == 0)
		(void)snprintf(buf, len, "error: the pod's netns is not reachable");
	else
		(void)snprintf(buf, len, "error: %s", strerror(-a->census));
	return buf;
}

/* A QP's owner: the census's name, else its process's (not on the simulated node) */
static void qp_comm(const struct rq_env *env, const struct rq_qp *q, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	(void)snprintf(buf, len, "%s", q->comm);
	if (buf[0] || !q->pid || env->sim)
		return;
	(void)snprintf(path, sizeof(path), "/proc/%u/comm", q->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	(void)fclose(f);
}

/* What a QP is, whoever holds it: number, type, state, process, and its class where it is what
 * the QP sends with (not a UD or GSI context's). */
static cJSON *qp_base_json(const struct rq_env *env, const struct rq_qp *q)
{
	cJSON *o = cJSON_CreateObject();
	char comm[64];

	if (!o)
		return NULL;
	qp_comm(env, q, comm, sizeof(comm));
	cJSON_AddNumberToObject(o, "qpn", q->qpn);
	cJSON_AddStringToObject(o, "type", q->type);
	cJSON_AddStringToObject(o, "state", q->state);
	if (q->pid)
		cJSON_AddNumberToObject(o, "pid", q->pid);
	if (comm[0])
		cJSON_AddStringToObject(o, "comm", comm);
	if (q->tclass >= 0 && tel_qp_connected(q))
		cJSON_AddNumberToObject(o, "tclass", q->tclass);
	return o;
}

static cJSON *qp_json(const struct rq_env *env, const struct tel_att *a, size_t i)
{
	const struct rq_qp *q = &a->qps.qp[i];
	cJSON *o = qp_base_json(env, q);

	if (!o)
		return NULL;
	if (a->qp_prio[i] >= 0)
		cJSON_AddNumberToObject(o, "prio", a->qp_prio[i]);
	cJSON_AddBoolToObject(o, "offLossless", a->qp_off[i]);
	/* a shared device's QP: how the census knew it is this attachment's */
	if (a->qp_by)
		cJSON_AddStringToObject(o, "by", rdma_qp_by_name(a->qp_by[i]));
	return o;
}

/* A shared device's user QPs that no attachment owns */
static cJSON *dev_json(const struct rq_env *env, const struct tel_dev *d)
{
	cJSON *o = cJSON_CreateObject(), *qps;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "rdmaDev", d->rdma_dev);
	cJSON_AddStringToObject(o, "pf", d->pf);
	if (d->census != 1) {
		cJSON_AddStringToObject(o, "census", strerror(d->census < 0 ? -d->census : EIO));
		return o;
	}
	cJSON_AddStringToObject(o, "census", "ok");
	qps = cJSON_AddArrayToObject(o, "qps");
	for (size_t i = 0; qps && i < d->qps.n; i++) {
		cJSON *e = qp_base_json(env, &d->qps.qp[i]);

		if (!e)
			break;
		cJSON_AddItemToArray(qps, e);
	}
	return o;
}

static cJSON *att_json(const struct rq_env *env, const struct tel_att *a)
{
	cJSON *o = cJSON_CreateObject(), *qps;
	char why[128];
	int off = tel_census_off(a);

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "namespace", a->ns);
	cJSON_AddStringToObject(o, "pod", a->pod);
	cJSON_AddStringToObject(o, "interface", a->ifname);
	cJSON_AddStringToObject(o, "vf", a->vf);
	if (a->shared)
		cJSON_AddTrueToObject(o, "shared");
	cJSON_AddStringToObject(o, "rdmaDev", a->rdma_dev);
	cJSON_AddStringToObject(o, "pf", a->pf);
	cJSON_AddBoolToObject(o, "lossless", a->pfc_req != 0);
	cJSON_AddStringToObject(o, "census", census_word(a, why, sizeof(why)));
	if (a->census != 1)
		return o;
	cJSON_AddBoolToObject(o, "contextDump", a->qps.has_ctx);
	if (a->qps.drv_hidden) /* the kernel listed the QPs only without the driver's own */
		cJSON_AddBoolToObject(o, "driverQpsHidden", true);
	if (off >= 0)
		cJSON_AddNumberToObject(o, "offLossless", off);
	else if (tel_census_unjudged(a) && tel_census_unjudged(a)[0])
		cJSON_AddStringToObject(o, "notJudged", tel_census_unjudged(a));
	qps = cJSON_AddArrayToObject(o, "qps");
	for (size_t i = 0; qps && i < a->qps.n; i++)
		cJSON_AddItemToArray(qps, qp_json(env, a, i));
	return o;
}

static void att_text(const cJSON *a)
{
	const cJSON *q, *off = cJSON_GetObjectItemCaseSensitive(a, "offLossless");
	const cJSON *qps = cJSON_GetObjectItemCaseSensitive(a, "qps");

	printf("%s/%s %s %s %s %s pf %s %s: census %s", json_str(a, "namespace"),
	       json_str(a, "pod"), json_str(a, "interface"),
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "shared")) ? "shared" : "vf",
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "shared")) ? "device"
									   : json_str(a, "vf"),
	       json_str(a, "rdmaDev")[0] ? json_str(a, "rdmaDev") : "-",
	       json_str(a, "pf")[0] ? json_str(a, "pf") : "-",
	       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "lossless")) ? "lossless" : "lossy",
	       json_str(a, "census"));
	if (qps)
		printf(", %d QPs%s", cJSON_GetArraySize(qps),
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "contextDump")) ||
			       !cJSON_GetArraySize(qps)
			   ? ""
			   : ", no QP context dump (classes unknown)");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "driverQpsHidden")))
		printf(", driver QPs not listed (not judged)");
	if (cJSON_IsNumber(off))
		printf(", %d off lossless", off->valueint);
	else if (json_str(a, "notJudged") && strncmp(json_str(a, "notJudged"), "UD", 2) == 0)
		/* the other reasons are said above or on the QPs' lines */
		printf(", not judged: %s", json_str(a, "notJudged"));
	printf("\n");
	cJSON_ArrayForEach(q, qps)
	{
		int tc = json_int(q, "tclass", -1), prio = json_int(q, "prio", -1);

		printf("  qpn %-6d %-10s %-5s", json_int(q, "qpn", 0), json_str(q, "type"),
		       json_str(q, "state"));
		if (json_int(q, "pid", 0))
			printf(" pid %d", json_int(q, "pid", 0));
		if (json_str(q, "comm"))
			printf(" %s", json_str(q, "comm"));
		if (tc >= 0)
			printf("  class %d (dscp %d)", tc, tc >> 2);
		else if (json_str(q, "type") && (!strcmp(json_str(q, "type"), "DCI") ||
						 !strcmp(json_str(q, "type"), "DCT")))
			printf("  class not dumped (DC: not judged)");
		if (prio >= 0)
			printf(" -> prio %d", prio);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q, "offLossless")))
			printf("  OFF LOSSLESS: no PFC on prio %d", prio);
		if (json_str(q, "by"))
			printf("  by %s", json_str(q, "by"));
		printf("\n");
	}
}

static void dev_text(const cJSON *d)
{
	const cJSON *q, *qps = cJSON_GetObjectItemCaseSensitive(d, "qps");

	printf("shared device %s pf %s: census %s", json_str(d, "rdmaDev"),
	       json_str(d, "pf")[0] ? json_str(d, "pf") : "-", json_str(d, "census"));
	if (qps)
		printf(", %d QPs of no attachment (a host process, a host-network pod "
		       "without hostPID)",
		       cJSON_GetArraySize(qps));
	printf("\n");
	cJSON_ArrayForEach(q, qps)
	{
		printf("  qpn %-6d %-10s %-5s", json_int(q, "qpn", 0), json_str(q, "type"),
		       json_str(q, "state"));
		if (json_int(q, "pid", 0))
			printf(" pid %d", json_int(q, "pid", 0));
		if (json_str(q, "comm"))
			printf(" %s", json_str(q, "comm"));
		if (json_int(q, "tclass", -1) >= 0)
			printf("  class %d (dscp %d)", json_int(q, "tclass", -1),
			       json_int(q, "tclass", -1) >> 2);
		printf("\n");
	}
}

/* A host-network pod's object joins @all's targets under the default profile it carries. */
void show_hostnet_targets(struct tel_sample *all, const cJSON *hostnet)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, hostnet)
	{
		struct rq_profile prof;
		struct rq_error e;

		rq_err_clear(&e);
		if (json_str(o, "noVerdict") || json_str(o, "noDevice") ||
		    profile_from_json(cJSON_GetObjectItemCaseSensitive(o, "profile"), "profile",
				      json_str(o, "profileName") ?: "?", &prof, &e) < 0)
			continue;
		(void)tel_add_record(all, o, &prof);
	}
}

int cmd_show_qps(struct rq_env *env, bool json)
{
	struct tel_sample targets, cur;
	cJSON *o = cJSON_CreateObject(), *arr = o ? cJSON_AddArrayToObject(o, "attachments") : NULL;
	int r;

	tel_sample_init(&targets);
	tel_sample_init(&cur);
	r = arr ? tel_load_records(env, &targets) : -ENOMEM;
	/* host-network pods on shared devices join their device's census by cgroup, when this
	 * process sees the host's PIDs (attach/hostnet.c): one PodResources List */
	if (r == 0 && hostnet_pids_visible()) {
		struct rq_catalog *cat = show_catalog(env);
		cJSON *hostnet = NULL;
		char why[256];

		if (hostnet_scan(env, cat, NULL, &hostnet, why, sizeof(why)) == 0)
			show_hostnet_targets(&targets, hostnet);
		cJSON_Delete(hostnet);
		catalog_free(cat);
	}
	if (r == 0)
		r = tel_copy_targets(&targets, &cur);
	if (r == 0) {
		cur.census = true;
		r = tel_collect(env, &cur, NULL);
	}
	for (size_t i = 0; r == 0 && i < cur.n_atts; i++)
		cJSON_AddItemToArray(arr, att_json(env, &cur.atts[i]));
	if (r == 0 && cur.n_devs) {
		cJSON *devs = cJSON_AddArrayToObject(o, "unattributed");

		for (size_t i = 0; devs && i < cur.n_devs; i++)
			cJSON_AddItemToArray(devs, dev_json(env, &cur.devs[i]));
	}
	if (r == 0 && json) {
		char *s = cJSON_Print(o);

		if (s)
			printf("%s\n", s);
		cJSON_free(s);
	} else if (r == 0) {
		const cJSON *a;

		cJSON_ArrayForEach(a, arr) att_text(a);
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(o, "unattributed"))
		    dev_text(a);
		if (!cJSON_GetArraySize(arr))
			printf("no attachments\n");
	}
	cJSON_Delete(o);
	tel_sample_fini(&cur);
	tel_sample_fini(&targets);
	return r;
}
