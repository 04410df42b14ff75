/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pkg/netns's own rtnetlink exchange: a bare socket (the kernel binds it at
 * the first send: no setsockopt, bind or getsockname as libnl's nl_connect
 * makes) and one request, one answer. Internal to pkg/netns.
 */
#ifndef RQ_NETNS_RTNL_H
#define RQ_NETNS_RTNL_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stddef.h>

/* An rtnetlink socket of the netns @nsfd (-1: the current one), or -errno. */
int rtnl_socket_in(int nsfd);
/*
 * Send @m on @sk and read its one answer: the reply message to @parse (its
 * result returned), or the kernel's error (negative errno).
 */
int rtnl_ask(int sk, struct nl_msg *m, int (*parse)(const struct nlmsghdr *, size_t, void *),
	     void *arg);

/* A request of @type with room for a small payload, or NULL (no memory). */
struct nl_msg *rtnl_msg(int type);

/*
 * One link's RTM_GETLINK on @sk, by @ifindex (or by @ifname when 0), its
 * reply to @parse: rtnl_ask's result. -ENODEV: no such link.
 */
int rtnl_ask_link(int sk, int ifindex, const char *ifname,
		  int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg);

#endif
