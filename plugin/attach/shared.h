/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared RDMA devices (DESIGN.md "Shared RDMA devices"): a pod that reaches
 * the PF's own RDMA device through a macvlan or ipvlan. The lower device in
 * the host, the port(s) under it, the device; the pod's GIDs by address; and
 * the device's class as a requirement of every lossless attachment on it,
 * kept in a per-device index (pkg/state state_dev_*), the first-found value
 * put back when the last requirer goes.
 */
#ifndef RQ_ATTACH_SHARED_H
#define RQ_ATTACH_SHARED_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "plugin/attach/core.h"

/* A lossless profile (a PFC requirement) asks the shared device for its class; a lossy one
 * asks nothing of the device. */
bool shared_wants_class(const struct rq_profile *p);
/* A record of a shared attachment ("shared": true). */
bool shared_record(const cJSON *rec);

/*
 * The shared path of attach_resolve_target: from the pod's interface (asked on @pod_sk, an
 * rtnetlink socket made in the pod's netns, or -1: CNI_NETNS opened and entered here) to its
 * lower device in the host netns (through VLANs), the port(s) under it and
 * the RDMA device on it. A lossy profile's class is dropped (-1): it asks
 * nothing of the device. -ENOENT without c->err: the interface has no lower
 * device in the host (the caller says what it expected).
 */
int shared_resolve(struct rq_ctx *c, int pod_sk, struct rq_target *t);

/*
 * The pod's addresses (prevResult's IPs of its interface) and their GID
 * entries on the shared device, waiting up to @wait_ms for entries the
 * kernel has not added yet; what is still missing is pending (never an
 * error). Adds "ips", "gids" and "gidsPending" to @rec.
 */
struct shared_gids {
	cJSON *ips, *gids, *pending;
};
/* @old: the attachment's record of an earlier ADD (NULL: none): where its entries were. */
void shared_gids_find(struct rq_ctx *c, const struct rq_target *t, const cJSON *old, int wait_ms,
		      struct shared_gids *ret);
void shared_gids_fini(struct shared_gids *g);
/* The record's shared keys (DESIGN.md): shared, rdmaDev, rdmaPci, master, ips, gids,
 * gidsPending. */
void shared_record_keys(cJSON *rec, const struct rq_target *t, const struct shared_gids *g);
/*
 * The agent: look again for a record's pending GIDs (no wait) and move those
 * found into "gids". 1 when @rec changed (the caller writes it), 0 none, <0 error.
 */
int shared_gids_fill(const struct rq_env *env, cJSON *rec);

/*
 * The device index step of ADD, under the PF locks, after tos_plan read the
 * knobs (@found: each knob's value as found, -2 absent): another lossless
 * attachment on the device with another class fails with 102 naming both;
 * else this attachment is listed (the index made with @found when it is the
 * first). *@ret_before: the index as read (to put back on rollback; NULL: there was none),
 * *@ret_written whether it was written.
 */
int dev_class_require(struct rq_ctx *c, const struct rq_target *t, const int *found,
		      cJSON **ret_before, bool *ret_written);
void dev_class_rollback(struct rq_ctx *c, const struct rq_target *t, const cJSON *before);
/*
 * This attachment (@key) leaves the device's index; the last one out puts the
 * class the first one found back on every knob that still holds the class
 * (one another writer changed is left alone). Under the PF locks.
 */
void dev_class_leave(const struct rq_env *env, const char *dev, const char *key, const char *who);
/* DEL without a record, GC: drop @key (NULL: every entry without a record) from every device
 * index. */
void dev_class_orphans(const struct rq_env *env, const char *key, const char *who);

#endif
