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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "plugin/agent/agent.h"
#include "plugin/agent/catalog_sync.h"
#include "plugin/pass/pass_int.h"
#include "plugin/attach/pf_require.h"
#include "plugin/agent/metrics.h"
#include "plugin/pass/fights.h"
#include "plugin/attach/hostnet.h"
#include "plugin/attach/shared.h"
#include "plugin/pass/pass.h"
#include "plugin/pass/stale.h"

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

/*
 * Release @rec as DEL would, holding the attachment's lock: a plugin command
 * at work on it holds that lock (whatever PID namespace it runs in), so a
 * lock we cannot take means "not ours to judge now". Under the PF locks the
 * record is read again and released only if it still says what @rec says.
 * 1 released, 0 left alone.
 */
static int release_locked(struct pass *p, const char *key, const cJSON *rec, const char *what)
{
	struct rq_ctx c;
	int fd, r;

	fd = lock_attachment(&p->a->env.root, key, 0);
	if (fd == -EAGAIN) {
		log_debug("agent: %s: a plugin command holds the attachment: not judged this pass",
			  key);
		return 0;
	}
	if (fd < 0) {
		log_warn("agent: %s: attachment lock: %s: not judged this pass", key,
			 strerror(-fd));
		return 0;
	}
	pass_ctx_init(&c, p, key);
	r = attach_release_checked(&c, rec, true);
	if (r < 0)
		log_warn("agent: %s: %s failed: %s", key, what, c.err.msg);
	if (r == 1)
		(void)lock_attachment_remove(&p->a->env.root, key);
	lock_release(fd);
	return r == 1;
}

static bool record_adopted(const cJSON *rec)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "adopted"));
}

/*
 * An adopted VF that is back in the host (or another interface now in its
 * pod) is released as a lost DEL is, its class restored: it is nobody's
 * attachment any more. true: released (or left to a command at work on it).
 */
static bool adopted_left(struct pass *p, const char *key, const cJSON *rec)
{
	char why[160];

	if (vf_home_judge(&p->a->env, rec, why, sizeof(why)) != 0)
		return false;
	log_info("agent: %s: adopted VF %s left pod %s/%s (%s): releasing it", key,
		 json_str(rec, "vf") ?: "?", json_str(rec, "podNamespace") ?: "?",
		 json_str(rec, "podName") ?: "?", why);
	(void)release_locked(p, key, rec, "release");
	return true;
}

static void release_stale(struct pass *p, const char *key, cJSON *rec)
{
	if (record_adopted(rec))
		log_info("agent: %s: pod %s/%s netns %s of adopted VF %s is gone: releasing it",
			 key, json_str(rec, "podNamespace") ?: "?", json_str(rec, "podName") ?: "?",
			 json_str(rec, "netns") ?: "", json_str(rec, "vf") ?: "?");
	else
		log_info(
		    "agent: %s: pod %s/%s netns %s gone for more than %d s (a lost DEL): releasing",
		    key, json_str(rec, "podNamespace") ?: "?", json_str(rec, "podName") ?: "?",
		    json_str(rec, "netns") ?: "", p->a->o.stale_grace_s);
	(void)release_locked(p, key, rec, "release");
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

/*
 * A pending record whose ADD is gone (killed between saying what it would
 * change and writing its record): put back what it may have set, as DEL
 * would, and drop it. A retry of that ADD starts afresh. Whether the ADD is
 * gone is its attachment lock's answer, never its pid's: the agent runs in a
 * PID namespace of its own (no hostPID) and sees no plugin process at all.
 */
static bool pass_pending(struct pass *p, const char *key, cJSON *rec)
{
	int fd;

	if (!cJSON_GetObjectItemCaseSensitive(rec, "pending"))
		return false;
	fd = lock_attachment(&p->a->env.root, key, 0);
	if (fd < 0) {
		if (fd != -EAGAIN)
			log_warn("agent: %s: attachment lock: %s: pending record not judged", key,
				 strerror(-fd));
		return true; /* its ADD is at work: not ours to judge yet */
	}
	lock_release(fd); /* release_locked takes it again (flock is per open file) */
	log_info("agent: %s: the ADD that wrote this pending record (pid %d) is gone: rolling back",
		 key, json_int(cJSON_GetObjectItemCaseSensitive(rec, "pending"), "pid", 0));
	if (release_locked(p, key, rec, "roll-back"))
		p->rep->rolled_back++;
	return true;
}

/* The VF's PFs as the record names them, each found again by PCI address (its name may change). */
static void vf_from_record(const struct rq_root *root, const cJSON *rec, struct rq_vf_info *vf)
{
	const cJSON *it;

	memset(vf, 0, sizeof(*vf));
	(void)snprintf(vf->pci, sizeof(vf->pci), "%s", json_str(rec, "vf") ?: "");
	vf->numa_node = -1;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "pfs"))
	{
		const char *pci = json_str(it, "pci"), *ifn = json_str(it, "ifname");
		struct rq_pf *pf = &vf->pf[vf->n_pf];

		if (vf->n_pf >= RQ_MAX_PFS || !pci || !netconf_pci_addr_valid(pci))
			continue;
		if (device_resolve_pf(root, pci, pf) < 0) {
			memset(pf, 0, sizeof(*pf));
			(void)snprintf(pf->pci, sizeof(pf->pci), "%s", pci);
			(void)snprintf(pf->ifname, sizeof(pf->ifname), "%s", ifn ?: pci);
		}
		vf->n_pf++;
	}
	vf->has_pf = vf->n_pf > 0;
}

/*
 * false when the VF is not the pod's interface any more (or is gone): said
 * once per pass in the log, as rdma_qos_vf_in_pod 0 and as traffic_class
 * drift of its PF, so the attachment is never reported in profile.
 */
static bool pass_vf_home(struct pass *p, const char *key, const cJSON *rec,
			 const struct rq_vf_info *vf)
{
	const char *pf = vf->n_pf ? vf->pf[0].ifname : json_str(rec, "vf") ?: "?";
	char why[160];
	int r = vf_home_judge(&p->a->env, rec, why, sizeof(why));

	if (r < 0)
		return true; /* cannot tell: as before, the class is kept */
	vf_home_report(p->rep, rec, r == 1);
	if (!p->a->vf_left)
		p->a->vf_left = cJSON_CreateObject();
	if (r == 1) {
		cJSON_DeleteItemFromObjectCaseSensitive(p->a->vf_left, key);
		return true;
	}
	/* said once at warn, then at debug every pass: the metric keeps saying it */
	if (cJSON_GetObjectItemCaseSensitive(p->a->vf_left, key)) {
		log_debug("agent: %s: VF %s still out of its pod (%s)", key,
			  json_str(rec, "vf") ?: "?", why);
		pass_report_drift(p->rep, pf, ITEM_TRAFFIC_CLASS, true);
		return false;
	}
	cJSON_AddTrueToObject(p->a->vf_left, key);
	log_warn("agent: %s: VF %s left pod %s/%s (%s: a driver reload or device reset?): the pod "
		 "has lost this rail; nothing of the VF is written until it is attached again",
		 key, json_str(rec, "vf") ?: "?", json_str(rec, "podNamespace") ?: "?",
		 json_str(rec, "podName") ?: "?", why);
	pass_report_drift(p->rep, pf, ITEM_TRAFFIC_CLASS, true);
	return false;
}

/*
 * A shared attachment's GIDs the kernel had not added at ADD: looked for again, under the
 * attachment's lock (a DEL or a repeated ADD writes the record under it too), and recorded.
 */
static void shared_pass(struct pass *p, const char *key, cJSON **rec)
{
	cJSON *now = NULL;
	int fd, r;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(*rec, "gidsPending")) == 0)
		return;
	fd = lock_attachment(&p->a->env.root, key, 0);
	if (fd < 0)
		return; /* a command is at work on it: the next pass looks again */
	if (state_record_read(&p->a->env.root, key, &now) == 0 &&
	    shared_gids_fill(&p->a->env, now) == 1) {
		r = state_record_write(&p->a->env.root, key, now);
		if (r < 0)
			log_warn("agent: %s: recording its GIDs: %s", key, strerror(-r));
		else
			log_info("agent: %s: RoCE v2 GIDs of %s/%s found (%d still pending)", key,
				 json_str(now, "podNamespace") ?: "?",
				 json_str(now, "podName") ?: "?",
				 cJSON_GetArraySize(
				     cJSON_GetObjectItemCaseSensitive(now, "gidsPending")));
		if (r == 0) {
			cJSON_Delete(*rec);
			*rec = now;
			now = NULL;
		}
	}
	cJSON_Delete(now);
	lock_release(fd);
}

static void pass_record(struct pass *p, struct stale_book *book, const char *key)
{
	struct rq_profile prof;
	struct rq_vf_info vf;
	struct rq_ctx c;
	cJSON *rec = NULL;
	bool drift = false, vf_gone = false, home = true;
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
	/* an adopted VF has no DEL to wait for: released as soon as its netns is gone */
	r = book ? stale_book_judge(book, &p->a->env, key, rec,
				    record_adopted(rec) ? 0 : p->a->o.stale_grace_s)
		 : 0;
	if (r == 1) {
		release_stale(p, key, rec);
		cJSON_Delete(rec);
		return;
	}
	if (record_adopted(rec) && adopted_left(p, key, rec)) {
		cJSON_Delete(rec);
		return;
	}
	pass_ctx_init(&c, p, key);
	if (profile_from_json(cJSON_GetObjectItemCaseSensitive(rec, "profile"), "profile",
			      json_str(rec, "profileName") ?: "?", &prof, &c.err) < 0) {
		log_warn("agent: record %s: %s: skipped", key, c.err.msg);
		cJSON_Delete(rec);
		return;
	}
	c.profile = prof;
	c.pf_mode = record_pf_mode(rec, p->cat);
	numa_metric(p->rep, rec);
	agent_gdr_record(p->a, p->rep, rec);
	/* a shared device has no VF: its ports as the record names them (attach/shared.c) */
	if (shared_record(rec)) {
		vf_from_record(&c.env.root, rec, &vf);
		shared_pass(p, key, &rec);
		r = 0;
	} else {
		r = device_resolve_vf(&c.env.root, json_str(rec, "vf") ?: "", &vf, &c.err);
	}
	if (r < 0) {
		/* mid-reload: the VF is gone, its PF (reset with it) is still the attachment's */
		log_warn("agent: %s: VF %s is gone (%s): its PF is still kept, its class cannot be",
			 key, json_str(rec, "vf") ?: "?", c.err.msg[0] ? c.err.msg : strerror(-r));
		vf_from_record(&c.env.root, rec, &vf);
		vf_gone = true;
	}
	pass_record_pfs(p, rec, &prof, c.pf_mode, &vf);
	if (stale_book_judge_pending(book, key)) {
		/* the pod is gone: its VF's class is nobody's to keep; release comes after the
		 * grace */
		p->rep->stale++;
	} else if (!(home = pass_vf_home(p, key, rec, &vf))) {
		/* left its pod: nothing of the VF is written */
	} else if (vf_gone) {
		pass_report_drift(p->rep, vf.n_pf ? vf.pf[0].ifname : vf.pci, ITEM_TRAFFIC_CLASS,
				  true);
	} else if (reconcile_tos(&c, rec, &vf, &drift, p->rep, p->a) < 0) {
		log_warn("agent: %s: %s", key, c.err.msg);
	}
	/* judged after the repair, as the pass leaves it; a pod that is gone has no verdict */
	if (!stale_book_judge_pending(book, key))
		verdict_pass_note(p->rep, rec, vf.n_pf ? vf.pf[0].ifname : "", vf_gone);
	/* after the repair: the record names the RDMA device as it is now; a VF that is gone
	 * or left its pod has no pod to count for */
	if (p->a->tel && home && !vf_gone && !stale_book_judge_pending(book, key) &&
	    tel_add_record(&p->rep->targets, rec, &prof) < 0)
		log_warn("agent: %s: out of memory for its counters", key);
	cJSON_Delete(rec);
}

/*
 * The host-network pods' PFs (pass_hostnet found them): verified against the pod's
 * profile like a pf: verify attachment's (reported, never written: no chain asked for
 * it), so the PF's drift, its link partner and its link health are judged for the pod
 * as for a VF's; then the pod's verdict. Not counted in rdma_qos_attachments.
 */
static void pass_hostnet_pfs(struct pass *p)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, p->rep->hostnet)
	{
		const cJSON *pf0 =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "pfs"), 0);
		struct rq_profile prof;
		struct rq_error e;
		struct rq_pf pf;
		struct pf_acc *acc;

		rq_err_clear(&e);
		if (json_str(o, "noVerdict") || json_str(o, "noDevice") ||
		    device_resolve_pf(&p->a->env.root, json_str(pf0, "pci") ?: "", &pf) < 0 ||
		    profile_from_json(cJSON_GetObjectItemCaseSensitive(o, "profile"), "profile",
				      json_str(o, "profileName") ?: "?", &prof, &e) < 0)
			continue;
		pass_report_drift(p->rep, pf.ifname, ITEM_DCB, false);
		acc = pf_acc_get(p, &pf);
		if (acc && record_pf_mode(o, p->cat) == RQ_PF_VERIFY && profile_has_pf_req(&prof)) {
			profile_req_merge(&acc->verify, &prof);
			acc->any_verify = true;
		}
		verdict_pass_note(p->rep, o, pf.ifname, false);
		/* with the host's PIDs its QPs are the census's, attributed by cgroup only
		 * (telemetry/tel_shared.c): a target beside the attachments on its device */
		if (p->a->tel && hostnet_pids_visible() &&
		    tel_add_record(&p->rep->targets, o, &prof) < 0)
			log_warn("agent: host-network pod %s/%s: out of memory for its QP census",
				 json_str(o, "podNamespace") ?: "?", json_str(o, "podName") ?: "?");
	}
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
		r = catalog_parse_lenient(buf, len, &cat, &e);
	free(buf);
	if (r < 0 && r != -ENOENT)
		log_error("agent: catalog %s: %s", RQ_CATALOG_PATH,
			  e.msg[0] ? e.msg : strerror(-r));
	if (!a->o.catalog_source)
		a->catalog_valid = r == 0 || r == -ENOENT;
	if (r == 0 && cat->obs_err[0]) {
		/* observability only: that section is ignored, the rest is in effect */
		log_error("agent: catalog %s: %s: section ignored", RQ_CATALOG_PATH, cat->obs_err);
		a->catalog_valid = false;
	}
	return r == 0 ? cat : NULL;
}

/*
 * The node baseline holds on every SR-IOV PF of the node, attachments or not:
 * after a reboot or a reset it is there before the first lossless pod lands.
 * node.pf decides whether it is ensured or only verified.
 */
static void pass_baseline_pfs(struct pass *p)
{
	struct rq_pf *pfs = NULL;
	size_t n = 0;
	int r;

	if (!p->cat || !p->cat->baseline[0] || p->cat->pf_max == RQ_PF_IGNORE)
		return;
	r = device_list_pfs(&p->a->env.root, &pfs, &n);
	if (r < 0) {
		log_warn("agent: listing the node's PFs for the baseline: %s", strerror(-r));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct pf_acc *acc = pf_acc_get(p, &pfs[i]);

		if (!acc)
			continue;
		acc->baseline = true;
		if (p->cat->pf_max == RQ_PF_ENSURE)
			acc->any_ensure = true;
		else
			acc->any_verify = true;
	}
	free(pfs);
}

/*
 * What killed plugins leave in the state directory: PF index entries
 * without a record (an ADD killed after its index write, or a lost record)
 * and temporaries of atomic writes. Entries are judged under the PF's lock,
 * which an ADD holds from its index write to its record write.
 */
/*
 * Attachment lock files of attachments that have no record any more (DEL
 * leaves them: it cannot tell whether an ADD of the same key is about to
 * take one). Removed only while held and still without a record; a taker
 * that opened the old file opens the new one (lock_attachment).
 */
static int att_locks_sweep(const struct rq_root *root)
{
	char **names = NULL;
	size_t n = 0;
	int removed = 0;

	if (sysfs_list(root, RQ_ATT_LOCK_DIR, &names, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		cJSON *rec = NULL;
		int fd;

		if (len <= 5 || strcmp(names[i] + len - 5, ".lock") != 0)
			continue;
		names[i][len - 5] = '\0';
		if (state_record_read(root, names[i], &rec) != -ENOENT) {
			cJSON_Delete(rec);
			continue;
		}
		fd = lock_attachment(root, names[i], 0);
		if (fd < 0)
			continue; /* a command is at work on it */
		if (state_record_read(root, names[i], &rec) == -ENOENT &&
		    lock_attachment_remove(root, names[i]) == 0)
			removed++;
		cJSON_Delete(rec);
		lock_release(fd);
	}
	sysfs_list_free(names, n);
	return removed;
}

static void pass_leftovers(struct pass *p)
{
	int removed = 0;

	removed = att_locks_sweep(&p->a->env.root);
	if (removed)
		log_debug("agent: removed %d attachment lock files without a record", removed);
	removed = 0;

	attach_orphans_drop(&p->a->env, NULL, "agent");
	/* a shared device's requirers without a record (an ADD killed after listing itself) */
	dev_class_orphans(&p->a->env, NULL, "agent");
	if (state_tmp_sweep(&p->a->env.root, AGENT_TMP_AGE_S, &removed) == 0 && removed)
		log_info("agent: removed %d leftover temporaries of killed writers", removed);
	/* the agent is the only writer of its own books (stale, fights): a temporary there is
	 * what a killed pass left, before this pass writes its own */
	if (state_tmp_sweep_dir(&p->a->env.root, AGENT_DIR, 0, &removed) == 0 && removed)
		log_info("agent: removed %d leftover temporaries of a killed agent", removed);
}

int agent_pass(struct agent *a, struct pass_report *rep)
{
	struct pass p = {.a = a, .rep = rep};
	const struct dcb_ops *ops = NULL;
	struct stale_book *book = NULL;
	char **keys = NULL, **adopted = NULL;
	size_t n = 0, n_adopted = 0;
	void *dcb = NULL;
	int r;

	rep->started = agent_wall_now();
	p.cat = pass_catalog(a);
	if (p.cat)
		rep->fec_uncorr_per_min = p.cat->fec_uncorr_per_min;
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
	if (stale_book_unjudged(book))
		log_warn("agent: %d record(s) name a netns the agent cannot judge from its own "
			 "namespaces (a /proc/<pid> path without --host-proc or without "
			 "CAP_SYS_PTRACE, or a netns directory not mounted into the pod): never "
			 "released as stale; see docs/operations.md",
			 stale_book_unjudged(book));
	pass_baseline_pfs(&p);
	pass_unchained(&p, &adopted, &n_adopted);
	/* counted, repaired and read from this pass on like any attachment */
	for (size_t i = 0; i < n_adopted; i++) {
		pass_record(&p, book, adopted[i]);
		free(adopted[i]);
	}
	free(adopted);
	pass_hostnet(&p);
	pass_hostnet_pfs(&p);
	for (size_t i = 0; i < p.n_pfs; i++)
		if (p.pfs[i].any_ensure || p.pfs[i].any_verify)
			cJSON_AddTrueToObject(rep->req_pfs, p.pfs[i].pf.ifname);
	if (p.n_pfs && (r = a->env.dcb_open(&a->env, &ops, &dcb)) < 0) {
		log_error("agent: opening the DCB backend: %s", strerror(-r));
		ops = NULL;
		for (size_t i = 0; i < p.n_pfs; i++)
			pass_report_drift(rep, p.pfs[i].pf.ifname, ITEM_DCB, true);
	}
	if (fight_book_load(&a->env, &p.fights) < 0)
		p.fights = NULL;
	for (size_t i = 0; ops && i < p.n_pfs; i++)
		pass_pf(&p, &p.pfs[i], ops, dcb);
	peer_pass_collect(&p, ops, dcb);
	fight_report(p.fights, rep);
	if (p.fights && (r = fight_book_save(&a->env, p.fights)) < 0)
		log_warn("agent: writing %s: %s", AGENT_FIGHT_FILE, strerror(-r));
	fight_book_free(p.fights);
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
	rep->duration = agent_wall_now() - rep->started;
	return 0;
}
