/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-PF lock: flock on /run/rdma-qos/locks/<pf-pci>.lock (under the root
 * seam), with a bounded wait. kubelet starts pods in parallel; every ADD
 * touching one PF serialises here.
 */
#ifndef RQ_LOCK_H
#define RQ_LOCK_H

#include "pkg/sysfs/sysfs.h"

#define RQ_LOCK_DIR "/run/rdma-qos/locks"

/* Returns a locked fd, or -EAGAIN after @timeout_ms, or another -errno. */
int lock_pf(const struct rq_root *r, const char *pf_pci, int timeout_ms);
void lock_release(int fd);

/*
 * Per-attachment lock: flock on /run/rdma-qos/locks/att/<state key>.lock.
 * The plugin command that writes a pending record holds it from before that
 * write until it exits (the kernel drops it with the process), so whoever
 * can take it knows that command is gone, whatever PID namespace it looks
 * from. @timeout_ms 0: try once. The file may be unlinked (by its holder,
 * lock_attachment_remove) once the record is gone; a taker re-opens then.
 */
#define RQ_ATT_LOCK_DIR RQ_LOCK_DIR "/att"
int lock_attachment(const struct rq_root *r, const char *key, int timeout_ms);
int lock_attachment_remove(const struct rq_root *r, const char *key);

#endif
