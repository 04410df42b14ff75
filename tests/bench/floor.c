// SPDX-License-Identifier: Apache-2.0
/*
 * The C floor a chained plugin cannot go below: read stdin, enter CNI_NETNS,
 * one RTM_GETLINK for CNI_IFNAME (by name, IFLA_IFNAME), print stdin back.
 * Fails like a plugin would when the netns or the link is missing.
 */
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct getlink {
	struct nlmsghdr h;
	struct ifinfomsg i;
	struct rtattr a;
	char name[IFNAMSIZ];
};

static int getlink(const char *ifname)
{
	static char reply[16384];
	struct getlink req;
	const struct nlmsghdr *h = (const struct nlmsghdr *)reply;
	ssize_t n;
	int sk;

	if (!ifname || strlen(ifname) >= IFNAMSIZ)
		return -1;
	memset(&req, 0, sizeof(req));
	req.a.rta_type = IFLA_IFNAME;
	req.a.rta_len = (unsigned short)RTA_LENGTH(strlen(ifname) + 1);
	memcpy(req.name, ifname, strlen(ifname));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.i)) + RTA_ALIGN(req.a.rta_len);
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sk < 0 || send(sk, &req, req.h.nlmsg_len, 0) < 0)
		return -1;
	n = recv(sk, reply, sizeof(reply), 0);
	close(sk);
	if (n < (ssize_t)sizeof(*h) || !NLMSG_OK(h, (size_t)n) || h->nlmsg_type != RTM_NEWLINK)
		return -1;
	return 0;
}

int main(void)
{
	static char in[1 << 20];
	const char *ns = getenv("CNI_NETNS");
	size_t len = 0;
	ssize_t r;
	int fd;

	while ((r = read(0, in + len, sizeof(in) - len)) > 0)
		len += (size_t)r;
	fd = ns ? open(ns, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0 || getlink(getenv("CNI_IFNAME")) < 0)
		return 1;
	return fwrite(in, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : 1;
}
