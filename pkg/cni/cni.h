/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI protocol: environment, bounded stdin, results and error objects. */
#ifndef RQ_CNI_H
#define RQ_CNI_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "pkg/cni/error.h"

#define RQ_CNI_STDIN_MAX (1024 * 1024)

enum rq_cni_cmd {
	RQ_CMD_NONE = 0,
	RQ_CMD_ADD,
	RQ_CMD_DEL,
	RQ_CMD_CHECK,
	RQ_CMD_VERSION,
	RQ_CMD_STATUS,
	RQ_CMD_GC,
};

struct rq_cni_args {
	enum rq_cni_cmd cmd;
	const char *command;	 /* raw CNI_COMMAND */
	const char *containerid; /* CNI_CONTAINERID */
	const char *netns;	 /* CNI_NETNS, NULL when unset or empty */
	const char *ifname;	 /* CNI_IFNAME */
	const char *path;	 /* CNI_PATH */
	/* CNI_ARGS, parsed ("K=V;K=V"); NULL when absent */
	char pod_namespace[256];
	char pod_name[256];
	char pod_uid[128];
};

/*
 * Read the environment. Each variable is required only where the spec says
 * (ADD/CHECK: containerid, netns, ifname, path; DEL: containerid, ifname,
 * path; VERSION/STATUS/GC: none). Missing -> RQ_ERR_ENV naming the variable;
 * unknown CNI_COMMAND -> RQ_ERR_ENV. Unknown CNI_ARGS keys are rejected
 * unless IgnoreUnknown=1|true (as libcni's args parser does).
 */
int cni_args_from_env(struct rq_cni_args *ret, struct rq_error *e);
/* Exposed for tests: parse a CNI_ARGS string. */
int cni_args_parse(const char *s, struct rq_cni_args *a, struct rq_error *e);
/* Validate CNI_CONTAINERID / CNI_IFNAME per the spec's character rules. */
int cni_validate_ids(const struct rq_cni_args *a, struct rq_error *e);

/* Read all of @fd up to RQ_CNI_STDIN_MAX; more -> -EFBIG with RQ_ERR_IO. */
int cni_read_stdin(int fd, char **ret, size_t *ret_len, struct rq_error *e);

/*
 * prevResult in the result format of @version (pass-through: unknown fields
 * kept; only what the format change needs is touched: ips[].version exists
 * up to 0.4.0 and is gone from 1.0.0). Returns a new tree.
 */
cJSON *cni_result_convert(const cJSON *prev, const char *version);

/* The error object {cniVersion, code, msg, details?} as a string of cJSON's (cJSON_free). */
char *cni_error_json(const char *version, const struct rq_error *e);
/* {"cniVersion", "supportedVersions": [...]}, a string of cJSON's (cJSON_free) */
char *cni_version_json(const char *version);

extern const char *const cni_supported_versions[];
extern const size_t cni_n_supported_versions;

#endif
