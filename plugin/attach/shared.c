// SPDX-License-Identifier: Apache-2.0
/*
 * Shared RDMA devices: the pod's macvlan / ipvlan -> lower device -> port(s)
 * -> RDMA device; the pod's GIDs; the device's class index (shared.h).
 */
#include "plugin/attach/shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "pkg/rdma/gid.h"
#include "plugin/attach/vf_class.h"

bool shared_wants_class(const struct rq_profile *p)
{
	return p->pfc && p->traffic_class >= 0;
}

bool shared_record(const cJSON *rec)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "shared"));
}

/* The device the RoCE of @t's real netdev uses: on its PCI function, else (rxe) over RDMA
 * netlink by the host ifindex. */
static int shared_rdma(struct rq_ctx *c, struct rq_target *t, int ifindex)
{
	int r;

	if (t->vf.rdma_bond[0]) {
		memset(&t->rdma, 0, sizeof(t->rdma));
		(void)snprintf(t->rdma.name, sizeof(t->rdma.name), "%s", t->vf.rdma_bond);
		t->rdma.port = 1;
		return 0;
	}
	r = rdma_find_by_pci(&c->env.root, t->fn_pci, &t->rdma);
	if (r == 0)
		return 0;
	return rdma_find_by_ifindex(ifindex, &t->rdma);
}

int shared_resolve(struct rq_ctx *c, int pod_sk, struct rq_target *t)
{
	struct netns_lower low;
	int r, own = -1;
	char chain[160] = "";
	bool excl = false;

	/* the host is the plugin's own netns: asked for where it runs (no fd of it needed) */
	if (pod_sk >= 0) {
		r = netns_link_lower_sk(pod_sk, c->args.ifname, &low);
	} else {
		r = netns_open(c->args.netns, &own);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_ENV, r, "CNI_NETNS %s: %s", c->args.netns,
				      strerror(-r));
		r = netns_link_lower(own, c->args.ifname, -1, &low);
		close(own);
	}
	if (r == -ENOENT)
		return r;
	if (r == -EXDEV)
		return rq_err(&c->err, RQ_ERR_NO_DEVICE, r,
			      "interface %s in %s sits on a device in another network namespace "
			      "(netns id %d as the pod numbers it), not the host's: rdma-qos "
			      "cannot see the device it shares",
			      c->args.ifname, c->args.netns, (int)low.other_nsid);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_NO_DEVICE, r,
			      "interface %s in %s: its lower device: %s", c->args.ifname,
			      c->args.netns, strerror(-r));
	/* in exclusive mode a pod's netns shows only the RDMA devices moved into it: none of
	 * the PF's, so its class would be set for nobody */
	if (rdma_netns_exclusive(&c->env.root, &excl) == 0 && excl)
		return rq_err(&c->err, RQ_ERR_CONFIG, -EOPNOTSUPP,
			      "interface %s is a %s on the host's %s, but the kernel's RDMA netns "
			      "mode is exclusive: no pod sees the PF's RDMA device (`rdma system "
			      "set netns shared`, or give the pod a VF)",
			      c->args.ifname, low.kind[0] ? low.kind : "link", low.dev[0].ifname);
	t->shared = true;
	(void)snprintf(t->kind, sizeof(t->kind), "%s", low.kind);
	t->n_master = low.n < 8 ? low.n : 8;
	for (size_t i = 0; i < t->n_master; i++) {
		(void)snprintf(t->master[i], sizeof(t->master[0]), "%s", low.dev[i].ifname);
		(void)snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain), "%s%s",
			       i ? " -> " : "", low.dev[i].ifname);
	}
	r = device_resolve_netdev(&c->env.root, t->master[t->n_master - 1], &t->vf, t->fn_pci,
				  sizeof(t->fn_pci), &c->err);
	if (r < 0) {
		char msg[RQ_ERR_MSG_MAX];

		(void)snprintf(msg, sizeof(msg), "interface %s (%s on %s): %s", c->args.ifname,
			       t->kind[0] ? t->kind : "?", chain, c->err.msg);
		memcpy(c->err.msg, msg, sizeof(msg));
		return r;
	}
	r = shared_rdma(c, t, low.dev[t->n_master - 1].ifindex);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_NO_DEVICE, r,
			      "interface %s (%s on %s): %s has no RDMA device to share (%s)",
			      c->args.ifname, t->kind[0] ? t->kind : "?", chain, t->fn_pci,
			      strerror(-r));
	t->have_rdma = true;
	t->confirmed = true; /* the pod's own interface led here: no NAD word is taken */
	/* a lossy profile asks nothing of a shared device (DESIGN.md) */
	if (!shared_wants_class(&c->profile))
		c->profile.traffic_class = -1;
	log_debug("%s: shared RDMA device %s (port %d) under %s %s on %s", c->key, t->rdma.name,
		  t->rdma.port, t->kind, c->args.ifname, chain);
	return 0;
}

/* prevResult's addresses of the pod's interface (all of them when no IP names an interface). */
static cJSON *prev_ips(const struct rq_ctx *c)
{
	const cJSON *res = c->nc->prev_result, *ifs, *it;
	cJSON *out = cJSON_CreateArray();

	if (!out)
		return NULL;
	ifs = cJSON_GetObjectItemCaseSensitive(res, "interfaces");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(res, "ips"))
	{
		const char *a = json_str(it, "address");
		int i = json_int(it, "interface", -1);
		char ip[64];
		const char *name;

		if (!a || strlen(a) >= sizeof(ip))
			continue;
		if (i >= 0) {
			name = json_str(cJSON_GetArrayItem(ifs, i), "name");
			if (name && strcmp(name, c->args.ifname) != 0)
				continue;
		}
		(void)snprintf(ip, sizeof(ip), "%s", a);
		ip[strcspn(ip, "/")] = '\0';
		cJSON_AddItemToArray(out, cJSON_CreateString(ip));
	}
	return out;
}

static cJSON *gid_json(const struct rdma_gid_table *tab, int index, const char *ip)
{
	cJSON *o;
	char buf[40];

	for (size_t i = 0; i < tab->n; i++) {
		if (tab->e[i].index != index)
			continue;
		o = cJSON_CreateObject();
		if (!o)
			return NULL;
		rdma_gid_format(tab->e[i].gid, buf);
		cJSON_AddNumberToObject(o, "index", index);
		cJSON_AddStringToObject(o, "gid", buf);
		cJSON_AddStringToObject(
		    o, "type", tab->e[i].type == RDMA_GID_ROCE_V2 ? "RoCE v2" : "IB/RoCE v1");
		cJSON_AddStringToObject(o, "ip", ip);
		return o;
	}
	return NULL;
}

/*
 * One look at the table for every IP of @ips: the found ones (v2, v1 beside) into @gids,
 * the rest into @pending. true when nothing is pending or nothing can come (the table full).
 */
static bool gids_look(const struct rq_env *env, const char *dev, int port, const cJSON *ips,
		      cJSON *gids, cJSON *pending, bool *ret_full)
{
	struct rdma_gid_table tab = {0};
	const cJSON *it;
	bool done = true;

	*ret_full = false;
	if (rdma_gid_table_read(&env->root, dev, port, &tab) < 0)
		return false;
	cJSON_ArrayForEach(it, ips)
	{
		struct rdma_gid_match m;
		int r = rdma_gid_find(&tab, it->valuestring, &m);

		if (r == -EADDRNOTAVAIL || r == -EINVAL)
			continue; /* link-local and the like: never matched */
		if (r == 0) {
			cJSON_AddItemToArray(gids, gid_json(&tab, m.v2, it->valuestring));
			if (m.v1 >= 0)
				cJSON_AddItemToArray(gids, gid_json(&tab, m.v1, it->valuestring));
			continue;
		}
		*ret_full |= r == -ENOSPC;
		done = false;
		cJSON_AddItemToArray(pending, cJSON_CreateString(it->valuestring));
	}
	rdma_gid_table_fini(&tab);
	return done;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * A repeated ADD: the entries its record names, each read alone (two files a slot) and kept
 * when the slot still holds that GID with that type: no table scan. false when any IP's
 * RoCE v2 entry is not where the record says (then the table is read).
 */
static bool gids_hinted(struct rq_ctx *c, const struct rq_target *t, const cJSON *old, cJSON *ips,
			cJSON *gids)
{
	const cJSON *ip, *h;
	int port = t->rdma.port ? t->rdma.port : 1;

	if (!old || strcmp(json_str(old, "rdmaDev") ?: "", t->rdma.name) != 0)
		return false;
	cJSON_ArrayForEach(ip, ips)
	{
		bool v2 = false;

		if (!cJSON_IsString(ip))
			return false;
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(old, "gids"))
		{
			struct rdma_gid g;
			uint8_t want[16];
			const char *type = json_str(h, "type") ?: "";
			cJSON *o;

			if (strcmp(json_str(h, "ip") ?: "", ip->valuestring) != 0)
				continue;
			/* the kernel adds and removes an address's v1 and v2 entries together
			 * (roce_gid_mgmt): the v2 one read, the v1 one kept as recorded */
			if (strcmp(type, "RoCE v2") != 0) {
				o = cJSON_Duplicate(h, true);
				if (!o)
					return false;
				cJSON_AddItemToArray(gids, o);
				continue;
			}
			if (rdma_gid_parse(json_str(h, "gid") ?: "", want) < 0 ||
			    rdma_gid_slot_read(&c->env.root, t->rdma.name, port,
					       json_int(h, "index", -1), &g) < 0 ||
			    memcmp(g.gid, want, sizeof(want)) != 0 ||
			    strcmp(type, g.type == RDMA_GID_ROCE_V2   ? "RoCE v2"
					 : g.type == RDMA_GID_ROCE_V1 ? "IB/RoCE v1"
								      : "?") != 0)
				return false;
			v2 |= g.type == RDMA_GID_ROCE_V2;
			o = cJSON_Duplicate(h, true);
			if (!o)
				return false;
			cJSON_AddItemToArray(gids, o);
		}
		if (!v2)
			return false;
	}
	return true;
}

void shared_gids_find(struct rq_ctx *c, const struct rq_target *t, const cJSON *old, int wait_ms,
		      struct shared_gids *ret)
{
	long end = now_ms() + wait_ms;
	bool full = false;

	memset(ret, 0, sizeof(*ret));
	ret->ips = prev_ips(c);
	ret->gids = cJSON_CreateArray();
	ret->pending = cJSON_CreateArray();
	if (ret->ips && ret->gids && ret->pending && gids_hinted(c, t, old, ret->ips, ret->gids))
		return;
	for (;;) {
		cJSON_Delete(ret->gids);
		cJSON_Delete(ret->pending);
		ret->gids = cJSON_CreateArray();
		ret->pending = cJSON_CreateArray();
		if (!ret->ips || !ret->gids || !ret->pending)
			return;
		if (gids_look(&c->env, t->rdma.name, t->rdma.port ? t->rdma.port : 1, ret->ips,
			      ret->gids, ret->pending, &full) ||
		    full || now_ms() >= end)
			break;
		(void)usleep(20 * 1000);
	}
	if (cJSON_GetArraySize(ret->pending) > 0)
		log_warn(
		    "%s: RDMA device %s has no RoCE v2 GID yet for %d of the pod's addresses%s: "
		    "pending, the agent records them when the kernel adds them",
		    c->key, t->rdma.name, cJSON_GetArraySize(ret->pending),
		    full ? " (its GID table is full)" : "");
}

void shared_gids_fini(struct shared_gids *g)
{
	cJSON_Delete(g->ips);
	cJSON_Delete(g->gids);
	cJSON_Delete(g->pending);
	memset(g, 0, sizeof(*g));
}

void shared_record_keys(cJSON *rec, const struct rq_target *t, const struct shared_gids *g)
{
	cJSON *m;

	cJSON_AddTrueToObject(rec, "shared");
	cJSON_AddStringToObject(rec, "rdmaDev", t->rdma.name);
	cJSON_AddStringToObject(rec, "rdmaPci", t->fn_pci);
	cJSON_AddStringToObject(rec, "kind", t->kind);
	m = cJSON_AddArrayToObject(rec, "master");
	for (size_t i = 0; m && i < t->n_master; i++)
		cJSON_AddItemToArray(m, cJSON_CreateString(t->master[i]));
	cJSON_AddItemToObject(rec, "ips",
			      g->ips ? cJSON_Duplicate(g->ips, true) : cJSON_CreateArray());
	cJSON_AddItemToObject(rec, "gids",
			      g->gids ? cJSON_Duplicate(g->gids, true) : cJSON_CreateArray());
	cJSON_AddItemToObject(rec, "gidsPending",
			      g->pending ? cJSON_Duplicate(g->pending, true) : cJSON_CreateArray());
}

int shared_gids_fill(const struct rq_env *env, cJSON *rec)
{
	cJSON *pend = cJSON_GetObjectItemCaseSensitive(rec, "gidsPending");
	cJSON *gids = cJSON_GetObjectItemCaseSensitive(rec, "gids"), *still, *found;
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	const char *dev = json_str(rec, "rdmaDev");
	bool full;
	int n;

	if (!shared_record(rec) || !dev || cJSON_GetArraySize(pend) == 0 || !cJSON_IsArray(gids))
		return 0;
	still = cJSON_CreateArray();
	found = cJSON_CreateArray();
	if (!still || !found) {
		cJSON_Delete(still);
		cJSON_Delete(found);
		return -ENOMEM;
	}
	(void)gids_look(env, dev, json_int(rd, "port", 1), pend, found, still, &full);
	n = cJSON_GetArraySize(found);
	while (cJSON_GetArraySize(found) > 0)
		cJSON_AddItemToArray(gids, cJSON_DetachItemFromArray(found, 0));
	cJSON_Delete(found);
	if (n == 0) {
		cJSON_Delete(still);
		return 0;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(rec, "gidsPending", still);
	return 1;
}

/* --- the device's class index --- */

static cJSON *index_entries(cJSON *idx)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(idx, "attachments");

	return cJSON_IsArray(a) ? a : NULL;
}

static int index_find(const cJSON *a, const char *key)
{
	int i = 0;
	const cJSON *it;

	cJSON_ArrayForEach(it, a)
	{
		if (!strcmp(json_str(it, "key") ?: "", key))
			return i;
		i++;
	}
	return -1;
}

static void index_drop(const struct rq_env *env, const char *dev, cJSON *idx,
		       bool (*drop)(const struct rq_env *, const cJSON *, const void *),
		       const void *arg, const char *who);
static bool drop_key(const struct rq_env *env, const cJSON *e, const void *key);

int dev_class_require(struct rq_ctx *c, const struct rq_target *t, const int *found,
		      cJSON **ret_before, bool *ret_written)
{
	int want = c->profile.traffic_class, r, mine;
	cJSON *idx = NULL, *a, *e, *fo, *pfs;
	const cJSON *it;

	*ret_before = NULL;
	*ret_written = false;
	if (!t->shared || !t->have_rdma)
		return 0;
	r = state_dev_read(&c->env.root, t->rdma.name, &idx);
	if (r < 0 && r != -ENOENT)
		return rq_err(&c->err, RQ_ERR_IO, r, "RDMA device %s index: %s", t->rdma.name,
			      strerror(-r));
	/* a lossy profile asks nothing of the device; one that asked before (a repeated ADD
	 * under another profile) leaves its index, the last one out restoring */
	if (want < 0) {
		if (idx && index_find(index_entries(idx), c->key) >= 0)
			index_drop(&c->env, t->rdma.name, idx, drop_key, c->key, c->key);
		cJSON_Delete(idx);
		return 0;
	}
	cJSON_ArrayForEach(it, index_entries(idx))
	{
		const char *key = json_str(it, "key") ?: "";
		cJSON *rec = NULL;
		int other = json_int(it, "class", -1);

		if (!strcmp(key, c->key) || other == want)
			continue;
		/* an entry without a record is an ADD that died before writing anything */
		if (state_record_read(&c->env.root, key, &rec) < 0)
			continue;
		r = rq_err(&c->err, RQ_ERR_PF_CONFLICT, -EBUSY,
			   "traffic class: profile \"%s\" of %s/%s needs class %d on shared RDMA "
			   "device %s, but %s/%s (profile \"%s\") requires class %d there: one "
			   "device has one class",
			   c->profile.name, c->args.pod_namespace, c->args.pod_name, want,
			   t->rdma.name, json_str(rec, "podNamespace") ?: "?",
			   json_str(rec, "podName") ?: "?", json_str(it, "profileName") ?: "?",
			   other);
		cJSON_Delete(rec);
		cJSON_Delete(idx);
		return r;
	}
	a = index_entries(idx);
	mine = index_find(a, c->key);
	if (mine >= 0 && json_int(cJSON_GetArrayItem(a, mine), "class", -1) == want) {
		cJSON_Delete(idx); /* listed as it is: a repeated ADD writes nothing */
		return 0;
	}
	*ret_before = idx ? cJSON_Duplicate(idx, true) : NULL;
	if (!idx) {
		idx = cJSON_CreateObject();
		cJSON_AddStringToObject(idx, "dev", t->rdma.name);
		cJSON_AddNumberToObject(idx, "port", t->rdma.port ? t->rdma.port : 1);
		cJSON_AddNumberToObject(idx, "class", want);
		fo = cJSON_AddObjectToObject(idx, "found");
		for (int k = 0; fo && k < RQ_KNOB_N; k++)
			if (found[k] > -2)
				cJSON_AddNumberToObject(fo, rdma_knob_name(k), found[k]);
		pfs = cJSON_AddArrayToObject(idx, "pfs");
		for (size_t i = 0; pfs && i < t->vf.n_pf; i++)
			cJSON_AddItemToArray(pfs, cJSON_CreateString(t->vf.pf[i].pci));
		a = cJSON_AddArrayToObject(idx, "attachments");
	}
	if (!a)
		a = cJSON_AddArrayToObject(idx, "attachments");
	if (mine >= 0)
		cJSON_DeleteItemFromArray(a, mine);
	/* every live requirer has this class now (another one was 102 above) */
	cJSON_ReplaceItemInObjectCaseSensitive(idx, "class", cJSON_CreateNumber(want));
	e = cJSON_CreateObject();
	if (!idx || !a || !e) {
		cJSON_Delete(e);
		cJSON_Delete(idx);
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	}
	cJSON_AddStringToObject(e, "key", c->key);
	cJSON_AddNumberToObject(e, "class", want);
	cJSON_AddStringToObject(e, "profileName", c->profile.name);
	cJSON_AddItemToArray(a, e);
	r = state_dev_write(&c->env.root, t->rdma.name, idx);
	cJSON_Delete(idx);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "writing RDMA device %s index: %s",
			      t->rdma.name, strerror(-r));
	*ret_written = true;
	return 0;
}

void dev_class_rollback(struct rq_ctx *c, const struct rq_target *t, const cJSON *before)
{
	if (before)
		(void)state_dev_write(&c->env.root, t->rdma.name, before);
	else
		(void)state_dev_remove(&c->env.root, t->rdma.name);
}

/* The last requirer went: every knob still at the class gets what the first one found. */
static void index_restore(const struct rq_env *env, const cJSON *idx, const char *who)
{
	const cJSON *fo = cJSON_GetObjectItemCaseSensitive(idx, "found");
	int want = json_int(idx, "class", -1);
	struct rq_rdma_dev d;
	struct rq_error err;
	char a[16], b[16];

	memset(&d, 0, sizeof(d));
	rq_err_clear(&err);
	(void)snprintf(d.name, sizeof(d.name), "%s", json_str(idx, "dev") ?: "");
	d.port = json_int(idx, "port", 1);
	if (!d.name[0] || rdma_tos_locate(&env->root, &d, false, &err) < 0) {
		log_warn("%s: shared RDMA device %s has no traffic-class knob now: nothing to "
			 "restore",
			 who, d.name);
		return;
	}
	for (int k = 0; k < RQ_KNOB_N; k++) {
		int cur, prev = json_int(fo, rdma_knob_name(k), -2), r;

		if (!d.has[k] || prev == -2 || rdma_tos_read(&env->root, &d, k, &cur) < 0)
			continue;
		if (cur != want) {
			log_info("%s: shared RDMA device %s %s class is %s, not the %d its "
				 "attachments set: left as it is",
				 who, d.name, rdma_knob_name(k), vf_tos_str(cur, a, sizeof(a)),
				 want);
			continue;
		}
		if (prev < 0 && k != RQ_KNOB_MOFED)
			prev = 0;
		r = rdma_tos_write(&env->root, &d, k, prev);
		if (r < 0)
			log_warn("%s: restoring %s %s traffic class to %s: %s", who, d.name,
				 rdma_knob_name(k), vf_tos_str(prev, a, sizeof(a)), strerror(-r));
		else
			log_info("%s: %s %s traffic class %s -> %s (restored: its last requirer "
				 "went)",
				 who, d.name, rdma_knob_name(k), vf_tos_str(cur, b, sizeof(b)),
				 vf_tos_str(prev, a, sizeof(a)));
	}
}

/* Drop the entries @drop says of @idx; the last one out restores. Under the PF locks. */
static void index_drop(const struct rq_env *env, const char *dev, cJSON *idx,
		       bool (*drop)(const struct rq_env *, const cJSON *, const void *),
		       const void *arg, const char *who)
{
	cJSON *a = index_entries(idx);
	bool changed = false;
	int r;

	for (int i = cJSON_GetArraySize(a) - 1; i >= 0; i--)
		if (drop(env, cJSON_GetArrayItem(a, i), arg)) {
			cJSON_DeleteItemFromArray(a, i);
			changed = true;
		}
	if (!changed)
		return;
	if (cJSON_GetArraySize(a) > 0) {
		r = state_dev_write(&env->root, dev, idx);
		if (r < 0)
			log_warn("%s: RDMA device %s index: %s", who, dev, strerror(-r));
		return;
	}
	index_restore(env, idx, who);
	r = state_dev_remove(&env->root, dev);
	if (r < 0)
		log_warn("%s: RDMA device %s index: %s", who, dev, strerror(-r));
}

static bool drop_key(const struct rq_env *env, const cJSON *e, const void *key)
{
	(void)env;
	return !strcmp(json_str(e, "key") ?: "", key);
}

static bool drop_orphan(const struct rq_env *env, const cJSON *e, const void *key)
{
	cJSON *rec = NULL;
	const char *k = json_str(e, "key") ?: "";

	if (key && strcmp(k, key) != 0)
		return false;
	if (state_record_read(&env->root, k, &rec) == 0) {
		cJSON_Delete(rec);
		return false;
	}
	return true;
}

void dev_class_leave(const struct rq_env *env, const char *dev, const char *key, const char *who)
{
	cJSON *idx = NULL;

	if (!dev || !dev[0] || state_dev_read(&env->root, dev, &idx) < 0)
		return;
	index_drop(env, dev, idx, drop_key, key, who);
	cJSON_Delete(idx);
}

/* Lock the PFs an index names, in PCI-address order (the order every command locks in). */
static size_t lock_index_pfs(const struct rq_env *env, const cJSON *idx, int *fds)
{
	const char *pci[RQ_MAX_PFS];
	const cJSON *p;
	size_t n = 0;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(idx, "pfs"))
	{
		if (n < RQ_MAX_PFS && cJSON_IsString(p) && netconf_pci_addr_valid(p->valuestring))
			pci[n++] = p->valuestring;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(pci[j - 1], pci[j]) > 0; j--) {
			const char *tmp = pci[j];

			pci[j] = pci[j - 1];
			pci[j - 1] = tmp;
		}
	for (size_t i = 0; i < n; i++)
		fds[i] = lock_pf(&env->root, pci[i], env->lock_timeout_ms);
	return n;
}

void dev_class_orphans(const struct rq_env *env, const char *key, const char *who)
{
	char **devs = NULL;
	size_t n = 0;

	if (state_dev_list(&env->root, &devs, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		cJSON *idx = NULL;
		int fds[RQ_MAX_PFS];
		size_t nf = 0;

		/* a look without the locks first: most indexes do not list @key */
		if (state_dev_read(&env->root, devs[i], &idx) == 0 &&
		    (!key || index_find(index_entries(idx), key) >= 0)) {
			nf = lock_index_pfs(env, idx, fds);
			cJSON_Delete(idx);
			idx = NULL;
			if (state_dev_read(&env->root, devs[i], &idx) == 0)
				index_drop(env, devs[i], idx, drop_orphan, key, who);
			for (size_t k = nf; k > 0; k--)
				lock_release(fds[k - 1]);
		}
		cJSON_Delete(idx);
		free(devs[i]);
	}
	free(devs);
}
