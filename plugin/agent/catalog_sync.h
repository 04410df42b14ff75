/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RQ_PLUGIN_CATALOG_SYNC_H
#define RQ_PLUGIN_CATALOG_SYNC_H

#include <stdbool.h>

#include "pkg/cni/error.h"
#include "pkg/sysfs/sysfs.h"

/*
 * Install the catalog at @source (a path as the caller sees it, e.g. a
 * ConfigMap mount) as RQ_CATALOG_PATH under @root: validated with the parser
 * ADD uses, written tmp + rename, and only when its bytes differ from the
 * installed file (*ret_changed). An unreadable or invalid source leaves the
 * installed catalog (the last good one) as it is and returns <0 with @e
 * naming the JSON path (RQ_ERR_CONFIG / RQ_ERR_DECODE / RQ_ERR_IO).
 * Shared by `rdma-qos agent` and `rdma-qos install`.
 */
int catalog_sync(const struct rq_root *root, const char *source, bool *ret_changed,
		 struct rq_error *e);

#endif
