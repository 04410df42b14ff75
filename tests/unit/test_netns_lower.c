// SPDX-License-Identifier: Apache-2.0
/* pkg/netns/lower.c: the host device under a pod's macvlan / ipvlan, through VLANs (issue 50). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "pkg/netns/netns.h"

/* a link as the kernel reports it: @kind in IFLA_LINKINFO, IFLA_LINK, IFLA_LINK_NETNSID */
static struct nl_msg *link_msg(int ifindex, const char *name, const char *kind, int link, int nsid)
{
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = ifindex};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	ck_assert_int_eq(nla_put_string(m, IFLA_IFNAME, name), 0);
	if (link)
		ck_assert_int_eq(nla_put_u32(m, IFLA_LINK, (uint32_t)link), 0);
	if (nsid >= 0)
		ck_assert_int_eq(nla_put_s32(m, IFLA_LINK_NETNSID, nsid), 0);
	if (kind) {
		struct nlattr *li = nla_nest_start(m, IFLA_LINKINFO);

		ck_assert_int_eq(nla_put_string(m, IFLA_INFO_KIND, kind), 0);
		nla_nest_end(m, li);
	}
	return m;
}

START_TEST(desc_from_message)
{
	struct netns_link_desc d;
	struct nl_msg *m = link_msg(3, "net1", "macvlan", 7, 2);
	struct nlmsghdr *h = nlmsg_hdr(m);

	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), 0);
	ck_assert_int_eq(d.ifindex, 3);
	ck_assert_str_eq(d.ifname, "net1");
	ck_assert_str_eq(d.kind, "macvlan");
	ck_assert_int_eq(d.link, 7);
	ck_assert(d.link_netnsid_set);
	ck_assert_int_eq(d.link_netnsid, 2);
	nlmsg_free(m);
	/* a physical NIC: no kind, no lower, no netns id */
	m = link_msg(2, "ens1f0np0", NULL, 0, -1);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), 0);
	ck_assert_str_eq(d.kind, "");
	ck_assert_int_eq(d.link, 0);
	ck_assert(!d.link_netnsid_set);
	nlmsg_free(m);
	/* a VLAN over the NIC, the same netns */
	m = link_msg(9, "ens1f0np0.7", "vlan", 2, -1);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), 0);
	ck_assert_str_eq(d.kind, "vlan");
	ck_assert_int_eq(d.link, 2);
	ck_assert(!d.link_netnsid_set);
	/* cut short: refused */
	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len - 6, &d), -EBADMSG);
	/* not a link message */
	h->nlmsg_type = RTM_NEWADDR;
	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), -EBADMSG);
	nlmsg_free(m);
	/* a kind longer than any the kernel has */
	m = link_msg(9, "x", "averyveryverylongkind", 2, -1);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), -EBADMSG);
	nlmsg_free(m);
	/* an IFLA_LINK of 2 bytes */
	{
		struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC, .ifi_index = 4};
		uint16_t two = 7;

		m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
		ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
		ck_assert_int_eq(nla_put(m, IFLA_LINK, sizeof(two), &two), 0);
		h = nlmsg_hdr(m);
		ck_assert_int_eq(netns_link_msg_desc(h, h->nlmsg_len, &d), -EBADMSG);
		nlmsg_free(m);
	}
}
END_TEST

START_TEST(nsid_from_message)
{
	struct rtgenmsg g = {.rtgen_family = AF_UNSPEC};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWNSID, 0);
	struct nlmsghdr *h;
	int32_t id = 99;

	ck_assert_int_eq(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO), 0);
	ck_assert_int_eq(nla_put_s32(m, NETNSA_NSID, 4), 0);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_nsid_msg(h, h->nlmsg_len, &id), 0);
	ck_assert_int_eq(id, 4);
	nlmsg_free(m);
	/* not assigned */
	m = nlmsg_alloc_simple(RTM_NEWNSID, 0);
	ck_assert_int_eq(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO), 0);
	ck_assert_int_eq(nla_put_s32(m, NETNSA_NSID, NETNSA_NSID_NOT_ASSIGNED), 0);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_nsid_msg(h, h->nlmsg_len, &id), 0);
	ck_assert_int_eq(id, -1);
	nlmsg_free(m);
	/* without the id: refused, *ret untouched */
	id = 99;
	m = nlmsg_alloc_simple(RTM_NEWNSID, 0);
	ck_assert_int_eq(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO), 0);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_nsid_msg(h, h->nlmsg_len, &id), -EBADMSG);
	ck_assert_int_eq(id, 99);
	nlmsg_free(m);
}
END_TEST

/* A fake kernel for the walk: links of the pod's and the host's netns, the host's id in the pod */
struct fake_link {
	bool host;
	struct netns_link_desc d;
};
struct fake_kernel {
	const struct fake_link *links;
	size_t n;
	int32_t host_nsid;
	int nsid_asked;
};

static int fake_getlink(void *arg, bool host, int ifindex, const char *ifname,
			struct netns_link_desc *ret)
{
	struct fake_kernel *k = arg;

	for (size_t i = 0; i < k->n; i++) {
		const struct fake_link *l = &k->links[i];

		if (l->host != host)
			continue;
		if (ifindex ? l->d.ifindex == ifindex : !strcmp(l->d.ifname, ifname)) {
			*ret = l->d;
			return 0;
		}
	}
	return -ENODEV;
}

static int fake_host_nsid(void *arg, int32_t *ret)
{
	struct fake_kernel *k = arg;

	k->nsid_asked++;
	*ret = k->host_nsid;
	return 0;
}

static const struct netns_lower_ops fake_ops = {.getlink = fake_getlink,
						.host_nsid = fake_host_nsid};

#define L(h, idx, name, kind, lnk, nsid)                                                           \
	{                                                                                          \
		h,                                                                                 \
		{                                                                                  \
			idx, name, kind, lnk, (nsid) >= 0, (nsid)                                  \
		}                                                                                  \
	}

/* The walk's rules on a made-up node: VLANs down to the real device, on either side */
START_TEST(walk_fake)
{
	static const struct fake_link links[] = {
	    /* the pod: a macvlan on the host's VLAN, a VLAN on it, one from a third netns */
	    L(false, 1, "lo", "", 0, -1),
	    L(false, 3, "net1", "macvlan", 12, 4),
	    L(false, 4, "net1.5", "vlan", 3, -1),
	    L(false, 5, "net2", "ipvlan", 2, 4),
	    L(false, 6, "net3", "macvlan", 2, 7),
	    L(false, 7, "net4", "macvlan", 99, 4),
	    L(false, 8, "net5", "macvlan", 20, 4),
	    L(false, 9, "net6", "macvlan", 30, 4),
	    /* the host: the NIC, a QinQ pair of VLANs on it, a VLAN whose lower is elsewhere, a
	       loop */
	    L(true, 2, "ens1f0np0", "", 0, -1),
	    L(true, 11, "ens1f0np0.100", "vlan", 2, -1),
	    L(true, 12, "ens1f0np0.100.7", "vlan", 11, -1),
	    L(true, 20, "vx0.3", "vlan", 2, 1),
	    L(true, 30, "loop.1", "vlan", 31, -1),
	    L(true, 31, "loop.2", "vlan", 30, -1),
	};
	struct fake_kernel k = {
	    .links = links, .n = sizeof(links) / sizeof(links[0]), .host_nsid = 4};
	struct netns_lower l;

	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net1", &l), 0);
	ck_assert_str_eq(l.kind, "macvlan");
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.dev[0].ifname, "ens1f0np0.100.7");
	ck_assert_str_eq(l.dev[1].ifname, "ens1f0np0.100");
	ck_assert_str_eq(l.dev[2].ifname, "ens1f0np0");
	ck_assert_int_eq(l.dev[2].ifindex, 2);
	ck_assert_int_eq(k.nsid_asked, 1);
	/* the pod's VLAN over its macvlan: the pod side walked first */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net1.5", &l), 0);
	ck_assert_str_eq(l.kind, "vlan");
	ck_assert_uint_eq(l.n, 3);
	ck_assert_str_eq(l.dev[2].ifname, "ens1f0np0");
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net2", &l), 0);
	ck_assert_uint_eq(l.n, 1);
	/* a lower device in a netns that is not the host's */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net3", &l), -EXDEV);
	ck_assert_int_eq(l.other_nsid, 7);
	/* a host VLAN whose own lower is in yet another netns */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net5", &l), -EXDEV);
	ck_assert_int_eq(l.other_nsid, 1);
	/* the lower device went under the walk */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net4", &l), -ENOENT);
	/* VLANs that lead round in a circle end, bounded */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net6", &l), -ELOOP);
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "lo", &l), -ENOENT);
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net9", &l), -ENODEV);
	/* the host has no id in the pod's netns: nothing the pod's link names is the host's */
	k.host_nsid = -1;
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, false, "net1", &l), -EXDEV);
	ck_assert_int_eq(l.other_nsid, 4);
	/* the pod's netns is the host's: its VLAN walked from there */
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, true, "ens1f0np0.100.7", &l), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.dev[1].ifname, "ens1f0np0");
	ck_assert_int_eq(netns_lower_walk(&fake_ops, &k, true, "ens1f0np0", &l), -ENOENT);
}
END_TEST

/* three namespaces of the runner's names: a "host", a pod and another */
static char ns[3][32];
static const char *const ns_word[3] = {"rqhost", "rqpod", "rqother"};

static void teardown(void)
{
	char cmd[128];

	for (int i = 0; i < 3; i++)
		if (ns[i][0]) {
			snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", ns[i]);
			(void)!system(cmd);
			ns[i][0] = '\0';
		}
}

static bool make_nss(void)
{
	char cmd[128];

	if (geteuid() != 0) {
		fprintf(stderr, "netns_lower: SKIP real-namespace checks: not root\n");
		return false;
	}
	for (int i = 0; i < 3; i++) {
		unit_host_name(ns[i], sizeof(ns[i]), ns_word[i]);
		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns add %s", ns[i],
			 ns[i]);
		if (system(cmd) != 0) {
			fprintf(stderr, "netns_lower: SKIP real-namespace checks: `ip netns add` "
					"failed\n");
			ns[i][0] = '\0';
			return false;
		}
	}
	return true;
}

static int ns_fd(int i)
{
	char path[64];
	int fd = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", ns[i]);
	ck_assert_int_eq(netns_open(path, &fd), 0);
	return fd;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * The real kernel: in the "host", a veth named as a PF; a macvlan on it
 * moved into the pod and named as pods name them; a macvlan from the other
 * netns; lo; a veth pair inside the pod.
 */
START_TEST(lower_real)
{
	struct netns_lower l;
	int host, pod, other;
	char self[64], now[64];
	ssize_t n;

	if (!make_nss())
		return;
	const char *H = ns[0], *P = ns[1], *O = ns[2];
	ck_assert_int_eq(sh("set -e; ip -n %s link add rqpf type veth peer name rqpfpeer; "
			    "ip -n %s link add link rqpf name mv0 type macvlan mode bridge; "
			    "ip -n %s link set mv0 netns %s; ip -n %s link set mv0 name net1; "
			    "ip -n %s link add rqo type veth peer name rqopeer; "
			    "ip -n %s link add link rqo name mv9 type macvlan mode bridge; "
			    "ip -n %s link set mv9 netns %s; ip -n %s link set mv9 name net3; "
			    "ip -n %s link add v0 type veth peer name v1",
			    H, H, H, P, P, O, O, O, P, P, P),
			 0);
	host = ns_fd(0);
	pod = ns_fd(1);
	other = ns_fd(2);
	n = readlink("/proc/thread-self/ns/net", self, sizeof(self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';

	/* macvlan -> the PF */
	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(netns_link_lower(pod, "net1", host, &l), 0);
	ck_assert_str_eq(l.kind, "macvlan");
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.dev[0].ifname, "rqpf");
	ck_assert_str_eq(l.dev[0].kind, "veth");
	ck_assert_int_gt(l.dev[0].ifindex, 1);
	ck_assert_int_eq(l.other_nsid, -1);
	/* -1: the caller's own netns is the host (the plugin's case): the same answer */
	{
		int saved = -1;

		ck_assert_int_eq(netns_enter(host, &saved), 0);
		memset(&l, 0, sizeof(l));
		ck_assert_int_eq(netns_link_lower(pod, "net1", -1, &l), 0);
		ck_assert_int_eq(netns_link_lower(pod, "net3", -1, &l), -EXDEV);
		/* ... and from a socket made in the pod while there (ADD's shared path) */
		{
			int in = -1, sk;

			ck_assert_int_eq(netns_enter(pod, &in), 0);
			sk = netns_rtnl_socket();
			ck_assert_int_eq(netns_return(in), 0);
			ck_assert_int_ge(sk, 0);
			memset(&l, 0, sizeof(l));
			ck_assert_int_eq(netns_link_lower_sk(sk, "net1", &l), 0);
			ck_assert_str_eq(l.kind, "macvlan");
			ck_assert_uint_eq(l.n, 1);
			ck_assert_str_eq(l.dev[0].ifname, "rqpf");
			ck_assert_int_eq(netns_link_lower_sk(sk, "net3", &l), -EXDEV);
			ck_assert_int_eq(netns_link_lower_sk(sk, "rq-no-such", &l), -ENODEV);
			close(sk);
			ck_assert_int_eq(netns_link_lower_sk(-1, "net1", &l), -EBADF);
		}
		ck_assert_int_eq(netns_return(saved), 0);
		memset(&l, 0, sizeof(l));
		ck_assert_int_eq(netns_link_lower(pod, "net1", host, &l), 0);
		ck_assert_str_eq(l.dev[0].ifname, "rqpf");
	}
	/* a macvlan whose lower device is in another netns: named by its id, not taken */
	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(netns_link_lower(pod, "net3", host, &l), -EXDEV);
	ck_assert_int_ge(l.other_nsid, 0);
	/* from the other netns as "host", net3 resolves and net1 is the one refused */
	ck_assert_int_eq(netns_link_lower(pod, "net3", other, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.dev[0].ifname, "rqo");
	ck_assert_int_eq(netns_link_lower(pod, "net1", other, &l), -EXDEV);
	/* nothing under it in the host: lo, a veth whose peer is in the pod too */
	ck_assert_int_eq(netns_link_lower(pod, "lo", host, &l), -ENOENT);
	ck_assert_int_eq(netns_link_lower(pod, "v0", host, &l), -ENOENT);
	ck_assert_int_eq(netns_link_lower(pod, "rq-no-such", host, &l), -ENODEV);
	ck_assert_int_eq(netns_link_lower(pod, "", host, &l), -ENODEV);
	ck_assert_int_eq(netns_link_lower(pod, "a-name-too-long-for-a-link", host, &l), -ENODEV);

	/*
	 * VLAN and ipvlan on a real kernel: this host's kernel (CI's) has neither
	 * 8021q nor ipvlan, and under CI nothing skips, so those walks are proven
	 * on the fake kernel here (walk_fake) and on Debian's guest kernel by
	 * tests/vm/shared.sh (through the real macvlan and ipvlan CNI plugins).
	 */
	/* the caller's netns did not change */
	n = readlink("/proc/thread-self/ns/net", now, sizeof(now) - 1);
	ck_assert_int_gt(n, 0);
	now[n] = '\0';
	ck_assert_str_eq(now, self);
	close(host);
	close(pod);
	close(other);
}
END_TEST

Suite *suite_netns_lower(void);
Suite *suite_netns_lower(void)
{
	Suite *s = suite_create("netns_lower");
	TCase *tc = tcase_create("lower");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, desc_from_message);
	tcase_add_test(tc, nsid_from_message);
	tcase_add_test(tc, walk_fake);
	tcase_add_test(tc, lower_real);
	suite_add_tcase(s, tc);
	return s;
}
