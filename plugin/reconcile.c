// SPDX-License-Identifier: Apache-2.0
/*
 * One agent pass: every recorded attachment against its profile, with the
 * code and the per-PF lock ADD and CHECK use (pfqos_ensure under
 * attach_lock_pfs). Per PF the target is what ADD builds it from: the node
 * baseline and the requirements of the attachments on it. pf: ensure
 * attachments' requirements are repaired, pf: verify ones only reported, pf:
 * ignore ones never looked at. No lock is held between PFs or passes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "plugin/agent.h"
#include "plugin/catalog_sync.h"
#include "plugin/pfqos.h"

const char *const agent_item_names[ITEM_N] = {
    "dcb", "trust", "dscp2prio", "pfc", "ets", "ecn", "traffic_class",
};

/* What the pass gathered about one PF from the records of its attachments. */
struct pf_acc {
	struct rq_pf pf;
	struct rq_profile ensure, verify;
	bool any_ensure, any_verify;
};

struct pass {
	struct agent *a;
	struct rq_catalog *cat;
	struct pass_report *rep;
	struct pf_acc *pfs;
	size_t n_pfs;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void pass_report_init(struct pass_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->attachments = cJSON_CreateArray();
	rep->pfs = cJSON_CreateObject();
	rep->vf_tc = cJSON_CreateArray();
	rep->numa = cJSON_CreateArray();
}

void pass_report_fini(struct pass_report *rep)
{
	cJSON_Delete(rep->attachments);
	cJSON_Delete(rep->pfs);
	cJSON_Delete(rep->vf_tc);
	cJSON_Delete(rep->numa);
	memset(rep, 0, sizeof(*rep));
}

void pass_report_drift(struct pass_report *rep, const char *pf, enum agent_item item, bool drifted)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(rep->pfs, pf);

	if (!m)
		m = cJSON_AddNumberToObject(rep->pfs, pf, 0);
	if (m && drifted) {
		cJSON_SetNumberValue(m, (double)((unsigned)m->valuedouble | (1u << item)));
		rep->drift_left = true;
	}
}

void agent_count_repair(struct agent *a, const char *pf, enum agent_item item)
{
	struct agent_repair *n;

	for (size_t i = 0; i < a->n_repairs; i++)
		if (!strcmp(a->repairs[i].pf, pf) &&
		    !strcmp(a->repairs[i].item, agent_item_names[item])) {
			a->repairs[i].n++;
			return;
		}
	n = realloc(a->repairs, (a->n_repairs + 1) * sizeof(*n));
	if (!n)
		return;
	a->repairs = n;
	n = &a->repairs[a->n_repairs++];
	(void)snprintf(n->pf, sizeof(n->pf), "%s", pf);
	(void)snprintf(n->item, sizeof(n->item), "%s", agent_item_names[item]);
	n->n = 1;
}

static void count_attachment(struct pass_report *rep, const char *pf, const char *profile)
{
	cJSON *it;

	cJSON_ArrayForEach(it, rep->attachments) if (!strcmp(json_str(it, "pf"), pf) &&
						     !strcmp(json_str(it, "profile"), profile))
	{
		cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "n"),
				     json_int(it, "n", 0) + 1);
		return;
	}
	it = cJSON_CreateObject();
	cJSON_AddStringToObject(it, "pf", pf);
	cJSON_AddStringToObject(it, "profile", profile);
	cJSON_AddNumberToObject(it, "n", 1);
	cJSON_AddItemToArray(rep->attachments, it);
}

static struct pf_acc *pf_acc_get(struct pass *p, const struct rq_pf *pf)
{
	struct pf_acc *n;

	for (size_t i = 0; i < p->n_pfs; i++)
		if (!strcmp(p->pfs[i].pf.pci, pf->pci))
			return &p->pfs[i];
	n = realloc(p->pfs, (p->n_pfs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	p->pfs = n;
	n = &p->pfs[p->n_pfs++];
	memset(n, 0, sizeof(*n));
	n->pf = *pf;
	profile_empty(&n->ensure, "agent-ensure");
	profile_empty(&n->verify, "agent-verify");
	return n;
}

static enum rq_pf_mode record_pf_mode(const cJSON *rec, const struct rq_catalog *cat)
{
	const char *m = json_str(rec, "pf") ?: "ensure";
	enum rq_pf_mode mode = !strcmp(m, "ignore")   ? RQ_PF_IGNORE
			       : !strcmp(m, "verify") ? RQ_PF_VERIFY
						      : RQ_PF_ENSURE;

	/* the node may have lowered what a NAD may ask for since ADD */
	if (cat && cat->pf_max < mode)
		mode = cat->pf_max;
	return mode;
}

/* A fresh context for one attachment (or one PF), sharing the agent's env and catalog. */
static void ctx_init(struct rq_ctx *c, struct pass *p, const char *key)
{
	memset(c, 0, sizeof(*c));
	c->env = p->a->env;
	c->cat = p->cat;
	(void)snprintf(c->key, sizeof(c->key), "%s", key);
	rq_err_clear(&c->err);
}

static void release_stale(struct pass *p, const char *key, cJSON *rec)
{
	struct rq_ctx c;

	ctx_init(&c, p, key);
	log_info("agent: %s: pod %s/%s netns %s gone for more than %d s (a lost DEL): releasing",
		 key, json_str(rec, "podNamespace") ?: "?", json_str(rec, "podName") ?: "?",
		 json_str(rec, "netns") ?: "", p->a->o.stale_grace_s);
	if (attach_release(&c, rec, true) < 0)
		log_warn("agent: %s: release failed: %s", key, c.err.msg);
}

static void pass_record_pfs(struct pass *p, const cJSON *rec, const struct rq_profile *prof,
			    enum rq_pf_mode mode, const struct rq_vf_info *vf)
{
	for (size_t i = 0; vf->has_pf && i < vf->n_pf; i++) {
		struct pf_acc *acc = pf_acc_get(p, &vf->pf[i]);

		count_attachment(p->rep, vf->pf[i].ifname, prof->name);
		pass_report_drift(p->rep, vf->pf[i].ifname, ITEM_DCB, false);
		if (!acc || mode == RQ_PF_IGNORE || !profile_has_pf_req(prof))
			continue;
		if (mode == RQ_PF_ENSURE) {
			profile_req_merge(&acc->ensure, prof);
			acc->any_ensure = true;
		} else {
			profile_req_merge(&acc->verify, prof);
			acc->any_verify = true;
		}
	}
}

static void numa_metric(struct pass_report *rep, const cJSON *rec)
{
	cJSON *o;

	if (strcmp(json_str(rec, "numaVerdict") ?: "", "misaligned") != 0 ||
	    !(o = cJSON_CreateObject()))
		return;
	cJSON_AddStringToObject(o, "namespace", json_str(rec, "podNamespace") ?: "");
	cJSON_AddStringToObject(o, "pod", json_str(rec, "podName") ?: "");
	cJSON_AddStringToObject(o, "vf", json_str(rec, "vf") ?: "");
	cJSON_AddItemToArray(rep->numa, o);
}

/* The ADD that wrote a pending record is still running (a live rdma-qos process of that pid). */
static bool pending_alive(const cJSON *rec)
{
	int pid = json_int(cJSON_GetObjectItemCaseSensitive(rec, "pending"), "pid", 0);
	char path[64], comm[32] = "";
	FILE *f;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	(void)snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "rdma-qos", 8);
}

/*
 * A pending record whose ADD is gone (killed between saying what it would
 * change and writing its record): put back what it may have set, as DEL
 * would, and drop it. A retry of that ADD starts afresh.
 */
static bool pass_pending(struct pass *p, const char *key, cJSON *rec)
{
	struct rq_ctx c;

	if (!cJSON_GetObjectItemCaseSensitive(rec, "pending"))
		return false;
	if (pending_alive(rec))
		return true; /* its ADD is at work: not ours to judge yet */
	ctx_init(&c, p, key);
	log_info("agent: %s: the ADD that wrote this pending record (pid %d) is gone: rolling back",
		 key, json_int(cJSON_GetObjectItemCaseSensitive(rec, "pending"), "pid", 0));
	if (attach_release(&c, rec, true) < 0)
		log_warn("agent: %s: roll-back failed: %s", key, c.err.msg);
	else
		p->rep->rolled_back++;
	return true;
}

static void pass_record(struct pass *p, struct stale_book *book, const char *key)
{
	struct rq_profile prof;
	struct rq_vf_info vf;
	struct rq_ctx c;
	cJSON *rec = NULL;
	bool drift = false;
	int r;

	r = state_record_read(&p->a->env.root, key, &rec);
	if (r < 0) {
		if (r != -ENOENT) /* -ENOENT: a DEL just took it */
			log_warn("agent: record %s: %s", key, strerror(-r));
		return;
	}
	if (pass_pending(p, key, rec)) {
		cJSON_Delete(rec);
		return;
	}
	r = book ? stale_book_judge(book, key, json_str(rec, "netns"), p->a->o.stale_grace_s) : 0;
	if (r == 1) {
		release_stale(p, key, rec);
		cJSON_Delete(rec);
		return;
	}
	ctx_init(&c, p, key);
	if (profile_from_json(cJSON_GetObjectItemCaseSensitive(rec, "profile"), "profile",
			      json_str(rec, "profileName") ?: "?", &prof, &c.err) < 0) {
		log_warn("agent: record %s: %s: skipped", key, c.err.msg);
		cJSON_Delete(rec);
		return;
	}
	c.profile = prof;
	c.pf_mode = record_pf_mode(rec, p->cat);
	numa_metric(p->rep, rec);
	r = device_resolve_vf(&c.env.root, json_str(rec, "vf") ?: "", &vf, &c.err);
	if (r < 0) {
		const cJSON *pf0 =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "pfs"), 0);

		log_warn("agent: %s: VF %s is gone (%s)", key, json_str(rec, "vf") ?: "?",
			 c.err.msg[0] ? c.err.msg : strerror(-r));
		pass_report_drift(p->rep, json_str(pf0, "ifname") ?: json_str(rec, "vf") ?: "?",
				  ITEM_DCB, true);
		cJSON_Delete(rec);
		return;
	}
	pass_record_pfs(p, rec, &prof, c.pf_mode, &vf);
	/* the pod is gone: its VF's class is nobody's to keep; release comes after the grace */
	if (stale_book_judge_pending(book, key))
		p->rep->stale++;
	else if (reconcile_tos(&c, rec, &vf, &drift, p->rep, p->a) < 0)
		log_warn("agent: %s: %s", key, c.err.msg);
	cJSON_Delete(rec);
}

/* The PF's state as one word per item, for "was X, now Y". */
static void item_text(enum agent_item it, const struct dcb_port_state *st, uint8_t ecn_on,
		      const struct dcb_plan *plan, char *buf, size_t len)
{
	size_t n_dscp = 0;
	bool dscp = false;

	for (size_t i = 0; i < st->n_app; i++)
		n_dscp += st->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	switch (it) {
	case ITEM_PFC:
		dcb_prio_text(st->pfc_en, buf, len);
		break;
	case ITEM_ECN:
		dcb_prio_text(ecn_on, buf, len);
		break;
	case ITEM_TRUST:
		for (size_t i = 0; i < st->n_trust; i++)
			dscp |= i == 0 && st->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP;
		(void)snprintf(buf, len, "%s", dscp || (!st->has_trust && n_dscp) ? "dscp" : "pcp");
		break;
	case ITEM_DSCP2PRIO:
		if (plan->n_add)
			(void)snprintf(buf, len, "%zu DSCP entries, lacking dscp %u -> prio %u%s",
				       n_dscp, plan->add[0].protocol, plan->add[0].priority,
				       plan->n_add > 1 ? " and more" : "");
		else
			(void)snprintf(buf, len, "%zu DSCP entries", n_dscp);
		break;
	case ITEM_ETS:
		(void)snprintf(buf, len, "tcBw %u,%u,%u,%u,%u,%u,%u,%u", st->tc_tx_bw[0],
			       st->tc_tx_bw[1], st->tc_tx_bw[2], st->tc_tx_bw[3], st->tc_tx_bw[4],
			       st->tc_tx_bw[5], st->tc_tx_bw[6], st->tc_tx_bw[7]);
		break;
	default:
		(void)snprintf(buf, len, "-");
	}
}

/* One PF's state against @t: the bitmap of drifted items (plan and ECN, as pfqos_check reads them).
 */
struct pf_look {
	struct dcb_port_state st;
	struct dcb_plan plan;
	uint8_t ecn_on;
	unsigned items;
};

static int pf_look(struct rq_env *env, const struct dcb_ops *ops, void *dcb, const struct rq_pf *pf,
		   const struct rq_profile *t, struct pf_look *l)
{
	bool avail = false;
	int r;

	memset(l, 0, sizeof(*l));
	r = ops->get(dcb, pf->ifname, &l->st);
	if (r < 0)
		return r;
	dcb_plan_from(&l->st, t, &l->plan);
	l->items |= l->plan.set_trust ? 1u << ITEM_TRUST : 0;
	l->items |= l->plan.n_add || l->plan.n_del ? 1u << ITEM_DSCP2PRIO : 0;
	l->items |= l->plan.set_pfc ? 1u << ITEM_PFC : 0;
	l->items |= l->plan.set_ets ? 1u << ITEM_ETS : 0;
	if (t->ecn && ecn_probe(&env->root, pf->ifname, t->ecn, &avail) == 0 && avail &&
	    ecn_get(&env->root, pf->ifname, t->ecn, &l->ecn_on) == 0 &&
	    (l->ecn_on & t->ecn) != t->ecn)
		l->items |= 1u << ITEM_ECN;
	return 0;
}

/*
 * pfqos_ensure logs each change it makes at info; the agent says the same in
 * one line per repaired item (item, was, now), so its own lines are the ones
 * kept unless debugging.
 */
static int ensure_quiet(struct rq_ctx *c, const struct dcb_ops *ops, void *dcb,
			const struct rq_pf *pf)
{
	enum rq_log_level lvl = rq_log_get_level();
	struct pf_undo *u = calloc(1, sizeof(*u));
	int r;

	if (!u)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	if (lvl < RQ_LOG_DEBUG)
		rq_log_set_level(RQ_LOG_WARN);
	r = pfqos_ensure(c, ops, dcb, pf, u);
	rq_log_set_level(lvl);
	free(u);
	return r;
}

static void pf_report(struct pass *p, const struct pf_acc *acc, const struct pf_look *before,
		      const struct pf_look *after)
{
	const char *name = acc->pf.ifname;

	for (int it = 0; it < ITEM_N; it++) {
		char was[160], now[160];

		if (!(before->items & (1u << it)) || (after->items & (1u << it)))
			continue;
		item_text((enum agent_item)it, &before->st, before->ecn_on, &before->plan, was,
			  sizeof(was));
		item_text((enum agent_item)it, &after->st, after->ecn_on, &after->plan, now,
			  sizeof(now));
		log_info("agent: PF %s repaired %s: was %s, now %s", name, agent_item_names[it],
			 was, now);
		agent_count_repair(p->a, name, (enum agent_item)it);
	}
	for (int it = 0; it < ITEM_N; it++)
		if (after->items & (1u << it))
			pass_report_drift(p->rep, name, (enum agent_item)it, true);
	if (after->items && acc->any_verify && !acc->any_ensure)
		log_warn("agent: PF %s (pf: verify) does not meet its requirements: %s", name,
			 "see rdma_qos_drift; nothing written");
}

static void pass_pf(struct pass *p, struct pf_acc *acc, const struct dcb_ops *ops, void *dcb)
{
	struct rq_vf_info one = {.has_pf = true, .n_pf = 1};
	struct rq_profile target;
	struct pf_look *l;
	struct rq_ctx c;
	int fds[RQ_MAX_PFS], r;

	/* lossy and pf: ignore attachments require nothing of the PF: ADD never reads it for them
	 */
	if (!acc->any_ensure && !acc->any_verify)
		return;
	l = calloc(2, sizeof(*l));
	if (!l)
		return;
	one.pf[0] = acc->pf;
	ctx_init(&c, p, "agent");
	/* the union of what the attachments on it require, plus the node baseline */
	profile_empty(&target, "agent");
	profile_req_merge(&target, &acc->ensure);
	profile_req_merge(&target, &acc->verify);
	c.profile = target;
	pfqos_target(&c, &target);
	if (attach_lock_pfs(&c, &one, fds) < 0) {
		log_warn("agent: PF %s: %s: next pass", acc->pf.ifname, c.err.msg);
		pass_report_drift(p->rep, acc->pf.ifname, ITEM_DCB, true);
		free(l);
		return;
	}
	r = pf_look(&p->a->env, ops, dcb, &acc->pf, &target, &l[0]);
	if (r == 0 && l[0].items && acc->any_ensure) {
		c.profile = acc->ensure;
		(void)snprintf(c.profile.name, sizeof(c.profile.name), "%s", "agent (pf: ensure)");
		c.pf_mode = RQ_PF_ENSURE;
		if (ensure_quiet(&c, ops, dcb, &acc->pf) < 0)
			log_warn("agent: PF %s: repair failed: %s", acc->pf.ifname, c.err.msg);
		r = pf_look(&p->a->env, ops, dcb, &acc->pf, &target, &l[1]);
	} else if (r == 0) {
		l[1] = l[0];
	}
	attach_unlock_pfs(&one, fds);
	if (r < 0) {
		/* a PF that vanished mid-pass (driver reload) is drift, not a reason to stop */
		log_warn("agent: PF %s (%s): reading DCB: %s", acc->pf.ifname, acc->pf.pci,
			 strerror(-r));
		pass_report_drift(p->rep, acc->pf.ifname, ITEM_DCB, true);
	} else {
		pf_report(p, acc, &l[0], &l[1]);
	}
	free(l);
}

/* The catalog in effect: synced from --catalog-source first; NULL when there is none. */
static struct rq_catalog *pass_catalog(struct agent *a)
{
	struct rq_catalog *cat = NULL;
	struct rq_error e;
	char *buf = NULL;
	size_t len = 0;
	bool changed = false;
	int r;

	rq_err_clear(&e);
	if (a->o.catalog_source) {
		r = catalog_sync(&a->env.root, a->o.catalog_source, &changed, &e);
		if (r < 0 && a->catalog_valid)
			log_error("agent: %s; keeping the last good catalog %s", e.msg,
				  RQ_CATALOG_PATH);
		else if (changed)
			log_info("agent: catalog %s installed from %s", RQ_CATALOG_PATH,
				 a->o.catalog_source);
		a->catalog_valid = r == 0;
		rq_err_clear(&e);
	}
	r = sysfs_read_file(&a->env.root, RQ_CATALOG_PATH, (size_t)4 * (size_t)1024 * 1024, &buf,
			    &len);
	if (r == 0)
		r = catalog_parse(buf, len, &cat, &e);
	free(buf);
	if (r < 0 && r != -ENOENT)
		log_error("agent: catalog %s: %s", RQ_CATALOG_PATH,
			  e.msg[0] ? e.msg : strerror(-r));
	if (!a->o.catalog_source)
		a->catalog_valid = r == 0 || r == -ENOENT;
	return r == 0 ? cat : NULL;
}

/*
 * What killed plugins leave in the state directory: PF index entries
 * without a record (an ADD killed after its index write, or a lost record)
 * and temporaries of atomic writes. Entries are judged under the PF's lock,
 * which an ADD holds from its index write to its record write.
 */
static void pass_leftovers_pf(struct pass *p, const char *pci)
{
	cJSON *idx = NULL, *it;
	int fd = lock_pf(&p->a->env.root, pci, p->a->env.lock_timeout_ms);

	if (fd < 0)
		return;
	if (state_pf_read(&p->a->env.root, pci, &idx) == 0)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
		{
			const char *key = json_str(it, "key");
			cJSON *rec = NULL;

			if (!key || state_record_read(&p->a->env.root, key, &rec) != -ENOENT) {
				cJSON_Delete(rec);
				continue;
			}
			log_info("agent: PF %s index lists %s, which has no record: dropped", pci,
				 key);
			(void)state_pf_detach(&p->a->env.root, pci, key);
		}
	cJSON_Delete(idx);
	lock_release(fd);
}

static void pass_leftovers(struct pass *p)
{
	char **pcis = NULL;
	size_t n = 0;
	int removed = 0;

	if (state_pf_list(&p->a->env.root, &pcis, &n) == 0)
		for (size_t i = 0; i < n; i++)
			pass_leftovers_pf(p, pcis[i]);
	sysfs_list_free(pcis, n);
	if (state_tmp_sweep(&p->a->env.root, AGENT_TMP_AGE_S, &removed) == 0 && removed)
		log_info("agent: removed %d leftover temporaries of killed writers", removed);
}

int agent_pass(struct agent *a, struct pass_report *rep)
{
	struct pass p = {.a = a, .rep = rep};
	const struct dcb_ops *ops = NULL;
	struct stale_book *book = NULL;
	char **keys = NULL;
	size_t n = 0;
	void *dcb = NULL;
	int r;

	rep->started = wall_now();
	p.cat = pass_catalog(a);
	r = state_record_list(&a->env.root, &keys, &n);
	if (r < 0 && r != -ENOENT) {
		log_error("agent: listing records: %s", strerror(-r));
		catalog_free(p.cat);
		return r;
	}
	if (stale_book_load(&a->env, &book) < 0)
		log_warn("agent: %s unreadable: stale records are not released this pass",
			 AGENT_STALE_FILE);
	for (size_t i = 0; i < n; i++)
		pass_record(&p, book, keys[i]);
	if (p.n_pfs && (r = a->env.dcb_open(&a->env, &ops, &dcb)) < 0) {
		log_error("agent: opening the DCB backend: %s", strerror(-r));
		ops = NULL;
		for (size_t i = 0; i < p.n_pfs; i++)
			pass_report_drift(rep, p.pfs[i].pf.ifname, ITEM_DCB, true);
	}
	for (size_t i = 0; ops && i < p.n_pfs; i++)
		pass_pf(&p, &p.pfs[i], ops, dcb);
	if (ops)
		ops->free(dcb);
	pass_leftovers(&p);
	if (book && (r = stale_book_save(&a->env, book)) < 0)
		log_warn("agent: writing %s: %s", AGENT_STALE_FILE, strerror(-r));
	stale_book_free(book);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(p.pfs);
	catalog_free(p.cat);
	rep->duration = wall_now() - rep->started;
	return 0;
}
