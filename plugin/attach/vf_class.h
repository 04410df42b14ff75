/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VF's traffic class across commands: every knob the RDMA device has
 * (MOFED's global tclass, configfs default_roce_tos) is written, checked,
 * recorded and restored on its own, MOFED's "unset" as -1.
 */
#ifndef RQ_PLUGIN_TOS_H
#define RQ_PLUGIN_TOS_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "plugin/attach/core.h"

struct tos_knob_tx {
	int found;	/* the value this ADD found: what rollback puts back */
	int prev;	/* the value before the attachment's first ADD: what DEL puts back */
	bool intent;	/* this ADD is to write it (said in the pending record first) */
	bool written;	/* this ADD wrote it */
	bool inherited; /* an earlier ADD (this attachment's, or a lost DEL's) did */
};

struct tos_tx {
	struct tos_knob_tx k[RQ_KNOB_N];
	int stale_set; /* a lost DEL's attachment set this class (-1: none)... */
	bool stale_changed[RQ_KNOB_N];
	int stale_prev[RQ_KNOB_N]; /* ... over these */
};

void tos_tx_init(struct tos_tx *tx);
/*
 * ADD, before anything is written: the device's knobs (mkdir of the configfs
 * group), and the profile's tosScope against them (RQ_ERR_TOS_SCOPE).
 */
int tos_prepare(struct rq_ctx *c, struct rq_target *t);
/* A holder that lost its DEL: what it set, and over what, becomes this attachment's. */
void tos_take_over(struct tos_tx *tx, const cJSON *holder);
/*
 * ADD, in two steps around the pending record (intent before effect):
 * tos_plan reads every knob and decides what to write and what DEL will put
 * back (@old: the attachment's record before this ADD, or NULL); tos_write writes it.
 * tos_will_write: there is something to write.
 */
int tos_plan(struct rq_ctx *c, const struct rq_target *t, struct tos_tx *tx, const cJSON *old);
bool tos_will_write(const struct tos_tx *tx);
int tos_write(struct rq_ctx *c, const struct rq_target *t, struct tos_tx *tx);
void tos_rollback(struct rq_ctx *c, const struct rq_target *t, const struct tos_tx *tx);
/*
 * The record's "rdma" object. @pending: the record written before the knobs
 * (what is about to change counts as changed, with the value found).
 */
void tos_record(struct rq_ctx *c, cJSON *rec, const struct rq_target *t, const struct tos_tx *tx,
		bool pending);
/* CHECK: one drift line per knob that differs, appended to @drift. */
int tos_check(struct rq_ctx *c, struct rq_target *t, const cJSON *rec, char *drift, size_t len);
/* DEL: every knob this attachment changed and that still holds its value goes back. */
void tos_release(struct rq_ctx *c, const cJSON *rec);
/* show: the VF's RDMA device, each knob's value and the scope, into @v. Creates nothing. */
void tos_show_json(const struct rq_env *env, const char *pci, const cJSON *rec, cJSON *v);
/* show's text column for a VF object tos_show_json filled. */
void tos_show_text(const cJSON *vf, char *buf, size_t len);

/* What the agent found (and did) per knob. */
struct tos_knob_seen {
	bool present;
	int was, now;
	bool repaired;
};
struct tos_seen {
	char dev[64];
	struct tos_knob_seen k[RQ_KNOB_N];
};
/*
 * The agent: read every knob of the VF's RDMA device and, with @write, set
 * the profile's class again where it drifted (as ADD writes it). The device
 * is found again from the VF's PCI address (one that re-registered under a
 * new name: the record follows it), else as the record has it (rxe; in the
 * pod in exclusive mode). -ENODEV: no RDMA device now.
 */
int tos_reconcile(struct rq_ctx *c, cJSON *rec, const char *vf_pci, bool write,
		  struct tos_seen *ret);

/* A class for messages: the number, or "unset" for -1. */
const char *vf_tos_str(int v, char *buf, size_t len);

/* The record's RDMA device @rd as DEL can reach it: in the pod's sysfs while the pod's netns
 * exists. */
void vf_record_dev(const struct rq_env *env, const cJSON *rec, const cJSON *rd,
		   struct rq_rdma_dev *dev);

#endif
