/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attachment records and per-PF attachment indexes under
 * /run/rdma-qos/state (tmpfs; below the root seam). Records are JSON written
 * atomically (tmp + rename, no fsync: see state.c). File names are derived from (network name,
 * container ID, ifname) with every byte outside [A-Za-z0-9.-] percent-encoded, so nothing a NAD
 * says can form a path component of its own.
 */
#ifndef RQ_STATE_H
#define RQ_STATE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
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
 * Per-PF index: {"attachments": [{"key", "pod", "vf", "profileName", "req":
 * {PF requirements}}]} (older files: one "profile" for all entries).
 * Read returns -ENOENT when the PF has no live attachment.
 */
int state_pf_read(const struct rq_root *r, const char *pf_pci, cJSON **ret);
int state_pf_write(const struct rq_root *r, const char *pf_pci, const cJSON *idx);
int state_pf_remove(const struct rq_root *r, const char *pf_pci);
/* PCI addresses of the PFs that have an index, sorted. */
int state_pf_list(const struct rq_root *r, char ***ret, size_t *ret_n);
/*
 * A shared RDMA device's class index (DESIGN.md "Shared RDMA devices"):
 * {"dev", "class", "found": {knob: value}, "attachments": [{"key", "class",
 * "profileName"}]}: who requires the device's class and what the first of
 * them found, put back when the last one goes. Written under the locks of
 * the device's PFs. -ENOENT: no attachment requires the device's class.
 */
int state_dev_read(const struct rq_root *r, const char *dev, cJSON **ret);
int state_dev_write(const struct rq_root *r, const char *dev, const cJSON *idx);
int state_dev_remove(const struct rq_root *r, const char *dev);
int state_dev_list(const struct rq_root *r, char ***ret, size_t *ret_n);
/*
 * Remove @key from the index (removing the file when empty; writing nothing
 * when @key is not listed). 0 when absent. Call under the PF's lock.
 */
int state_pf_detach(const struct rq_root *r, const char *pf_pci, const char *key);

/*
 * One entry of a PF index as state_pf_walk hands it over: the members a
 * repeated ADD looks at, NULL when missing, not a string, cut (longer than
 * RQ_PF_ENTRY_STR) or not an object at all; @req is the raw JSON text of
 * "req" (NULL when missing), valid until the callback returns. The first
 * member of a name counts, as cJSON's lookup finds it.
 */
#define RQ_PF_ENTRY_STR 512
struct rq_pf_entry {
	const char *key, *vf, *profile_name;
	const char *req;
	size_t req_len;
};

/*
 * Walk the index of @pf_pci entry by entry, streaming, without building it:
 * on a PF with 255 attachments the cJSON tree of the whole index was most of
 * a repeated ADD. @fn returns 0 to go on, 1 to stop there (state_pf_walk
 * then returns 1), negative errno to fail. *ret_legacy: the index has the
 * old shared "profile". -ENOENT without an index, -EBADMSG when it is not a
 * JSON object with an "attachments" array (what state_pf_read refuses, or less).
 */
int state_pf_walk(const struct rq_root *r, const char *pf_pci,
		  int (*fn)(const struct rq_pf_entry *e, void *ctx), void *ctx, bool *ret_legacy);

/*
 * Remove the temporaries of atomic writes (".<name>.tmp") older than
 * @min_age_s from the state and PF index directories: what writers killed
 * half-way left and no later write of the same file replaced.
 */
int state_tmp_sweep(const struct rq_root *r, int min_age_s, int *ret_removed);
/* The same for the temporaries in @dir (a directory with one writer, such as the agent's). */
int state_tmp_sweep_dir(const struct rq_root *r, const char *dir, int min_age_s, int *ret_removed);

/* Check the state directory is usable (create it if needed). */
int state_dir_check(const struct rq_root *r);

#endif
