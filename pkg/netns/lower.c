// SPDX-License-Identifier: Apache-2.0
/*
 * The device under a pod's macvlan or ipvlan, in the host netns (DESIGN.md
 * "Shared RDMA devices"). The pod's link names its lower device by ifindex
 * (IFLA_LINK) in a netns it numbers (IFLA_LINK_NETNSID: the kernel assigns
 * the id when it reports it); RTM_GETNSID, asked in the pod's netns with the
 * host's netns fd, says which id the host has there. VLAN devices are walked
 * down to the real device. One rtnetlink socket per netns, made while in it:
 * a socket answers for the netns it was created in, so no lookup runs with
 * the thread in the wrong one.
 */
#include "pkg/netns/netns.h"
#include "pkg/netns/rtnl.h"
#include "pkg/nlparse/nlparse.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const struct nla_policy desc_policy[IFLA_MAX + 1] = {
    [IFLA_IFNAME] = {.type = NLA_STRING, .maxlen = IFNAMSIZ},
    [IFLA_LINK] = {.type = NLA_U32},
    [IFLA_LINK_NETNSID] = {.type = NLA_U32},
    [IFLA_LINKINFO] = {.type = NLA_NESTED},
};

static const struct nla_policy info_policy[IFLA_INFO_MAX + 1] = {
    [IFLA_INFO_KIND] = {.type = NLA_STRING},
};

int netns_link_msg_desc(const struct nlmsghdr *h, size_t len, struct netns_link_desc *ret)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct netns_link_desc d;
	const struct ifinfomsg *ifi;
	int r = nlparse_msg(h, len, sizeof(struct ifinfomsg), tb, IFLA_MAX, desc_policy);

	if (r < 0)
		return r;
	if (h->nlmsg_type != RTM_NEWLINK)
		return -EBADMSG;
	memset(&d, 0, sizeof(d));
	ifi = nlmsg_data(h);
	d.ifindex = ifi->ifi_index;
	if (tb[IFLA_IFNAME])
		(void)snprintf(d.ifname, sizeof(d.ifname), "%s", nla_get_string(tb[IFLA_IFNAME]));
	if (tb[IFLA_LINK])
		d.link = (int)nla_get_u32(tb[IFLA_LINK]);
	if (tb[IFLA_LINK_NETNSID]) {
		d.link_netnsid_set = true;
		d.link_netnsid = (int32_t)nla_get_u32(tb[IFLA_LINK_NETNSID]);
	}
	if (tb[IFLA_LINKINFO]) {
		struct nlattr *it[IFLA_INFO_MAX + 1];

		if (nlparse_nested(tb[IFLA_LINKINFO], it, IFLA_INFO_MAX, info_policy) < 0)
			return -EBADMSG;
		if (it[IFLA_INFO_KIND]) {
			if (strlen(nla_get_string(it[IFLA_INFO_KIND])) >= sizeof(d.kind))
				return -EBADMSG;
			(void)snprintf(d.kind, sizeof(d.kind), "%s",
				       nla_get_string(it[IFLA_INFO_KIND]));
		}
	}
	*ret = d;
	return 0;
}

static const struct nla_policy nsid_policy[NETNSA_MAX + 1] = {
    [NETNSA_NSID] = {.type = NLA_U32},
};

int netns_nsid_msg(const struct nlmsghdr *h, size_t len, int32_t *ret)
{
	struct nlattr *tb[NETNSA_MAX + 1];
	int r = nlparse_msg(h, len, sizeof(struct rtgenmsg), tb, NETNSA_MAX, nsid_policy);

	if (r < 0)
		return r;
	if (h->nlmsg_type != RTM_NEWNSID || !tb[NETNSA_NSID])
		return -EBADMSG;
	*ret = (int32_t)nla_get_u32(tb[NETNSA_NSID]);
	return 0;
}

static int desc_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	return netns_link_msg_desc(h, len, arg);
}

static int nsid_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	return netns_nsid_msg(h, len, arg);
}

/* RTM_GETLINK by @ifindex (or by @ifname when 0) on @sk. -ENODEV: no such link. */
static int getlink(int sk, int ifindex, const char *ifname, struct netns_link_desc *ret)
{
	return rtnl_ask_link(sk, ifindex, ifname, RTNL_LINK_MASK, desc_parse, ret);
}

/* The id the netns of @sk has for the netns @nsfd (-1: none assigned). */
static int getnsid(int sk, int nsfd, int32_t *ret)
{
	struct rtgenmsg g = {.rtgen_family = AF_UNSPEC};
	struct nl_msg *m = rtnl_msg(RTM_GETNSID);
	int r = -ENOMEM;

	if (!m)
		return r;
	/* -1: the caller's own netns, named by its PID (get_net_ns_by_pid: this process) */
	if (nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) < 0 ||
	    (nsfd >= 0 ? nla_put_u32(m, NETNSA_FD, (uint32_t)nsfd)
		       : nla_put_u32(m, NETNSA_PID, (uint32_t)getpid())) < 0)
		goto out;
	r = rtnl_ask(sk, m, nsid_parse, ret);
out:
	nlmsg_free(m);
	return r;
}

static bool same_netns(int a, int b)
{
	uint64_t da, ia, db, ib;

	return netns_identity(a, &da, &ia) == 0 && netns_identity(b, &db, &ib) == 0 && da == db &&
	       ia == ib;
}

/*
 * Whether the walk goes below a device of @kind: the pod's interface always;
 * VLANs on either side; in the pod's netns also the macvlan or ipvlan a VLAN
 * the pod made sits on. A host device that is not a VLAN is the real one.
 */
static bool leads_down(const char *kind, bool in_host, size_t hop)
{
	static const char *const pod_uppers[] = {"macvlan", "ipvlan", "macvtap", "ipvtap"};

	if (!hop || !strcmp(kind, "vlan"))
		return true;
	if (in_host)
		return false;
	for (size_t i = 0; i < sizeof(pod_uppers) / sizeof(pod_uppers[0]); i++)
		if (!strcmp(kind, pod_uppers[i]))
			return true;
	return false;
}

int netns_lower_walk(const struct netns_lower_ops *ops, void *ctx, bool same, const char *ifname,
		     struct netns_lower *ret)
{
	struct netns_lower out;
	struct netns_link_desc d;
	bool in_host = same;
	int r;

	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	memset(&out, 0, sizeof(out));
	out.other_nsid = -1;
	r = ops->getlink(ctx, in_host, 0, ifname, &d);
	if (r < 0)
		return r;
	(void)snprintf(out.kind, sizeof(out.kind), "%s", d.kind);
	for (size_t hop = 0;; hop++) {
		if (!leads_down(d.kind, in_host, hop) || !d.link ||
		    (d.link == d.ifindex && !d.link_netnsid_set))
			break;
		if (hop >= NETNS_LOWER_MAX)
			return -ELOOP;
		if (d.link_netnsid_set) {
			int32_t id = -1;

			if (in_host) {
				/* below the host's devices: no netns of ours */
				out.other_nsid = d.link_netnsid;
				*ret = out;
				return -EXDEV;
			}
			r = ops->host_nsid(ctx, &id);
			if (r < 0)
				return r;
			if (id < 0 || id != d.link_netnsid) {
				out.other_nsid = d.link_netnsid;
				*ret = out;
				return -EXDEV;
			}
			in_host = true;
		}
		r = ops->getlink(ctx, in_host, d.link, NULL, &d);
		if (r == -ENODEV) /* the lower device went under the walk */
			return -ENOENT;
		if (r < 0)
			return r;
		if (in_host) {
			if (out.n >= NETNS_LOWER_MAX)
				return -ELOOP;
			out.dev[out.n].ifindex = d.ifindex;
			(void)snprintf(out.dev[out.n].ifname, sizeof(out.dev[out.n].ifname), "%s",
				       d.ifname);
			(void)snprintf(out.dev[out.n].kind, sizeof(out.dev[out.n].kind), "%s",
				       d.kind);
			out.n++;
		}
	}
	if (!out.n)
		return -ENOENT;
	*ret = out;
	return 0;
}

/* the kernel behind netns_lower_walk: one socket per netns, the host's made when first needed */
struct rtnl_ctx {
	int pod_fd, host_fd;
	int pod, host; /* sockets, -1 not made */
};

static int rtnl_getlink(void *arg, bool host, int ifindex, const char *ifname,
			struct netns_link_desc *ret)
{
	struct rtnl_ctx *c = arg;
	int *sk = host ? &c->host : &c->pod;

	if (*sk < 0) {
		*sk = rtnl_socket_in(host ? c->host_fd : c->pod_fd);
		if (*sk < 0) {
			int r = *sk;

			*sk = -1;
			return r;
		}
	}
	return getlink(*sk, ifindex, ifname, ret);
}

static int rtnl_host_nsid(void *arg, int32_t *ret)
{
	struct rtnl_ctx *c = arg;

	/* the pod's socket exists: the walk asked for the pod's link first */
	return getnsid(c->pod, c->host_fd, ret);
}

static const struct netns_lower_ops rtnl_ops = {.getlink = rtnl_getlink,
						.host_nsid = rtnl_host_nsid};

int netns_link_lower_sk(int pod_sk, const char *ifname, struct netns_lower *ret)
{
	/* the pod's socket the caller's: only the host's is made (where the caller is) and closed
	 */
	struct rtnl_ctx c = {.pod_fd = -1, .host_fd = -1, .pod = pod_sk, .host = -1};
	int r;

	if (pod_sk < 0)
		return -EBADF;
	r = netns_lower_walk(&rtnl_ops, &c, false, ifname, ret);
	if (c.host >= 0)
		close(c.host);
	return r;
}

int netns_link_lower(int pod_fd, const char *ifname, int host_fd, struct netns_lower *ret)
{
	struct rtnl_ctx c = {.pod_fd = pod_fd, .host_fd = host_fd, .pod = -1, .host = -1};
	/* -1: the caller's own netns, never the pod's (CNI_NETNS is not the runtime's): its
	 * socket is made where the caller is, no netns is opened or entered for it */
	bool same = host_fd >= 0 && same_netns(pod_fd, host_fd);
	int r;

	/* the pod is the host: one socket serves both */
	if (same)
		c.pod_fd = host_fd;
	r = netns_lower_walk(&rtnl_ops, &c, same, ifname, ret);
	if (c.pod >= 0)
		close(c.pod);
	if (c.host >= 0)
		close(c.host);
	return r;
}
