/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attachment records and per-PF attachment indexes under
 * /run/rdma-qos/state (tmpfs; below the root seam). Records are JSON written
 * atomically (tmp + rename, no fsync: see state.c). File names are derived from (network name, container ID,
 * ifname) with every byte outside [A-Za-z0-9.-] percent-encoded, so nothing
 * a NAD says can form a path component of its own.
 */
#ifndef RQ_STATE_H
#define RQ_STATE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "pkg/sysfs/sysfs.h"

#define RQ_STATE_DIR	 "/run/rdma-qos/state"
#define RQ_STATE_KEY_MAX 1024

/* "<enc(net)>_<enc(cid)>_<enc(ifname)>"; -ENAMETOOLONG if it does not fit. */
int state_key(const char *net, const char *cid, const char *ifname, char *buf, size_t len);

int state_record_write(const struct rq_root *r, const char *key, const cJSON *rec);
/* -ENOENT when there is no record. */
int state_record_read(const struct rq_root *r, const char *key, cJSON **ret);
/* 0 also when already gone. */
int state_record_remove(const struct rq_root *r, const char *key);
/* keys of all records, sorted */
int state_record_list(const struct rq_root *r, char ***ret, size_t *ret_n);

/*
 * Per-PF index: {"profileName", "profile": {...},
 * "attachments": [{"key", "pod"}]}.
 * Read returns -ENOENT when the PF has no live attachment.
 */
int state_pf_read(const struct rq_root *r, const char *pf_pci, cJSON **ret);
int state_pf_write(const struct rq_root *r, const char *pf_pci, const cJSON *idx);
int state_pf_remove(const struct rq_root *r, const char *pf_pci);
/* Remove @key from the index (removing the file when empty). 0 when absent. */
int state_pf_detach(const struct rq_root *r, const char *pf_pci, const char *key);

/* Check the state directory is usable (create it if needed). */
int state_dir_check(const struct rq_root *r);

#endif
