// SPDX-License-Identifier: Apache-2.0
/*
 * Repairs that fight another writer: per PF (keyed by PCI address) and item,
 * the repairs in a row (within FIGHT_WINDOW_S of each other) back off from
 * the third (env.repair_backoff_ms, doubling) and the FIGHT_MAX_REPAIRS-th
 * suspends the item until the catalog changes or `rdma-qos resume`
 * (docs/operations.md "Repairs that fight another writer"). The book is
 * AGENT_FIGHT_FILE on tmpfs; 0.2.0's, keyed by name, is taken over on load
 * (fight_book_migrate). A reset is not a fight: fight_port_seen tells one
 * (the whole port back at the driver's defaults, or a new ifindex) from a
 * writer (docs/design.md "The agent: a reset of the port is not a fight").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/pass/fights.h"

struct fight_book {
	/* {"catalog": "<fnv hex>", "pfs": {pci: {"name", "ifindex", "leftAtDefaults", "items":
	 * {item: {"n", "last", "suspended"}}}}} */
	cJSON *j;
	bool dirty;
};

static void catalog_hash(const struct rq_env *env, char *out, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	char *buf = NULL;
	size_t n = 0;

	if (sysfs_read_file(&env->root, RQ_CATALOG_PATH, (size_t)4 * 1024 * 1024, &buf, &n) < 0) {
		(void)snprintf(out, len, "none");
		return;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
	free(buf);
	(void)snprintf(out, len, "%016llx", (unsigned long long)h);
}

/*
 * 0.2.0 keyed the book by PF name, the items right under it. Each such entry
 * is taken over under the PCI address its name has now; one whose name
 * names no PCI function any more is dropped (its PF is gone or renamed since:
 * what is lost is at most one suspension, found again in five repairs).
 */
static void fight_book_migrate(const struct rq_env *env, struct fight_book *b)
{
	cJSON *pfs = cJSON_GetObjectItemCaseSensitive(b->j, "pfs"), *p, *next, *e;
	char path[64], pci[32], name[IF_NAMESIZE];

	for (p = cJSON_IsObject(pfs) ? pfs->child : NULL; p; p = next) {
		next = p->next;
		if (sysfs_pci_valid(p->string))
			continue;
		cJSON_DetachItemViaPointer(pfs, p);
		b->dirty = true;
		(void)snprintf(name, sizeof(name), "%s", p->string);
		(void)snprintf(path, sizeof(path), "/sys/class/net/%s/device", name);
		e = cJSON_IsObject(p) && strlen(p->string) < IF_NAMESIZE && !strchr(name, '/') &&
			    sysfs_readlink_base(&env->root, path, pci, sizeof(pci)) == 0 &&
			    sysfs_pci_valid(pci) && !cJSON_GetObjectItemCaseSensitive(pfs, pci)
			? cJSON_CreateObject()
			: NULL;
		if (!e) {
			log_info("agent: %s of 0.2.0: PF %s is not on this node by that name: its "
				 "repair counts dropped",
				 AGENT_FIGHT_FILE, name);
			cJSON_Delete(p);
			continue;
		}
		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddItemToObject(e, "items", p);
		cJSON_AddItemToObject(pfs, pci, e);
		log_info("agent: %s of 0.2.0 (keyed by PF name): PF %s taken over as %s",
			 AGENT_FIGHT_FILE, name, pci);
	}
}

int fight_book_load(const struct rq_env *env, struct fight_book **ret)
{
	struct fight_book *b = calloc(1, sizeof(*b));
	char *buf = NULL, hash[32];
	size_t len = 0;

	if (!b)
		return -ENOMEM;
	if (sysfs_read_file(&env->root, AGENT_FIGHT_FILE, (size_t)1024 * 1024, &buf, &len) == 0)
		b->j = cJSON_ParseWithLength(buf, len);
	free(buf);
	catalog_hash(env, hash, sizeof(hash));
	if (cJSON_IsObject(b->j) && strcmp(json_str(b->j, "catalog") ?: "", hash) != 0) {
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b->j, "pfs")) > 0)
			log_info("agent: the catalog changed: repair back-offs and suspensions "
				 "cleared");
		cJSON_Delete(b->j);
		b->j = NULL;
	}
	if (!cJSON_IsObject(b->j)) {
		cJSON_Delete(b->j);
		b->j = cJSON_CreateObject();
		b->dirty = true;
	}
	if (!b->j) {
		free(b);
		return -ENOMEM;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(b->j, "catalog");
	cJSON_AddStringToObject(b->j, "catalog", hash);
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(b->j, "pfs"))) {
		cJSON_DeleteItemFromObjectCaseSensitive(b->j, "pfs");
		cJSON_AddObjectToObject(b->j, "pfs");
		b->dirty = true;
	}
	fight_book_migrate(env, b);
	*ret = b;
	return 0;
}

static cJSON *pf_entry(struct fight_book *b, const struct rq_pf *pf, bool create)
{
	cJSON *pfs = cJSON_GetObjectItemCaseSensitive(b->j, "pfs");
	cJSON *p = cJSON_GetObjectItemCaseSensitive(pfs, pf->pci);

	if (!p && create && sysfs_pci_valid(pf->pci)) {
		p = cJSON_AddObjectToObject(pfs, pf->pci);
		b->dirty = true;
	}
	return p;
}

static cJSON *entry(struct fight_book *b, const struct rq_pf *pf, int item, bool create)
{
	cJSON *p = pf_entry(b, pf, create), *items, *e;

	items = cJSON_GetObjectItemCaseSensitive(p, "items");
	if (!items && create && p)
		items = cJSON_AddObjectToObject(p, "items");
	e = cJSON_GetObjectItemCaseSensitive(items, agent_item_names[item]);
	if (!e && create && items) {
		e = cJSON_AddObjectToObject(items, agent_item_names[item]);
		cJSON_AddNumberToObject(e, "n", 0);
		cJSON_AddNumberToObject(e, "last", 0);
		cJSON_AddFalseToObject(e, "suspended");
	}
	return e;
}

static double num(const cJSON *e, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void set_num(cJSON *e, const char *k, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(e, k);
	cJSON_AddNumberToObject(e, k, v);
}

bool fight_suspended(const struct fight_book *b, const struct rq_pf *pf, int item)
{
	const cJSON *e = b ? entry((struct fight_book *)b, pf, item, false) : NULL;

	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "suspended"));
}

bool fight_may_repair(struct fight_book *b, const struct rq_env *env, const struct rq_pf *pf,
		      unsigned items, double now)
{
	for (int it = 0; b && it < ITEM_N; it++) {
		const cJSON *e;
		double n, wait;

		if (!(items & (1u << it)) || !(e = entry(b, pf, it, false)))
			continue;
		if (fight_suspended(b, pf, it)) {
			log_warn(
			    "agent: PF %s: %s drifted, and its repair is suspended (another writer "
			    "keeps changing it): left alone; delete %s or change the catalog to "
			    "resume",
			    pf->ifname, agent_item_names[it], AGENT_FIGHT_FILE);
			return false;
		}
		n = num(e, "n");
		if (n < 1 || now - num(e, "last") > FIGHT_WINDOW_S)
			continue;
		/* a second repair is free (an operator's one-off change); from the third on it
		 * waits */
		wait = n < 2 ? 0 : env->repair_backoff_ms / 1000.0;
		for (int k = 2; k < (int)n && k < 30; k++)
			wait *= 2;
		if (now < num(e, "last") + wait) {
			log_info(
			    "agent: PF %s: %s drifted again %.1f s after its repair #%.0f: backing "
			    "off, no write before %.1f s after it",
			    pf->ifname, agent_item_names[it], now - num(e, "last"), n, wait);
			return false;
		}
	}
	return true;
}

void fight_repaired(struct fight_book *b, const struct rq_pf *pf, unsigned items, double now)
{
	for (int it = 0; b && it < ITEM_N; it++) {
		cJSON *e;
		double n;

		if (!(items & (1u << it)) || !(e = entry(b, pf, it, true)))
			continue;
		n = num(e, "n");
		n = n >= 1 && now - num(e, "last") <= FIGHT_WINDOW_S ? n + 1 : 1;
		set_num(e, "n", n);
		set_num(e, "last", now);
		b->dirty = true;
		if (n >= FIGHT_MAX_REPAIRS) {
			cJSON_DeleteItemFromObjectCaseSensitive(e, "suspended");
			cJSON_AddTrueToObject(e, "suspended");
			log_error(
			    "agent: PF %s: %s repaired %.0f times in a row, each time undone "
			    "again: another writer is changing this port (nic-configuration-"
			    "operator, mlnx_qos, the other host of a multi-host card?) and every "
			    "PFC write flaps its link. The agent stops writing PF %s "
			    "(rdma_qos_repair_suspended 1) until the catalog changes or %s is "
			    "deleted",
			    pf->ifname, agent_item_names[it], n, pf->ifname, AGENT_FIGHT_FILE);
		}
	}
}

static void set_str(struct fight_book *b, cJSON *p, const char *k, const char *v)
{
	if (!strcmp(json_str(p, k) ?: "", v))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(p, k);
	cJSON_AddStringToObject(p, k, v);
	b->dirty = true;
}

enum fight_reset fight_port_seen(struct fight_book *b, const struct rq_pf *pf, int ifindex,
				 bool at_defaults)
{
	cJSON *p = b ? pf_entry(b, pf, true) : NULL, *e;
	enum fight_reset why = FIGHT_NO_RESET;
	int was;

	if (!p)
		return FIGHT_NO_RESET;
	was = json_int(p, "ifindex", -1);
	/*
	 * At the defaults is a reset only when the last pass left the port otherwise: not a
	 * port never written (a PF first seen, a fresh book), nor one the agent could not or
	 * may not write (pf: verify, a failed repair), which stays at the defaults pass after
	 * pass.
	 */
	if (ifindex > 0 && was > 0 && ifindex != was)
		why = FIGHT_RESET_NETDEV;
	else if (at_defaults &&
		 cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p, "leftAtDefaults")))
		why = FIGHT_RESET_DEFAULTS;
	set_str(b, p, "name", pf->ifname);
	if (ifindex > 0 && ifindex != was) {
		set_num(p, "ifindex", ifindex);
		b->dirty = true;
	}
	if (why == FIGHT_NO_RESET)
		return why;
	if (why == FIGHT_RESET_NETDEV)
		log_warn(
		    "agent: PF %s (%s): its netdev was re-created (ifindex %d, was %d): a reset "
		    "(driver or devlink reload), not another writer: repair counts of %s cleared",
		    pf->ifname, pf->pci, ifindex, was, pf->ifname);
	else
		log_warn(
		    "agent: PF %s (%s): the port is back at the driver's defaults (trust pcp, "
		    "no DSCP APP entries, no PFC, no ETS shares): a reset (devlink reload, "
		    "firmware reset, health recovery, AER), not another writer: repair counts of "
		    "%s cleared",
		    pf->ifname, pf->pci, pf->ifname);
	/* kept at 0 rather than dropped: rdma_qos_repair_suspended says 0, not nothing */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "items"))
	{
		set_num(e, "n", 0);
		set_num(e, "last", 0);
		cJSON_DeleteItemFromObjectCaseSensitive(e, "suspended");
		cJSON_AddFalseToObject(e, "suspended");
		b->dirty = true;
	}
	return why;
}

void fight_port_left(struct fight_book *b, const struct rq_pf *pf, bool at_defaults)
{
	cJSON *p = b ? pf_entry(b, pf, true) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "leftAtDefaults");

	if (!p || (cJSON_IsBool(v) && cJSON_IsTrue(v) == at_defaults))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(p, "leftAtDefaults");
	cJSON_AddBoolToObject(p, "leftAtDefaults", at_defaults);
	b->dirty = true;
}

void fight_report(const struct fight_book *b, struct pass_report *rep)
{
	const cJSON *p, *e;

	if (!b || !rep->suspended)
		return;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(b->j, "pfs"))
	    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "items"))
	{
		cJSON *o = cJSON_CreateObject();

		if (!o)
			return;
		cJSON_AddStringToObject(o, "pf", json_str(p, "name") ?: p->string);
		cJSON_AddStringToObject(o, "item", e->string);
		cJSON_AddNumberToObject(
		    o, "value", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "suspended")));
		cJSON_AddItemToArray(rep->suspended, o);
	}
}

int fight_resume(struct fight_book *b, const char *pci, const char *item)
{
	cJSON *e =
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b->j, "pfs"), pci);
	cJSON *items = cJSON_GetObjectItemCaseSensitive(e, "items"), *it, *next;
	int was = 0;

	for (it = items ? items->child : NULL; it; it = next) {
		next = it->next;
		if (strcmp(item, "all") != 0 && strcmp(it->string, item) != 0)
			continue;
		was |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "suspended"));
		cJSON_Delete(cJSON_DetachItemViaPointer(items, it));
		b->dirty = true;
	}
	return was;
}

int fight_book_save(const struct rq_env *env, struct fight_book *b)
{
	char *s;
	int r;

	if (!b->dirty)
		return 0;
	s = cJSON_PrintUnformatted(b->j);
	if (!s)
		return -ENOMEM;
	r = sysfs_write_atomic(&env->root, AGENT_FIGHT_FILE, s, strlen(s));
	free(s);
	return r;
}

void fight_book_free(struct fight_book *b)
{
	if (!b)
		return;
	cJSON_Delete(b->j);
	free(b);
}
