// SPDX-License-Identifier: Apache-2.0
/*
 * One telemetry sample's targets (DESIGN.md "Congestion telemetry"): the
 * attachments from their records, with the labels the records give, and the
 * PFs they can leave by; lookups across two samples (the same attachment,
 * the same PF) and the counter increases between them. Reading the counters
 * is tel_collect.c; the derived port signals tel_derive.c; the tools' rates
 * tel_rates.c.
 */
#include "plugin/telemetry/telemetry.h"
#include "plugin/telemetry/tel_qps.h"
#include "plugin/telemetry/tel_shared.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tel_sample_init(struct tel_sample *s)
{
	memset(s, 0, sizeof(*s));
}

void tel_att_fini(struct tel_att *a)
{
	rdma_counters_fini(&a->ctr);
	tel_census_fini(a);
	rdma_qp_own_free(&a->own);
}

void tel_sample_fini(struct tel_sample *s)
{
	for (size_t i = 0; i < s->n_atts; i++)
		tel_att_fini(&s->atts[i]);
	free(s->atts);
	free(s->pfs);
	tel_devs_fini(s);
	memset(s, 0, sizeof(*s));
}

void tel_key(const char *vf, const char *ns, const char *pod, const char *ifname, char *buf,
	     size_t len)
{
	if (vf && vf[0])
		(void)snprintf(buf, len, "%s", vf);
	else
		(void)snprintf(buf, len, "%s/%s/%s", ns ?: "", pod ?: "", ifname ?: "");
}

void tel_rec_key(const cJSON *rec, char *buf, size_t len)
{
	tel_key(json_str(rec, "vf"), json_str(rec, "podNamespace"), json_str(rec, "podName"),
		json_str(rec, "ifname"), buf, len);
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

/* What tells the pod's netns from another at its path (attach/podns.c), for the read */
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
	/* a host-network pod's object has no "rdma": its "rdmaDev" names the shared device */
	(void)snprintf(a->rdma_dev, sizeof(a->rdma_dev), "%s",
		       json_str(rd, "device") ?: json_str(rec, "rdmaDev") ?: "");
	a->shared = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "shared"));
	/* its "ips", "gids" and "podUID" as the attribution reads them: once, not per census */
	if (a->shared && (r = rdma_qp_own_load(rec, &a->own)) < 0)
		return r;
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
		memset(&to->atts[i].own, 0, sizeof(to->atts[i].own));
		to->n_atts = i + 1;
		if (rdma_qp_own_copy(&from->atts[i].own, &to->atts[i].own) < 0) {
			tel_sample_fini(to);
			return -ENOMEM;
		}
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

/*
 * The same VF and RDMA device of the same pod: a rate across a move to another pod is no rate.
 * Shared attachments have no VF: a pod's two on one device differ by interface.
 */
static bool att_same(const struct tel_att *p, const struct tel_att *a)
{
	return !strcmp(p->vf, a->vf) && !strcmp(p->rdma_dev, a->rdma_dev) &&
	       !strcmp(p->ns, a->ns) && !strcmp(p->pod, a->pod) && p->shared == a->shared &&
	       (!a->shared || !strcmp(p->ifname, a->ifname));
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

int tel_ctr_get(const struct tel_att *a, const char *name, size_t hint, uint64_t *ret)
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

	if (tel_ctr_get(a, name, 0, &c) < 0 || tel_ctr_get(p, name, 0, &o) < 0)
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
