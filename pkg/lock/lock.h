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

#endif
