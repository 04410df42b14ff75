/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A netdev's carrier, read from /sys/class/net/<ifname>/{carrier,carrier_changes}
 * under a root. mlx5 toggles the port link on every PFC change
 * (mlx5e_dcbnl_ieee_setpfc -> mlx5_toggle_port_link), so the PF and all its
 * VFs lose carrier for as long as link training takes.
 */
#ifndef RQ_SYSFS_CARRIER_H
#define RQ_SYSFS_CARRIER_H

#include "pkg/sysfs/sysfs.h"

/*
 * *ret_up: carrier is 1; *ret_changes: carrier_changes (0 where the kernel has
 * no such file). -ENOENT: no carrier attribute (no such netdev, or a tree
 * without one); reading carrier of an admin-down netdev is -EINVAL.
 */
int carrier_read(const struct rq_root *r, const char *ifname, bool *ret_up, long *ret_changes);

/*
 * *ret: carrier_down_count, the carrier drops since the netdev was created
 * (mlx5 counts one per PFC change: its link toggle). -ENOENT without the file
 * (an old kernel, a tree without it); -EINVAL for a negative value.
 */
int carrier_down_read(const struct rq_root *r, const char *ifname, long *ret);

/*
 * After a change that may drop the carrier: wait until it is up, bounded by
 * @timeout_ms. The drop is asynchronous on mlx5 (firmware), so an up carrier
 * whose carrier_changes still equals @changes_before counts only once it has
 * stayed so for @settle_ms. *ret_waited_ms: how long it took. -ETIMEDOUT past
 * the bound (*ret_waited_ms still set).
 */
int carrier_wait_up(const struct rq_root *r, const char *ifname, long changes_before,
		    int timeout_ms, int settle_ms, int *ret_waited_ms);

#endif
