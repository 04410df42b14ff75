// SPDX-License-Identifier: Apache-2.0
/* A shared RDMA device's QPs attributed to attachments (qp_owner.h). */
#include "pkg/rdma/qp_owner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pkg/json/jget.h"
#include "pkg/rdma/gid.h"

#define UID_MAX 80

const char *rdma_qp_by_name(enum rq_qp_by by)
{
	switch (by) {
	case RQ_QP_BY_CM_ID:
		return "cm_id";
	case RQ_QP_BY_SGID:
		return "sgid";
	case RQ_QP_BY_CGROUP:
		return "cgroup";
	case RQ_QP_BY_KERNEL:
		return "kernel";
	default:
		return "";
	}
}

bool rdma_qp_kernel(const struct rq_qp *q)
{
	/* the first byte first: a census asks it of every QP, nearly all "RC" */
	if ((q->type[0] == 'G' && !strcmp(q->type, "GSI")) ||
	    (q->type[0] == 'S' && !strcmp(q->type, "SMI")))
		return true;
	return !q->pid && q->comm[0] && strcmp(q->comm, "ib_uverbs") != 0;
}

/* The numbers of a pid's cgroup, read once per attribution. */
struct pid_memo {
	uint32_t pid;
	int owner; /* -1 none */
};

void rdma_qp_own_free(struct rq_qp_own *o)
{
	if (!o)
		return;
	free(o->ip);
	free(o->gid);
	free(o->uid);
	memset(o, 0, sizeof(*o));
}

int rdma_qp_own_load(const cJSON *rec, struct rq_qp_own *o)
{
	const cJSON *ips = cJSON_GetObjectItemCaseSensitive(rec, "ips");
	const cJSON *gids = cJSON_GetObjectItemCaseSensitive(rec, "gids"), *it;
	int n_ips = cJSON_GetArraySize(ips), n_gids = cJSON_GetArraySize(gids);
	const char *uid = json_str(rec, "podUID");

	memset(o, 0, sizeof(*o));
	o->ip = calloc((size_t)(n_ips > 0 ? n_ips : 1), sizeof(*o->ip));
	o->gid = calloc((size_t)(n_gids > 0 ? n_gids : 1), sizeof(*o->gid));
	o->uid = uid ? strdup(uid) : NULL;
	if (!o->ip || !o->gid || (uid && !o->uid)) {
		rdma_qp_own_free(o);
		return -ENOMEM;
	}
	cJSON_ArrayForEach(it, ips)
	{
		/* prevResult's "10.99.0.11/24" or a bare address; one we do not match is none */
		if (cJSON_IsString(it) && rdma_gid_from_ip(it->valuestring, o->ip[o->n_ip]) == 0)
			o->n_ip++;
	}
	cJSON_ArrayForEach(it, gids)
	{
		int idx = json_int(it, "index", -1);

		if (idx >= 0)
			o->gid[o->n_gid++] = idx;
	}
	return 0;
}

int rdma_qp_own_copy(const struct rq_qp_own *from, struct rq_qp_own *to)
{
	memset(to, 0, sizeof(*to));
	if (!from->ip)
		return 0; /* none loaded: none copied */
	to->ip = malloc((from->n_ip ? from->n_ip : 1) * sizeof(*to->ip));
	to->gid = malloc((from->n_gid ? from->n_gid : 1) * sizeof(*to->gid));
	to->uid = from->uid ? strdup(from->uid) : NULL;
	if (!to->ip || !to->gid || (from->uid && !to->uid)) {
		rdma_qp_own_free(to);
		return -ENOMEM;
	}
	if (from->n_ip)
		memcpy(to->ip, from->ip, from->n_ip * sizeof(*to->ip));
	if (from->n_gid)
		memcpy(to->gid, from->gid, from->n_gid * sizeof(*to->gid));
	to->n_ip = from->n_ip;
	to->n_gid = from->n_gid;
	return 0;
}

/* The one owner that @match says holds the QP; -1 none; -2 two of different pods. */
static int only(const struct rq_qp_own *const *o, size_t n,
		bool (*match)(const struct rq_qp_own *, const void *), const void *key)
{
	int found = -1;

	for (size_t i = 0; i < n; i++) {
		if (!o[i] || !o[i]->ip || !match(o[i], key))
			continue;
		if (found < 0)
			found = (int)i;
		else if (!o[found]->uid || !o[i]->uid || strcasecmp(o[found]->uid, o[i]->uid) != 0)
			return -2;
	}
	return found;
}

static bool has_ip(const struct rq_qp_own *o, const void *key)
{
	for (size_t k = 0; k < o->n_ip; k++)
		if (!memcmp(o->ip[k], key, 16))
			return true;
	return false;
}

static bool has_gid(const struct rq_qp_own *o, const void *key)
{
	for (size_t k = 0; k < o->n_gid; k++)
		if (o->gid[k] == *(const int *)key)
			return true;
	return false;
}

static bool has_uid(const struct rq_qp_own *o, const void *key)
{
	return o->uid && o->uid[0] && !strcasecmp(o->uid, key);
}

/* The owner of QP @q's process by its pod UID, memoised by pid in @m (@nm entries used). */
static int by_cgroup(const struct rq_qp_own *const *o, size_t n, const struct rq_qp *q,
		     rq_pid_uid_fn uid_of, void *ctx, struct pid_memo *m, size_t *nm)
{
	char uid[UID_MAX];
	int w = -1;

	for (size_t k = 0; k < *nm; k++)
		if (m[k].pid == q->pid)
			return m[k].owner;
	if (uid_of(ctx, q, uid, sizeof(uid)) == 0)
		w = only(o, n, has_uid, uid);
	m[*nm].pid = q->pid;
	m[(*nm)++].owner = w;
	return w;
}

/*
 * The id bound to QP @qpn, as rdma_cm_id_of_qp finds it, looked for at *@at first: the
 * kernel lists QPs and ids in the order they were made, so after a QP's id the next
 * QP's is the next id or none. Two ids on one QPN (never the kernel's) are found as
 * rdma_cm_id_of_qp finds them.
 */
static const struct rq_cm_id *cm_next(const struct rq_cm_id_list *l, uint32_t qpn, size_t *at)
{
	const struct rq_cm_id *id = l->id;
	size_t k = *at, lo = 0, hi = l->n;

	if (!qpn || !l->n)
		return NULL;
	if (k >= l->n || id[k].qpn != qpn) {
		/* none between the last one found and the next: no bound id */
		if ((k == l->n || id[k].qpn > qpn) && (k == 0 || id[k - 1].qpn < qpn))
			return NULL;
		while (lo < hi) { /* the first id at or past @qpn */
			size_t mid = lo + (hi - lo) / 2;

			if (id[mid].qpn < qpn)
				lo = mid + 1;
			else
				hi = mid;
		}
		k = lo;
		*at = k;
		if (k == l->n || id[k].qpn != qpn)
			return NULL;
	}
	*at = k + 1;
	if ((k > 0 && id[k - 1].qpn == qpn) || (k + 1 < l->n && id[k + 1].qpn == qpn))
		return rdma_cm_id_of_qp(l, qpn);
	return &id[k];
}

/* The last key a method looked up and its answer: a pod's QPs come in runs of one address */
struct last {
	bool set;
	int w;
};

int rdma_qps_attribute_own(const struct rq_qp_list *qps, const struct rq_cm_id_list *cm,
			   const struct rq_qp_own *const *o, size_t n, rq_pid_uid_fn uid_of,
			   void *ctx, struct rq_qp_owner *ret)
{
	/* one entry per pid a cgroup was asked for: on the stack unless there are many */
	struct pid_memo stack[64], *m = qps->n <= 64 ? stack : malloc(qps->n * sizeof(*m));
	struct last lip = {0}, lgid = {0};
	const uint8_t *lip_key = NULL;
	int lgid_key = -1;
	size_t nm = 0, at = 0;
	int r = m ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < qps->n; i++) {
		const struct rq_qp *q = &qps->qp[i];
		const struct rq_cm_id *c;
		int w = -1;

		ret[i] = (struct rq_qp_owner){.owner = -1, .by = RQ_QP_BY_NONE};
		if (rdma_qp_kernel(q)) {
			ret[i].by = RQ_QP_BY_KERNEL;
			continue;
		}
		c = cm ? cm_next(cm, q->qpn, &at) : NULL;
		if (c && c->has_src) {
			if (!lip.set || memcmp(lip_key, c->src, 16) != 0)
				lip = (struct last){true, only(o, n, has_ip, c->src)};
			lip_key = c->src;
			if ((w = lip.w) >= 0) {
				ret[i] = (struct rq_qp_owner){w, RQ_QP_BY_CM_ID};
				continue;
			}
		}
		if (rdma_qp_ctx_class(q->type) && q->sgid_index >= 0) {
			if (!lgid.set || lgid_key != q->sgid_index)
				lgid = (struct last){true, only(o, n, has_gid, &q->sgid_index)};
			lgid_key = q->sgid_index;
			if ((w = lgid.w) >= 0) {
				ret[i] = (struct rq_qp_owner){w, RQ_QP_BY_SGID};
				continue;
			}
		}
		if (q->pid && uid_of && (w = by_cgroup(o, n, q, uid_of, ctx, m, &nm)) >= 0)
			ret[i] = (struct rq_qp_owner){w, RQ_QP_BY_CGROUP};
	}
	if (m != stack)
		free(m);
	return r;
}

int rdma_qps_attribute(const struct rq_qp_list *qps, const struct rq_cm_id_list *cm,
		       const cJSON *const *owners, size_t n, rq_pid_uid_fn uid_of, void *ctx,
		       struct rq_qp_owner *ret)
{
	struct rq_qp_own *o = calloc(n ? n : 1, sizeof(*o));
	const struct rq_qp_own **p = calloc(n ? n : 1, sizeof(*p));
	int r = o && p ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++)
		if (owners[i] && (r = rdma_qp_own_load(owners[i], &o[i])) == 0)
			p[i] = &o[i];
	if (r == 0)
		r = rdma_qps_attribute_own(qps, cm, p, n, uid_of, ctx, ret);
	for (size_t i = 0; o && i < n; i++)
		rdma_qp_own_free(&o[i]);
	free(o);
	free(p);
	return r;
}
