/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attachment core: what the CNI commands, the agent and the operator
 * tools share (one invocation's context, resolving the target, the per-PF
 * locks, releasing an attachment). Entry points live in cni/, agent/, tools/.
 */
#ifndef RQ_PLUGIN_H
#define RQ_PLUGIN_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "netconf/netconf.h"
#include "pkg/cni/cni.h"
#include "pkg/cni/error.h"
#include "pkg/dcb/dcb.h"
#include "pkg/json/jget.h"
#include "pkg/numa/numa.h"
#include "pkg/rdma/rdma.h"
#include "pkg/state/state.h"
#include "pkg/sysfs/device.h"
#include "plugin/seams/env.h"

#define RQ_CATALOG_PATH "/etc/cni/rdma-qos/profiles.json"
/* kubelet's root dir: the catalog's node.kubeletDir, else the default */
#define RQ_KUBELET_DIR(c) ((c)->cat ? (c)->cat->kubelet_dir : RQ_KUBELET_DIR_DEFAULT)

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

/* attach.c: steps shared by the commands */
int attach_load_profile(struct rq_ctx *c);
int attach_resolve_target(struct rq_ctx *c, struct rq_target *t);
int attach_release(struct rq_ctx *c, const cJSON *rec, bool restore_tos);
/* DEL without a record: drop the attachment from any PF index still listing it. */
void attach_drop_orphans(struct rq_ctx *c);
/* orphans.c: PF index entries without a record, @key's only or (NULL) all; @who prefixes logs. */
void attach_orphans_drop(const struct rq_env *env, const char *key, const char *who);
/*
 * The record (to free) of another attachment listed in PF index @idx whose
 * record exists and which holds @vf (any VF when @vf is NULL), or NULL.
 */
cJSON *attach_vf_holder(struct rq_ctx *c, const cJSON *idx, const char *vf);
int attach_lock_pfs(struct rq_ctx *c, const struct rq_vf_info *vf, int *fds);
void attach_unlock_pfs(const struct rq_vf_info *vf, int *fds);
const char *pf_mode_name(enum rq_pf_mode m);
const char *numa_mode_name(enum rq_numa_mode m);
/* The NUMA question for @t's VF and the invocation's pod (names the VF's netdev and RDMA device).
 */
struct rq_numa_query attach_numa_query(const struct rq_ctx *c, const struct rq_target *t);

#endif
