// SPDX-License-Identifier: Apache-2.0
/*
 * CHECK: re-read everything ADD set up and compare with the record and the
 * profile; one error lists every drift as "configured X, current Y".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/attach/pf_require.h"
#include "plugin/cni/commands.h"
#include "plugin/attach/gdr.h"
#include "plugin/attach/vf_class.h"

static void drift_add(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void drift_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static int check_pfs(struct rq_ctx *c, const struct rq_target *t, char *drift, size_t len)
{
	const struct dcb_ops *ops = NULL;
	void *ctx = NULL;
	int r = 0;

	if (!t->vf.has_pf || c->pf_mode == RQ_PF_IGNORE)
		return 0;
	r = c->env.dcb_open(&c->env, &ops, &ctx);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "opening the DCB backend: %s", strerror(-r));
	for (size_t i = 0; i < t->vf.n_pf && r == 0; i++) {
		size_t before = strlen(drift);

		r = pfqos_check(c, ops, ctx, &t->vf.pf[i], drift, len);
		/* prefix the new lines' block with the PF it is about */
		if (r == 0 && strlen(drift) > before) {
			char tmp[4096];

			snprintf(tmp, sizeof(tmp), "PF %s: %s", t->vf.pf[i].ifname, drift + before);
			drift[before] = '\0';
			drift_add(drift, len, "%s", tmp);
		}
	}
	ops->free(ctx);
	return r;
}

/* gdr: strict is judged again: a far pair fails CHECK as it failed ADD (113) */
static int check_gdr(struct rq_ctx *c, const struct rq_target *t)
{
	struct rq_numa_devices *devs = calloc(1, sizeof(*devs));
	struct rq_numa_result numa;
	struct rq_numa_query q = attach_numa_query(c, t);
	struct rq_gdr_result g;
	int r;

	if (!devs)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	q.devices = devs;
	r = numa_evaluate(&c->env.root, &q, &numa);
	gdr_judge(c, t, r == 0 && devs->answered ? devs : NULL, &g);
	free(devs);
	return gdr_enforce(c, &g);
}

int cmd_check(struct rq_ctx *c)
{
	char drift[8192] = "";
	struct rq_target t;
	struct rq_numa_result numa;
	struct rq_numa_query q;
	cJSON *rec = NULL;
	int r;

	r = state_record_read(&c->env.root, c->key, &rec);
	if (r == -ENOENT)
		return rq_err(&c->err, RQ_ERR_UNKNOWN_CONTAINER, r,
			      "no rdma-qos record for container %s ifname %s on network %s: was "
			      "ADD run?",
			      c->args.containerid, c->args.ifname, c->nc->name);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading record %s: %s", c->key, strerror(-r));
	r = attach_load_profile(c);
	if (r == 0)
		r = attach_resolve_target(c, &t);
	if (r == 0 && strcmp(json_str(rec, "vf") ?: "", t.vf.pci))
		drift_add(drift, sizeof(drift), "VF: configured %s, current %s\n",
			  json_str(rec, "vf") ?: "?", t.vf.pci);
	/* a shared attachment: the device its interface leads to now */
	if (r == 0 && t.shared && strcmp(json_str(rec, "rdmaDev") ?: "", t.rdma.name))
		drift_add(drift, sizeof(drift), "shared RDMA device: configured %s, current %s\n",
			  json_str(rec, "rdmaDev") ?: "?", t.rdma.name);
	if (r == 0 && strcmp(json_str(rec, "profileName") ?: "", c->profile.name))
		drift_add(drift, sizeof(drift), "profile: configured %s, current %s\n",
			  json_str(rec, "profileName") ?: "?", c->profile.name);
	if (r == 0)
		r = check_pfs(c, &t, drift, sizeof(drift));
	if (r == 0)
		r = tos_check(c, &t, rec, drift, sizeof(drift));
	if (r == 0 && c->nc->numa == RQ_NUMA_STRICT)
		q = attach_numa_query(c, &t);
	if (r == 0 && c->nc->numa == RQ_NUMA_STRICT &&
	    numa_evaluate(&c->env.root, &q, &numa) == 0 &&
	    (numa.verdict == RQ_NUMA_MISALIGNED || numa.verdict == RQ_NUMA_UNVERIFIABLE))
		drift_add(drift, sizeof(drift), "NUMA: configured strict alignment, current %s\n",
			  numa.evidence);
	cJSON_Delete(rec);
	if (r == 0 && c->nc->gdr == RQ_GDR_STRICT)
		r = check_gdr(c, &t);
	if (r < 0)
		return r;
	if (drift[0]) {
		join_lines(drift, sizeof(drift));
		return rq_err(&c->err, RQ_ERR_DRIFT, -EINVAL, "attachment %s drifted: %s", c->key,
			      drift);
	}
	return 0;
}
