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
#include "pkg/netns/netns.h"
#include "pkg/numa/numa.h"
#include "pkg/rdma/rdma.h"
#include "pkg/state/state.h"
#include "pkg/sysfs/device.h"
#include "plugin/seams/env.h"

#define RQ_CATALOG_PATH "/etc/cni/rdma-qos/profiles.json"
/* kubelet's root dir: the catalog's node.kubeletDir, else the default */
#define RQ_KUBELET_DIR(c) ((c)->cat ? (c)->cat->kubelet_dir : RQ_KUBELET_DIR_DEFAULT)

/*
 * The agent's book of repairs that fight another writer (pass/fights.c):
 * `show` reads it; an operator deletes it to let the agent write again.
 */
#define RQ_FIGHT_FILE "/run/rdma-qos/agent/fights.json"

struct rq_ctx {
	struct rq_env env;
	struct rq_cni_args args;
	struct rq_netconf *nc;
	struct rq_catalog *cat;
	struct rq_profile profile;
	enum rq_pf_mode pf_mode;
	/*
	 * pfqos_ensure leaves the carrier wait after a PFC change to its caller
	 * (struct pf_undo carrier_*), who waits without the PF lock held.
	 */
	bool carrier_defer;
	/*
	 * The nsfs identity of the pod netns ADD entered to see its interface
	 * (0, 0: not entered): the record's, without opening the path again.
	 */
	uint64_t netns_dev, netns_ino;
	char key[RQ_STATE_KEY_MAX];
	/*
	 * Last: a command that succeeds never writes it, and the pages of a
	 * static rq_ctx that nothing writes are never faulted in (issue 51).
	 */
	struct rq_error err;
};

/* The resolved devices of one attachment. */
struct rq_target {
	struct rq_vf_info vf;
	struct rq_rdma_dev rdma;
	bool have_rdma;
	bool confirmed; /* the pod's interface shows this device: it is in the pod */
	/* a shared RDMA device (attach/shared.c): vf.pci is "", vf.pf the port(s) under it */
	bool shared;
	char fn_pci[16]; /* the PCI function the shared device sits on */
	char kind[16];	 /* the pod interface's kind ("macvlan", "ipvlan") */
	size_t n_master; /* the host chain from the lower device down to the real one */
	char master[8][16];
};

/* attach.c: steps shared by the commands */
int attach_load_profile(struct rq_ctx *c);
int attach_resolve_target(struct rq_ctx *c, struct rq_target *t);
int attach_release(struct rq_ctx *c, const cJSON *rec, bool restore_tos);
/*
 * The agent's release of a copy @rec it read without a lock (the caller
 * holds the attachment's lock, lock_attachment): under the PF locks the
 * record is read again and released only if it still says exactly what @rec
 * says. 1 released, 0 left alone, <0 error.
 */
int attach_release_checked(struct rq_ctx *c, const cJSON *rec, bool restore_tos);
/*
 * The set ({"<key>": true}, NULL on ENOMEM) of what @key says of every record of the node
 * (false: the record counts for nothing): the VFs, the pods that have a record.
 */
cJSON *attach_records_set(const struct rq_env *env,
			  bool (*key)(const cJSON *rec, char *buf, size_t len));
/* DEL without a record: drop the attachment from any PF index still listing it. */
void attach_drop_orphans(struct rq_ctx *c);
/* orphans.c: PF index entries without a record, @key's only or (NULL) all; @who prefixes logs. */
void attach_orphans_drop(const struct rq_env *env, const char *key, const char *who);
/*
 * The record (to free) of another attachment listed in PF index @idx whose
 * record exists and which holds @vf (any VF when @vf is NULL), or NULL.
 */
cJSON *attach_vf_holder(struct rq_ctx *c, const cJSON *idx, const char *vf);
/*
 * podns.c: the one way to a record's pod netns ("netns", "pidns" and the
 * identity "netnsDev"/"netnsIno"/"netnsPidStart" recorded at ADD; env->host_proc maps a
 * /proc/<pid>/ns/net path of another PID namespace). podns_open: 0 and the
 * open netns (@ret_fd, may be NULL) and the path it was found at (@ret_path,
 * may be NULL: a path-taking reader opens it again); -ENOENT / -EINVAL gone,
 * -ESTALE another netns has the path now (a PID reused after a lost DEL:
 * gone as well, never entered), -EREMOTE cannot be told from here.
 */
void podns_of_record(const cJSON *rec, struct netns_rec *ret);
int podns_open(const struct rq_env *env, const cJSON *rec, char *ret_path, size_t len, int *ret_fd);
/*
 * ADD: the identity of the netns at @path into @rec ("netnsDev", "netnsIno";
 * for a /proc/<pid> path "netnsPidStart", that process's start time); 0 or -errno.
 * @dev, @ino: the identity of the fd ADD entered it by, or 0, 0 to open @path for it.
 */
int podns_record_identity(const char *path, uint64_t dev, uint64_t ino, cJSON *rec);
/*
 * vf_home.c: 1 when the record's pod interface is still its VF; 0 when the VF
 * left the pod (driver reload, firmware reset: @why says how); <0 when it
 * cannot be told (netns gone or unreadable, an interface without a device).
 */
int vf_home_judge(const struct rq_env *env, const cJSON *rec, char *why, size_t len);
/*
 * pf_facts.c (the agent's metrics and show): the PF's reported-only
 * facts as JSON: "cnp", "dcqcn", "buffer" (from @st, may be NULL),
 * "pfcPreventionMs". NULL on ENOMEM.
 */
cJSON *pf_facts_json(const struct rq_env *env, const char *ifname, const struct dcb_port_state *st);
int attach_lock_pfs(struct rq_ctx *c, const struct rq_vf_info *vf, int *fds);
void attach_unlock_pfs(const struct rq_vf_info *vf, int *fds);
const char *pf_mode_name(enum rq_pf_mode m);
const char *numa_mode_name(enum rq_numa_mode m);
/* The NUMA question for @t's VF and the invocation's pod (names the VF's netdev and RDMA device).
 */
struct rq_numa_query attach_numa_query(const struct rq_ctx *c, const struct rq_target *t);

#endif
