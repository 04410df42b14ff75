/* SPDX-License-Identifier: Apache-2.0 */
/* The VF's RDMA device and its traffic-class / default RoCE ToS interface. */
#ifndef RQ_RDMA_H
#define RQ_RDMA_H

#include <stddef.h>

#include "pkg/cni/error.h"
#include "pkg/sysfs/sysfs.h"

enum rq_tos_kind { RQ_TOS_NONE = 0, RQ_TOS_MOFED, RQ_TOS_CONFIGFS };

struct rq_rdma_dev {
	char name[64]; /* "" when not found */
	int port;      /* 1-based */
	enum rq_tos_kind tos_kind;
	char tos_path[512]; /* absolute host path (under the root) */
	int n_ports;	    /* entries of /sys/class/infiniband/<dev>/ports; 0 unknown */
};

/* /sys/bus/pci/devices/<pci>/infiniband/<dev>; -ENOENT when the VF has none. */
int rdma_find_by_pci(const struct rq_root *r, const char *pci, struct rq_rdma_dev *ret);
/* RDMA netlink port dump in the current netns, matching RDMA_NLDEV_ATTR_NDEV_INDEX. */
int rdma_find_by_ifindex(int ifindex, struct rq_rdma_dev *ret);

/*
 * Which ToS interface the device offers: MOFED tc/<port>/traffic_class, else
 * configfs rdma_cm (mkdir <dev>). Fills tos_kind/tos_path. Errors with @e:
 * RQ_ERR_NO_TOS and a message saying configfs is not mounted or rdma_cm is not loaded.
 */
int rdma_tos_locate(const struct rq_root *r, struct rq_rdma_dev *dev, struct rq_error *e);
/*
 * Parse a ToS file's text: a number 0..255, or MOFED's "Global tclass=<n>".
 * MOFED leaves the file empty until a class is set: that (and "-1") gives
 * *ret = -1, meaning "unset" (the kernel's default class applies). Anything
 * else is -EINVAL.
 */
int rdma_tos_parse(const char *s, int *ret);
struct nlmsghdr;
/* One PORT_GET reply: 1 (match, *ret filled), 0 (other port), -EBADMSG. */
int rdma_nl_parse_port(const struct nlmsghdr *nlh, size_t len, int ifindex,
		       struct rq_rdma_dev *ret);
int rdma_tos_read(const struct rq_root *r, const struct rq_rdma_dev *dev, int *ret);
int rdma_tos_write(const struct rq_root *r, const struct rq_rdma_dev *dev, int val);

#endif
