// SPDX-License-Identifier: Apache-2.0
/*
 * The shared devices' census (tel_shared.h). A device's QP list is every
 * pod's: it is read once for all of its attachments (the VF census reads one
 * device per attachment), with the device's RDMA-CM ids, and each QP goes to
 * the attachment pkg/rdma/qp_owner.h names, judged there as a VF's QPs are
 * (tel_qps.c). The cgroup method reads /proc/<pid>/cgroup under the host
 * root seam: the PIDs the QP dump gives are in this process's PID namespace,
 * and the simulated node's <root>/proc stands in for it.
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

/* rq_pid_uid_fn: the pod UID in /proc/<pid>/cgroup (cgroup v1 and v2, both kubelet drivers) */
static int pid_uid(void *ctx, uint32_t pid, char *ret, size_t len)
{
	const struct rq_env *env = ctx;
	char path[48], *buf = NULL;
	size_t n = 0;
	int r;

	(void)snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	r = sysfs_read_file(&env->root, path, 65536, &buf, &n);
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

/* Each QP of @all to its owner of @g (indexes into @s->atts), the rest into @d. */
static int distribute(struct tel_sample *s, const size_t *g, size_t ng, struct rq_qp_list *all,
		      const struct rq_qp_owner *own, struct tel_dev *d)
{
	struct rq_qp_list *l = calloc(ng, sizeof(*l));
	uint8_t **by = calloc(ng, sizeof(*by));
	size_t *nb = calloc(ng, sizeof(*nb));
	int r = l && by && nb ? 0 : -ENOMEM;

	for (size_t k = 0; r == 0 && k < ng; k++) {
		by[k] = malloc(all->n ? all->n : 1);
		l[k].has_ctx = all->has_ctx;
		l[k].drv_hidden = all->drv_hidden;
		if (!by[k])
			r = -ENOMEM;
	}
	for (size_t i = 0; r == 0 && i < all->n; i++) {
		int w = own[i].owner;

		if (w >= 0) {
			r = qp_append(&l[w], &all->qp[i]);
			by[w][nb[w]++] = (uint8_t)own[i].by;
		} else if (own[i].by == RQ_QP_BY_NONE) {
			r = qp_append(&d->qps, &all->qp[i]);
		}
	}
	for (size_t k = 0; k < ng; k++) {
		if (r == 0) {
			tel_census_take(s, &s->atts[g[k]], &l[k], by[k]);
			by[k] = NULL;
		} else {
			s->atts[g[k]].census = r;
		}
		rdma_qps_free(l ? &l[k] : NULL);
		free(by ? by[k] : NULL);
	}
	free(l);
	free(by);
	free(nb);
	return r;
}

/* One shared device's census: its attachments @g (of @ng) and its entry @d. */
static void census_dev(const struct rq_env *env, struct tel_sample *s, const size_t *g, size_t ng,
		       struct tel_dev *d)
{
	struct rq_qp_list all = {0};
	struct rq_cm_id_list cm = {0};
	struct rq_qp_owner *own = NULL;
	const cJSON **owners = calloc(ng, sizeof(*owners));
	int r = owners ? 0 : -ENOMEM;

	for (size_t k = 0; k < ng; k++) {
		tel_census_fini(&s->atts[g[k]]);
		if (owners)
			owners[k] = s->atts[g[k]].owner;
	}
	/* a shared device lives in the host's netns: every pod's QPs and ids are listed there */
	if (r == 0)
		r = env->qps_read(env, "", d->rdma_dev, &all);
	if (r == 0 && env->cm_ids_read && env->cm_ids_read(env, "", d->rdma_dev, &cm) < 0) {
		/* no cm_id dump (an old kernel): the other methods still attribute */
		rdma_cm_ids_free(&cm);
	}
	if (r == 0 && !(own = malloc((all.n ? all.n : 1) * sizeof(*own))))
		r = -ENOMEM;
	if (r == 0)
		r = rdma_qps_attribute(&all, &cm, owners, ng, pid_uid, (void *)env, own);
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
