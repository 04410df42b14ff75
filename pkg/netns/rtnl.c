// SPDX-License-Identifier: Apache-2.0
/* One rtnetlink request, one answer, on a bare socket (pkg/netns/rtnl.h). */
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

int rtnl_ask(int sk, struct nl_msg *m, int (*parse)(const struct nlmsghdr *, size_t, void *),
	     void *arg)
{
	static unsigned seq; /* the agent's threads ask too */
	struct nlmsghdr *req = nlmsg_hdr(m);
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	req->nlmsg_flags |= NLM_F_REQUEST;
	req->nlmsg_seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	if (sendto(sk, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(sk, buf, sizeof(buf), MSG_TRUNC);
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if ((size_t)n > sizeof(buf))
			return -EMSGSIZE;
		left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EBADMSG;
				return e->error ? e->error : -ENODATA;
			}
			return parse(h, left, arg);
		}
	}
}

int rtnl_ask_link(int sk, int ifindex, const char *ifname,
		  int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETLINK, 0);
	int r = -ENOMEM;

	if (!m)
		return r;
	if (nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0 &&
	    (ifindex || nla_put_string(m, IFLA_IFNAME, ifname) == 0) &&
	    nla_put_u32(m, IFLA_EXT_MASK, 0) == 0)
		r = rtnl_ask(sk, m, parse, arg);
	nlmsg_free(m);
	return r;
}

int netns_rtnl_socket(void)
{
	return rtnl_socket_in(-1);
}
