// SPDX-License-Identifier: Apache-2.0
/*
 * The VF's traffic class: MOFED/DOCA's tc/<port>/traffic_class sets the
 * class of every QP of the device (NCCL's, which never uses RDMA-CM,
 * included); configfs default_roce_tos only that of RDMA-CM connections.
 * Where both exist both are written, each with its own previous value.
 */
#include "plugin/attach/vf_class.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pkg/log/log.h"
#include "pkg/netns/netns.h"

const char *vf_tos_str(int v, char *buf, size_t len)
{
	if (v < 0)
		return "unset";
	(void)snprintf(buf, len, "%d", v);
	return buf;
}

static const char *scope_name(const struct rq_target *t)
{
	if (!t->have_rdma)
		return "none";
	return t->rdma.has[RQ_KNOB_MOFED] ? "all-qps" : "rdma-cm";
}

void tos_tx_init(struct tos_tx *tx)
{
	memset(tx, 0, sizeof(*tx));
	tx->stale_set = -1;
	for (int k = 0; k < RQ_KNOB_N; k++) {
		tx->k[k].found = tx->k[k].prev = -1;
		tx->stale_prev[k] = -1;
	}
}

/* One knob's entry in a record's "rdma" object. */
struct rec_knob {
	bool changed;
	int prev;
	int intent_found; /* a pending record: the value found before the intended write */
	const char *path;
};

/* Records written before both knobs were kept have one: tosKind, tosPath, tosPrevious, ... */
static bool rec_knob(const cJSON *rd, enum rq_tos_knob k, struct rec_knob *ret)
{
	const cJSON *kn = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rd, "knobs"), rdma_knob_name(k));

	memset(ret, 0, sizeof(*ret));
	ret->prev = -1;
	ret->intent_found = -2;
	if (cJSON_IsObject(kn)) {
		ret->changed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(kn, "changed"));
		ret->prev = json_int(kn, "previous", -1);
		ret->intent_found = json_int(kn, "intentFound", -2);
		ret->path = json_str(kn, "path");
		return true;
	}
	if (rdma_knob_parse(json_str(rd, "tosKind")) != (int)k)
		return false;
	ret->changed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rd, "tosChanged"));
	ret->prev = json_int(rd, "tosPrevious", -1);
	ret->path = json_str(rd, "tosPath");
	return true;
}

int tos_prepare(struct rq_ctx *c, struct rq_target *t)
{
	const struct rq_rdma_dev *d = &t->rdma;
	int r;

	if (!t->have_rdma)
		return 0;
	r = rdma_tos_locate(&c->env.root, &t->rdma, true, &c->err);
	if (r < 0)
		return r;
	if (c->profile.tos_scope == RQ_TOS_SCOPE_ALL_QPS && c->profile.traffic_class >= 0 &&
	    !d->has[RQ_KNOB_MOFED])
		return rq_err(&c->err, RQ_ERR_TOS_SCOPE, -EOPNOTSUPP,
			      "tosScope: profile \"%s\" needs the class on every QP, but RDMA "
			      "device %s has no MOFED/DOCA tc/%d/traffic_class, only configfs "
			      "default_roce_tos, which RDMA-CM connections alone read (NCCL does "
			      "not use RDMA-CM): set NCCL_IB_TC=%d in the pod and drop tosScope, "
			      "or install MOFED/DOCA",
			      c->profile.name, d->name, d->port, c->profile.traffic_class);
	return 0;
}

void tos_take_over(struct tos_tx *tx, const cJSON *holder)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(holder, "rdma");
	struct rec_knob rk;

	tx->stale_set = json_int(rd, "tosSet", -1);
	for (int k = 0; k < RQ_KNOB_N; k++)
		if (rec_knob(rd, k, &rk) && rk.changed) {
			tx->stale_changed[k] = true;
			tx->stale_prev[k] = rk.prev;
		}
}

/*
 * A repeated ADD of the same attachment keeps the value found before its
 * first; a VF taken over from a lost DEL keeps the one from before that. A
 * pending record (an ADD killed after saying what it would write) holds for
 * the knob whether the write happened (the class it set) or not (the value
 * it found then).
 */
static void keep_first(struct tos_tx *tx, const cJSON *old)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(old, "rdma");
	struct rec_knob rk;

	for (int k = 0; k < RQ_KNOB_N; k++) {
		struct tos_knob_tx *kt = &tx->k[k];

		if (!old) {
			if (tx->stale_changed[k] && kt->prev == tx->stale_set) {
				kt->prev = tx->stale_prev[k];
				kt->inherited = true;
			}
		} else if (rec_knob(rd, k, &rk) && rk.changed &&
			   (kt->prev == json_int(rd, "tosSet", -2) ||
			    kt->prev == rk.intent_found)) {
			kt->prev = rk.prev;
			kt->inherited = true;
		}
	}
}

int tos_plan(struct rq_ctx *c, const struct rq_target *t, struct tos_tx *tx, const cJSON *old)
{
	const struct rq_rdma_dev *d = &t->rdma;
	int want = c->profile.traffic_class, r;

	if (!t->have_rdma || want < 0)
		return 0;
	/* read every knob before writing any: a failed read leaves nothing to undo */
	for (int k = 0; k < RQ_KNOB_N; k++) {
		if (!d->has[k])
			continue;
		r = rdma_tos_read(&c->env.root, d, k, &tx->k[k].found);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_IO, r,
				      "reading %s traffic class of %s (%s): %s", rdma_knob_name(k),
				      d->name, d->path[k], strerror(-r));
		tx->k[k].prev = tx->k[k].found;
		tx->k[k].intent = tx->k[k].found != want;
	}
	keep_first(tx, old);
	if (!d->has[RQ_KNOB_MOFED] && !old)
		log_warn("%s: %s has configfs default_roce_tos only: class %d reaches RDMA-CM "
			 "connections only; applications that set their own (NCCL: NCCL_IB_TC=%d) "
			 "must do so",
			 c->key, d->name, want, want);
	return 0;
}

bool tos_will_write(const struct tos_tx *tx)
{
	for (int k = 0; k < RQ_KNOB_N; k++)
		if (tx->k[k].intent)
			return true;
	return false;
}

int tos_write(struct rq_ctx *c, const struct rq_target *t, struct tos_tx *tx)
{
	const struct rq_rdma_dev *d = &t->rdma;
	int want = c->profile.traffic_class, r;
	char a[8];

	for (int k = 0; k < RQ_KNOB_N; k++) {
		if (!tx->k[k].intent)
			continue;
		r = rdma_tos_write(&c->env.root, d, k, want);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_IO, r, "writing traffic class %d to %s: %s",
				      want, d->path[k], strerror(-r));
		tx->k[k].written = true;
		log_info("%s: %s port %d %s traffic class %s -> %d (%s%s)", c->key, d->name,
			 d->port, rdma_knob_name(k), vf_tos_str(tx->k[k].found, a, sizeof(a)), want,
			 d->path[k],
			 k == RQ_KNOB_MOFED && d->netns[0] ? " in the pod's sysfs" : "");
	}
	return 0;
}

void tos_rollback(struct rq_ctx *c, const struct rq_target *t, const struct tos_tx *tx)
{
	char a[8];

	for (int k = RQ_KNOB_N - 1; k >= 0; k--) {
		/* configfs has no "unset": its default is 0 */
		int v = tx->k[k].found < 0 && k != RQ_KNOB_MOFED ? 0 : tx->k[k].found;

		if (tx->k[k].written && rdma_tos_write(&c->env.root, &t->rdma, k, v) == 0)
			log_info("%s: %s %s traffic class restored to %s (ADD failed)", c->key,
				 t->rdma.name, rdma_knob_name(k), vf_tos_str(v, a, sizeof(a)));
	}
}

void tos_record(struct rq_ctx *c, cJSON *rec, const struct rq_target *t, const struct tos_tx *tx,
		bool pending)
{
	cJSON *rd = cJSON_AddObjectToObject(rec, "rdma"), *knobs;

	if (!rd)
		return;
	cJSON_AddStringToObject(rd, "device", t->have_rdma ? t->rdma.name : "");
	cJSON_AddStringToObject(rd, "tosScope", scope_name(t));
	if (!t->have_rdma)
		return;
	cJSON_AddNumberToObject(rd, "port", t->rdma.port);
	cJSON_AddBoolToObject(rd, "inPod", t->rdma.netns[0] != '\0');
	cJSON_AddNumberToObject(rd, "tosSet", c->profile.traffic_class);
	knobs = cJSON_AddObjectToObject(rd, "knobs");
	for (int k = 0; knobs && k < RQ_KNOB_N; k++) {
		cJSON *kn;

		if (!t->rdma.has[k] || !(kn = cJSON_AddObjectToObject(knobs, rdma_knob_name(k))))
			continue;
		cJSON_AddStringToObject(kn, "path", t->rdma.path[k]);
		cJSON_AddNumberToObject(kn, "previous", tx->k[k].prev);
		cJSON_AddBoolToObject(kn, "changed",
				      tx->k[k].written || tx->k[k].inherited ||
					  (pending && tx->k[k].intent));
		if (pending && tx->k[k].intent)
			cJSON_AddNumberToObject(kn, "intentFound", tx->k[k].found);
	}
}

static void drift_add(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void drift_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	if (n + 1 < len)
		(void)vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

int tos_check(struct rq_ctx *c, struct rq_target *t, const cJSON *rec, char *drift, size_t len)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	const char *dev = json_str(rd, "device");
	int want = c->profile.traffic_class, cur, r;
	struct rec_knob rk;
	char a[8];

	if (!t->have_rdma) {
		if (dev && *dev)
			drift_add(drift, len, "RDMA device: configured %s, current none\n", dev);
		return 0;
	}
	if (dev && strcmp(dev, t->rdma.name) != 0)
		drift_add(drift, len, "RDMA device: configured %s, current %s\n",
			  *dev ? dev : "none", t->rdma.name);
	r = rdma_tos_locate(&c->env.root, &t->rdma, true, &c->err);
	if (r < 0)
		return r;
	if (want < 0)
		return 0;
	for (int k = 0; k < RQ_KNOB_N; k++) {
		if (!t->rdma.has[k]) {
			if (rec_knob(rd, k, &rk))
				drift_add(drift, len,
					  "%s traffic class (%s): configured %d, current missing\n",
					  t->rdma.name, rdma_knob_name(k), want);
			continue;
		}
		r = rdma_tos_read(&c->env.root, &t->rdma, k, &cur);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_IO, r, "reading %s traffic class of %s: %s",
				      rdma_knob_name(k), t->rdma.name, strerror(-r));
		if (cur != want)
			drift_add(drift, len, "%s traffic class (%s): configured %d, current %s\n",
				  t->rdma.name, rdma_knob_name(k), want,
				  vf_tos_str(cur, a, sizeof(a)));
	}
	if (c->profile.tos_scope == RQ_TOS_SCOPE_ALL_QPS && !t->rdma.has[RQ_KNOB_MOFED])
		drift_add(drift, len, "traffic class scope: configured all-qps, current rdma-cm\n");
	return 0;
}

/*
 * The record's device as DEL and the agent can reach it: in the pod's sysfs
 * while the pod's netns exists, at the path this process finds it by
 * (attach/podns.c: the agent reads a /proc/<pid>/ns/net through --host-proc).
 */
void vf_record_dev(const struct rq_env *env, const cJSON *rec, const cJSON *rd,
		   struct rq_rdma_dev *dev)
{
	memset(dev, 0, sizeof(*dev));
	(void)snprintf(dev->name, sizeof(dev->name), "%s", json_str(rd, "device") ?: "");
	dev->port = json_int(rd, "port", 1);
	/* a gone netns hands its RDMA devices back to the host, with their tc/ values */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rd, "inPod")) &&
	    podns_open(env, rec, dev->netns, sizeof(dev->netns), NULL) < 0)
		dev->netns[0] = '\0';
}

/*
 * A name is not an identity: after a driver reload the recorded name may be
 * another VF's device. The device is the VF's only when its parent in the
 * host's sysfs is the VF's PCI function; one the host shows no parent of
 * (rxe, or in the pod in exclusive mode) is taken on the record's word.
 */
static bool dev_is_vf(struct rq_ctx *c, const char *name, const char *vf_pci)
{
	char pci[64];

	if (rdma_dev_pci(&c->env.root, name, pci, sizeof(pci)) < 0 || !sysfs_pci_valid(pci) ||
	    !strcmp(pci, vf_pci ?: ""))
		return true;
	log_warn("%s: RDMA device %s is PCI device %s's now, not VF %s's: its traffic class is "
		 "left alone",
		 c->key, name, pci, vf_pci ?: "?");
	return false;
}

/*
 * DEL's device: the VF's, found by PCI address (it may have re-registered
 * under another name, whose knobs are then read afresh), else as the record
 * has it (rxe; in the pod in exclusive mode) if that name is not another's.
 * false: nothing to restore.
 */
static bool release_target(struct rq_ctx *c, const cJSON *rec, struct rq_rdma_dev *dev,
			   bool *ret_fresh)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	const char *vf = json_str(rec, "vf");

	*ret_fresh = false;
	vf_record_dev(&c->env, rec, rd, dev);
	if (!dev->name[0])
		return false;
	if (!dev->netns[0] && vf && rdma_find_by_pci(&c->env.root, vf, dev) == 0) {
		if (!strcmp(dev->name, json_str(rd, "device") ?: ""))
			return true;
		log_info("%s: VF %s RDMA device is %s now (recorded %s)", c->key, vf, dev->name,
			 json_str(rd, "device") ?: "");
		dev->port = json_int(rd, "port", 1);
		*ret_fresh = rdma_tos_locate(&c->env.root, dev, false, NULL) == 0;
		return *ret_fresh;
	}
	if (!dev->netns[0] && !dev_is_vf(c, dev->name, vf))
		return false;
	vf_record_dev(&c->env, rec, rd, dev);
	return true;
}

void tos_release(struct rq_ctx *c, const cJSON *rec)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	int set = json_int(rd, "tosSet", -1), cur, r;
	struct rq_rdma_dev dev;
	struct rec_knob rk;
	char a[8], b[8];

	bool fresh = false;

	if (!release_target(c, rec, &dev, &fresh))
		return;
	for (int k = 0; k < RQ_KNOB_N; k++) {
		int prev;

		if (!rec_knob(rd, k, &rk) || !rk.changed || !rk.path || !rk.path[0] ||
		    strlen(rk.path) >= sizeof(dev.path[0]) || (fresh && !dev.has[k]))
			continue;
		dev.has[k] = true;
		if (!fresh)
			(void)snprintf(dev.path[k], sizeof(dev.path[0]), "%s", rk.path);
		r = rdma_tos_read(&c->env.root, &dev, k, &cur);
		if (r < 0) {
			log_info("%s: RDMA device %s is gone (%s %s): nothing to restore", c->key,
				 dev.name, rdma_knob_name(k), strerror(-r));
			continue;
		}
		if (cur != set) {
			log_warn(
			    "%s: %s %s traffic class is %s, not the %d this attachment set: left "
			    "alone",
			    c->key, dev.name, rdma_knob_name(k), vf_tos_str(cur, a, sizeof(a)),
			    set);
			continue;
		}
		/* MOFED's unset is written as -1 (a 0 would override the next pod's own class) */
		prev = rk.prev < 0 && k != RQ_KNOB_MOFED ? 0 : rk.prev;
		r = rdma_tos_write(&c->env.root, &dev, k, prev);
		if (r < 0)
			log_warn("%s: restoring %s %s traffic class to %s: %s", c->key, dev.name,
				 rdma_knob_name(k), vf_tos_str(prev, a, sizeof(a)), strerror(-r));
		else
			log_info("%s: %s %s traffic class %s -> %s (restored)", c->key, dev.name,
				 rdma_knob_name(k), vf_tos_str(cur, b, sizeof(b)),
				 vf_tos_str(prev, a, sizeof(a)));
	}
}

/* The record follows the device, so DEL restores the class where it now lives. */
static void record_follow(struct rq_ctx *c, cJSON *rec, const struct rq_rdma_dev *d)
{
	cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	cJSON *knobs = cJSON_GetObjectItemCaseSensitive(rd, "knobs");
	const char *old = json_str(rd, "device") ?: "";
	int r;

	if (!rd || !strcmp(old, d->name))
		return;
	log_info("agent: %s: VF %s RDMA device is %s now (was %s)", c->key,
		 json_str(rec, "vf") ?: "?", d->name, old[0] ? old : "none");
	cJSON_ReplaceItemInObjectCaseSensitive(rd, "device", cJSON_CreateString(d->name));
	for (int k = 0; k < RQ_KNOB_N; k++) {
		cJSON *kn = cJSON_GetObjectItemCaseSensitive(knobs, rdma_knob_name(k));

		if (cJSON_IsObject(kn) && d->has[k])
			cJSON_ReplaceItemInObjectCaseSensitive(kn, "path",
							       cJSON_CreateString(d->path[k]));
	}
	r = state_record_write(&c->env.root, c->key, rec);
	if (r < 0)
		log_warn("agent: %s: updating the record: %s", c->key, strerror(-r));
}

int tos_reconcile(struct rq_ctx *c, cJSON *rec, const char *vf_pci, bool write,
		  struct tos_seen *ret)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	int want = c->profile.traffic_class, r;
	struct rq_rdma_dev d;
	struct rec_knob rk;

	memset(ret, 0, sizeof(*ret));
	if (rdma_find_by_pci(&c->env.root, vf_pci, &d) == 0) {
		d.port = json_int(rd, "port", d.port ? d.port : 1);
		r = rdma_tos_locate(&c->env.root, &d, true, &c->err);
		if (r < 0)
			return r;
		record_follow(c, rec, &d);
	} else {
		/* no PCI link (rxe), or in the pod (exclusive mode): as the record has it */
		vf_record_dev(&c->env, rec, rd, &d);
		if (!d.name[0] || (!d.netns[0] && !dev_is_vf(c, d.name, vf_pci)))
			return -ENODEV;
		for (int k = 0; k < RQ_KNOB_N; k++)
			if (rec_knob(rd, k, &rk) && rk.path && rk.path[0] &&
			    strlen(rk.path) < sizeof(d.path[0])) {
				d.has[k] = true;
				(void)snprintf(d.path[k], sizeof(d.path[0]), "%s", rk.path);
			}
	}
	(void)snprintf(ret->dev, sizeof(ret->dev), "%s", d.name);
	for (int k = 0; k < RQ_KNOB_N; k++) {
		struct tos_knob_seen *ks = &ret->k[k];

		if (!d.has[k] || rdma_tos_read(&c->env.root, &d, k, &ks->was) < 0)
			continue;
		ks->present = true;
		ks->now = ks->was;
		if (ks->was == want || !write)
			continue;
		r = rdma_tos_write(&c->env.root, &d, k, want);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_IO, r, "writing traffic class %d to %s: %s",
				      want, d.path[k], strerror(-r));
		ks->now = want;
		ks->repaired = true;
	}
	return 0;
}
