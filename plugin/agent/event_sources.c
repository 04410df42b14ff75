// SPDX-License-Identifier: Apache-2.0
/*
 * Event sources of the agent. Link events count only for the PFs the last
 * pass saw and their VFs (pods' veths come and go all day); every dcbnl notification
 * counts (only DCB changes raise them, our own repairs included: those cost
 * one quiet pass); an RDMA device registering (the CM then resets
 * default_roce_tos) counts through RDMA netlink's notify group where the
 * kernel has one, and through kobject uevents of the infiniband class always
 * (a kernel without the group accepts the membership and stays silent).
 */
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <net/if.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/dcb/dcb_msg.h"
#include "pkg/log/log.h"
#include "pkg/netns/netns.h"
#include "pkg/rdma/rdma.h"
#include "plugin/agent/events.h"
#include "plugin/pass/pass.h"

/* enum rdma_nl_groups: RDMA_NL_GROUP_NOTIFY follows RDMA_NL_GROUP_LS (kernel >= 6.11 uapi) */
#define RQ_RDMA_NL_GROUP_NOTIFY (RDMA_NL_GROUP_LS + 1)

static int nl_open(int proto, uint32_t groups, const int *members, size_t n_members)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = groups};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, proto), rcv = 1 << 20;

	if (fd < 0)
		return -errno;
	/* a driver reload is a burst: room for it, and ENOBUFS (resync) if not */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	for (size_t i = 0; i < n_members; i++)
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &members[i],
			       sizeof(members[i])) < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
	return fd;
}

static void add_src(struct ev_src *src, size_t max, size_t *n, const char *name, enum ev_kind k,
		    int fd)
{
	if (fd < 0) {
		log_warn("agent: no %s (%s): the timer covers it", name, strerror(-fd));
		return;
	}
	if (*n >= max) {
		close(fd);
		return;
	}
	src[*n].name = name;
	src[*n].kind = k;
	src[*n].fd = fd;
	(*n)++;
}

size_t ev_src_open_all(const struct rq_env *env, struct ev_src *src, size_t max)
{
	static const int rtnl_groups[] = {RTNLGRP_LINK, RTNLGRP_DCB};
	static const int rdma_groups[] = {RQ_RDMA_NL_GROUP_NOTIFY};
	size_t n = 0;
	int fd;

	add_src(src, max, &n, "rtnetlink link/dcb", EV_RTNL,
		nl_open(NETLINK_ROUTE, 0, rtnl_groups, 2));
	fd = nl_open(NETLINK_RDMA, 0, rdma_groups, 1);
	if (fd >= 0)
		add_src(src, max, &n, "RDMA netlink notify", EV_RDMA_NOTIFY, fd);
	add_src(src, max, &n, "infiniband uevents", EV_UEVENT,
		nl_open(NETLINK_KOBJECT_UEVENT, 1, NULL, 0));
	if (env->watch_open) {
		int wfd = -1, r = env->watch_open(env, &wfd);

		add_src(src, max, &n, "simulated DCB files", EV_SIM_WATCH, r < 0 ? r : wfd);
	}
	return n;
}

static bool known_pf(const struct agent *a, const char *name)
{
	for (size_t i = 0; i < a->n_pf_names; i++)
		if (!strcmp(a->pf_names[i], name))
			return true;
	return false;
}

static void who_add(char who[][48], size_t max, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(who[i], name))
			return;
	if (*n < max)
		(void)snprintf(who[(*n)++], 48, "%s", name);
}

/* A link event counts for a PF of the last pass; every dcbnl one counts, named or not. */
static void rtnl_msg(const struct agent *a, const struct nlmsghdr *h, size_t left, char who[][48],
		     size_t max, size_t *n)
{
	char name[48];

	if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
		char pci[32] = "";
		bool named = netns_link_msg_ifname(h, left, name, sizeof(name)) == 1;

		/* a watched PF's VF moving into a pod's netns or back (unchained_pass.c) */
		(void)netns_link_msg_parent_pci(h, left, pci, sizeof(pci));
		if (named && known_pf(a, name))
			who_add(who, max, n, name);
		else if (agent_vf_link(a, named ? name : "", pci))
			who_add(who, max, n, named ? name : pci);
	} else if (h->nlmsg_type == RTM_GETDCB || h->nlmsg_type == RTM_SETDCB) {
		who_add(who, max, n,
			dcb_msg_parse_ifname(h, left, name, sizeof(name)) == 1 ? name : "dcb");
	}
}

/* A device event counts under the device's name; one that cannot be read still counts. */
static void rdma_msg(const struct nlmsghdr *h, size_t left, char who[][48], size_t max, size_t *n)
{
	char dev[48];
	int r = rdma_nl_parse_event(h, left, dev, sizeof(dev));

	if (r != 0)
		who_add(who, max, n, r == 1 ? dev : "rdma");
}

int ev_src_drain(struct ev_src *s, const struct agent *a, char who[][48], size_t max, size_t *ret_n,
		 bool *ret_resync)
{
	char buf[16384];

	*ret_n = 0;
	*ret_resync = false;
	for (;;) {
		ssize_t len = read(s->fd, buf, sizeof(buf));
		int rem;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == ENOBUFS) {
			*ret_resync = true;
			continue;
		}
		if (len < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (s->kind == EV_UEVENT) {
			char dev[48];

			if (rdma_uevent_dev(buf, (size_t)len, dev, sizeof(dev)) == 1)
				who_add(who, max, ret_n, dev);
			continue;
		}
		if (s->kind == EV_SIM_WATCH) {
			who_add(who, max, ret_n, "sim-dcb");
			continue;
		}
		rem = (int)len;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, rem);
		     h = nlmsg_next(h, &rem)) {
			if (s->kind == EV_RTNL)
				rtnl_msg(a, h, (size_t)rem, who, max, ret_n);
			else
				rdma_msg(h, (size_t)rem, who, max, ret_n);
		}
	}
}
