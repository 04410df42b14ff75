// SPDX-License-Identifier: Apache-2.0
/* One link's RTM_GETLINK, and rtnetlink sockets in a netns (pkg/netns/rtnl.h). */
#include "pkg/netns/netns.h"
#include "pkg/netns/rtnl.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <sys/socket.h>
#include <unistd.h>

/* An rtnetlink socket of the netns @nsfd (-1: the current one). */
int rtnl_socket_in(int nsfd)
{
	int saved = -1, fd, r, e;

	if (nsfd >= 0) {
		r = netns_enter(nsfd, &saved);
		if (r < 0)
			return r;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	e = errno;
	if (nsfd >= 0) {
		r = netns_return(saved);
		if (r < 0) {
			if (fd >= 0)
				close(fd);
			return r;
		}
	}
	return fd < 0 ? -e : fd;
}

int rtnl_ask_link(int sk, int ifindex, const char *ifname, uint32_t ext_mask,
		  int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_msg *m = rtnl_msg(RTM_GETLINK);
	int r = -ENOMEM;

	if (!m)
		return r;
	if (nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0 &&
	    (ifindex || nla_put_string(m, IFLA_IFNAME, ifname) == 0) &&
	    nla_put_u32(m, IFLA_EXT_MASK, ext_mask) == 0)
		r = rtnl_ask(sk, m, parse, arg);
	nlmsg_free(m);
	return r;
}

int netns_rtnl_socket(void)
{
	return rtnl_socket_in(-1);
}
