// SPDX-License-Identifier: Apache-2.0
/* pkg/rdma: device lookup, ToS interface location, ToS text, RDMA netlink reply parsing. */
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/rdma/rdma.h"
#include "tests/simnode/simnode.h"

static struct simnode node;

static void teardown(void)
{
	sim_destroy(&node);
}

START_TEST(find_by_pci)
{
	struct rq_rdma_dev d;

	sim_build(&node, "--pfs 2 --vfs 4");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), 0);
	ck_assert_str_eq(d.name, "mlx5_0");
	ck_assert_int_eq(d.port, 1);
	ck_assert_int_eq(d.n_ports, 1);
	ck_assert(!d.has[RQ_KNOB_MOFED] && !d.has[RQ_KNOB_CONFIGFS]);
	ck_assert_str_eq(d.netns, "");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:82:00.1", &d), 0);
	ck_assert_str_eq(d.name, "mlx5_4");
	/* a second RDMA device under the VF: the first in sorted order; no class link: 0 ports */
	ck_assert_int_eq(sim_sh(&node, "mkdir $R/sys/bus/pci/devices/0000:81:00.2/infiniband/"
				       "a_first"),
			 0);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.2", &d), 0);
	ck_assert_str_eq(d.name, "a_first");
	ck_assert_int_eq(d.n_ports, 0);
}
END_TEST

START_TEST(find_by_pci_none)
{
	struct rq_rdma_dev d = {.port = 42};

	sim_build(&node, "--pfs 1 --vfs 2 --rdma none");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), -ENOENT);
	ck_assert_int_eq(sim_sh(&node, "mkdir $R/sys/bus/pci/devices/0000:81:00.1/infiniband"), 0);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), -ENOENT);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:99:00.1", &d), -ENOENT);
	ck_assert_int_eq(d.port, 42);
}
END_TEST

START_TEST(locate_mofed)
{
	struct rq_rdma_dev d;
	struct rq_error e = {0};
	int tos = 7;

	sim_build(&node, "--pfs 1 --vfs 2 --rdma mofed");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.2", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), 0);
	ck_assert(d.has[RQ_KNOB_MOFED]);
	ck_assert(!d.has[RQ_KNOB_CONFIGFS]);
	ck_assert_str_eq(d.path[RQ_KNOB_MOFED], "/sys/class/infiniband/mlx5_1/tc/1/traffic_class");
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_MOFED, &tos), 0);
	ck_assert_int_eq(tos, -1); /* empty: unset */
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_CONFIGFS, &tos), -ENOENT);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_MOFED, 106), 0);
	ck_assert_int_eq(sim_sh(&node, "test \"$(cat $R/sys/class/infiniband/mlx5_1/tc/1/"
				       "traffic_class)\" = 106"),
			 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_MOFED, &tos), 0);
	ck_assert_int_eq(tos, 106);
	/* MOFED's own format: the global line, then per-destination rules */
	ck_assert_int_eq(sim_sh(&node, "printf 'Global tclass=96\\ndst_ip=10.0.0.0/8,tclass=24\\n' "
				       "> $R/sys/class/infiniband/mlx5_1/tc/1/traffic_class"),
			 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_MOFED, &tos), 0);
	ck_assert_int_eq(tos, 96);
	/* unset is written as -1, which only MOFED's knob takes */
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_MOFED, -1), 0);
	ck_assert_int_eq(sim_sh(&node, "test \"$(cat $R/sys/class/infiniband/mlx5_1/tc/1/"
				       "traffic_class)\" = -1"),
			 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_MOFED, &tos), 0);
	ck_assert_int_eq(tos, -1);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_MOFED, -2), -ERANGE);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_MOFED, 256), -ERANGE);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_CONFIGFS, 106), -ENOENT);
}
END_TEST

START_TEST(locate_both)
{
	struct rq_rdma_dev d;
	struct rq_error e = {0};
	int tos = 7;

	sim_build(&node, "--pfs 1 --vfs 2 --rdma both");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), 0);
	ck_assert(d.has[RQ_KNOB_MOFED] && d.has[RQ_KNOB_CONFIGFS]);
	ck_assert_str_eq(d.path[RQ_KNOB_CONFIGFS],
			 "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_CONFIGFS, -1), -ERANGE);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_CONFIGFS, 106), 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_CONFIGFS, &tos), 0);
	ck_assert_int_eq(tos, 106);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_MOFED, &tos), 0);
	ck_assert_int_eq(tos, -1);
	/* MOFED's knob alone is enough where configfs lacks the group and may not make it */
	ck_assert_int_eq(sim_sh(&node, "rm -r $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.2", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, false, &e), 0);
	ck_assert(d.has[RQ_KNOB_MOFED] && !d.has[RQ_KNOB_CONFIGFS]);
	ck_assert_int_eq(sim_sh(&node, "test ! -e $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	ck_assert_str_eq(rdma_knob_name(RQ_KNOB_MOFED), "mofed");
	ck_assert_int_eq(rdma_knob_parse("configfs"), RQ_KNOB_CONFIGFS);
	ck_assert_int_eq(rdma_knob_parse("nope"), -1);
	ck_assert_int_eq(rdma_knob_parse(NULL), -1);
}
END_TEST

START_TEST(locate_configfs)
{
	struct rq_rdma_dev d;
	struct rq_error e = {0};
	int tos = 7;

	sim_build(&node, "--pfs 1 --vfs 2 --rdma configfs");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), 0);
	ck_assert_int_eq(e.code, 0);
	ck_assert(!d.has[RQ_KNOB_MOFED] && d.has[RQ_KNOB_CONFIGFS]);
	ck_assert_str_eq(d.path[RQ_KNOB_CONFIGFS],
			 "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_CONFIGFS, &tos), 0);
	ck_assert_int_eq(tos, 0);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, RQ_KNOB_CONFIGFS, 106), 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_CONFIGFS, &tos), 0);
	ck_assert_int_eq(tos, 106);
	/* without @create a missing group is not made (show creates nothing) */
	ck_assert_int_eq(sim_sh(&node, "rm -r $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.2", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, false, &e), -ENOENT);
	ck_assert_int_eq(sim_sh(&node, "test ! -e $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	/* the <dev> directory is made when missing (real configfs then creates ports/) */
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), -ENOENT);
	ck_assert_int_eq(e.code, RQ_ERR_NO_TOS);
	ck_assert_str_eq(e.msg,
			 "/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos does not "
			 "exist (port 1 of mlx5_1)");
	ck_assert_int_eq(sim_sh(&node, "test -d $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	/* the directory exists now: a second locate does not trip over EEXIST */
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/kernel/config/rdma_cm/mlx5_1/ports/1 && "
				       "echo 32 > $R/sys/kernel/config/rdma_cm/mlx5_1/ports/1/"
				       "default_roce_tos"),
			 0);
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, RQ_KNOB_CONFIGFS, &tos), 0);
	ck_assert_int_eq(tos, 32);
}
END_TEST

START_TEST(locate_errors)
{
	struct rq_rdma_dev d = {.name = "mlx5_0", .port = 1};
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 1 --rdma none");
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), -ENOENT);
	ck_assert_int_eq(e.code, RQ_ERR_NO_TOS);
	ck_assert_str_eq(e.msg,
			 "RDMA device mlx5_0 has no traffic-class interface: configfs is not "
			 "mounted at /sys/kernel/config");
	ck_assert(!d.has[RQ_KNOB_MOFED] && !d.has[RQ_KNOB_CONFIGFS]);
	/* an empty mount point is the same as none */
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/kernel/config"), 0);
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), -ENOENT);
	ck_assert_str_eq(e.msg,
			 "RDMA device mlx5_0 has no traffic-class interface: configfs is not "
			 "mounted at /sys/kernel/config");
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/kernel/config/usb_gadget"), 0);
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, &e), -ENOENT);
	ck_assert_int_eq(e.code, RQ_ERR_NO_TOS);
	ck_assert_str_eq(e.msg, "RDMA device mlx5_0 has no traffic-class interface: rdma_cm is not "
				"loaded (modprobe rdma_cm)");
	/* a NULL error context is allowed */
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, true, NULL), -ENOENT);
}
END_TEST

START_TEST(netns_mode)
{
	bool excl = true;

	sim_build(&node, "--pfs 1 --vfs 1");
	ck_assert_int_eq(rdma_netns_exclusive(&node.root, &excl), 0);
	ck_assert(!excl); /* no ib_core: nothing is exclusive */
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/module/ib_core/parameters && "
				       "echo Y > $R/sys/module/ib_core/parameters/netns_mode"),
			 0);
	ck_assert_int_eq(rdma_netns_exclusive(&node.root, &excl), 0);
	ck_assert(!excl);
	ck_assert_int_eq(sim_sh(&node, "echo N > $R/sys/module/ib_core/parameters/netns_mode"), 0);
	ck_assert_int_eq(rdma_netns_exclusive(&node.root, &excl), 0);
	ck_assert(excl);
}
END_TEST

START_TEST(tos_parse)
{
	int v = 7;

	ck_assert_int_eq(rdma_tos_parse("106", &v), 0);
	ck_assert_int_eq(v, 106);
	ck_assert_int_eq(rdma_tos_parse("0\n", &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(rdma_tos_parse("255", &v), 0);
	ck_assert_int_eq(v, 255);
	ck_assert_int_eq(rdma_tos_parse("Global tclass=106", &v), 0);
	ck_assert_int_eq(v, 106);
	ck_assert_int_eq(rdma_tos_parse("Global tclass=106\n", &v), 0);
	ck_assert_int_eq(v, 106);
	ck_assert_int_eq(rdma_tos_parse("", &v), 0);
	ck_assert_int_eq(v, -1);
	v = 7;
	ck_assert_int_eq(rdma_tos_parse("\n", &v), 0);
	ck_assert_int_eq(v, -1);
	v = 7;
	ck_assert_int_eq(rdma_tos_parse("Global tclass=", &v), 0);
	ck_assert_int_eq(v, -1);
	v = 7;
	ck_assert_int_eq(rdma_tos_parse("-1", &v), 0);
	ck_assert_int_eq(v, -1);
	v = 7;
	ck_assert_int_eq(rdma_tos_parse("256", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("-2", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("abc", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("12x", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("99999999999999999999999", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("Global tclass=abc", &v), -EINVAL);
	ck_assert_int_eq(rdma_tos_parse("106\n7", &v), -EINVAL);
	ck_assert_int_eq(v, 7);
	/* MOFED: only the Global line is the device's class; rules are per destination */
	ck_assert_int_eq(rdma_tos_parse("Global tclass=106\ndst_ip=10.1.0.0/16,tclass=24\n", &v),
			 0);
	ck_assert_int_eq(v, 106);
	ck_assert_int_eq(rdma_tos_parse("dst_ip=10.1.0.0/16,tclass=24\n", &v), 0);
	ck_assert_int_eq(v, -1);
	v = 7;
	ck_assert_int_eq(rdma_tos_parse("src_ip=10.0.0.1,dst_ip=10.0.0.2/32,tclass=96\n"
					"dst_ip6=fe80::1,tclass=32\n",
					&v),
			 0);
	ck_assert_int_eq(v, -1);
	ck_assert_int_eq(rdma_tos_parse("Global tclass=-1\n", &v), 0);
	ck_assert_int_eq(v, -1);
}
END_TEST

static ino_t ns_ino(const char *which)
{
	struct stat st;

	ck_assert_int_eq(stat(which, &st), 0);
	return st.st_ino;
}

/*
 * The pod's sysfs view on a real netns: a link that exists only in the pod is
 * visible through podsys_*, never through the host's /sys, and the caller's
 * mount namespace and netns are the same afterwards.
 */
START_TEST(podsys_view)
{
	char ns[64], path[128], cmd[256], buf[64];
	ino_t mnt = ns_ino("/proc/self/ns/mnt"), net = ns_ino("/proc/self/ns/net");
	int r;

	if (geteuid() != 0) {
		fprintf(stderr, "rdma: SKIP podsys_view: not root\n");
		return;
	}
	unit_host_name(ns, sizeof(ns), "rqpod"); /* the runner removes it if this child dies */
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	snprintf(cmd, sizeof(cmd),
		 "ip netns del %s 2>/dev/null; ip netns add %s && ip -n %s link add rqpa type veth "
		 "peer name rqpb",
		 ns, ns, ns);
	if (system(cmd) != 0) {
		fprintf(stderr, "rdma: SKIP podsys_view: cannot make a netns with a veth\n");
		snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null", ns);
		(void)!system(cmd);
		return;
	}
	ck_assert_int_eq(podsys_exists(path, "/sys/class/net/rqpa"), 0);
	ck_assert_int_eq(access("/sys/class/net/rqpa", F_OK), -1);
	ck_assert_int_eq(podsys_read(path, "/sys/class/net/rqpa/mtu", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "1500\n");
	ck_assert_int_eq(podsys_write(path, "/sys/class/net/rqpa/mtu", "1400"), 0);
	ck_assert_int_eq(podsys_read(path, "/sys/class/net/rqpa/mtu", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "1400\n");
	ck_assert_int_eq(podsys_read(path, "/sys/class/net/rqpa/mtu", buf, 3), -EFBIG);
	ck_assert_int_eq(podsys_exists(path, "/sys/class/net/nosuch"), -ENOENT);
	ck_assert_int_eq(podsys_write(path, "/sys/class/net/rqpa/mtu", "x"), -EINVAL);
	ck_assert_int_eq(podsys_exists(path, "/sys/class/../net"), -EPERM);
	ck_assert_int_eq(podsys_exists("/proc/self/ns/mnt", "/sys"), -EINVAL);
	ck_assert_int_eq(podsys_exists("/run/netns/rq-none", "/sys"), -ENOENT);
	ck_assert_uint_eq(ns_ino("/proc/self/ns/mnt"), mnt);
	ck_assert_uint_eq(ns_ino("/proc/self/ns/net"), net);
	ck_assert_int_eq(access("/sys/class/net/rqpa", F_OK), -1);
	snprintf(cmd, sizeof(cmd), "ip netns del %s", ns);
	r = system(cmd);
	ck_assert_int_eq(r, 0);
}
END_TEST

/* Hand-built RDMA netlink messages for rdma_nl_parse_port. */
struct msg {
	union {
		struct nlmsghdr h;
		char buf[512];
	};
	size_t len;
};

static void msg_init(struct msg *m)
{
	memset(m, 0, sizeof(*m));
	m->len = NLMSG_HDRLEN;
	m->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
	m->h.nlmsg_len = (uint32_t)m->len;
}

static void msg_attr(struct msg *m, uint16_t type, const void *data, size_t dlen)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + dlen);
	memcpy(m->buf + m->len + NLA_HDRLEN, data, dlen);
	m->len += NLA_ALIGN(NLA_HDRLEN + dlen);
	m->h.nlmsg_len = (uint32_t)m->len;
}

static void msg_u32(struct msg *m, uint16_t type, uint32_t v)
{
	msg_attr(m, type, &v, sizeof(v));
}

static void msg_port(struct msg *m, const char *name, uint32_t port, uint32_t ndev)
{
	msg_init(m);
	msg_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	msg_attr(m, RDMA_NLDEV_ATTR_DEV_NAME, name, strlen(name) + 1);
	msg_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	msg_u32(m, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev);
}

START_TEST(nl_parse_match)
{
	struct msg m;
	struct rq_rdma_dev d;

	msg_port(&m, "rxe0", 1, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), 1);
	ck_assert_str_eq(d.name, "rxe0");
	ck_assert_int_eq(d.port, 1);
	ck_assert(!d.has[RQ_KNOB_MOFED] && !d.has[RQ_KNOB_CONFIGFS] && !d.netns[0]);
	/* flags in the type (NLA_F_NESTED / NET_BYTEORDER) are masked */
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME | NLA_F_NET_BYTEORDER, "mlx5_3", 7);
	msg_u32(&m, RDMA_NLDEV_ATTR_NDEV_INDEX, 9);
	msg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 9, &d), 1);
	ck_assert_str_eq(d.name, "mlx5_3");
	ck_assert_int_eq(d.port, 2);
	/* attributes this build does not know (a newer kernel's) are skipped */
	msg_attr(&m, 0x1ff, "\1\2\3", 3);
	msg_attr(&m, 0, "", 0);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 9, &d), 1);
	ck_assert_str_eq(d.name, "mlx5_3");
	/* a longer buffer than the message (more messages follow) is fine */
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, sizeof(m.buf), 9, &d), 1);
}
END_TEST

START_TEST(nl_parse_no_match)
{
	struct msg m;
	struct rq_rdma_dev d = {.name = "keep", .port = 5};

	msg_port(&m, "rxe0", 1, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 8, &d), 0);
	msg_port(&m, "rxe0", 0, 7); /* port 0 is no port */
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), 0);
	msg_init(&m); /* no netdev (an IB port) */
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "ib0", 4);
	msg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), 0);
	msg_init(&m); /* no name */
	msg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	msg_u32(&m, RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), 0);
	msg_init(&m); /* no attributes at all */
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), 0);
	ck_assert_str_eq(d.name, "keep");
	ck_assert_int_eq(d.port, 5);
}
END_TEST

START_TEST(nl_parse_malformed)
{
	struct msg m;
	struct rq_rdma_dev d = {.name = "keep", .port = 5};
	struct nlattr *a;
	char longname[80];

	msg_port(&m, "rxe0", 1, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, NLMSG_HDRLEN - 1, 7, &d), -EBADMSG);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len - 4, 7, &d),
			 -EBADMSG); /* len < nlmsg_len */
	m.h.nlmsg_len = NLMSG_HDRLEN - 2;
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* an attribute running past the message */
	msg_port(&m, "rxe0", 1, 7);
	a = (struct nlattr *)(m.buf + NLMSG_HDRLEN);
	a->nla_len = 200;
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* an attribute shorter than its header (would loop forever if trusted) */
	a->nla_len = 2;
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	a->nla_len = 0;
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* a name without its NUL, an empty name */
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0", 4);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "", 0);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	msg_port(&m, "", 1, 7); /* "\0": an empty name, found by fuzz-kubelet */
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* u32 attributes too short */
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_PORT_INDEX, "\1\0", 2);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_NDEV_INDEX, "\7", 1);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* what the hand-rolled walk let through: a name whose NUL is not its last byte
	 * (read as "rx"), a device index of two bytes, a header running past the message
	 * after a good port */
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "rx\0e0", 5);
	msg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	msg_u32(&m, RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	msg_port(&m, "rxe0", 1, 7);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_INDEX, "\3\0", 2);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	/* a matching port whose name does not fit */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	msg_port(&m, longname, 1, 7);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 7, &d), -EBADMSG);
	ck_assert_str_eq(d.name, "keep");
	ck_assert_int_eq(d.port, 5);
}
END_TEST

/* The live dump: this machine may have no RDMA devices or no RDMA netlink at all. */
START_TEST(find_by_ifindex_live)
{
	struct rq_rdma_dev d = {.port = 9};
	int r;

	ck_assert_int_eq(rdma_find_by_ifindex(0, &d), -EINVAL);
	ck_assert_int_eq(rdma_find_by_ifindex(-3, &d), -EINVAL);
	r = rdma_find_by_ifindex(1, &d); /* lo never has an RDMA port */
	ck_assert_msg(r == -ENOENT || r == -EPROTONOSUPPORT,
		      "lo: expected -ENOENT (or -EPROTONOSUPPORT without ib_core), got %d", r);
	ck_assert_int_eq(d.port, 9);
}
END_TEST

Suite *suite_rdma(void);
Suite *suite_rdma(void)
{
	Suite *s = suite_create("rdma");
	TCase *tc = tcase_create("sysfs");
	TCase *nl = tcase_create("netlink");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, find_by_pci);
	tcase_add_test(tc, find_by_pci_none);
	tcase_add_test(tc, locate_mofed);
	tcase_add_test(tc, locate_configfs);
	tcase_add_test(tc, locate_errors);
	tcase_add_test(tc, locate_both);
	tcase_add_test(tc, netns_mode);
	tcase_add_test(tc, tos_parse);
	suite_add_tcase(s, tc);
	tcase_add_test(nl, nl_parse_match);
	tcase_add_test(nl, nl_parse_no_match);
	tcase_add_test(nl, nl_parse_malformed);
	tcase_add_test(nl, find_by_ifindex_live);
	tcase_add_test(nl, podsys_view);
	suite_add_tcase(s, nl);
	return s;
}
