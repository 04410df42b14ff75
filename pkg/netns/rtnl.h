/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg/netns's rtnetlink sockets (made in a given netns) and one link's
 * RTM_GETLINK over the bare exchange of pkg/nlparse/ask.h. Internal to
 * pkg/netns.
 */
#ifndef RQ_NETNS_RTNL_H
#define RQ_NETNS_RTNL_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/nlparse/ask.h"

/* An rtnetlink socket of the netns @nsfd (-1: the current one), or -errno. */
int rtnl_socket_in(int nsfd);
/*
 * RTEXT_FILTER_SKIP_STATS in every request here: no reader wants a counter,
 * and the kernel then skips folding IPv6's per-CPU statistics into the reply
 * (IFLA_AF_SPEC: 816 -> 448 bytes of a veth's 1.5 KiB; the folding grows with
 * the CPUs of a GPU node). Kernels before the flag ignore the bit.
 */
#ifndef RTEXT_FILTER_SKIP_STATS
#define RTEXT_FILTER_SKIP_STATS (1 << 3)
#endif
#define RTNL_LINK_MASK RTEXT_FILTER_SKIP_STATS

/*
 * One link's RTM_GETLINK on @sk, by @ifindex (or by @ifname when 0), asking
 * IFLA_EXT_MASK @ext_mask (RTNL_LINK_MASK; | RTEXT_FILTER_VF for a PF's VF
 * list, whose reply outgrows the exchange's stack buffer and is asked again
 * with room), its reply to @parse: rtnl_ask's result. -ENODEV: no such link.
 */
int rtnl_ask_link(int sk, int ifindex, const char *ifname, uint32_t ext_mask,
		  int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg);

#endif
