/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's event sources: what raises an early pass. */
#ifndef RQ_PLUGIN_EVENTS_H
#define RQ_PLUGIN_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/agent/agent.h"

#define EV_SRC_MAX 6
#define EV_WHO_MAX 64

enum ev_kind { EV_RTNL, EV_RDMA_NOTIFY, EV_UEVENT, EV_SIM_WATCH };

struct ev_src {
	const char *name;
	enum ev_kind kind;
	int fd;
};

/*
 * Open every source this kernel offers (each one missing is logged, not
 * fatal: the timer still runs): rtnetlink RTNLGRP_LINK + RTNLGRP_DCB, RDMA
 * netlink RDMA_NL_GROUP_NOTIFY, kobject uevents of the infiniband class, and
 * the environment's own watch (the simulated node's DCB files).
 */
size_t ev_src_open_all(const struct rq_env *env, struct ev_src *src, size_t max);
/*
 * Read what is queued. @who gets one name per relevant event (the port or
 * device it is about: the flap back-off is per name); *ret_resync when the
 * socket overran (ENOBUFS) and events were lost.
 */
int ev_src_drain(struct ev_src *s, const struct agent *a, char who[][48], size_t max, size_t *ret_n,
		 bool *ret_resync);

/* One pass, then its metrics out (file, HTTP). Returns whether drift remains. */

#endif
