/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A device's devlink health reporters (DEVLINK_CMD_HEALTH_REPORTER_GET,
 * net/devlink/health.c: each reporter's name, state and error count) for the
 * link health of a PF (DESIGN.md "The fabric under the pod"). An ops table:
 * the simulated node reads <root>/devlink/<pci>.health.json {"fw": {"errors":
 * N, "state": "healthy"}, ...}; no file: the driver reports no reporter.
 */
#ifndef RQ_DEVLINK_H
#define RQ_DEVLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/sysfs/sysfs.h"

#define RQ_DEVLINK_REPORTERS 16
#define RQ_DEVLINK_NAME_MAX  32

struct devlink_reporter {
	char name[RQ_DEVLINK_NAME_MAX];
	uint64_t errors;
	bool healthy; /* DEVLINK_HEALTH_REPORTER_STATE_HEALTHY */
};

struct devlink_ops {
	/*
	 * The reporters of devlink instance @bus/@dev ("pci" and a PCI address
	 * for a NIC; device_port_parent names it) (at most RQ_DEVLINK_REPORTERS)
	 * into @ret, their number into *ret_n; 0 with none or no instance.
	 */
	int (*health)(void *ctx, const char *bus, const char *dev, struct devlink_reporter *ret,
		      size_t *ret_n);
	void (*free)(void *ctx);
};

/* devlink generic netlink (the caller's netns: devlink instances live in init_net). */
int devlink_nl_new(const struct devlink_ops **ret_ops, void **ret_ctx);
int devlink_fake_new(const struct rq_root *root, const struct devlink_ops **ret_ops,
		     void **ret_ctx);

#endif
