/* SPDX-License-Identifier: Apache-2.0 */
/* Shared state of one plugin invocation and the command entry points. */
#ifndef RQ_PLUGIN_H
#define RQ_PLUGIN_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "netconf/netconf.h"
#include "pkg/cni/cni.h"
#include "pkg/cni/error.h"
#include "pkg/dcb/dcb.h"
#include "pkg/numa/numa.h"
#include "pkg/rdma/rdma.h"
#include "pkg/state/state.h"
#include "pkg/sysfs/device.h"
#include "plugin/env.h"

#define RQ_CATALOG_PATH "/etc/cni/rdma-qos/profiles.json"
#define RQ_KUBELET_DIR	"/var/lib/kubelet"

struct rq_ctx {
	struct rq_env env;
	struct rq_cni_args args;
	struct rq_netconf *nc;
	struct rq_catalog *cat;
	struct rq_profile profile;
	enum rq_pf_mode pf_mode;
	char key[RQ_STATE_KEY_MAX];
	struct rq_error err;
};

/* The resolved devices of one attachment. */
struct rq_target {
	struct rq_vf_info vf;
	struct rq_rdma_dev rdma;
	bool have_rdma;
	bool confirmed; /* the pod's interface shows this device: it is in the pod */
};

int cmd_add(struct rq_ctx *c);
int cmd_check(struct rq_ctx *c);
int cmd_del(struct rq_ctx *c);
int cmd_gc(struct rq_ctx *c);
int cmd_status(struct rq_ctx *c);
int cmd_show(struct rq_env *env, bool json);

/* attach.c: steps shared by the commands */
int attach_load_profile(struct rq_ctx *c);
int attach_resolve_target(struct rq_ctx *c, struct rq_target *t);
int attach_release(struct rq_ctx *c, const cJSON *rec, bool restore_tos);
/*
 * The record (to free) of another attachment listed in PF index @idx whose
 * record exists and which holds @vf (any VF when @vf is NULL), or NULL.
 */
cJSON *attach_vf_holder(struct rq_ctx *c, const cJSON *idx, const char *vf);
int attach_lock_pfs(struct rq_ctx *c, const struct rq_vf_info *vf, int *fds);
void attach_unlock_pfs(const struct rq_vf_info *vf, int *fds);
const char *pf_mode_name(enum rq_pf_mode m);
const char *numa_mode_name(enum rq_numa_mode m);

/* JSON helpers for records */
const char *json_str(const cJSON *o, const char *key);
int json_int(const cJSON *o, const char *key, int def);

#endif
