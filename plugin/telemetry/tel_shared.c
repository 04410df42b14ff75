// SPDX-License-Identifier: Apache-2.0
/*
 * The shared devices' census (tel_shared.h). A device's QP list is every
 * pod's: it is read once for all of its attachments (the VF census reads one
 * device per attachment), with the device's RDMA-CM ids, and each QP goes to
 * the attachment pkg/rdma/qp_owner.h names, judged there as a VF's QPs are
 * (tel_qps.c). The cgroup method reads /proc/<pid>/cgroup under the host
 * root seam: the PIDs the QP dump gives are in this process's PID namespace,
 * and the simulated node's <root>/proc stands in for it; a process still
 * holding a QP the last census gave by its cgroup is not read again.
 */
#include "plugin/telemetry/tel_shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/log/log.h"
#include "pkg/rdma/qp_owner.h"
#include "plugin/telemetry/tel_qps.h"

void tel_devs_fini(struct tel_sample *s)
{
	for (size_t i = 0; i < s->n_devs; i++)
		rdma_qps_free(&s->devs[i].qps);
	free(s->devs);
	s->devs = NULL;
	s->n_devs = 0;
}

/* What the cgroup method reads with: the host root, and the last census of the device */
struct uid_ctx {
	const struct rq_env *env;
	const struct tel_sample *prev;
	const char *dev;
};

/*
 * The pod the last census gave QP @q to by its process's cgroup, if it was
 * the same QP of the same process (same QPN, same pid): the process still
 * holds it, so it is the same process, in the same pod (kubelet never moves a
 * process to another pod's cgroup), and its cgroup file is not read again.
 */
static const char *uid_known(const struct uid_ctx *u, const struct rq_qp *q)
{
	for (size_t i = 0; u->prev && i < u->prev->n_atts; i++) {
		const struct tel_att *a = &u->prev->atts[i];

		if (!a->shared || !a->qp_by || strcmp(a->rdma_dev, u->dev) != 0)
			continue;
		/* a list whose QPNs all lie elsewhere holds no such QP: not read (cold memory) */
		if (a->qp_range && (q->qpn < a->qpn_lo || q->qpn > a->qpn_hi))
			continue;
		for (size_t k = 0; k < a->qps.n; k++)
			if (a->qps.qp[k].qpn == q->qpn && a->qps.qp[k].pid == q->pid)
				return a->qp_by[k] == RQ_QP_BY_CGROUP ? a->own.uid : NULL;
	}
	return NULL;
}

/*
 * rq_pid_uid_fn: the pod UID in /proc/<pid>/cgroup (cgroup v1 and v2, both
 * kubelet drivers), unless the last census knew it (uid_known)
 */
static int pid_uid(void *ctx, const struct rq_qp *q, char *ret, size_t len)
{
	const struct uid_ctx *u = ctx;
	const char *known = uid_known(u, q);
	char path[48], *buf = NULL;
	size_t n = 0;
	int r;

	if (known) {
		if (strlen(known) >= len)
			return -ENAMETOOLONG;
		memcpy(ret, known, strlen(known) + 1);
		return 0;
	}
	(void)snprintf(path, sizeof(path), "/proc/%u/cgroup", q->pid);
	r = sysfs_read_file(&u->env->root, path, 65536, &buf, &n);
	if (r == 0)
		r = kubelet_cgroup_pod_uid(buf, n, ret, len);
	free(buf);
	return r;
}

static int qp_append(struct rq_qp_list *l, const struct rq_qp *q)
{
	struct rq_qp *n = rdma_qps_add(l);

	if (!n)
		return -ENOMEM;
	*n = *q;
	return 0;
}

/* The attachments of @s on shared device @dev, in sample order: their indexes in @idx. */
static size_t group(const struct tel_sample *s, const char *dev, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_atts; i++)
		if (s->atts[i].shared && !strcmp(s->atts[i].rdma_dev, dev))
			idx[n++] = i;
	return n;
}

/* One attachment's share of its device's QPs while they are given out */
struct share {
	struct rq_qp_list l;
	uint8_t *by;
	uint32_t lo, hi; /* its lowest and highest QPN */
};

/* Each QP of @all to its owner of @g (indexes into @s->atts), the rest into @d. */
static int distribute(struct tel_sample *s, const size_t *g, size_t ng, struct rq_qp_list *all,
		      const struct rq_qp_owner *own, struct tel_dev *d)
{
	struct share *h = calloc(ng, sizeof(*h));
	int r = h ? 0 : -ENOMEM;

	/* each list at its size: one allocation, no growing */
	for (size_t i = 0; r == 0 && i < all->n; i++)
		if (own[i].owner >= 0)
			h[own[i].owner].l.cap++;
	for (size_t k = 0; r == 0 && k < ng; k++) {
		size_t n = h[k].l.cap ? h[k].l.cap : 1;

		h[k].by = malloc(n);
		h[k].l.qp = malloc(n * sizeof(*h[k].l.qp));
		h[k].l.has_ctx = all->has_ctx;
		h[k].l.drv_hidden = all->drv_hidden;
		if (!h[k].by || !h[k].l.qp)
			r = -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < all->n; i++) {
		int w = own[i].owner;

		if (w >= 0) { /* counted above: room for it */
			struct share *x = &h[w];
			uint32_t qpn = all->qp[i].qpn;

			x->lo = x->l.n && x->lo < qpn ? x->lo : qpn;
			x->hi = x->l.n && x->hi > qpn ? x->hi : qpn;
			x->by[x->l.n] = (uint8_t)own[i].by;
			x->l.qp[x->l.n++] = all->qp[i];
		} else if (own[i].by == RQ_QP_BY_NONE) {
			r = qp_append(&d->qps, &all->qp[i]);
		}
	}
	for (size_t k = 0; h && k < ng; k++) {
		if (r == 0) {
			struct tel_att *a = &s->atts[g[k]];
			bool any = h[k].l.n > 0;

			tel_census_take(s, a, &h[k].l, h[k].by);
			h[k].by = NULL;
			/* its QPNs: the next census reads no other list for it (uid_known) */
			a->qp_range = a->census == 1 && any;
			a->qpn_lo = h[k].lo;
			a->qpn_hi = h[k].hi;
		} else {
			s->atts[g[k]].census = r;
		}
		rdma_qps_free(&h[k].l);
		free(h[k].by);
	}
	if (!h)
		for (size_t k = 0; k < ng; k++)
			s->atts[g[k]].census = r;
	free(h);
	return r;
}

/*
 * Whether an RDMA-CM id can give one of @all's QPs to an attachment: only to one
 * with an address (a host-network pod's object has none), and only a user QP. When
 * not, the ids are not read (a netlink dump less per census): the cm_id method would
 * name no QP, and the others attribute them as they would.
 */
static bool ids_may_own(const struct rq_qp_own *const *o, size_t n, const struct rq_qp_list *all)
{
	bool addr = false, user = false;

	for (size_t k = 0; k < n && !addr; k++)
		addr = o[k] && o[k]->ip && o[k]->n_ip > 0;
	for (size_t i = 0; addr && i < all->n && !user; i++)
		user = !rdma_qp_kernel(&all->qp[i]);
	return addr && user;
}

/* One shared device's census: its attachments @g (of @ng) and its entry @d. */
static void census_dev(const struct rq_env *env, struct tel_sample *s, const size_t *g, size_t ng,
		       struct tel_dev *d)
{
	struct rq_qp_list all = {0};
	struct rq_cm_id_list cm = {0};
	struct rq_qp_owner *own = NULL;
	const struct rq_qp_own **owners = calloc(ng, sizeof(*owners));
	int r = owners ? 0 : -ENOMEM;

	for (size_t k = 0; k < ng; k++) {
		tel_census_fini(&s->atts[g[k]]);
		if (owners)
			owners[k] = &s->atts[g[k]].own;
	}
	/* a shared device lives in the host's netns: every pod's QPs and ids are listed there */
	if (r == 0)
		r = env->qps_read(env, "", d->rdma_dev, &all);
	if (r == 0 && env->cm_ids_read && ids_may_own(owners, ng, &all) &&
	    env->cm_ids_read(env, "", d->rdma_dev, &cm) < 0) {
		/* no cm_id dump (an old kernel): the other methods still attribute */
		rdma_cm_ids_free(&cm);
	}
	if (r == 0 && !(own = malloc((all.n ? all.n : 1) * sizeof(*own))))
		r = -ENOMEM;
	if (r == 0) {
		struct uid_ctx u = {.env = env, .prev = s->census_prev, .dev = d->rdma_dev};

		r = rdma_qps_attribute_own(&all, &cm, owners, ng, pid_uid, &u, own);
	}
	if (r == 0)
		r = distribute(s, g, ng, &all, own, d);
	if (r < 0) {
		for (size_t k = 0; k < ng; k++)
			s->atts[g[k]].census = r;
		rdma_qps_free(&d->qps);
		if (r != -ENODEV)
			log_debug("census: shared %s: %s", d->rdma_dev, strerror(-r));
	}
	d->census = r < 0 ? r : 1;
	rdma_qps_free(&all);
	rdma_cm_ids_free(&cm);
	free(own);
	free(owners);
}

void tel_shared_census(const struct rq_env *env, struct tel_sample *s)
{
	size_t *g = malloc((s->n_atts ? s->n_atts : 1) * sizeof(*g));

	tel_devs_fini(s);
	for (size_t i = 0; g && env->qps_read && i < s->n_atts; i++) {
		const struct tel_att *a = &s->atts[i];
		struct tel_dev *d;
		size_t ng;
		bool seen = false;

		if (!a->shared || !a->rdma_dev[0])
			continue;
		for (size_t k = 0; k < s->n_devs; k++)
			seen = seen || !strcmp(s->devs[k].rdma_dev, a->rdma_dev);
		if (seen)
			continue;
		d = realloc(s->devs, (s->n_devs + 1) * sizeof(*d));
		if (!d)
			break;
		s->devs = d;
		d = &s->devs[s->n_devs++];
		memset(d, 0, sizeof(*d));
		(void)snprintf(d->rdma_dev, sizeof(d->rdma_dev), "%s", a->rdma_dev);
		(void)snprintf(d->pf, sizeof(d->pf), "%s", a->pf);
		ng = group(s, a->rdma_dev, g);
		census_dev(env, s, g, ng, d);
	}
	free(g);
}

void tel_shared_carry(struct tel_sample *s, const struct tel_sample *p)
{
	tel_devs_fini(s);
	if (!p || !p->n_devs)
		return;
	s->devs = calloc(p->n_devs, sizeof(*s->devs));
	if (!s->devs)
		return;
	for (size_t i = 0; i < p->n_devs; i++) {
		struct tel_dev *d = &s->devs[s->n_devs++];

		*d = p->devs[i];
		memset(&d->qps, 0, sizeof(d->qps));
		d->qps.has_ctx = p->devs[i].qps.has_ctx;
		for (size_t k = 0; k < p->devs[i].qps.n; k++)
			if (qp_append(&d->qps, &p->devs[i].qps.qp[k]) < 0) {
				d->census = -ENOMEM;
				rdma_qps_free(&d->qps);
				break;
			}
	}
}
