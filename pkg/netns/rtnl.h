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

#include "pkg/nlparse/ask.h"

/* An rtnetlink socket of the netns @nsfd (-1: the current one), or -errno. */
int rtnl_socket_in(int nsfd);
/*
 * One link's RTM_GETLINK on @sk, by @ifindex (or by @ifname when 0), its
 * reply to @parse: rtnl_ask's result. -ENODEV: no such link.
 */
int rtnl_ask_link(int sk, int ifindex, const char *ifname,
		  int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg);

#endif
