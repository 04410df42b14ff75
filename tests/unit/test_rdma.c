// SPDX-License-Identifier: Apache-2.0
/* pkg/rdma: device lookup, ToS interface location, ToS text, RDMA netlink reply parsing. */
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdint.h>
#include <string.h>

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
	ck_assert_int_eq(d.tos_kind, RQ_TOS_NONE);
	ck_assert_str_eq(d.tos_path, "");
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
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), 0);
	ck_assert_int_eq(d.tos_kind, RQ_TOS_MOFED);
	ck_assert_str_eq(d.tos_path, "/sys/class/infiniband/mlx5_1/tc/1/traffic_class");
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, -1); /* empty: unset */
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, 106), 0);
	ck_assert_int_eq(sim_sh(&node, "test \"$(cat $R/sys/class/infiniband/mlx5_1/tc/1/"
				       "traffic_class)\" = 106"),
			 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 106);
	ck_assert_int_eq(sim_sh(&node, "echo 'Global tclass=96' > "
				       "$R/sys/class/infiniband/mlx5_1/tc/1/traffic_class"),
			 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 96);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, -1), -ERANGE);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, 256), -ERANGE);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 96);
}
END_TEST

START_TEST(locate_configfs)
{
	struct rq_rdma_dev d;
	struct rq_error e = {0};
	int tos = 7;

	sim_build(&node, "--pfs 1 --vfs 2 --rdma configfs");
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.1", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), 0);
	ck_assert_int_eq(e.code, 0);
	ck_assert_int_eq(d.tos_kind, RQ_TOS_CONFIGFS);
	ck_assert_str_eq(d.tos_path, "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos");
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 0);
	ck_assert_int_eq(rdma_tos_write(&node.root, &d, 106), 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 106);
	/* the <dev> directory is made when missing (real configfs then creates ports/) */
	ck_assert_int_eq(sim_sh(&node, "rm -r $R/sys/kernel/config/rdma_cm/mlx5_1"), 0);
	ck_assert_int_eq(rdma_find_by_pci(&node.root, "0000:81:00.2", &d), 0);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), -ENOENT);
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
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), 0);
	ck_assert_int_eq(rdma_tos_read(&node.root, &d, &tos), 0);
	ck_assert_int_eq(tos, 32);
}
END_TEST

START_TEST(locate_errors)
{
	struct rq_rdma_dev d = {.name = "mlx5_0", .port = 1};
	struct rq_error e = {0};

	sim_build(&node, "--pfs 1 --vfs 1 --rdma none");
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), -ENOENT);
	ck_assert_int_eq(e.code, RQ_ERR_NO_TOS);
	ck_assert_str_eq(e.msg,
			 "RDMA device mlx5_0 has no traffic-class interface: configfs is not "
			 "mounted at /sys/kernel/config");
	ck_assert_int_eq(d.tos_kind, RQ_TOS_NONE);
	/* an empty mount point is the same as none */
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/kernel/config"), 0);
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), -ENOENT);
	ck_assert_str_eq(e.msg,
			 "RDMA device mlx5_0 has no traffic-class interface: configfs is not "
			 "mounted at /sys/kernel/config");
	ck_assert_int_eq(sim_sh(&node, "mkdir -p $R/sys/kernel/config/usb_gadget"), 0);
	rq_err_clear(&e);
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, &e), -ENOENT);
	ck_assert_int_eq(e.code, RQ_ERR_NO_TOS);
	ck_assert_str_eq(e.msg, "RDMA device mlx5_0 has no traffic-class interface: rdma_cm is not "
				"loaded (modprobe rdma_cm)");
	/* a NULL error context is allowed */
	ck_assert_int_eq(rdma_tos_locate(&node.root, &d, NULL), -ENOENT);
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
	ck_assert_int_eq(v, 7);
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
	ck_assert_int_eq(d.tos_kind, RQ_TOS_NONE);
	/* flags in the type (NLA_F_NESTED / NET_BYTEORDER) are masked */
	msg_init(&m);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME | NLA_F_NET_BYTEORDER, "mlx5_3", 7);
	msg_u32(&m, RDMA_NLDEV_ATTR_NDEV_INDEX, 9);
	msg_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	ck_assert_int_eq(rdma_nl_parse_port(&m.h, m.len, 9, &d), 1);
	ck_assert_str_eq(d.name, "mlx5_3");
	ck_assert_int_eq(d.port, 2);
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
	tcase_add_test(tc, tos_parse);
	suite_add_tcase(s, tc);
	tcase_add_test(nl, nl_parse_match);
	tcase_add_test(nl, nl_parse_no_match);
	tcase_add_test(nl, nl_parse_malformed);
	tcase_add_test(nl, find_by_ifindex_live);
	suite_add_tcase(s, nl);
	return s;
}
