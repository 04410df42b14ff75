/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg/rdma's own RDMA netlink plumbing, shared by the device lookup
 * (rdma.c) and the QP census (qps.c): a socket whose every recv is bounded,
 * a dump whose reply messages go to a callback, the device attributes'
 * policy. Internal to pkg/rdma: libnl's types and NLE_* codes stay here.
 */
#ifndef RQ_RDMA_NL_H
#define RQ_RDMA_NL_H

#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>

/* DEV_INDEX u32, DEV_NAME string, PORT_INDEX u32, NDEV_INDEX u32 */
extern const struct nla_policy rdma_nl_dev_policy[RDMA_NLDEV_ATTR_NDEV_INDEX + 1];

/* A NETLINK_RDMA socket of our own, SO_RCVTIMEO 5 s; socket(2)'s errno when there is none. */
int rdma_nl_open(struct nl_sock **ret);

/*
 * One reply message of a dump (@len bytes from @h, its nlmsg_len checked by
 * the parser): a negative return ends the dump with that error (the rest of
 * its messages are read and dropped).
 */
typedef int (*rdma_nl_msg_fn)(const struct nlmsghdr *h, size_t len, void *arg);

/*
 * Dump RDMA_NLDEV command @cmd (with RDMA_NLDEV_ATTR_DEV_INDEX @dev_index
 * when >= 0), each reply message to @fn. The kernel's error for the dump,
 * in an NLMSG_ERROR or in NLMSG_DONE's payload, is returned as it is;
 * -ETIMEDOUT when nothing arrives within SO_RCVTIMEO.
 */
int rdma_nl_dump(struct nl_sock *sk, uint16_t cmd, int dev_index, rdma_nl_msg_fn fn, void *arg);
/*
 * The same with RDMA_NLDEV_ATTR_DRIVER_DETAILS (u8 1) on the request: since
 * Linux 6.10 nldev.c's res_get_common_dumpit skips every restrack entry
 * marked RESTRACK_DD (a QP of ib_qp_type >= IB_QPT_DRIVER: mlx5's DCI,
 * REG_UMR, and a DCT where the kernel still tracks one) unless the dump
 * request carries it. Older kernels parse resource dumps liberally
 * (nlmsg_parse_deprecated) and ignore the attribute.
 */
int rdma_nl_dump_details(struct nl_sock *sk, uint16_t cmd, int dev_index, rdma_nl_msg_fn fn,
			 void *arg);

/* The index of the RDMA device named @name in the socket's netns; -ENODEV: none. */
int rdma_nl_dev_index(struct nl_sock *sk, const char *name, uint32_t *ret);

#endif
