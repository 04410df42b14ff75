/* SPDX-License-Identifier: Apache-2.0 */
/* The operator tools: node-side subcommands (argv[1]); exit status 0 or 1. */
#ifndef RQ_TOOLS_H
#define RQ_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/attach/core.h"

int cmd_show(struct rq_env *env, bool json);
/*
 * show.c: what `show --json` prints (*ret) and the attachment records by VF
 * PCI address (*ret_recs), both the caller's to free
 */
/* show.c: @o as `--json` prints it */
void show_print_json(const cJSON *o);
int show_node_json(const struct rq_env *env, const struct rq_catalog *cat, cJSON **ret,
		   cJSON **ret_recs);
/* show_pod.c: `show --pod NAMESPACE/NAME [--json]`; *ret_status the exit status 0/1/2 */
/* show --pod, given several times: one verdict each, the node read once, exit the worst */
struct show_pod_arg {
	char ns[256], name[256];
};
int cmd_show_pods(struct rq_env *env, const struct show_pod_arg *pods, size_t n, bool json,
		  int *ret_status);
int show_pod_parse(const char *arg, char *ns, size_t ns_len, char *name, size_t name_len);
/* preflight.c: `preflight [--json]`, the node against what the catalog needs; 0 ready, 1 not */
int cmd_preflight(struct rq_env *env, bool json);
/* show_qps.c: `show --qps [--json]`, the QP census of every attachment now */
int cmd_show_qps(struct rq_env *env, bool json);
/*
 * show_peer.c (imports only judge/ and show_agent_file.c; show.c calls it): the PF's link
 * partner as the agent heard it, judged against @req, and its one word
 */
void show_peer_json(const struct rq_env *env, cJSON *o, const char *ifname,
		    const struct dcb_port_state *st, const struct rq_profile *req, bool any_req);
void show_peer_text(const cJSON *pf);
/* show_gdr.c: the GPUDirect RDMA fields and lines (attachment, node) */
void show_gdr_json(const cJSON *rec, cJSON *a);
void show_gdr_text(const cJSON *a);
cJSON *show_gdr_node_json(const struct rq_env *env, const cJSON *recs);
void show_gdr_node_text(const cJSON *o);
/* show_wiring.c: "peer"."wiring" of @o (after show_peer_json) when node.wiring has a rule */
void show_wiring_json(const struct rq_catalog *cat, cJSON *o, const char *ifname, const char *pci);
const char *show_peer_word(const struct rq_env *env, const char *ifname,
			   const struct rq_profile *req, bool any_req);
/* show.c: for each PF of `show --counters` / `top` (@o's "pfs"): "partner":
 * agrees|disagrees|unknown */
void show_peer_annotate(const struct rq_env *env, cJSON *o);
/*
 * show_agent_file.c: one of the agent's JSON files under the root (at most 1 MiB), NULL when
 * absent or bad
 */
cJSON *show_agent_file(const struct rq_env *env, const char *path);
/*
 * show_link.c: the agent's link health file (RQ_LINK_FILE), NULL when absent; @pf's
 * degraded reasons ("flap,speed", "" none) in @buf, or NULL with @why (unknown);
 * "linkDegraded" on each attachment of `show --counters` / `top` whose PF is degraded
 */
cJSON *show_link_file(const struct rq_env *env);
const char *show_link_reasons(const cJSON *file, const char *pf, char *buf, size_t len, char *why,
			      size_t why_len);
void show_link_annotate(const struct rq_env *env, cJSON *o);
/* show.c: what PF @pci must offer (baseline and its index's attachments); the node catalog */
void show_pf_required(const struct rq_env *env, const struct rq_catalog *cat, const char *pci,
		      struct rq_profile *ret, bool *ret_any);
struct rq_catalog *show_catalog(const struct rq_env *env);
/*
 * show.c: PF @ifname's unmet requirements ("required X, port has Y", as a PF entry's
 * "unmet") against what show_pf_required says and @extra's (a host-network pod's
 * profile, which no index lists); NULL when the PF's DCB could not be read (*@why).
 */
cJSON *show_pf_unmet_with(const struct rq_env *env, const struct rq_catalog *cat,
			  const char *ifname, const char *pci, const struct rq_profile *extra,
			  char *why, size_t why_len);
/* show_counters.c: `show --counters [--json] [--interval S]` and `top [--interval S]` */
int main_counters(int argc, char **argv, const char *binary, bool top);
int main_install(int argc, char **argv, const char *binary);
/* install.c, shared with uninstall.c: DIR/<binary> into @buf; this binary (/proc/self/exe)
 * installed as DIR/<binary> (tmp + rename, only when the bytes differ). */
int install_bin_path(const struct rq_env *env, const char *dir, char *buf, size_t len);
int install_binary(const struct rq_env *env, const char *dir);
int main_uninstall(int argc, char **argv, const char *binary);
int main_validate(int argc, char **argv, const char *binary);
/*
 * validate_yaml.c: the YAML document at *@at as far as validate reads it; *@at moves to the
 * next. -ENOENT (@e untouched) when no document is left.
 */
int validate_yaml(const char *s, size_t n, size_t *at, cJSON **ret, struct rq_error *e);
/* A whole file (or pipe) named on the command line (not a host path), at most @max bytes. */
int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

/* resume.c: `rdma-qos resume PF ITEM` */
int cmd_resume(int argc, char **argv, const char *binary);

/*
 * show.c: a shared attachment's GIDs (show's "shared" entry of a PF) as one phrase:
 * "RoCE v2 GID 3 (10.0.0.5), GID of fd00::5 pending".
 */
void show_gids_text(const cJSON *sh, char *buf, size_t len);

/*
 * show_qps.c: the host-network pods @hostnet (attach/hostnet.c hostnet_scan) join @all's
 * targets under the default profile each carries (its device's census attributes them by
 * cgroup); pods without a verdict or a device are left out.
 */
struct tel_sample;
void show_hostnet_targets(struct tel_sample *all, const cJSON *hostnet);

#endif
