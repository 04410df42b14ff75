// SPDX-License-Identifier: Apache-2.0
/*
 * Netlink messages through libnl's attribute API (pkg/nlparse) and the
 * parsers on it that the agent's event sources use: rtnetlink link and dcbnl
 * notifications, RDMA netlink's notify group, and the infiniband uevents. Hand-built messages,
 * hostile ones included: cut at every length, attributes that lie about their size, unknown
 * attributes, wrong types.
 */
#include <check.h>
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/errno.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/dcb/dcb_msg.h"
#include "pkg/netns/netns.h"
#include "pkg/nlparse/nlparse.h"
#include "pkg/rdma/rdma.h"

/* RDMA_NLDEV_CMD_MONITOR, RDMA_NLDEV_ATTR_EVENT_TYPE (kernel >= 6.11 uapi) */
#define T_RDMA_MONITOR	  28
#define T_RDMA_EVENT_TYPE 102

struct msg {
	union {
		struct nlmsghdr h;
		char buf[1024];
	};
	size_t len;
};

static void msg_init(struct msg *m, uint16_t type, size_t hdrlen)
{
	memset(m, 0, sizeof(*m));
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);
	m->h.nlmsg_type = type;
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

static void msg_str(struct msg *m, uint16_t type, const char *s)
{
	msg_attr(m, type, s, strlen(s) + 1);
}

static void msg_u32(struct msg *m, uint16_t type, uint32_t v)
{
	msg_attr(m, type, &v, sizeof(v));
}

/* An RTM_NEWLINK for @name with the attributes a kernel puts around IFLA_IFNAME. */
static void link_msg(struct msg *m, uint16_t type, const char *name)
{
	msg_init(m, type, sizeof(struct ifinfomsg));
	msg_u32(m, IFLA_MTU, 1500);
	if (name)
		msg_str(m, IFLA_IFNAME, name);
	msg_u32(m, IFLA_TXQLEN, 1000);
	msg_attr(m, 0x7ff0, "future", 6); /* an attribute type this build does not know */
}

static void rdma_event_msg(struct msg *m, const char *name, uint32_t dev)
{
	uint8_t ev = 0; /* RDMA_REGISTER_EVENT */

	msg_init(m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, T_RDMA_MONITOR), 0);
	msg_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
	if (name)
		msg_str(m, RDMA_NLDEV_ATTR_DEV_NAME, name);
	msg_attr(m, T_RDMA_EVENT_TYPE, &ev, 1);
}

/* A copy of exactly @len bytes on the heap: a read past them is ASan's to see. */
static void *exact(const struct msg *m, size_t len)
{
	void *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, m->buf, len);
	return p;
}

START_TEST(parse_policy)
{
	static const struct nla_policy pol[IFLA_MAX + 1] = {
	    [IFLA_MTU] = {.type = NLA_U32},
	    [IFLA_IFNAME] = {.type = NLA_STRING, .maxlen = IFNAMSIZ},
	};
	struct nlattr *tb[IFLA_MAX + 1];
	struct msg m;

	link_msg(&m, RTM_NEWLINK, "enp1s0f0");
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol), 0);
	ck_assert_str_eq(nla_get_string(tb[IFLA_IFNAME]), "enp1s0f0");
	ck_assert_uint_eq(nla_get_u32(tb[IFLA_MTU]), 1500);
	/* a u32 of two bytes, a string without its NUL, one over its maximum */
	msg_init(&m, RTM_NEWLINK, sizeof(struct ifinfomsg));
	msg_attr(&m, IFLA_MTU, "\xdc\x05", 2);
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol),
			 -EBADMSG);
	msg_init(&m, RTM_NEWLINK, sizeof(struct ifinfomsg));
	msg_attr(&m, IFLA_IFNAME, "eth0", 4);
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol),
			 -EBADMSG);
	msg_init(&m, RTM_NEWLINK, sizeof(struct ifinfomsg));
	msg_str(&m, IFLA_IFNAME, "a-name-of-16-chr");
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol),
			 -EBADMSG);
	/* the family header cut, the message longer than the buffer */
	msg_init(&m, RTM_NEWLINK, 0);
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol),
			 -EBADMSG);
	link_msg(&m, RTM_NEWLINK, "eth0");
	ck_assert_int_eq(nlparse_msg(&m.h, m.len - 1, sizeof(struct ifinfomsg), tb, IFLA_MAX, pol),
			 -EBADMSG);
	ck_assert_int_eq(nlparse_msg(&m.h, 3, 0, tb, IFLA_MAX, pol), -EBADMSG);
	ck_assert_int_eq(nlparse_msg(NULL, 64, 0, tb, IFLA_MAX, pol), -EBADMSG);
}
END_TEST

START_TEST(parse_lying_headers)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct msg m;
	struct nlattr *a;
	size_t first = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));

	link_msg(&m, RTM_NEWLINK, "eth0");
	a = (struct nlattr *)(m.buf + first);
	for (unsigned l = 0; l < NLA_HDRLEN; l++) { /* shorter than its own header */
		a->nla_len = (uint16_t)l;
		ck_assert_int_eq(
		    nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL),
		    -EBADMSG);
	}
	a->nla_len = (uint16_t)(m.len - first + 1); /* past the message */
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL),
			 -EBADMSG);
	/* the last attribute may lack its padding; 1-3 stray bytes after it are no attribute */
	msg_init(&m, RTM_NEWLINK, sizeof(struct ifinfomsg));
	msg_attr(&m, IFLA_OPERSTATE, "\x06", 1);
	m.h.nlmsg_len = (uint32_t)(m.len - 3);
	ck_assert_int_eq(nlparse_msg(&m.h, m.len, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL), 0);
	ck_assert_ptr_nonnull(tb[IFLA_OPERSTATE]);
	m.h.nlmsg_len = (uint32_t)(m.len + 3);
	ck_assert_int_eq(nlparse_msg(&m.h, m.len + 3, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL),
			 0);
}
END_TEST

START_TEST(nle_to_errno)
{
	ck_assert_int_eq(nlparse_errno(0), 0);
	ck_assert_int_eq(nlparse_errno(-NLE_NOMEM), -ENOMEM);
	ck_assert_int_eq(nlparse_errno(-NLE_OPNOTSUPP), -EOPNOTSUPP);
	ck_assert_int_eq(nlparse_errno(-NLE_OBJ_NOTFOUND), -ENODEV);
	ck_assert_int_eq(nlparse_errno(-NLE_AGAIN), -EAGAIN);
	/* no NLE_* code leaves as itself: one without an errno of its own is -EIO */
	ck_assert_int_eq(nlparse_errno(-NLE_SEQ_MISMATCH), -EIO);
	ck_assert_int_eq(nlparse_errno(-NLE_DUMP_INTR), -EIO);
}
END_TEST

/* IFLA_PARENT_DEV_NAME / _BUS_NAME (56, 57): a VF's link event names its PCI address (issue 38) */
START_TEST(link_event_parent_pci)
{
	struct msg m;
	char pci[32] = "keep", small[8];

	link_msg(&m, RTM_DELLINK, "enp59s0f0v2");
	msg_str(&m, 56, "0000:3b:00.2");
	msg_str(&m, 57, "pci");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, pci, sizeof(pci)), 1);
	ck_assert_str_eq(pci, "0000:3b:00.2");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, small, sizeof(small)),
			 -ENAMETOOLONG);
	/* no parent (a veth), another bus, a name that is no PCI address: none */
	link_msg(&m, RTM_NEWLINK, "veth0");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, pci, sizeof(pci)), 0);
	link_msg(&m, RTM_NEWLINK, "mlx5_sf");
	msg_str(&m, 56, "mlx5_core.sf.2");
	msg_str(&m, 57, "auxiliary");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, pci, sizeof(pci)), 0);
	link_msg(&m, RTM_NEWLINK, "x");
	msg_str(&m, 56, "../../etc");
	msg_str(&m, 57, "pci");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, pci, sizeof(pci)), 0);
	ck_assert_str_eq(pci, "0000:3b:00.2");
	/* a parent name without its NUL */
	link_msg(&m, RTM_NEWLINK, "y");
	msg_attr(&m, 56, "0000:3b:00.2", 12);
	msg_str(&m, 57, "pci");
	ck_assert_int_eq(netns_link_msg_parent_pci(&m.h, m.len, pci, sizeof(pci)), -EBADMSG);
}
END_TEST

START_TEST(link_event_name)
{
	struct msg m;
	char name[48] = "keep", small[4];

	link_msg(&m, RTM_NEWLINK, "enp1s0f0np0");
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, name, sizeof(name)), 1);
	ck_assert_str_eq(name, "enp1s0f0np0");
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, small, sizeof(small)), -ENAMETOOLONG);
	link_msg(&m, RTM_DELLINK, "p1");
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, sizeof(m.buf), name, sizeof(name)), 1);
	ck_assert_str_eq(name, "p1");
	/* no name, an empty one: no link named */
	link_msg(&m, RTM_NEWLINK, NULL);
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, name, sizeof(name)), 0);
	link_msg(&m, RTM_NEWLINK, "");
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "p1");
	/* a name without its NUL, one longer than any netdev's, the wrong family header */
	msg_init(&m, RTM_NEWLINK, sizeof(struct ifinfomsg));
	msg_attr(&m, IFLA_IFNAME, "eth0", 4);
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, name, sizeof(name)), -EBADMSG);
	link_msg(&m, RTM_NEWLINK, "a-name-of-sixteen-and-more");
	ck_assert_int_eq(netns_link_msg_ifname(&m.h, m.len, name, sizeof(name)), -EBADMSG);
	ck_assert_str_eq(name, "p1");
}
END_TEST

START_TEST(dcb_event_name)
{
	struct msg m;
	char name[48] = "keep";
	uint8_t ieee[8] = {0};

	msg_init(&m, RTM_SETDCB, sizeof(struct dcbmsg));
	msg_str(&m, DCB_ATTR_IFNAME, "enp1s0f0");
	msg_attr(&m, DCB_ATTR_IEEE | NLA_F_NESTED, ieee, sizeof(ieee));
	ck_assert_int_eq(dcb_msg_parse_ifname(&m.h, m.len, name, sizeof(name)), 1);
	ck_assert_str_eq(name, "enp1s0f0");
	msg_init(&m, RTM_GETDCB, sizeof(struct dcbmsg));
	msg_attr(&m, DCB_ATTR_DCBX, "\x08", 1);
	ck_assert_int_eq(dcb_msg_parse_ifname(&m.h, m.len, name, sizeof(name)), 0);
	msg_init(&m, RTM_GETDCB, sizeof(struct dcbmsg));
	msg_attr(&m, DCB_ATTR_IFNAME, "enp1", 4); /* no NUL */
	ck_assert_int_eq(dcb_msg_parse_ifname(&m.h, m.len, name, sizeof(name)), -EBADMSG);
	msg_init(&m, RTM_GETDCB, 2); /* dcbmsg cut */
	ck_assert_int_eq(dcb_msg_parse_ifname(&m.h, NLMSG_HDRLEN + 2, name, sizeof(name)),
			 -EBADMSG);
	ck_assert_str_eq(name, "enp1s0f0");
}
END_TEST

START_TEST(rdma_event_device)
{
	struct msg m;
	char dev[48] = "keep";
	struct nlmsghdr done = {.nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_DONE};

	rdma_event_msg(&m, "mlx5_2", 4);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "mlx5_2");
	/* the kernel's register event carries the index only */
	rdma_event_msg(&m, NULL, 4);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "rdma dev 4");
	msg_init(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, T_RDMA_MONITOR), 0);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "rdma");
	/* a name that starts with its NUL is no name (found by fuzz-kubelet: "" was the device) */
	msg_init(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, T_RDMA_MONITOR), 0);
	msg_u32(&m, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "\0\0\t0", 5);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "rdma dev 4");
	/* netlink's own messages are no device event */
	strcpy(dev, "keep");
	ck_assert_int_eq(rdma_nl_parse_event(&done, sizeof(done), dev, sizeof(dev)), 0);
	ck_assert_str_eq(dev, "keep");
	/* a short index, a name without its NUL */
	msg_init(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, T_RDMA_MONITOR), 0);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_INDEX, "\4", 1);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), -EBADMSG);
	msg_init(&m, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, T_RDMA_MONITOR), 0);
	msg_attr(&m, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_2", 6);
	ck_assert_int_eq(rdma_nl_parse_event(&m.h, m.len, dev, sizeof(dev)), -EBADMSG);
	ck_assert_str_eq(dev, "keep");
}
END_TEST

/* A uevent of @n bytes in a heap block of exactly @n bytes; @more follows it in memory. */
static int uevent(const char *text, size_t n, char *dev, size_t devlen)
{
	char *p = malloc(n ? n : 1);
	int r;

	ck_assert_ptr_nonnull(p);
	memcpy(p, text, n);
	r = rdma_uevent_dev(p, n, dev, devlen);
	free(p);
	return r;
}

START_TEST(uevent_device)
{
	static const char add[] = "add@/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_2\0"
				  "ACTION=add\0DEVPATH=/devices/pci0000:00/0000:00:02.0/"
				  "infiniband/mlx5_2\0SUBSYSTEM=infiniband\0NAME=mlx5_2\0SEQNUM=9";
	static const char net[] = "add@/devices/virtual/net/veth1\0ACTION=add\0"
				  "DEVPATH=/devices/virtual/net/veth1\0SUBSYSTEM=net";
	static const char noname[] = "remove@/x\0SUBSYSTEM=infiniband\0DEVPATH=/devices/ib/";
	/* the last string without its NUL, the bytes after it in the same buffer */
	static const char cut[] = "add@/x\0DEVPATH=/devices/ib/mlx5_9\0SUBSYSTEM=infiniband";
	static const char cutdev[] = "add@/x\0SUBSYSTEM=infiniband\0DEVPATH=/devices/ib/mlx5_2XYZ";
	char dev[48] = "keep";

	ck_assert_int_eq(uevent(add, sizeof(add), dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "mlx5_2");
	ck_assert_int_eq(uevent(net, sizeof(net), dev, sizeof(dev)), 0);
	ck_assert_int_eq(uevent(noname, sizeof(noname), dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "infiniband");
	/*
	 * What was read past @len before (strcmp/strrchr on the last string):
	 * "SUBSYSTEM=infini" is not the infiniband class, "DEVPATH=.../mlx5_2" is
	 * mlx5_2, whatever follows in the buffer.
	 */
	strcpy(dev, "keep");
	ck_assert_int_eq(rdma_uevent_dev(cut, sizeof(cut) - 5, dev, sizeof(dev)), 0);
	ck_assert_str_eq(dev, "keep");
	ck_assert_int_eq(rdma_uevent_dev(cutdev, sizeof(cutdev) - 4, dev, sizeof(dev)), 1);
	ck_assert_str_eq(dev, "mlx5_2");
	/* every prefix, in an exact heap block (ASan sees a read past it) */
	for (size_t n = 0; n <= sizeof(add); n++)
		(void)uevent(add, n, dev, sizeof(dev));
	ck_assert_int_eq(uevent("", 0, dev, sizeof(dev)), 0);
}
END_TEST

/*
 * Every parser on every prefix of a good message, and on the message with
 * each byte of its attribute headers replaced: a value, 0 or -EBADMSG, and
 * never a read past the bytes given (the copies are exact, for ASan).
 */
START_TEST(every_cut_and_corruption)
{
	struct msg good[3], m;
	char out[48];
	struct rq_rdma_dev d;

	link_msg(&good[0], RTM_NEWLINK, "enp1s0f0");
	rdma_event_msg(&good[1], "rxe0", 3);
	msg_init(&good[2], RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET), 0);
	msg_str(&good[2], RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	msg_u32(&good[2], RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	msg_u32(&good[2], RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
	for (int g = 0; g < 3; g++) {
		for (size_t cut = 0; cut <= good[g].len; cut++) {
			struct msg c = good[g];
			void *p;
			int r;

			if (cut >= NLMSG_HDRLEN)
				c.h.nlmsg_len = (uint32_t)cut; /* the header agrees with the cut */
			p = exact(&c, cut);
			if (cut < NLMSG_HDRLEN) {
				free(p);
				continue; /* the drain loops hand over whole headers only */
			}
			r = g == 0   ? netns_link_msg_ifname(p, cut, out, sizeof(out))
			    : g == 1 ? rdma_nl_parse_event(p, cut, out, sizeof(out))
				     : rdma_nl_parse_port(p, cut, 7, &d);
			ck_assert_msg(r == -EBADMSG || r == 0 || r == 1, "msg %d cut %zu: %d", g,
				      cut, r);
			/* what a cut message yields is a whole name or none (an event: the index)
			 */
			if (r == 1 && g == 1)
				ck_assert_msg(!strcmp(out, "rxe0") || !strcmp(out, "rdma dev 3") ||
						  !strcmp(out, "rdma"),
					      "cut %zu: %s", cut, out);
			else if (r == 1)
				ck_assert_str_eq(g == 0 ? out : d.name,
						 g == 0 ? "enp1s0f0" : "rxe0");
			free(p);
		}
		for (size_t i = NLMSG_HDRLEN; i < good[g].len; i++)
			for (int v = 0; v < 256; v += 17) {
				void *p;

				m = good[g];
				m.buf[i] = (char)v;
				p = exact(&m, m.len);
				(void)(g == 0	? netns_link_msg_ifname(p, m.len, out, sizeof(out))
				       : g == 1 ? rdma_nl_parse_event(p, m.len, out, sizeof(out))
						: rdma_nl_parse_port(p, m.len, 7, &d));
				free(p);
			}
	}
}
END_TEST

Suite *suite_nlparse(void);
Suite *suite_nlparse(void)
{
	Suite *s = suite_create("nlparse");
	TCase *tc = tcase_create("messages");

	tcase_add_test(tc, parse_policy);
	tcase_add_test(tc, link_event_parent_pci);
	tcase_add_test(tc, parse_lying_headers);
	tcase_add_test(tc, nle_to_errno);
	tcase_add_test(tc, link_event_name);
	tcase_add_test(tc, dcb_event_name);
	tcase_add_test(tc, rdma_event_device);
	tcase_add_test(tc, uevent_device);
	tcase_add_test(tc, every_cut_and_corruption);
	suite_add_tcase(s, tc);
	return s;
}
