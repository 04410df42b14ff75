// SPDX-License-Identifier: Apache-2.0
/* pkg/netns: opening, entering and leaving network namespaces; link lookups inside one. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "pkg/netns/netns.h"

static char ns_name[64];
static char ns_path[128];

static ino_t cur_netns(void)
{
	struct stat st;

	ck_assert_int_eq(stat("/proc/thread-self/ns/net", &st), 0);
	return st.st_ino;
}

/* An `ip netns add` namespace; false (with the reason printed) when this machine cannot. */
static bool make_ns(void)
{
	char cmd[256];

	if (geteuid() != 0) {
		fprintf(stderr, "netns: SKIP real-namespace checks: not root\n");
		return false;
	}
	/* the runner's name: it removes the namespace if this test's child dies first */
	unit_host_name(ns_name, sizeof(ns_name), "rqunit");
	snprintf(ns_path, sizeof(ns_path), "/run/netns/%s", ns_name);
	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns add %s 2>/dev/null",
		 ns_name, ns_name);
	if (system(cmd) != 0) {
		fprintf(stderr, "netns: SKIP real-namespace checks: `ip netns add` failed\n");
		ns_name[0] = '\0';
		return false;
	}
	return true;
}

static void teardown(void)
{
	char cmd[256];

	if (!ns_name[0])
		return;
	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", ns_name);
	(void)!system(cmd);
}

START_TEST(open_not_a_netns)
{
	int fd = 1234;

	ck_assert_int_eq(netns_open(NULL, &fd), -ENOENT);
	ck_assert_int_eq(netns_open("", &fd), -ENOENT);
	ck_assert_int_eq(netns_open("/nonexistent/rq-netns", &fd), -ENOENT);
	ck_assert_int_eq(netns_open("/run/netns/rq-never-made-this", &fd), -ENOENT);
	ck_assert_int_eq(netns_open("/etc/hostname/x", &fd), -ENOENT); /* ENOTDIR: gone too */
	ck_assert_int_eq(netns_open("/etc/hostname", &fd), -EINVAL);
	ck_assert_int_eq(netns_open("/tmp", &fd), -EINVAL);
	ck_assert_int_eq(netns_open("/dev/null", &fd), -EINVAL);
	/* /proc files that are not namespaces, and namespaces that are not net */
	ck_assert_int_eq(netns_open("/proc/self/status", &fd), -EINVAL);
	ck_assert_int_eq(netns_open("/proc/self/ns/mnt", &fd), -EINVAL);
	ck_assert_int_eq(netns_open("/proc/self/ns/uts", &fd), -EINVAL);
	ck_assert_int_eq(fd, 1234);
}
END_TEST

START_TEST(open_proc_net)
{
	int fd = -1;

	ck_assert_int_eq(netns_open("/proc/self/ns/net", &fd), 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}
END_TEST

START_TEST(enter_return_errors)
{
	int saved = 4321;

	ck_assert_int_eq(netns_enter(-1, &saved), -EBADF);
	ck_assert_int_eq(saved, 4321);
	ck_assert_int_eq(netns_return(-1), -EBADF);
	ck_assert_int_eq(netns_link_ifindex("rq-no-such-if"), -ENODEV);
	{
		char buf[32] = "keep";

		int seen = -7;

		ck_assert_int_eq(netns_link_pci("rq-no-such-if", buf, sizeof(buf), &seen), -ENODEV);
		ck_assert_str_eq(buf, "keep");
		ck_assert_int_eq(seen, -7); /* no link: no index */
	}
}
END_TEST

START_TEST(real_netns)
{
	int fd = -1, saved = -1, seen;
	ino_t host = cur_netns(), inside;
	char buf[32] = "keep", alias[32] = "x", cmd[256];

	if (!make_ns())
		return;
	ck_assert_int_eq(netns_open(ns_path, &fd), 0);
	ck_assert_int_eq(netns_enter(fd, &saved), 0);
	inside = cur_netns();
	ck_assert_uint_ne(inside, host);
	/* a fresh namespace has only lo, with ifindex 1 */
	ck_assert_int_eq(netns_link_ifindex("lo"), 1);
	ck_assert_int_eq(netns_link_pci("lo", buf, sizeof(buf), NULL), -ENOENT);
	/* ... its index all the same, from the reply that showed no device */
	seen = -1;
	ck_assert_int_eq(netns_link_pci("lo", buf, sizeof(buf), &seen), -ENOENT);
	ck_assert_int_eq(seen, 1);
	/* the ifindex from the same RTM_GETLINK that reads the alias (no ioctl socket first) */
	ck_assert_int_eq(netns_link_alias("lo", alias, sizeof(alias)), 1);
	ck_assert_str_eq(alias, "");
	ck_assert_int_eq(netns_link_alias("rq-no-such-if", alias, sizeof(alias)), -ENODEV);
	ck_assert_str_eq(buf, "keep");
	/* a veth has no PCI parent either (empty bus-info) */
	ck_assert_int_eq(system("ip link add rqv0 type veth peer name rqv1"), 0);
	ck_assert_int_gt(netns_link_ifindex("rqv0"), 1);
	ck_assert_int_eq(netns_link_alias("rqv0", alias, sizeof(alias)),
			 netns_link_ifindex("rqv0"));
	seen = -1;
	ck_assert_int_eq(netns_link_pci("rqv0", buf, sizeof(buf), &seen), -ENOENT);
	ck_assert_str_eq(buf, "keep");
	ck_assert_int_eq(seen, netns_link_ifindex("rqv0"));
	/*
	 * a reply longer than the exchange's stack buffer (pkg/netns/rtnl.c, 8 KiB): 80
	 * altnames of ~110 bytes make rqv0's RTM_NEWLINK ~10 KiB; the kernel cuts it and the
	 * request is asked again with room for it
	 */
	ck_assert_int_eq(system("i=0; while [ $i -lt 80 ]; do i=$((i+1)); "
				"ip link property add dev rqv0 altname rq-alt-$i-"
				"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx || exit 1; done"),
			 0);
	ck_assert_int_eq(netns_link_alias("rqv0", alias, sizeof(alias)),
			 netns_link_ifindex("rqv0"));
	seen = -1;
	ck_assert_int_eq(netns_link_pci("rqv0", buf, sizeof(buf), &seen), -ENOENT);
	ck_assert_int_eq(seen, netns_link_ifindex("rqv0"));
	/* a link without VFs reports none (the real request, RTEXT_FILTER_VF) */
	{
		uint8_t macs[4][6];

		ck_assert_int_eq(netns_link_vf_macs("rqv0", macs, 4), 0);
		ck_assert_int_lt(netns_link_vf_macs("rq-no-such-if", macs, 4), 0);
	}
	ck_assert_int_eq(netns_return(saved), 0);
	ck_assert_uint_eq(cur_netns(), host);
	/* the veth stayed in the namespace */
	ck_assert_int_eq(netns_link_ifindex("rqv0"), -ENODEV);
	close(fd);
	/* deleted: the path is gone */
	snprintf(cmd, sizeof(cmd), "ip netns del %s", ns_name);
	ck_assert_int_eq(system(cmd), 0);
	ns_name[0] = '\0';
	fd = 99;
	ck_assert_int_eq(netns_open(ns_path, &fd), -ENOENT);
	ck_assert_int_eq(fd, 99);
}
END_TEST

/* A namespace held only by an open fd still works after its name is gone. */
START_TEST(netns_outlives_name)
{
	int fd = -1, saved = -1;
	char cmd[256];

	if (!make_ns())
		return;
	ck_assert_int_eq(netns_open(ns_path, &fd), 0);
	snprintf(cmd, sizeof(cmd), "ip netns del %s", ns_name);
	ck_assert_int_eq(system(cmd), 0);
	ns_name[0] = '\0';
	ck_assert_int_eq(netns_enter(fd, &saved), 0);
	ck_assert_int_eq(netns_link_ifindex("lo"), 1);
	ck_assert_int_eq(netns_return(saved), 0);
	close(fd);
}
END_TEST

/* Where a record's netns is found from here, and only while it is the recorded one. */
START_TEST(locate_paths)
{
	char own[64] = "", path[64], buf[256];
	struct netns_rec n = {0};

	ck_assert_int_gt(readlink("/proc/self/ns/pid", own, sizeof(own) - 1), 0);
	ck_assert_int_eq(netns_locate(&n, NULL, buf, sizeof(buf)), -ENOENT);
	/* a bind-mount target whose directory is not mounted here: cannot be told */
	n.path = "/no/such/dir/ns1";
	ck_assert_int_eq(netns_locate(&n, NULL, buf, sizeof(buf)), -EREMOTE);
	n.path = "/tmp/ns1";
	ck_assert_int_eq(netns_locate(&n, NULL, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/tmp/ns1");
	n.path = "/proc/self/ns/net";
	ck_assert_int_eq(netns_locate(&n, "/proc", buf, sizeof(buf)), -EREMOTE);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)getpid());
	n.path = path;
	n.pidns = own; /* this PID namespace's: the path as it is */
	ck_assert_int_eq(netns_locate(&n, "/host/proc", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, path);
	/* another, not the initial one: no /proc mount can be told to be its */
	n.pidns = "pid:[1]";
	ck_assert_int_eq(netns_locate(&n, "/proc", buf, sizeof(buf)), -EREMOTE);
	ck_assert_int_eq(netns_locate(&n, NULL, buf, sizeof(buf)), -EREMOTE);
	n.pidns = own;
	ck_assert_int_eq(netns_locate(&n, NULL, buf, 8), -ENAMETOOLONG);
}
END_TEST

START_TEST(open_rec_identity)
{
	char own[64] = "", path[64], got[256];
	struct netns_rec n = {0};
	uint64_t dev, ino;
	struct stat st;
	int fd = -1;

	ck_assert_int_gt(readlink("/proc/self/ns/pid", own, sizeof(own) - 1), 0);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)getpid());
	ck_assert_int_eq(stat(path, &st), 0);
	n.path = path;
	n.pidns = own;
	/* no identity recorded (0.2.0): the path is enough */
	ck_assert_int_eq(netns_open_rec(&n, NULL, got, sizeof(got), &fd), 0);
	ck_assert_str_eq(got, path);
	ck_assert_int_eq(netns_identity(fd, &dev, &ino), 0);
	ck_assert_uint_eq(dev, (uint64_t)st.st_dev);
	ck_assert_uint_eq(ino, (uint64_t)st.st_ino);
	close(fd);
	n.dev = dev;
	n.ino = ino;
	ck_assert_int_eq(netns_open_rec(&n, NULL, NULL, 0, NULL), 0);
	/* another netns at the path */
	n.ino = ino + 1;
	fd = 1234;
	ck_assert_int_eq(netns_open_rec(&n, NULL, got, sizeof(got), &fd), -ESTALE);
	ck_assert_int_eq(fd, 1234);
	n.ino = ino;
	n.dev = dev + 1;
	ck_assert_int_eq(netns_open_rec(&n, NULL, NULL, 0, NULL), -ESTALE);
	n.path = "/tmp/rq-no-such-netns";
	ck_assert_int_eq(netns_open_rec(&n, NULL, NULL, 0, NULL), -ENOENT);
}
END_TEST

/* A /proc/<pid> path names a process: its start time tells it from a later one at the PID. */
START_TEST(open_rec_pid_start)
{
	char own[64] = "", path[64], stat[1024], *p;
	struct netns_rec n = {0};
	unsigned long long want = 0;
	uint64_t start = 0;
	FILE *f;
	size_t got;

	ck_assert_int_gt(readlink("/proc/self/ns/pid", own, sizeof(own) - 1), 0);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)getpid());
	f = fopen("/proc/self/stat", "re");
	ck_assert_ptr_nonnull(f);
	got = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[got] = '\0';
	p = strrchr(stat, ')');
	ck_assert_ptr_nonnull(p);
	/* field 22, the 20th after the comm */
	for (int i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	ck_assert_ptr_nonnull(p);
	want = strtoull(p + 1, NULL, 10);
	ck_assert_int_eq(netns_pid_start("/proc", path, &start), 0);
	ck_assert_uint_eq(start, want);
	ck_assert_int_eq(netns_pid_start("/proc", "/run/netns/x", &start), -EINVAL);
	ck_assert_int_eq(netns_pid_start("/proc", "/proc/self/ns/net", &start), -EINVAL);
	ck_assert_int_eq(netns_pid_start("/proc", "/proc/999999999/ns/net", &start), -ENOENT);
	n.path = path;
	n.pidns = own;
	n.pid_start = want;
	ck_assert_int_eq(netns_open_rec(&n, NULL, NULL, 0, NULL), 0);
	n.pid_start = want + 1; /* another process at the PID */
	ck_assert_int_eq(netns_open_rec(&n, NULL, NULL, 0, NULL), -ESTALE);
}
END_TEST

/* one IFLA_VF_INFO with @mac (and a VLAN attribute beside it, as the kernel sends) */
static void vf_info(struct nl_msg *m, uint32_t vf, const uint8_t *mac)
{
	struct nlattr *info = nla_nest_start(m, IFLA_VF_INFO);
	struct ifla_vf_mac vm = {.vf = vf};
	struct ifla_vf_vlan vl = {.vf = vf};

	memcpy(vm.mac, mac, 6);
	ck_assert_int_eq(nla_put(m, IFLA_VF_MAC, sizeof(vm), &vm), 0);
	ck_assert_int_eq(nla_put(m, IFLA_VF_VLAN, sizeof(vl), &vl), 0);
	nla_nest_end(m, info);
}

/* The VFs' MACs in a PF's RTM_NEWLINK (issue 37: LLDP from the node's own VF is dropped) */
START_TEST(vf_macs_from_message)
{
	static const uint8_t a[6] = {0x02, 0xaa, 0, 0, 0, 1}, zero[6],
			     b[6] = {0x02, 0xaa, 0, 0, 0, 3};
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *list;
	uint8_t macs[4][6];
	struct nlmsghdr *h;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	ck_assert_int_eq(nla_put_string(m, IFLA_IFNAME, "ens1f0"), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf_info(m, 0, a);
	vf_info(m, 1, zero); /* no MAC set: skipped */
	vf_info(m, 2, b);
	nla_nest_end(m, list);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_macs(h, h->nlmsg_len, macs, 4), 2);
	ck_assert_mem_eq(macs[0], a, 6);
	ck_assert_mem_eq(macs[1], b, 6);
	/* room for one: the first */
	ck_assert_int_eq(netns_link_msg_vf_macs(h, h->nlmsg_len, macs, 1), 1);
	/* an IFLA_VF_MAC shorter than struct ifla_vf_mac: the message is refused */
	nlmsg_free(m);
	m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	{
		struct nlattr *info = nla_nest_start(m, IFLA_VF_INFO);
		uint8_t cut[10] = {0, 0, 0, 0, 0x02, 0xaa};

		ck_assert_int_eq(nla_put(m, IFLA_VF_MAC, sizeof(cut), cut), 0);
		nla_nest_end(m, info);
	}
	nla_nest_end(m, list);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_macs(h, h->nlmsg_len, macs, 4), -EBADMSG);
	/* a link without the list: none */
	nlmsg_free(m);
	m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_macs(h, h->nlmsg_len, macs, 4), 0);
	nlmsg_free(m);
}
END_TEST

/*
 * The VFs with a VST VLAN in a PF's RTM_NEWLINK (issue 42 item 9: the eswitch
 * tags their frames, the MTU allowance counts 4 bytes more)
 */
START_TEST(vf_vlans_from_message)
{
	static const uint8_t a[6] = {0x02, 0xaa, 0, 0, 0, 1};
	struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *list, *info;
	struct ifla_vf_vlan vl = {.vf = 1, .vlan = 100, .qos = 3};
	struct nlmsghdr *h;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf_info(m, 0, a); /* VLAN 0: untagged */
	nla_nest_end(m, list);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_vlans(h, h->nlmsg_len), 0);
	/* the MACs still read the same through the shared walk */
	{
		uint8_t macs[2][6];

		ck_assert_int_eq(netns_link_msg_vf_macs(h, h->nlmsg_len, macs, 2), 1);
		ck_assert_mem_eq(macs[0], a, 6);
	}
	nlmsg_free(m);
	m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf_info(m, 0, a);
	info = nla_nest_start(m, IFLA_VF_INFO);
	ck_assert_int_eq(nla_put(m, IFLA_VF_VLAN, sizeof(vl), &vl), 0);
	nla_nest_end(m, info);
	nla_nest_end(m, list);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_vlans(h, h->nlmsg_len), 1);
	nlmsg_free(m);
	/* an IFLA_VF_VLAN shorter than struct ifla_vf_vlan: refused */
	m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	ck_assert_int_eq(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	info = nla_nest_start(m, IFLA_VF_INFO);
	ck_assert_int_eq(nla_put(m, IFLA_VF_VLAN, 4, &vl), 0);
	nla_nest_end(m, info);
	nla_nest_end(m, list);
	h = nlmsg_hdr(m);
	ck_assert_int_eq(netns_link_msg_vf_vlans(h, h->nlmsg_len), -EBADMSG);
	nlmsg_free(m);
	/* a veth has no VF list: none */
	ck_assert_int_lt(netns_link_vf_vlans("rq-no-such-if"), 0);
}
END_TEST

Suite *suite_netns(void);
Suite *suite_netns(void)
{
	Suite *s = suite_create("netns");
	TCase *tc = tcase_create("netns");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, open_not_a_netns);
	tcase_add_test(tc, open_proc_net);
	tcase_add_test(tc, enter_return_errors);
	tcase_add_test(tc, real_netns);
	tcase_add_test(tc, netns_outlives_name);
	tcase_add_test(tc, locate_paths);
	tcase_add_test(tc, open_rec_identity);
	tcase_add_test(tc, open_rec_pid_start);
	tcase_add_test(tc, vf_macs_from_message);
	tcase_add_test(tc, vf_vlans_from_message);
	suite_add_tcase(s, tc);
	return s;
}
