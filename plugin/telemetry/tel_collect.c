// SPDX-License-Identifier: Apache-2.0
/*
 * Reading one telemetry sample: counters of the PFs that have attachments and of the
 * attachments' RDMA devices, with the labels the records give. The RDMA
 * device is the record's (the agent's pass has already followed a device
 * that re-registered under another name); in exclusive RDMA netns mode its
 * hw_counters are read through the pod's sysfs (pkg/rdma podsys). mlx5's
 * RDMA device counts no packets or bytes: its VF netdev does (ethtool vport
 * counters), read in the pod's netns and added to the same counters, so the
 * metrics and the tools see one set; hw_counters that have them (rxe) win.
 */
#include "plugin/telemetry/telemetry.h"
#include "plugin/telemetry/tel_qps.h"
#include "plugin/telemetry/tel_shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/netns/netns.h"

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The index of the PF named @name in @s (before any rename), or -1. */
static int pf_index(const struct tel_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_pfs; i++)
		if (!strcmp(s->pfs[i].name, name))
			return (int)i;
	return -1;
}

/*
 * A driver reload renames a PF (ens1f0np0 -> eth2): the records keep the
 * name they were made with, so find each PF by its PCI address and carry
 * the current name to the attachments' ports and pf label. All new names are
 * looked up first and applied at once: two PFs may have swapped names. A PF
 * without a netdev now keeps its name (its reads fail: no series).
 */
static void pf_rename(const struct rq_env *env, struct tel_sample *s)
{
	char(*now)[IF_NAMESIZE] = calloc(s->n_pfs ? s->n_pfs : 1, IF_NAMESIZE);
	bool any = false;

	if (!now)
		return;
	for (size_t i = 0; i < s->n_pfs; i++) {
		struct rq_pf pf;

		memcpy(now[i], s->pfs[i].name, IF_NAMESIZE);
		if (s->pfs[i].pci[0] && device_resolve_pf(&env->root, s->pfs[i].pci, &pf) == 0 &&
		    pf.ifname[0] && strcmp(pf.ifname, s->pfs[i].name)) {
			memcpy(now[i], pf.ifname, IF_NAMESIZE);
			any = true;
		}
	}
	for (size_t j = 0; any && j < s->n_atts; j++) {
		struct tel_att *a = &s->atts[j];
		int x = pf_index(s, a->pf);

		for (size_t k = 0; k < a->n_ports; k++) {
			int y = pf_index(s, a->ports[k]);

			if (y >= 0)
				memcpy(a->ports[k], now[y], sizeof(a->ports[k]));
		}
		if (x >= 0)
			memcpy(a->pf, now[x], sizeof(a->pf));
	}
	for (size_t i = 0; any && i < s->n_pfs; i++)
		memcpy(s->pfs[i].name, now[i], IF_NAMESIZE);
	free(now);
}

/*
 * Keep only the families --vf-counters essential exports: every other
 * hw_counters entry (RC_OTHER) is dropped here, so neither the metrics nor
 * the memory of a sample grow with the driver's list.
 */
static void ctr_keep_essential(struct rdma_counters *c)
{
	size_t o = 0;

	for (size_t i = 0; i < c->n; i++) {
		int dir;

		if (rdma_counter_classify(c->names[i], &dir) == RC_OTHER)
			continue;
		if (o != i) {
			memcpy(c->names[o], c->names[i], sizeof(c->names[o]));
			c->vals[o] = c->vals[i];
		}
		o++;
	}
	c->n = o;
}

/* DSCP -> priority as the port has it now: its APP table under trust dscp, else all on 0. */
static void dscp_map(const struct dcb_port_state *st, uint8_t map[64])
{
	bool dscp = false;
	size_t n_dscp = 0;

	for (size_t i = 0; i < st->n_app; i++)
		n_dscp += st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	dscp =
	    st->has_trust ? st->n_trust && st->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP : n_dscp > 0;
	for (int d = 0; d < 64; d++)
		map[d] = dscp ? (uint8_t)(d >> 3) : 0; /* mlx5's fresh dscp2prio is dscp >> 3 */
	for (size_t i = 0; dscp && i < st->n_app; i++)
		if (st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && st->app[i].protocol < 64 &&
		    st->app[i].priority < 8)
			map[st->app[i].protocol] = st->app[i].priority;
}

static void collect_pf(struct tel_pf *pf, const struct ethtool_ops *eops, void *ectx,
		       const struct dcb_ops *dops, void *dctx, uint8_t map[64])
{
	struct dcb_port_state *st = calloc(1, sizeof(*st));
	struct eth_stats es;

	pf->has_stats = eops && eops->stats(ectx, pf->name, &es) == 0;
	if (pf->has_stats) {
		ethtool_port_sample(&es, &pf->ps);
		eth_stats_fini(&es);
	}
	pf->has_dcb = st && dops && dops->get(dctx, pf->name, st) == 0;
	if (pf->has_dcb) {
		pf->pfc_en = st->has_pfc ? st->pfc_en : 0;
		dscp_map(st, map);
		pf->has_prio_tc = true;
		for (int p = 0; p < 8; p++) {
			int tc = dcb_tc_of_prio(st, p);

			pf->prio_tc[p] = tc < 0 ? 0xff : (uint8_t)tc;
		}
	}
	free(st);
}

static bool ctr_has_traffic(const struct rdma_counters *c)
{
	for (size_t i = 0; i < c->n; i++) {
		int dir;
		enum rdma_ctr k = rdma_counter_classify(c->names[i], &dir);

		if (k == RC_PACKETS || k == RC_BYTES)
			return true;
	}
	return false;
}

/*
 * The VF netdev's vport RDMA counters, added to @a's counters: only those the
 * driver has (no netdev, no netns, another driver: nothing added).
 */
static void collect_vport(struct tel_att *a, const char *podns, const struct ethtool_ops *eops,
			  void *ectx)
{
	char(*names)[RQ_RDMA_CTR_NAME];
	struct eth_stats es;
	uint64_t *vals;

	if (!eops || !eops->stats_netns || !a->ifname[0] ||
	    eops->stats_netns(ectx, podns, a->ifname, &es) < 0)
		return;
	if (!a->has_ctr)
		rdma_counters_fini(&a->ctr);
	/* spare room left by a failed second realloc is harmless: n says what is there */
	names = realloc(a->ctr.names, (a->ctr.n + RQ_VPORT_RDMA_N) * sizeof(*names));
	if (names)
		a->ctr.names = names;
	vals = names ? realloc(a->ctr.vals, (a->ctr.n + RQ_VPORT_RDMA_N) * sizeof(*vals)) : NULL;
	if (vals) {
		a->ctr.vals = vals;
		for (int i = 0; i < RQ_VPORT_RDMA_N; i++)
			if (eth_stats_get(&es, ethtool_vport_rdma_names[i],
					  &a->ctr.vals[a->ctr.n]) == 0)
				(void)snprintf(a->ctr.names[a->ctr.n++], RQ_RDMA_CTR_NAME, "%s",
					       ethtool_vport_rdma_names[i]);
		a->has_ctr = a->ctr.n > 0;
	}
	eth_stats_fini(&es);
}

/*
 * Where this process finds @a's pod netns, checked to be the record's
 * (attach/podns.c): a /proc/<pid> path of another PID namespace through the
 * host's /proc, and never a netns another process has at that path now.
 */
static int att_podns(const struct rq_env *env, const struct tel_att *a, char *buf, size_t len)
{
	struct netns_rec n = {a->podns, a->pidns, a->ns_dev, a->ns_ino, a->ns_pid_start};

	return netns_open_rec(&n, env->host_proc, buf, len, NULL);
}

int tel_collect(const struct rq_env *env, struct tel_sample *s, struct rdma_ctr_cache *cache)
{
	const struct ethtool_ops *eops = NULL;
	const struct dcb_ops *dops = NULL;
	void *ectx = NULL, *dctx = NULL;
	s->t = mono_now();
	s->census_s = 0;
	pf_rename(env, s);
	if ((s->n_pfs || s->n_atts) && env->ethtool_open &&
	    env->ethtool_open(env, &eops, &ectx) < 0)
		eops = NULL;
	if (s->n_pfs && env->dcb_open(env, &dops, &dctx) < 0)
		dops = NULL;
	for (size_t i = 0; i < s->n_pfs; i++) {
		if (env->counter_read)
			env->counter_read(env);
		collect_pf(&s->pfs[i], eops, ectx, dops, dctx, s->pfs[i].dscp2prio);
	}
	if (dops)
		dops->free(dctx);
	for (size_t i = 0; i < s->n_atts; i++) {
		struct tel_att *a = &s->atts[i];
		char podns[RQ_NETNS_PATH_MAX] = "";
		int prio = -1, nr;

		if (env->counter_read)
			env->counter_read(env);
		/* every port it can leave by (a VF LAG: each slave); its label's map names prio */
		for (size_t j = 0; j < s->n_pfs; j++)
			if (s->pfs[j].has_dcb && a->tclass >= 0 &&
			    tel_att_on_pf(a, s->pfs[j].name)) {
				uint8_t q = s->pfs[j].dscp2prio[(a->tclass >> 2) & 63];

				if (prio < 0 || !strcmp(s->pfs[j].name, a->pf))
					prio = q;
				if (a->pfc_req)
					s->pfs[j].roce_prios |= (uint8_t)(1u << q);
			}
		if (prio >= 0)
			a->prio = prio;
		rdma_counters_fini(&a->ctr);
		nr = a->podns[0] ? att_podns(env, a, podns, sizeof(podns)) : 0;
		/*
		 * another netns at the pod's path (a PID reused): nothing there is the pod's;
		 * a shared device's counters count every pod's traffic: none is this pod's
		 */
		if (nr == -ESTALE || !a->rdma_dev[0] || a->shared)
			a->has_ctr = false;
		else if (cache && !a->netns[0])
			a->has_ctr = rdma_counters_read_cached(cache, &env->root, a->rdma_dev,
							       a->port, &a->ctr) == 0;
		else
			a->has_ctr = (!a->netns[0] || nr == 0) &&
				     rdma_counters_read(&env->root, a->netns[0] ? podns : "",
							a->rdma_dev, a->port, &a->ctr) == 0;
		if (a->has_ctr && !env->tel_vf_all)
			ctr_keep_essential(&a->ctr);
		if (nr == 0 && !a->shared && (!a->has_ctr || !ctr_has_traffic(&a->ctr)))
			collect_vport(a, podns, eops, ectx);
		if (s->census && a->shared) {
			/* below: once per shared device */
		} else if (s->census) {
			double t0 = mono_now();

			tel_census(env, s, a,
				   nr == -ESTALE  ? NULL
				   : !a->netns[0] ? ""
				   : nr == 0	  ? podns
						  : NULL);
			s->census_s += mono_now() - t0;
		} else if (s->census_from) {
			tel_census_carry(s, a, tel_att_prev(s->census_from, a, i));
		}
	}
	if (s->census) {
		double t0 = mono_now();

		tel_shared_census(env, s);
		s->census_s += mono_now() - t0;
	} else if (s->census_from) {
		tel_shared_carry(s, s->census_from);
	}
	if (eops)
		eops->free(ectx);
	rdma_ctr_cache_sweep(cache);
	s->t = (s->t + mono_now()) / 2;
	return 0;
}
