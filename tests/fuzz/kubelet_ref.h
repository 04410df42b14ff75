/* SPDX-License-Identifier: Apache-2.0 */
/* Tree-based reference parsers for the differential fuzz check (kubelet_ref.c). */
#ifndef RQ_KUBELET_REF_H
#define RQ_KUBELET_REF_H

#include <stddef.h>
#include <stdint.h>

#include "pkg/kubelet/kubelet.h"

int ref_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits);
int ref_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		size_t max, size_t *ret_n);
int ref_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes);

#endif
