// SPDX-License-Identifier: Apache-2.0
/*
 * One telemetry sample: counters of the PFs that have attachments and of the
 * attachments' RDMA devices, with the labels the records give. The RDMA
 * device is the record's (the agent's pass has already followed a device
 * that re-registered under another name); in exclusive RDMA netns mode its
 * hw_counters are read through the pod's sysfs (pkg/rdma podsys). mlx5's
 * RDMA device counts no packets or bytes: its VF netdev does (ethtool vport
 * counters), read in the pod's netns and added to the same counters, so the
 * metrics and the tools see one set; hw_counters that have them (rxe) win.
 */
#include "plugin/core/telemetry.h"
#include "plugin/core/tel_qps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/netns/netns.h"

void tel_sample_init(struct tel_sample *s)
{
	memset(s, 0, sizeof(*s));
}

void tel_sample_fini(struct tel_sample *s)
{
	for (size_t i = 0; i < s->n_atts; i++) {
		rdma_counters_fini(&s->atts[i].ctr);
		tel_census_fini(&s->atts[i]);
	}
	free(s->atts);
	free(s->pfs);
	memset(s, 0, sizeof(*s));
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int pf_add(struct tel_sample *s, const char *name, const char *pci)
{
	struct tel_pf key;
	struct tel_pf *n;

	memset(&key, 0, sizeof(key));
	(void)snprintf(key.name, sizeof(key.name), "%s", name);
	(void)snprintf(key.pci, sizeof(key.pci), "%s", pci);
	if (!name[0] || tel_pf_find(s, name) || tel_pf_same(s, &key))
		return 0;
	n = realloc(s->pfs, (s->n_pfs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->pfs = n;
	n = &s->pfs[s->n_pfs++];
	memset(n, 0, sizeof(*n));
	*n = key;
	return 0;
}

static struct tel_att *att_new(struct tel_sample *s)
{
	struct tel_att *n;

	/* grow geometrically: the agent adds 256 of them one by one */
	if ((s->n_atts & (s->n_atts - 1)) == 0) {
		n = realloc(s->atts, (s->n_atts ? s->n_atts * 2 : 4) * sizeof(*n));
		if (!n)
			return NULL;
		s->atts = n;
	}
	n = &s->atts[s->n_atts++];
	memset(n, 0, sizeof(*n));
	n->prio = -1;
	return n;
}

/* What tells the pod's netns from another at its path (core/podns.c), for the read */
static void att_podns_set(struct tel_att *a, const cJSON *rec)
{
	struct netns_rec n;

	podns_of_record(rec, &n);
	(void)snprintf(a->pidns, sizeof(a->pidns), "%s", n.pidns ?: "");
	a->ns_dev = n.dev;
	a->ns_ino = n.ino;
	a->ns_pid_start = n.pid_start;
}

int tel_add_record(struct tel_sample *s, const cJSON *rec, const struct rq_profile *prof)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	const cJSON *pfs = cJSON_GetObjectItemCaseSensitive(rec, "pfs"), *it;
	struct rq_profile own;
	struct rq_error e;
	struct tel_att *a;
	int r;

	if (!prof) {
		if (profile_from_json(cJSON_GetObjectItemCaseSensitive(rec, "profile"), "profile",
				      json_str(rec, "profileName") ?: "?", &own, &e) < 0)
			profile_empty(&own, json_str(rec, "profileName") ?: "?");
		prof = &own;
	}
	a = att_new(s);
	if (!a)
		return -ENOMEM;
	(void)snprintf(a->ns, sizeof(a->ns), "%s", json_str(rec, "podNamespace") ?: "");
	(void)snprintf(a->pod, sizeof(a->pod), "%s", json_str(rec, "podName") ?: "");
	(void)snprintf(a->ifname, sizeof(a->ifname), "%s", json_str(rec, "ifname") ?: "");
	(void)snprintf(a->vf, sizeof(a->vf), "%s", json_str(rec, "vf") ?: "");
	(void)snprintf(a->rdma_dev, sizeof(a->rdma_dev), "%s", json_str(rd, "device") ?: "");
	cJSON_ArrayForEach(it, pfs)
	{
		const char *name = json_str(it, "ifname");

		if (!name || !name[0] || a->n_ports >= RQ_MAX_PFS)
			continue;
		if ((r = pf_add(s, name, json_str(it, "pci") ?: "")) < 0)
			return r;
		(void)snprintf(a->ports[a->n_ports++], sizeof(a->ports[0]), "%s", name);
	}
	(void)snprintf(a->pf, sizeof(a->pf), "%s", a->n_ports ? a->ports[0] : "");
	(void)snprintf(a->podns, sizeof(a->podns), "%s", json_str(rec, "netns") ?: "");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rd, "inPod")))
		(void)snprintf(a->netns, sizeof(a->netns), "%s", json_str(rec, "netns") ?: "");
	att_podns_set(a, rec);
	a->port = json_int(rd, "port", 1);
	a->tclass = prof->traffic_class;
	a->pfc_req = prof->pfc;
	return 0;
}

int tel_load_records(const struct rq_env *env, struct tel_sample *s)
{
	char **keys = NULL;
	size_t n = 0;
	int r = state_record_list(&env->root, &keys, &n);

	if (r == -ENOENT)
		return 0;
	for (size_t i = 0; r == 0 && i < n; i++) {
		cJSON *rec = NULL;

		/* a record just taken by DEL, or pending an ADD: not (yet) an attachment */
		if (state_record_read(&env->root, keys[i], &rec) == 0 &&
		    !cJSON_GetObjectItemCaseSensitive(rec, "pending"))
			r = tel_add_record(s, rec, NULL);
		cJSON_Delete(rec);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return r < 0 ? r : 0;
}

int tel_copy_targets(const struct tel_sample *from, struct tel_sample *to)
{
	tel_sample_init(to);
	to->pfs = malloc((from->n_pfs ? from->n_pfs : 1) * sizeof(*to->pfs));
	to->atts = malloc((from->n_atts ? from->n_atts : 1) * sizeof(*to->atts));
	if (!to->pfs || !to->atts) {
		tel_sample_fini(to);
		return -ENOMEM;
	}
	for (size_t i = 0; i < from->n_pfs; i++) {
		memset(&to->pfs[i], 0, sizeof(to->pfs[i]));
		memcpy(to->pfs[i].name, from->pfs[i].name, sizeof(to->pfs[i].name));
		memcpy(to->pfs[i].pci, from->pfs[i].pci, sizeof(to->pfs[i].pci));
	}
	to->n_pfs = from->n_pfs;
	for (size_t i = 0; i < from->n_atts; i++) {
		to->atts[i] = from->atts[i];
		to->atts[i].has_ctr = false;
		memset(&to->atts[i].ctr, 0, sizeof(to->atts[i].ctr));
		tel_census_forget(&to->atts[i]);
		to->atts[i].prio = -1;
	}
	to->n_atts = from->n_atts;
	to->census = from->census;
	return 0;
}

bool tel_att_on_pf(const struct tel_att *a, const char *pf)
{
	for (size_t i = 0; i < a->n_ports; i++)
		if (!strcmp(a->ports[i], pf))
			return true;
	return false;
}

const struct tel_pf *tel_pf_find(const struct tel_sample *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_pfs; i++)
		if (!strcmp(s->pfs[i].name, name))
			return &s->pfs[i];
	return NULL;
}

const struct tel_pf *tel_pf_same(const struct tel_sample *s, const struct tel_pf *pf)
{
	for (size_t i = 0; pf->pci[0] && s && i < s->n_pfs; i++)
		if (!strcmp(s->pfs[i].pci, pf->pci))
			return &s->pfs[i];
	return tel_pf_find(s, pf->name);
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
 * (core/podns.c): a /proc/<pid> path of another PID namespace through the
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
		/* another netns at the pod's path (a PID reused): nothing there is the pod's */
		if (nr == -ESTALE || !a->rdma_dev[0])
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
		if (nr == 0 && (!a->has_ctr || !ctr_has_traffic(&a->ctr)))
			collect_vport(a, podns, eops, ectx);
		if (s->census) {
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
	if (eops)
		eops->free(ectx);
	rdma_ctr_cache_sweep(cache);
	s->t = (s->t + mono_now()) / 2;
	return 0;
}

/* The same VF and RDMA device of the same pod: a rate across a move to another pod is no rate. */
static bool att_same(const struct tel_att *p, const struct tel_att *a)
{
	return !strcmp(p->vf, a->vf) && !strcmp(p->rdma_dev, a->rdma_dev) &&
	       !strcmp(p->ns, a->ns) && !strcmp(p->pod, a->pod);
}

const struct tel_att *tel_att_prev(const struct tel_sample *prev, const struct tel_att *a,
				   size_t hint)
{
	if (!prev)
		return NULL;
	if (hint < prev->n_atts && att_same(&prev->atts[hint], a))
		return &prev->atts[hint];
	for (size_t i = 0; i < prev->n_atts; i++)
		if (att_same(&prev->atts[i], a))
			return &prev->atts[i];
	return NULL;
}

static int ctr_get(const struct tel_att *a, const char *name, size_t hint, uint64_t *ret)
{
	if (!a || !a->has_ctr)
		return -ENOENT;
	if (hint < a->ctr.n && !strcmp(a->ctr.names[hint], name)) {
		*ret = a->ctr.vals[hint];
		return 0;
	}
	for (size_t i = 0; i < a->ctr.n; i++)
		if (!strcmp(a->ctr.names[i], name)) {
			*ret = a->ctr.vals[i];
			return 0;
		}
	return -ENOENT;
}

int tel_att_delta(const struct tel_att *a, const struct tel_att *p, const char *name, uint64_t *ret)
{
	uint64_t c, o;

	if (ctr_get(a, name, 0, &c) < 0 || ctr_get(p, name, 0, &o) < 0)
		return -ENOENT;
	*ret = rdma_counter_delta(o, c, rdma_counter_bits(name));
	return 0;
}

/* The increase of port counter (@k, @prio, @dir) over the interval; false: no such counter. */
bool tel_port_delta(const struct tel_pf *o, const struct tel_pf *n, enum port_stat k, int prio,
		    int dir, uint64_t *ret)
{
	if (!o || !o->has_stats || !n->has_stats || !o->ps.has[k][prio][dir] ||
	    !n->ps.has[k][prio][dir])
		return false;
	*ret = tel_delta(o->ps.v[k][prio][dir], n->ps.v[k][prio][dir]);
	return true;
}

static int8_t storm(const struct tel_pf *o, const struct tel_pf *n, double dt)
{
	int8_t v = -1;
	uint64_t d;

	for (int lvl = 0; lvl < 2; lvl++)
		if (tel_port_delta(o, n, PS_STORM_EVENTS, 0, lvl, &d))
			v = d > 0 || v == 1 ? 1 : 0;
	for (int p = 0; p < PS_PRIOS; p++)
		for (int dir = 0; dir < 2; dir++)
			if (tel_port_delta(o, n, PS_PAUSE_USEC, p, dir, &d))
				v = (double)d / 1e6 > TEL_STORM_SHARE * dt || v == 1 ? 1 : 0;
	/* a port running link-level pause instead of PFC: the same verdict on its one pause */
	for (int dir = 0; dir < 2; dir++)
		if (tel_port_delta(o, n, PS_GPAUSE_USEC, 0, dir, &d))
			v = (double)d / 1e6 > TEL_STORM_SHARE * dt || v == 1 ? 1 : 0;
	return v;
}

/* Did the lossless attachments on @pf whose RoCE leaves on @p send anything? -1: cannot tell. */
static int vf_sent(const struct tel_sample *prev, const struct tel_sample *cur,
		   const struct tel_pf *pf, int p)
{
	int v = -1;

	for (size_t i = 0; i < cur->n_atts; i++) {
		const struct tel_att *a = &cur->atts[i];
		uint64_t d;

		if (!tel_att_on_pf(a, pf->name) || a->prio != p || !a->pfc_req)
			continue;
		if (tel_att_delta(a, tel_att_prev(prev, a, i), "sent_pkts", &d) == 0 ||
		    tel_att_delta(a, tel_att_prev(prev, a, i),
				  ethtool_vport_rdma_names[RQ_VPORT_RDMA_TX_PACKETS], &d) == 0)
			v = d > 0 || v == 1 ? 1 : 0;
	}
	return v;
}

/*
 * Did the traffic class that carries PFC priority @p drop on the host side
 * (buffer or congestion discards, which mlx5 counts per TC)? -1: no map or
 * no such counter.
 */
static int8_t host_drops(const struct tel_pf *o, const struct tel_pf *n, int p)
{
	int8_t v = -1;
	uint64_t d;
	int tc;

	if (!n->has_prio_tc || !o->has_prio_tc || n->prio_tc[p] >= PS_PRIOS)
		return -1;
	tc = n->prio_tc[p];
	if (tel_port_delta(o, n, PS_TC_BUF_DISCARDS, tc, 0, &d))
		v = d > 0;
	if (tel_port_delta(o, n, PS_TC_CONG_DISCARDS, tc, 0, &d))
		v = d > 0 || v == 1;
	return v;
}

void tel_derive(const struct tel_sample *prev, const struct tel_sample *cur,
		const struct tel_pf *pf, struct tel_derived *ret)
{
	const struct tel_pf *o = tel_pf_same(prev, pf);
	double dt = prev ? cur->t - prev->t : 0;
	uint64_t d;

	memset(ret, -1, sizeof(*ret));
	if (!o || dt <= 0)
		return;
	ret->pause_storm = storm(o, pf, dt);
	if (!pf->has_dcb)
		return;
	for (int p = 0; p < PS_PRIOS; p++) {
		bool on = pf->pfc_en & (1u << p);
		int sent;

		if (on) {
			/* the port's own per-priority discards only: the link partner's side */
			if (tel_port_delta(o, pf, PS_PRIO_DISCARDS, p, 0, &d))
				ret->discards_on_pfc[p] = d > 0;
			ret->host_drops_on_pfc[p] = host_drops(o, pf, p);
		}
		if (!(pf->roce_prios & (1u << p)))
			continue;
		/*
		 * The lossless attachments' own RoCE tx, never the port's whole
		 * priority: TCP on priority 0 is not RoCE in the wrong queue
		 */
		sent = vf_sent(prev, cur, pf, p);
		if (on)
			ret->roce_on_lossy[p] = 0;
		else if (sent >= 0)
			ret->roce_on_lossy[p] = (int8_t)sent;
	}
}

static double rate_of(const struct tel_att *a, const struct tel_att *p, enum rdma_ctr kind,
		      int want_dir, double dt)
{
	double sum = -1;

	for (size_t i = 0; a->has_ctr && p && i < a->ctr.n; i++) {
		uint64_t o;
		int dir;

		if (rdma_counter_classify(a->ctr.names[i], &dir) != kind ||
		    (want_dir >= 0 && dir != want_dir) || ctr_get(p, a->ctr.names[i], i, &o) < 0)
			continue;
		sum = (sum < 0 ? 0 : sum) +
		      (double)rdma_counter_delta(o, a->ctr.vals[i],
						 rdma_counter_bits(a->ctr.names[i])) /
			  dt;
	}
	return sum;
}

void tel_att_rates(const struct tel_sample *prev, const struct tel_sample *cur, size_t i,
		   struct tel_att_rates *ret)
{
	const struct tel_att *a = &cur->atts[i], *p = tel_att_prev(prev, a, i);
	double dt = prev ? cur->t - prev->t : 0;
	uint64_t d;

	memset(ret, 0, sizeof(*ret));
	ret->prio = a->prio;
	if (dt <= 0) {
		ret->cnp_sent = ret->cnp_handled = ret->ecn_marked = ret->retrans = -1;
		ret->out_of_seq = -1;
		ret->tx_pkts = ret->rx_pkts = ret->pause_rx = ret->pause_tx = -1;
		return;
	}
	ret->cnp_sent = rate_of(a, p, RC_CNP_SENT, -1, dt);
	ret->cnp_handled = rate_of(a, p, RC_CNP_HANDLED, -1, dt);
	ret->ecn_marked = rate_of(a, p, RC_ECN_MARKED, -1, dt);
	ret->retrans = rate_of(a, p, RC_RETRANS, -1, dt);
	ret->out_of_seq = rate_of(a, p, RC_OUT_OF_SEQ, -1, dt);
	ret->tx_pkts = rate_of(a, p, RC_PACKETS, 1, dt);
	ret->rx_pkts = rate_of(a, p, RC_PACKETS, 0, dt);
	ret->pause_rx = ret->pause_tx = -1;
	/* summed over every port it can leave by (a VF LAG: each slave) */
	for (size_t k = 0; a->prio >= 0 && k < a->n_ports; k++) {
		const struct tel_pf *pf = tel_pf_find(cur, a->ports[k]);
		const struct tel_pf *opf = pf ? tel_pf_same(prev, pf) : NULL;

		for (int dir = 0; pf && dir < 2; dir++) {
			double *v = dir ? &ret->pause_tx : &ret->pause_rx;

			if (tel_port_delta(opf, pf, PS_PAUSE_FRAMES, a->prio, dir, &d))
				*v = (*v < 0 ? 0 : *v) + (double)d / dt;
		}
	}
}

double tel_att_badness(const struct tel_att_rates *r)
{
	double b = 0;

	b += r->cnp_sent > 0 ? r->cnp_sent : 0;
	b += r->cnp_handled > 0 ? r->cnp_handled : 0;
	b += r->retrans > 0 ? 10 * r->retrans : 0;
	b += r->pause_rx > 0 ? r->pause_rx : 0;
	b += r->pause_tx > 0 ? r->pause_tx : 0;
	return b;
}
