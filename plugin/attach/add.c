// SPDX-License-Identifier: Apache-2.0
/*
 * ADD: profile -> devices -> NUMA verdict -> PF QoS (under the PF locks) ->
 * VF traffic class -> PF indexes -> record -> result. Every change records
 * its undo; a failure undoes in reverse order and reports the first error.
 * The record is written last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/lock/lock.h"
#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "plugin/attach/pf_require.h"
#include "plugin/attach/vf_class.h"

#include "plugin/attach/add.h"

static int numa_step(struct rq_ctx *c, struct add_tx *tx)
{
	struct rq_numa_result *n = &tx->numa;
	struct rq_numa_query q;
	int r;

	if (c->nc->numa == RQ_NUMA_OFF && c->nc->gdr == RQ_GDR_OFF)
		return 0;
	q = attach_numa_query(c, &tx->t);
	/* one look at kubelet serves both verdicts; the readers go by the counts */
	tx->devs = malloc(sizeof(*tx->devs));
	if (!tx->devs)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	tx->devs->answered = false;
	tx->devs->n_devs = tx->devs->n_dra = 0;
	q.devices = tx->devs;
	/* read when the VF was resolved (pkg/sysfs device_resolve_vf): not read twice */
	q.has_vf_node = true;
	q.vf_node = tx->t.vf.numa_node;
	r = numa_evaluate(&c->env.root, &q, n);
	if (c->nc->numa == RQ_NUMA_OFF) {
		/* asked for the GPUDirect verdict alone: the NUMA one stays unjudged */
		memset(n, 0, sizeof(*n));
		return 0;
	}
	/* the API was meant to answer and did not: ADD's line says why the files speak instead */
	tx->numa_source_fallback = r == 0 && strstr(n->source, "(PodResources API:");
	if (r == 0)
		log_debug("%s: NUMA evidence from %s", c->key, n->source);
	if (r < 0) {
		log_warn("%s: NUMA placement unknown: %s", c->key, strerror(-r));
		n->verdict = RQ_NUMA_UNKNOWN;
		return 0;
	}
	if (n->verdict == RQ_NUMA_ALIGNED) {
		log_debug("%s: NUMA aligned: %s", c->key, n->evidence);
		return 0;
	}
	/* unknown never fails ADD and is no problem of the pod's: said in ADD's one line */
	if (n->verdict == RQ_NUMA_UNKNOWN) {
		tx->numa_unknown_why = n->evidence;
		return 0;
	}
	if (n->verdict == RQ_NUMA_UNVERIFIABLE && c->nc->numa == RQ_NUMA_STRICT)
		return rq_err(&c->err, RQ_ERR_NUMA, -EFBIG,
			      "NUMA placement cannot be verified (numa: strict): %s", n->evidence);
	if (n->verdict == RQ_NUMA_UNVERIFIABLE) {
		log_warn("%s: NUMA placement not verified (numa: warn, continuing): %s", c->key,
			 n->evidence);
		return 0;
	}
	if (c->nc->numa == RQ_NUMA_STRICT)
		return rq_err(&c->err, RQ_ERR_NUMA, -EXDEV, "NUMA misaligned (numa: strict): %s",
			      n->evidence);
	log_warn("%s: NUMA misaligned (numa: warn, continuing): %s", c->key, n->evidence);
	return 0;
}

/*
 * A VF another live attachment holds is not this one's to configure (a NAD
 * naming someone else's deviceID). A holder whose pod netns is gone, or who
 * no longer has the VF because this pod's interface shows it, lost its DEL:
 * the VF was handed on, and this attachment takes it over.
 */
/* The key of the holder attach_vf_holder found: the first other entry of @vf with a record. */
static void holder_key(struct rq_ctx *c, const cJSON *idx, const char *vf, char *buf, size_t len)
{
	const cJSON *it;

	buf[0] = '\0';
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(idx, "attachments"))
	{
		const char *key = json_str(it, "key"), *ivf = json_str(it, "vf");
		cJSON *rec = NULL;

		if (!key || !strcmp(key, c->key) || (ivf && strcmp(ivf, vf) != 0) ||
		    state_record_read(&c->env.root, key, &rec) < 0)
			continue;
		if (!strcmp(json_str(rec, "vf") ?: "", vf)) {
			(void)snprintf(buf, len, "%s", key);
			cJSON_Delete(rec);
			return;
		}
		cJSON_Delete(rec);
	}
}

static int owner_check(struct rq_ctx *c, struct add_tx *tx, const cJSON *idx, const char *vf)
{
	cJSON *rec = attach_vf_holder(c, idx, vf);
	const char *ns;
	int fd = -1, r = 0;

	if (!rec)
		return 0;
	/* one VF, one record: an adoption never commits beside any record of the VF (the
	 * chain's word wins, even a lost DEL's: the agent releases that one first) */
	if (tx->adopted) {
		r = rq_err(&c->err, RQ_ERR_NOT_OWNER, -EEXIST,
			   "VF %s has a record now (%s/%s, container %.12s): not adopted", vf,
			   json_str(rec, "podNamespace") ?: "?", json_str(rec, "podName") ?: "?",
			   json_str(rec, "containerID") ?: "?");
		cJSON_Delete(rec);
		return r;
	}
	ns = json_str(rec, "netns");
	/*
	 * The agent adopted the VF in the moment between its move into the pod and
	 * this ADD (a chained ADD comes after the VF is in the pod): the chain's
	 * word wins. What the adoption set is ours, its record goes after the commit.
	 */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "adopted")) && !tx->adopted) {
		tos_take_over(&tx->tos, rec);
		holder_key(c, idx, vf, tx->adopted_holder, sizeof(tx->adopted_holder));
		log_info("%s: VF %s was adopted by the agent for %s/%s: this ADD takes it over",
			 c->key, vf, json_str(rec, "podNamespace") ?: "?",
			 json_str(rec, "podName") ?: "?");
		cJSON_Delete(rec);
		return 0;
	}
	/* a device the pod's interface shows is in this pod, not in the holder's */
	if (!tx->t.confirmed && ns && *ns && podns_open(&c->env, rec, NULL, 0, &fd) == 0) {
		close(fd);
		r = rq_err(&c->err, RQ_ERR_NOT_OWNER, -EBUSY,
			   "deviceID: VF %s is held by live attachment %s/%s (container %.12s)", vf,
			   json_str(rec, "podNamespace") ?: "?", json_str(rec, "podName") ?: "?",
			   json_str(rec, "containerID") ?: "?");
	} else {
		/* what it set is ours now, and so is the value to put back at DEL */
		tos_take_over(&tx->tos, rec);
		log_info("%s: VF %s was held by %s/%s, which no longer has it (a lost DEL): taking "
			 "it over",
			 c->key, vf, json_str(rec, "podNamespace") ?: "?",
			 json_str(rec, "podName") ?: "?");
	}
	cJSON_Delete(rec);
	return r;
}

static int carrier_step(struct rq_ctx *c, struct add_tx *tx);

/* PF @i had no attachment before this one: it comes into use (its index lists nobody) */
static bool pf_first_use(const struct add_tx *tx, size_t i)
{
	const cJSON *a;

	if (tx->idx_steady[i])
		return false;
	a = tx->idx[i] ? cJSON_GetObjectItemCaseSensitive(tx->idx[i], "attachments") : NULL;
	return cJSON_GetArraySize(a) == 0;
}

static int pf_step(struct rq_ctx *c, struct add_tx *tx)
{
	const struct rq_vf_info *vf = &tx->t.vf;
	int r;

	if (!vf->has_pf) {
		log_warn(
		    "%s: %s has no physfn (not an SR-IOV VF): the profile's PF part is skipped",
		    c->key, vf->pci);
		return 0;
	}
	r = attach_lock_pfs(c, vf, tx->fds);
	if (r < 0)
		return r;
	for (size_t i = 0; i < vf->n_pf; i++) {
		r = pfqos_conflict_check(c, &vf->pf[i], vf->pci, &tx->idx[i], &tx->idx_steady[i]);
		if (r < 0)
			return r;
		/* a shared device has no VF to own */
		r = tx->t.shared ? 0 : owner_check(c, tx, tx->idx[i], vf->pci);
		if (r < 0)
			return r;
	}
	if (c->pf_mode == RQ_PF_IGNORE)
		return 0;
	/* a lossy profile: no DCB read or write, so no DCB needed on the PF either */
	if (!profile_has_pf_req(&c->profile)) {
		log_debug("%s: profile \"%s\" requires nothing of the PF", c->key, c->profile.name);
		return 0;
	}
	r = c->env.dcb_open(&c->env, &tx->ops, &tx->dcb);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "opening the DCB backend: %s", strerror(-r));
	tx->pf = calloc(vf->n_pf, sizeof(*tx->pf));
	if (!tx->pf)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	c->carrier_defer = true;
	for (size_t i = 0; i < vf->n_pf; i++) {
		r = pfqos_ensure(c, tx->ops, tx->dcb, &vf->pf[i], pf_first_use(tx, i), &tx->pf[i]);
		tx->n_pf_done = i + 1;
		if (r < 0)
			return r;
	}
	c->carrier_defer = false;
	return carrier_step(c, tx);
}

/*
 * A PFC change flaps the port (mlx5 toggles its link) for up to
 * node.carrierWaitSeconds, as long as another ADD may wait for the PF lock:
 * the wait is done without it. Taken again, the port is looked at anew:
 * another ADD may have come (then a failure here no longer undoes the port,
 * which that one relies on), a conflicting one may have changed it (102), or
 * another writer may have taken something away (written again).
 */
static int carrier_step(struct rq_ctx *c, struct add_tx *tx)
{
	const struct rq_vf_info *vf = &tx->t.vf;
	cJSON *snap[RQ_MAX_PFS] = {NULL};
	bool any = false;
	int r = 0, rr;

	for (size_t i = 0; i < vf->n_pf; i++)
		any |= tx->pf[i].carrier_pending;
	if (!any)
		return 0;
	for (size_t i = 0; i < vf->n_pf; i++)
		if (state_pf_read(&c->env.root, vf->pf[i].pci, &snap[i]) < 0)
			snap[i] = NULL;
	attach_unlock_pfs(vf, tx->fds);
	if (c->env.pause_point)
		c->env.pause_point(&c->env, "add-carrier");
	for (size_t i = 0; i < vf->n_pf; i++) {
		rr = pfqos_carrier_wait(c, &vf->pf[i], &tx->pf[i]);
		if (rr < 0 && r == 0)
			r = rr;
	}
	rr = attach_lock_pfs(c, vf, tx->fds);
	if (rr < 0) {
		tx->pf_unlocked = true;
		for (size_t i = 0; i < vf->n_pf; i++)
			cJSON_Delete(snap[i]);
		return r < 0 ? r : rr;
	}
	for (size_t i = 0; i < vf->n_pf; i++) {
		cJSON *now = NULL;

		if (state_pf_read(&c->env.root, vf->pf[i].pci, &now) < 0)
			now = NULL;
		tx->idx_moved[i] =
		    !(snap[i] == now || (snap[i] && now && json_equal(snap[i], now)));
		if (tx->idx_moved[i])
			log_info("%s: PF %s: other attachments came while the carrier was down",
				 c->key, vf->pf[i].ifname);
		cJSON_Delete(now);
		cJSON_Delete(snap[i]);
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < vf->n_pf; i++) {
		struct pf_undo again;

		cJSON_Delete(tx->idx[i]);
		tx->idx[i] = NULL;
		tx->idx_steady[i] = false;
		r = pfqos_conflict_check(c, &vf->pf[i], vf->pci, &tx->idx[i], &tx->idx_steady[i]);
		if (r < 0)
			return r;
		/* an adoption (or another ADD) of this VF may have committed meanwhile */
		r = tx->t.shared ? 0 : owner_check(c, tx, tx->idx[i], vf->pci);
		if (r < 0)
			return r;
		/* what another writer took away meanwhile: this time the wait holds the lock */
		r = pfqos_ensure(c, tx->ops, tx->dcb, &vf->pf[i], false, &again);
		tx->pf[i].ecn_written |= again.ecn_written;
		tx->pf[i].dcb_applied |= again.dcb_applied;
		if (r < 0)
			return r;
	}
	return 0;
}

static cJSON *record_build(struct rq_ctx *c, const struct add_tx *tx, bool pending)
{
	cJSON *rec = cJSON_CreateObject(), *pfs;
	const struct rq_vf_info *vf = &tx->t.vf;
	char pidns[64] = "";
	cJSON *ign;
	static const char *const verdicts[] = {"unknown", "aligned", "misaligned", "unverifiable"};

	if (!rec)
		return NULL;
	cJSON_AddNumberToObject(rec, "version", 1);
	cJSON_AddStringToObject(rec, "network", c->nc->name);
	cJSON_AddStringToObject(rec, "containerID", c->args.containerid);
	cJSON_AddStringToObject(rec, "ifname", c->args.ifname);
	cJSON_AddStringToObject(rec, "netns", c->args.netns ?: "");
	/*
	 * A /proc/<pid>/... netns path means something only in this PID namespace:
	 * recorded for such a path alone (a bind-mount path names the same netns
	 * from any PID namespace, and /proc's lookup costs a pod's ADD ~14 us).
	 */
	if (c->args.netns && !strncmp(c->args.netns, "/proc/", 6) &&
	    readlink("/proc/self/ns/pid", pidns, sizeof(pidns) - 1) > 0)
		cJSON_AddStringToObject(rec, "pidns", pidns);
	/* a path is not an identity: the PID may be another process's after a lost DEL */
	if (c->args.netns &&
	    podns_record_identity(c->args.netns, c->netns_dev, c->netns_ino, rec) < 0)
		log_debug("%s: no identity of netns %s recorded", c->key, c->args.netns);
	cJSON_AddStringToObject(rec, "podNamespace", c->args.pod_namespace);
	cJSON_AddStringToObject(rec, "podName", c->args.pod_name);
	cJSON_AddStringToObject(rec, "podUID", c->args.pod_uid);
	cJSON_AddStringToObject(rec, "vf", vf->pci);
	pfs = cJSON_AddArrayToObject(rec, "pfs");
	for (size_t i = 0; vf->has_pf && pfs && i < vf->n_pf; i++) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddStringToObject(p, "pci", vf->pf[i].pci);
		cJSON_AddStringToObject(p, "ifname", vf->pf[i].ifname);
		cJSON_AddItemToArray(pfs, p);
	}
	tos_record(c, rec, &tx->t, &tx->tos, pending);
	/* who is between intent and effect: the agent rolls back a pending record whose ADD died */
	if (pending)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(rec, "pending"), "pid", getpid());
	cJSON_AddStringToObject(rec, "pf", pf_mode_name(c->pf_mode));
	cJSON_AddStringToObject(rec, "numa", numa_mode_name(c->nc->numa));
	cJSON_AddStringToObject(rec, "numaVerdict", verdicts[tx->numa.verdict]);
	cJSON_AddNumberToObject(rec, "numaNode", tx->numa.vf_node);
	if (tx->numa.source[0])
		cJSON_AddStringToObject(rec, "numaSource", tx->numa.source);
	gdr_record(c, rec, &tx->gdr);
	/* NAD keys ADD ignored (a typo): check `config` of the verdict (plugin/judge/verdict.c) */
	ign = netconf_ignored_keys(c->nc);
	if (ign)
		cJSON_AddItemToObject(rec, "ignoredKeys", ign);
	cJSON_AddStringToObject(rec, "profileName", c->profile.name);
	cJSON_AddItemToObject(rec, "profile", profile_to_json(&c->profile));
	if (tx->t.shared)
		shared_record_keys(rec, &tx->t, &tx->gids);
	/* no chain ran rdma-qos for this VF: the agent did ADD's work (pass/unchained_pass.c) */
	if (tx->adopted)
		cJSON_AddTrueToObject(rec, "adopted");
	return rec;
}

/*
 * Intent before effect: before the first write to the VF, a record that says
 * what is about to change and what to put back. A plugin killed after it
 * leaves what a retried ADD resumes from (keeping the original values) and
 * what DEL restores from; the agent rolls back one whose ADD is gone.
 */
static int intent_step(struct rq_ctx *c, struct add_tx *tx)
{
	cJSON *rec;
	int r;

	if (!tos_will_write(&tx->tos))
		return 0;
	rec = record_build(c, tx, true);
	if (!rec)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	r = state_record_write(&c->env.root, c->key, rec);
	cJSON_Delete(rec);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "writing attachment record %s: %s", c->key,
			      strerror(-r));
	tx->intent_written = true;
	return 0;
}

/*
 * One VF, one record, checked under the PF lock at an adoption's commit: any
 * other record of the VF (a chained ADD's, pending or not, indexed or not) is
 * the chain's, and the adoption rolls back.
 */
static int adopt_sole_check(struct rq_ctx *c, const char *vf)
{
	char **keys = NULL;
	size_t n = 0;
	int r = 0;

	if (state_record_list(&c->env.root, &keys, &n) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;

		if (r == 0 && strcmp(keys[i], c->key) != 0 &&
		    state_record_read(&c->env.root, keys[i], &rec) == 0 &&
		    !strcmp(json_str(rec, "vf") ?: "", vf))
			r = rq_err(&c->err, RQ_ERR_NOT_OWNER, -EEXIST,
				   "VF %s has a record now (%s): not adopted", vf, keys[i]);
		cJSON_Delete(rec);
		free(keys[i]);
	}
	free(keys);
	return r;
}

static int commit_step(struct rq_ctx *c, struct add_tx *tx)
{
	cJSON *rec;
	int r = 0;

	if (tx->adopted && (r = adopt_sole_check(c, tx->t.vf.pci)) < 0)
		return r;
	for (size_t i = 0; tx->t.vf.has_pf && i < tx->t.vf.n_pf && r == 0; i++)
		r = index_add(c, tx, i);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "writing PF index: %s", strerror(-r));
	rec = record_build(c, tx, false);
	if (!rec)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	/* a repeated ADD that changes nothing writes nothing */
	if (!tx->intent_written && tx->rec_before && json_equal(tx->rec_before, rec))
		r = 0;
	else
		r = state_record_write(&c->env.root, c->key, rec);
	cJSON_Delete(rec);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "writing attachment record %s: %s", c->key,
			      strerror(-r));
	/* after this record: killed before, the agent finds the VF held by it and releases the
	 * adopted one without touching the class (attach.c vf_handed_on) */
	if (tx->adopted_holder[0]) {
		for (size_t i = 0; tx->t.vf.has_pf && i < tx->t.vf.n_pf; i++)
			(void)state_pf_detach(&c->env.root, tx->t.vf.pf[i].pci, tx->adopted_holder);
		(void)state_record_remove(&c->env.root, tx->adopted_holder);
	}
	return 0;
}

static void rollback(struct rq_ctx *c, struct add_tx *tx)
{
	const char *pf;

	/* the PF indexes go back to what this ADD read (a repeated ADD stays listed) */
	for (size_t i = 0; i < RQ_MAX_PFS; i++) {
		if (!tx->idx_written[i])
			continue;
		pf = tx->t.vf.pf[i].pci;
		if (tx->idx_before[i])
			(void)state_pf_write(&c->env.root, pf, tx->idx_before[i]);
		else
			(void)state_pf_remove(&c->env.root, pf);
	}
	tos_rollback(c, &tx->t, &tx->tos);
	if (tx->dev_written)
		dev_class_rollback(c, &tx->t, tx->dev_before);
	/* the knobs are back: so is the record (or its absence) */
	if (tx->intent_written && tx->rec_before)
		(void)state_record_write(&c->env.root, c->key, tx->rec_before);
	else if (tx->intent_written)
		(void)state_record_remove(&c->env.root, c->key);
	/* ADD only added what was missing: the port as found is what others had (pfqos_undo) */
	for (size_t i = tx->n_pf_done; i > 0; i--) {
		if (tx->pf_unlocked || tx->idx_moved[i - 1]) {
			log_warn("%s: PF %s: this ADD's DCB changes are kept: %s", c->key,
				 tx->t.vf.pf[i - 1].ifname,
				 tx->pf_unlocked ? "its lock could not be taken again"
						 : "attachments that came meanwhile rely on them");
			continue;
		}
		pfqos_undo(c, tx->ops, tx->dcb, &tx->t.vf.pf[i - 1], &tx->pf[i - 1]);
	}
}

/*
 * ADD's one line (issue 49 item 8): what was attached, and the fields DESIGN asks every ADD
 * to log: the class's scope (configfs only: RDMA-CM connections), the NUMA and GPUDirect
 * verdicts, and why one is unknown. Problems (misaligned, far, degraded) keep lines of their
 * own at warn; a PF's missing controls are said where the PF changes (attach/pf_require.c).
 * "NUMA placement unknown: ..." comes last: its evidence ends the line.
 */
static void log_done(struct rq_ctx *c, const struct add_tx *tx)
{
	static const char *const numa_names[] = {"unknown", "aligned", "misaligned",
						 "unverifiable"};
	const struct rq_target *t = &tx->t;
	char numa[32] = "", gdr[32] = "";

	if (c->nc->numa != RQ_NUMA_OFF && (unsigned)tx->numa.verdict < 4)
		(void)snprintf(numa, sizeof(numa), ", numa %s", numa_names[tx->numa.verdict]);
	if (tx->gdr.verdict != RQ_GDR_V_NONE)
		(void)snprintf(gdr, sizeof(gdr), ", gdr %s", gdr_verdict_name(tx->gdr.verdict));
	log_info(
	    "%s: %s done: VF %s, RDMA %s, profile \"%s\", pf %s, class scope %s%s%s%s%s%s%s%s%s",
	    c->key, tx->adopted ? "adoption" : "ADD",
	    t->shared ? "none (shared RDMA device)" : t->vf.pci,
	    t->have_rdma ? t->rdma.name : "none", c->profile.name, pf_mode_name(c->pf_mode),
	    !t->have_rdma		 ? "none"
	    : t->rdma.has[RQ_KNOB_MOFED] ? "all-qps"
					 : "rdma-cm (configfs only: RDMA-CM connections)",
	    numa, gdr, tx->gdr.verdict == RQ_GDR_V_UNKNOWN ? "; GPUDirect RDMA path unknown: " : "",
	    tx->gdr.verdict == RQ_GDR_V_UNKNOWN ? tx->gdr.evidence : "",
	    tx->numa_source_fallback ? "; NUMA evidence from " : "",
	    tx->numa_source_fallback ? tx->numa.source : "",
	    tx->numa_unknown_why ? "; NUMA placement unknown: " : "",
	    tx->numa_unknown_why ? tx->numa_unknown_why : "");
}

static int add_run(struct rq_ctx *c, struct add_tx *tx, bool adopted, struct rq_target *ret_t)
{
	int r;

	tos_tx_init(&tx->tos);
	tx->adopted = adopted;
	for (size_t i = 0; i < RQ_MAX_PFS; i++)
		tx->fds[i] = -1;
	r = attach_load_profile(c);
	if (r < 0)
		return r;
	r = attach_resolve_target(c, &tx->t);
	if (r < 0)
		return r;
	/*
	 * Taken before the PF locks (the agent's order too) and before any
	 * record is written: the agent judges a pending record by this lock,
	 * which the kernel drops when this process dies however it dies.
	 */
	tx->att_fd = lock_attachment(&c->env.root, c->key, c->env.lock_timeout_ms);
	if (tx->att_fd == -EAGAIN)
		return rq_err(&c->err, RQ_ERR_TRY_AGAIN, tx->att_fd,
			      "attachment %s is being worked on by another command for more than "
			      "%d ms; try again later",
			      c->key, c->env.lock_timeout_ms);
	if (tx->att_fd < 0)
		return rq_err(&c->err, RQ_ERR_IO, tx->att_fd, "attachment lock %s: %s", c->key,
			      strerror(-tx->att_fd));
	/* everything that can be checked without writing is checked before the PF is touched */
	r = c->profile.traffic_class < 0 ? 0 : tos_prepare(c, &tx->t);
	if (r == 0)
		r = numa_step(c, tx);
	/*
	 * The pod's GIDs: read-only, before any lock of the PF is taken (the wait must not hold
	 * it). A repeated ADD looks where its record says first: the record is read here, under
	 * the attachment's lock, once (a shared record's writers hold that lock, but for the
	 * agent's following of a renamed device, whose change the commit's compare then sees).
	 */
	if (r == 0 && tx->t.shared) {
		if (state_record_read(&c->env.root, c->key, &tx->rec_before) < 0)
			tx->rec_before = NULL;
		tx->rec_read = true;
		shared_gids_find(c, &tx->t, tx->rec_before, 500, &tx->gids);
	}
	if (r == 0) {
		gdr_judge(c, &tx->t, tx->devs && tx->devs->answered ? tx->devs : NULL, &tx->gdr);
		/* unknown is no problem of the pod's: ADD's one line says it (log_done) */
		r = tx->adopted || tx->gdr.verdict == RQ_GDR_V_UNKNOWN ? 0
								       : gdr_enforce(c, &tx->gdr);
	}
	if (r == 0)
		r = pf_step(c, tx);
	/* the record as this ADD found it: what the knobs go back to, and a repeated ADD's no-op */
	if (r == 0 && !tx->rec_read && state_record_read(&c->env.root, c->key, &tx->rec_before) < 0)
		tx->rec_before = NULL;
	if (r == 0)
		r = tos_plan(c, &tx->t, &tx->tos, tx->rec_before);
	/* a shared device's class: listed in its index before the first write (intent first) */
	if (r == 0 && tx->t.shared) {
		int found[RQ_KNOB_N];

		for (int k = 0; k < RQ_KNOB_N; k++)
			found[k] = tx->t.rdma.has[k] ? tx->tos.k[k].found : -2;
		r = dev_class_require(c, &tx->t, found, &tx->dev_before, &tx->dev_written);
	}
	if (r == 0)
		r = intent_step(c, tx);
	if (r == 0 && tx->intent_written && c->env.pause_point)
		c->env.pause_point(&c->env, "add-pending");
	if (r == 0)
		r = tos_write(c, &tx->t, &tx->tos);
	if (r == 0)
		r = commit_step(c, tx);
	if (r < 0)
		rollback(c, tx);
	attach_unlock_pfs(&tx->t.vf, tx->fds);
	for (size_t i = 0; i < RQ_MAX_PFS; i++) {
		cJSON_Delete(tx->idx[i]);
		cJSON_Delete(tx->idx_before[i]);
	}
	cJSON_Delete(tx->rec_before);
	cJSON_Delete(tx->dev_before);
	shared_gids_fini(&tx->gids);
	lock_release(tx->att_fd); /* after the record and the PF locks */
	free(tx->pf);
	free(tx->devs);
	if (tx->ops && tx->ops->free)
		tx->ops->free(tx->dcb);
	if (r == 0)
		log_done(c, tx);
	if (r == 0 && ret_t)
		*ret_t = tx->t;
	return r;
}

int attach_add(struct rq_ctx *c, bool adopted, struct rq_target *ret_t)
{
	/* on the heap (populated in bulk, pkg/mem), not 6 KiB of fresh stack pages (issue 51) */
	struct add_tx *tx = calloc(1, sizeof(*tx));
	int r;

	if (!tx)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	r = add_run(c, tx, adopted, ret_t);
	free(tx);
	return r;
}
