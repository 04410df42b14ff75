// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/rdma/cm_id and pkg/rdma/qp_owner (issue 50 item 3): hand-built RDMA-CM id dump
 * messages (nests without NLA_F_NESTED, the addresses as whole __kernel_sockaddr_storage
 * as nldev.c puts them), the sim's cm_ids JSON, and the attribution of a shared device's
 * QPs by cm_id, source GID index and cgroup, with a host-network pod's object among the
 * records. Cut buffers are copied to exact-size allocations for ASan.
 */
#include <arpa/inet.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/rdma/cm_id.h"
#include "pkg/rdma/gid.h"
#include "pkg/rdma/qp_owner.h"

static struct nlattr *nest(struct nl_msg *m, int type)
{
	struct nlattr *a = nla_nest_start(m, type);

	ck_assert_ptr_nonnull(a);
	a->nla_type &= (uint16_t)~NLA_F_NESTED;
	return a;
}

static struct nl_msg *cm_msg(void)
{
	struct nl_msg *m = nlmsg_alloc_simple(
	    RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET), NLM_F_MULTI);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, 1), 0);
	ck_assert_int_eq(nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0"), 0);
	return m;
}

/* An address attribute as nldev.c puts it: the whole sockaddr_storage (@len: cut it to that) */
static void put_addr(struct nl_msg *m, int type, int fam, const char *ip, size_t len)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)fam;
	if (fam == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_port = htons(4791);
		ck_assert_int_eq(inet_pton(AF_INET, ip, &s4->sin_addr), 1);
	} else if (fam == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		ck_assert_int_eq(inet_pton(AF_INET6, ip, &s6->sin6_addr), 1);
	} else {
		memset((char *)&ss + 2, 0xfe, 40); /* AF_IB: a sockaddr_ib's GID and service id */
	}
	ck_assert_int_eq(nla_put(m, type, (int)(len ? len : sizeof(ss)), &ss), 0);
}

/* One cm_id entry in fill_res_cm_id_entry's order; qpn 0 / pid 0 / fam 0: left out */
static void put_cm(struct nl_msg *m, uint32_t qpn, int fam, const char *src, uint32_t pid,
		   const char *kern)
{
	struct nlattr *e = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);

	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1), 0);
	if (qpn) {
		ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, qpn), 0);
		ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, 2), 0);
	}
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_PS, 0x0106), 0); /* RDMA_PS_TCP */
	ck_assert_int_eq(nla_put_u8(m, RDMA_NLDEV_ATTR_RES_STATE, 9), 0);	     /* RDMA_CM_CONNECT */
	if (fam)
		put_addr(m, RDMA_NLDEV_ATTR_RES_SRC_ADDR, fam, src, 0);
	if (fam == AF_INET)
		put_addr(m, RDMA_NLDEV_ATTR_RES_DST_ADDR, fam, "10.99.0.21", 0);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_CM_IDN, qpn + 100), 0);
	if (pid)
		ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_PID, pid), 0);
	if (kern)
		ck_assert_int_eq(nla_put_string(m, RDMA_NLDEV_ATTR_RES_KERN_NAME, kern), 0);
	nla_nest_end(m, e);
}

static int parse(struct nl_msg *m, struct rq_cm_id_list *l)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	struct nlmsghdr *c = malloc(h->nlmsg_len);
	int r;

	ck_assert_ptr_nonnull(c);
	memcpy(c, h, h->nlmsg_len);
	r = rdma_cm_ids_parse_msg(c, c->nlmsg_len, l);
	free(c);
	return r;
}

static const uint8_t v4_11[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 11};

START_TEST(cm_msg_good)
{
	struct rq_cm_id_list l = {0};
	struct nl_msg *m = cm_msg();
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID);
	uint8_t v6[16];

	put_cm(m, 17, AF_INET, "10.99.0.11", 4242, NULL);
	put_cm(m, 0, AF_INET, "10.99.0.12", 5151, NULL); /* a listener: no QP bound */
	put_cm(m, 0x123456, AF_INET6, "fd00::12", 5151, NULL);
	put_cm(m, 40, 27, NULL, 0, "ib_srp"); /* AF_IB, a kernel id */
	put_cm(m, 41, 0, NULL, 7, NULL);      /* resolving: no address yet */
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_uint_eq(l.id[0].qpn, 17);
	ck_assert_uint_eq(l.id[0].pid, 4242);
	ck_assert(l.id[0].has_src);
	ck_assert_mem_eq(l.id[0].src, v4_11, 16);
	ck_assert_uint_eq(l.id[1].qpn, 0);
	ck_assert(l.id[1].has_src);
	ck_assert_uint_eq(l.id[2].qpn, 0x123456);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00::12", v6), 1);
	ck_assert_mem_eq(l.id[2].src, v6, 16);
	ck_assert(!l.id[3].has_src);
	ck_assert_str_eq(l.id[3].comm, "ib_srp");
	ck_assert(!l.id[4].has_src);
	/* looked up by QP */
	rdma_cm_ids_sort(&l);
	ck_assert_ptr_nonnull(rdma_cm_id_of_qp(&l, 17));
	ck_assert_uint_eq(rdma_cm_id_of_qp(&l, 17)->pid, 4242);
	ck_assert_ptr_nonnull(rdma_cm_id_of_qp(&l, 0x123456));
	ck_assert_ptr_null(rdma_cm_id_of_qp(&l, 0)); /* the listener is no QP's */
	ck_assert_ptr_null(rdma_cm_id_of_qp(&l, 18));
	rdma_cm_ids_free(&l);
	nlmsg_free(m);
	/* a message without the table (the dump's last, or another device's): nothing */
	m = cm_msg();
	ck_assert_int_eq(parse(m, &l), 0);
	ck_assert_uint_eq(l.n, 0);
	nlmsg_free(m);
}
END_TEST

START_TEST(cm_msg_bad)
{
	struct rq_cm_id_list l = {0};
	struct nl_msg *m = cm_msg();
	struct nlattr *t = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID), *e;

	put_cm(m, 17, AF_INET, "10.99.0.11", 4242, NULL);
	e = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY); /* an IPv4 source cut short of sin_addr */
	put_addr(m, RDMA_NLDEV_ATTR_RES_SRC_ADDR, AF_INET, "10.99.0.12", 6);
	nla_nest_end(m, e);
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), -EBADMSG);
	ck_assert_uint_eq(l.n, 0); /* all of the message or none */
	nlmsg_free(m);
	m = cm_msg();
	t = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID);
	e = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY); /* an IPv6 source shorter than sockaddr_in6 */
	put_addr(m, RDMA_NLDEV_ATTR_RES_SRC_ADDR, AF_INET6, "fd00::1", 20);
	nla_nest_end(m, e);
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), -EBADMSG);
	nlmsg_free(m);
	m = cm_msg();
	t = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID);
	put_cm(m, 17, AF_INET, "10.99.0.11", 4242, NULL);
	ck_assert_int_eq(nla_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, 18), 0); /* not an entry */
	nla_nest_end(m, t);
	ck_assert_int_eq(parse(m, &l), -EBADMSG);
	ck_assert_uint_eq(l.n, 0);
	/* every cut of a good message, in a buffer of exactly that size: whole or refused */
	nlmsg_free(m);
	m = cm_msg();
	t = nest(m, RDMA_NLDEV_ATTR_RES_CM_ID);
	put_cm(m, 17, AF_INET, "10.99.0.11", 4242, NULL);
	put_cm(m, 18, AF_INET6, "fd00::12", 5151, NULL);
	nla_nest_end(m, t);
	for (size_t k = NLMSG_HDRLEN; k < nlmsg_hdr(m)->nlmsg_len; k++) {
		struct nlmsghdr *c = malloc(k);
		int r;

		ck_assert_ptr_nonnull(c);
		memcpy(c, nlmsg_hdr(m), k);
		c->nlmsg_len = (uint32_t)k;
		r = rdma_cm_ids_parse_msg(c, k, &l);
		ck_assert_msg(r == 0 || r == -EBADMSG, "cut at %zu: %d", k, r);
		ck_assert_int_eq(rdma_cm_ids_parse_msg(c, k - 1, &l), -EBADMSG);
		free(c);
		rdma_cm_ids_free(&l);
	}
	nlmsg_free(m);
}
END_TEST

static int cm_json(const char *s, struct rq_cm_id_list *l)
{
	return rdma_cm_ids_parse_json(s, strlen(s), l);
}

START_TEST(cm_json_sim)
{
	struct rq_cm_id_list l = {0};
	static const char *const bad[] = {
	    "", "{}", "[1]", "[{\"qpn\": -1}]", "[{\"qpn\": 16777216}]", "[{\"qpn\": 1.5}]",
	    "[{\"src_addr\": \"10.99.0\"}]", "[{\"src_addr\": 7}]", "[{\"dst_addr\": 7}]",
	    "[{\"pid\": \"x\"}]", "[{\"comm\": \"0123456789012345678901234567890123\"}]"};

	ck_assert_int_eq(cm_json("[{\"qpn\": 18, \"src_addr\": \"fd00::12\"}, {\"qpn\": 17, "
				 "\"src_addr\": \"10.99.0.11\", \"dst_addr\": \"10.99.0.21\", "
				 "\"pid\": 4242, \"comm\": \"rping\"}, {\"pid\": 1}]",
				 &l),
			 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_ptr_nonnull(rdma_cm_id_of_qp(&l, 17)); /* sorted by QP */
	ck_assert_mem_eq(rdma_cm_id_of_qp(&l, 17)->src, v4_11, 16);
	ck_assert_str_eq(rdma_cm_id_of_qp(&l, 17)->comm, "rping");
	ck_assert(rdma_cm_id_of_qp(&l, 18)->has_src);
	rdma_cm_ids_free(&l);
	ck_assert_int_eq(cm_json("[]", &l), 0);
	ck_assert_uint_eq(l.n, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cm_json(bad[i], &l) == -EINVAL, "%s", bad[i]);
}
END_TEST

/* The ids file's source addresses read as inet_pton reads them (a dotted quad as ::ffff:a.b.c.d) */
START_TEST(cm_json_addrs)
{
	static const char *const addrs[] = {
	    "10.99.0.11", "0.0.0.0", "255.255.255.255", "1.2.3.4", "01.2.3.4", "1.2.3.04",
	    "1.2.3.0", "256.1.1.1", "1.2.3.256", "1.2.3", "1.2.3.4.5", "1..2.3", ".1.2.3",
	    "1.2.3.", "1234.1.1.1", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4", "a.b.c.d", "",
	    "fd00::11", "::ffff:10.99.0.11", "::", "fe80::1%eth0", "1.2.3.4/24", "0x1.2.3.4",
	    "99.99.99.99", "100.200.250.255"};
	struct rq_cm_id_list l = {0};

	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		char json[128];
		uint8_t want[16] = {0};
		bool ok = true;
		int r;

		if (inet_pton(AF_INET, addrs[i], want + 12) == 1)
			want[10] = want[11] = 0xff;
		else
			ok = inet_pton(AF_INET6, addrs[i], want) == 1;
		(void)snprintf(json, sizeof(json), "[{\"qpn\": 17, \"src_addr\": \"%s\"}]", addrs[i]);
		r = cm_json(json, &l);
		ck_assert_msg(r == (ok ? 0 : -EINVAL), "%s: %d", addrs[i], r);
		if (ok) {
			ck_assert_msg(l.n == 1 && l.id[0].has_src, "%s", addrs[i]);
			ck_assert_msg(!memcmp(l.id[0].src, want, 16), "%s", addrs[i]);
		}
		rdma_cm_ids_free(&l);
	}
}
END_TEST

/* a QP of the shared device */
static struct rq_qp *qp(struct rq_qp_list *l, uint32_t qpn, const char *type, uint32_t pid,
			const char *comm, int sgid)
{
	struct rq_qp *q = rdma_qps_add(l);

	ck_assert_ptr_nonnull(q);
	q->qpn = qpn;
	(void)snprintf(q->type, sizeof(q->type), "%s", type);
	(void)snprintf(q->state, sizeof(q->state), "RTS");
	q->pid = pid;
	(void)snprintf(q->comm, sizeof(q->comm), "%s", comm);
	q->sgid_index = sgid;
	q->tclass = 106;
	return q;
}

/* a fake /proc/<pid>/cgroup: the pod of each pid, through kubelet_cgroup_pod_uid */
struct fake_proc {
	int reads;
};
static int fake_uid(void *ctx, const struct rq_qp *q, char *ret, size_t len)
{
	uint32_t pid = q->pid;
	static const char a[] = "12:memory:/kubepods/burstable/poda1a1a1a1-0000-1111-2222-333344445555/c1\n";
	static const char b[] = "0::/kubepods.slice/kubepods-besteffort.slice/"
				"kubepods-besteffort-podb2b2b2b2_0000_1111_2222_333344445555.slice/"
				"cri-containerd-9f.scope\n";
	static const char h[] = "0::/kubepods.slice/kubepods-podc3c3c3c3_0000_1111_2222_333344445555.slice/x.scope\n";
	static const char host[] = "0::/system.slice/sshd.service\n";
	const char *t = pid == 100 ? a : pid == 200 ? b : pid == 300 ? h : pid == 400 ? host : NULL;

	((struct fake_proc *)ctx)->reads++;
	return t ? kubelet_cgroup_pod_uid(t, strlen(t), ret, len) : -ENOENT;
}

static cJSON *owner(const char *json)
{
	cJSON *o = cJSON_Parse(json);

	ck_assert_ptr_nonnull(o);
	return o;
}

START_TEST(attribute_methods)
{
	/* two macvlan pods' records and a host-network pod's object (ips [], no gids) */
	cJSON *a = owner("{\"shared\": true, \"podUID\": \"a1a1a1a1-0000-1111-2222-333344445555\","
			 " \"ips\": [\"10.99.0.11/24\", \"fd00::11\"], \"gids\": [{\"index\": 2}, "
			 "{\"index\": 3}]}");
	cJSON *b = owner("{\"shared\": true, \"podUID\": \"b2b2b2b2-0000-1111-2222-333344445555\","
			 " \"ips\": [\"10.99.0.12\"], \"gids\": [{\"index\": 4}, {\"index\": 5}]}");
	cJSON *h = owner("{\"shared\": true, \"hostNetwork\": true, \"vf\": \"\", \"ifname\": \"\", "
			 "\"podUID\": \"c3c3c3c3-0000-1111-2222-333344445555\", \"ips\": []}");
	const cJSON *owners[] = {a, b, h};
	struct rq_qp_list l = {0};
	struct rq_cm_id_list cm = {0};
	struct rq_qp_owner own[16];
	struct fake_proc fp = {0};
	static const struct {
		int owner;
		enum rq_qp_by by;
	} want[] = {
	    {0, RQ_QP_BY_CM_ID},   /* 17: its cm_id's source 10.99.0.11, though its GID is b's */
	    {1, RQ_QP_BY_CM_ID},   /* 18: fd00::.. no: 10.99.0.12 (b) */
	    {1, RQ_QP_BY_SGID},	   /* 19: GID 5 */
	    {0, RQ_QP_BY_CGROUP},  /* 20: UD, its GID 4 (b's) not taken: pid 100 is a's */
	    {-1, RQ_QP_BY_NONE},   /* 21: UD, GID 4, a host process */
	    {2, RQ_QP_BY_CGROUP},  /* 22: the host-network pod, the host's GID 1 */
	    {-1, RQ_QP_BY_NONE},   /* 23: the host's GID, no pid */
	    {-1, RQ_QP_BY_KERNEL}, /* 1: GSI */
	    {-1, RQ_QP_BY_KERNEL}, /* 24: mlx5's UMR QP */
	    {0, RQ_QP_BY_SGID},	   /* 25: an XRC_TGT QP ib_uverbs made for a's process: GID 3 */
	    {-1, RQ_QP_BY_NONE},   /* 26: DCI (no GID per QP), pid 400: the host's */
	    {2, RQ_QP_BY_CGROUP},  /* 27: the host-network pod's QP with a cm_id on the host's IP */
	    {0, RQ_QP_BY_CGROUP},  /* 28: pid 100 again (its cgroup read once) */
	};

	qp(&l, 17, "RC", 100, "rping", 4);
	qp(&l, 18, "RC", 0, "", -1);
	qp(&l, 19, "RC", 200, "python3", 5);
	qp(&l, 20, "UD", 100, "rping", 4);
	qp(&l, 21, "UD", 400, "ud_pingpong", 4);
	qp(&l, 22, "RC", 300, "nccl", 1);
	qp(&l, 23, "RC", 0, "", 1);
	qp(&l, 1, "GSI", 0, "ib_core", -1);
	qp(&l, 24, "REG_UMR", 0, "mlx5_ib", -1);
	qp(&l, 25, "XRC_TGT", 0, "ib_uverbs", 3);
	qp(&l, 26, "DCI", 400, "ucx", 2);
	qp(&l, 27, "RC", 300, "nccl", -1);
	qp(&l, 28, "RC", 100, "rping", -1);
	ck_assert_int_eq(cm_json("[{\"qpn\": 17, \"src_addr\": \"10.99.0.11\"}, {\"qpn\": 18, "
				 "\"src_addr\": \"10.99.0.12\"}, {\"qpn\": 27, \"src_addr\": "
				 "\"192.168.1.5\"}]",
				 &cm),
			 0);
	ck_assert_int_eq(rdma_qps_attribute(&l, &cm, owners, 3, fake_uid, &fp, own), 0);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_msg(own[i].owner == want[i].owner && own[i].by == want[i].by,
			      "qpn %u: owner %d by %s, want %d by %s", l.qp[i].qpn, own[i].owner,
			      rdma_qp_by_name(own[i].by), want[i].owner,
			      rdma_qp_by_name(want[i].by));
	}
	/* each pid's cgroup read once, only for QPs no earlier method named: 100, 400, 300 */
	ck_assert_int_eq(fp.reads, 3);
	/* no cm_id dump and no PIDs: the source GIDs alone */
	ck_assert_int_eq(rdma_qps_attribute(&l, NULL, owners, 3, NULL, NULL, own), 0);
	ck_assert_int_eq(own[0].owner, 1); /* 17 by its GID 4 now */
	ck_assert_int_eq(own[0].by, RQ_QP_BY_SGID);
	ck_assert_int_eq(own[3].owner, -1); /* 20: UD, no cgroup: nobody's */
	ck_assert_int_eq(own[5].owner, -1);
	ck_assert_str_eq(rdma_qp_by_name(RQ_QP_BY_CM_ID), "cm_id");
	ck_assert_str_eq(rdma_qp_by_name(RQ_QP_BY_SGID), "sgid");
	ck_assert_str_eq(rdma_qp_by_name(RQ_QP_BY_CGROUP), "cgroup");
	rdma_cm_ids_free(&cm);
	rdma_qps_free(&l);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(h);
}
END_TEST

/* A GID index or an address two pods' records claim (a stale record): neither gets the QP */
START_TEST(attribute_ambiguous)
{
	cJSON *a = owner("{\"podUID\": \"a1a1a1a1-0000-1111-2222-333344445555\", \"ips\": "
			 "[\"10.99.0.11\"], \"gids\": [{\"index\": 3}]}");
	cJSON *b = owner("{\"podUID\": \"b2b2b2b2-0000-1111-2222-333344445555\", \"ips\": "
			 "[\"10.99.0.11\"], \"gids\": [{\"index\": 3}]}");
	/* a second interface of pod a on the same device */
	cJSON *a2 = owner("{\"podUID\": \"A1A1A1A1-0000-1111-2222-333344445555\", \"ips\": "
			  "[\"10.99.1.11\"], \"gids\": [{\"index\": 7}]}");
	const cJSON *owners[] = {a, b, a2};
	struct rq_qp_list l = {0};
	struct rq_cm_id_list cm = {0};
	struct rq_qp_owner own[4];
	struct fake_proc fp = {0};

	qp(&l, 17, "RC", 0, "", 3);
	qp(&l, 18, "RC", 100, "rping", 3);
	qp(&l, 19, "RC", 0, "", 7);
	ck_assert_int_eq(cm_json("[{\"qpn\": 17, \"src_addr\": \"10.99.0.11\"}]", &cm), 0);
	ck_assert_int_eq(rdma_qps_attribute(&l, &cm, owners, 3, fake_uid, &fp, own), 0);
	ck_assert_int_eq(own[0].owner, -1);
	ck_assert_int_eq(own[0].by, RQ_QP_BY_NONE);
	/* 18: the pod by its cgroup, whose two attachments both hold it: the first */
	ck_assert_int_eq(own[1].owner, 0);
	ck_assert_int_eq(own[1].by, RQ_QP_BY_CGROUP);
	ck_assert_int_eq(own[2].owner, 2);
	ck_assert_int_eq(own[2].by, RQ_QP_BY_SGID);
	/* no attachment at all: every user QP unattributed */
	ck_assert_int_eq(rdma_qps_attribute(&l, &cm, NULL, 0, fake_uid, &fp, own), 0);
	ck_assert_int_eq(own[1].owner, -1);
	rdma_cm_ids_free(&cm);
	rdma_qps_free(&l);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(a2);
}
END_TEST

/* /proc/<pid>/cgroup as the census reads it: cgroup v1 and v2, both kubelet drivers */
START_TEST(cgroup_layouts)
{
	static const struct {
		const char *text, *uid;
	} c[] = {
	    /* v1, cgroupfs: every controller's line names the pod; the first named wins */
	    {"12:pids:/kubepods/besteffort/pod0a0a0a0a-1111-2222-3333-444455556666/abc\n"
	     "11:memory:/kubepods/besteffort/pod0a0a0a0a-1111-2222-3333-444455556666/abc\n",
	     "0a0a0a0a-1111-2222-3333-444455556666"},
	    /* v1, systemd: name=systemd first, underscores */
	    {"1:name=systemd:/kubepods.slice/kubepods-burstable.slice/"
	     "kubepods-burstable-pod0b0b0b0b_1111_2222_3333_444455556666.slice/docker-1.scope\n",
	     "0b0b0b0b-1111-2222-3333-444455556666"},
	    /* v2 with the reader in its own cgroup namespace (a container's view): relative */
	    {"0::/../../kubepods-besteffort-pod0c0c0c0c_1111_2222_3333_444455556666.slice/"
	     "cri-containerd-2.scope\n",
	     "0c0c0c0c-1111-2222-3333-444455556666"},
	    /* v2, kind's nested kubelet slice; a guaranteed pod (no QoS slice) */
	    {"0::/kubelet.slice/kubelet-kubepods.slice/"
	     "kubelet-kubepods-pod0d0d0d0d_1111_2222_3333_444455556666.slice/cri-containerd-3.scope\n",
	     "0d0d0d0d-1111-2222-3333-444455556666"},
	    /* v2, cgroupfs: a guaranteed pod directly under kubepods */
	    {"0::/kubepods/pod0e0e0e0e-1111-2222-3333-444455556666/4\n",
	     "0e0e0e0e-1111-2222-3333-444455556666"},
	};
	static const char *const none[] = {
	    "0::/\n",					     /* a container's own cgroupns root */
	    "0::/system.slice/containerd.service\n",	     /* the runtime */
	    "0::/user.slice/user-0.slice/session-1.scope\n", /* a login shell */
	};
	char uid[80];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ck_assert_msg(kubelet_cgroup_pod_uid(c[i].text, strlen(c[i].text), uid,
						     sizeof(uid)) == 0,
			      "%s", c[i].text);
		ck_assert_str_eq(uid, c[i].uid);
	}
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		ck_assert_int_eq(kubelet_cgroup_pod_uid(none[i], strlen(none[i]), uid, sizeof(uid)),
				 -ENOENT);
}
END_TEST

/*
 * The attribution as DESIGN.md words it, each QP on its own, every method asking every
 * record (rdma_qps_attribute looks ids up from where the last one was and remembers the
 * last address and GID index it resolved): the census must name the same owner by the
 * same method for every QP, whatever the order of the QPs and ids, duplicates included.
 */
static bool ref_match(const cJSON *rec, int kind, const void *key)
{
	const cJSON *it;
	const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "podUID"));
	uint8_t ip[16];

	if (kind == 2)
		return uid && uid[0] && !strcasecmp(uid, key);
	it = cJSON_GetObjectItemCaseSensitive(rec, kind == 0 ? "ips" : "gids");
	for (it = it ? it->child : NULL; it; it = it->next) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(it, "index");

		if (kind == 0 && cJSON_IsString(it) && rdma_gid_from_ip(it->valuestring, ip) == 0 &&
		    !memcmp(ip, key, 16))
			return true;
		if (kind == 1 && cJSON_IsNumber(idx) && idx->valueint == *(const int *)key)
			return true;
	}
	return false;
}

static int ref_only(const cJSON *const *o, size_t n, int kind, const void *key)
{
	int found = -1;

	for (size_t i = 0; i < n; i++) {
		const char *u, *f;

		if (!o[i] || !ref_match(o[i], kind, key))
			continue;
		if (found < 0) {
			found = (int)i;
			continue;
		}
		f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o[found], "podUID"));
		u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o[i], "podUID"));
		if (!f || !u || strcasecmp(f, u) != 0)
			return -2;
	}
	return found;
}

/* pids 100..500: pods a, b, the host-network pod, a host process, pod d */
static int rand_uid(void *ctx, const struct rq_qp *q, char *ret, size_t len)
{
	static const char *const uid[] = {"a1a1a1a1-0000-1111-2222-333344445555",
					  "b2b2b2b2-0000-1111-2222-333344445555",
					  "c3c3c3c3-0000-1111-2222-333344445555", NULL,
					  "d4d4d4d4-0000-1111-2222-333344445555"};
	unsigned k = q->pid / 100 - 1;

	(void)ctx;
	if (q->pid % 100 || k >= 5 || !uid[k] || strlen(uid[k]) >= len)
		return -ENOENT;
	memcpy(ret, uid[k], strlen(uid[k]) + 1);
	return 0;
}

static struct rq_qp_owner ref_owner(const struct rq_qp *q, const struct rq_cm_id_list *cm,
				    const cJSON *const *o, size_t n)
{
	static const char *const conn[] = {"RC", "UC", "XRC_INI", "XRC_TGT"};
	const struct rq_cm_id *c = rdma_cm_id_of_qp(cm, q->qpn);
	char uid[80];
	bool connected = false;
	int w;

	if (!strcmp(q->type, "GSI") || !strcmp(q->type, "SMI") ||
	    (!q->pid && q->comm[0] && strcmp(q->comm, "ib_uverbs") != 0))
		return (struct rq_qp_owner){-1, RQ_QP_BY_KERNEL};
	if (c && c->has_src && (w = ref_only(o, n, 0, c->src)) >= 0)
		return (struct rq_qp_owner){w, RQ_QP_BY_CM_ID};
	for (size_t k = 0; k < 4; k++)
		connected = connected || !strcmp(q->type, conn[k]);
	if (connected && q->sgid_index >= 0 && (w = ref_only(o, n, 1, &q->sgid_index)) >= 0)
		return (struct rq_qp_owner){w, RQ_QP_BY_SGID};
	if (q->pid && rand_uid(NULL, q, uid, sizeof(uid)) == 0 && (w = ref_only(o, n, 2, uid)) >= 0)
		return (struct rq_qp_owner){w, RQ_QP_BY_CGROUP};
	return (struct rq_qp_owner){-1, RQ_QP_BY_NONE};
}

static uint32_t rnd(uint32_t *seed, uint32_t m)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % m;
}
#define RND(m) rnd(&seed, (m))

START_TEST(attribute_same_as_each_alone)
{
	/* b and d both claim 10.99.0.13 and GID 5 (a stale record); a and a2 are one pod */
	const char *const recs[] = {
	    "{\"podUID\": \"a1a1a1a1-0000-1111-2222-333344445555\", \"ips\": [\"10.99.0.11/24\", "
	    "\"fd00::11\"], \"gids\": [{\"index\": 2}, {\"index\": 3}]}",
	    "{\"podUID\": \"b2b2b2b2-0000-1111-2222-333344445555\", \"ips\": [\"10.99.0.12\", "
	    "\"10.99.0.13\"], \"gids\": [{\"index\": 4}, {\"index\": 5}]}",
	    "{\"podUID\": \"c3c3c3c3-0000-1111-2222-333344445555\", \"hostNetwork\": true, \"ips\": []}",
	    "{\"podUID\": \"d4d4d4d4-0000-1111-2222-333344445555\", \"ips\": [\"10.99.0.13\"], "
	    "\"gids\": [{\"index\": 5}, {\"index\": 6}]}",
	    "{\"podUID\": \"A1A1A1A1-0000-1111-2222-333344445555\", \"ips\": [\"10.99.1.11\"], "
	    "\"gids\": [{\"index\": 7}, {\"index\": 3}]}",
	};
	static const char *const types[] = {"RC", "RC", "RC", "UC", "UD", "GSI", "XRC_TGT", "DCI",
					    "REG_UMR", "XRC_INI", "SMI"};
	static const char *const comms[] = {"python3", "", "ib_uverbs", "mlx5_ib"};
	static const char *const addrs[] = {"10.99.0.11", "10.99.0.12", "10.99.0.13", "10.99.1.11",
					    "192.168.1.5", "fd00::11"};
	cJSON *rec[5];
	const cJSON *owners[6];
	uint32_t seed = 50;
	size_t checked = 0;

	for (size_t i = 0; i < 5; i++)
		owners[i] = rec[i] = owner(recs[i]);
	owners[5] = NULL; /* a record the census could not use */
	for (int round = 0; round < 400; round++) {
		struct rq_qp_list l = {0};
		struct rq_cm_id_list cm = {0};
		struct rq_qp_owner own[96];
		size_t nq = RND(96), nc = RND(64);
		uint32_t qpn = 1 + RND(4);

		for (size_t i = 0; i < nq; i++) {
			/* mostly ascending, as the kernel lists them; now and then out of order or twice */
			uint32_t r = RND(16), n = r == 0 ? 1 + RND(200) : r == 1 ? qpn : (qpn += 1 + RND(3));

			const char *type = types[RND(11)];
			uint32_t pid = RND(4) ? 100 * RND(6) : 0;
			const char *comm = comms[RND(4)];

			qp(&l, n, type, pid, comm, (int)RND(9) - 1);
		}
		for (size_t i = 0; i < nc; i++) {
			struct rq_cm_id *c = rdma_cm_ids_add(&cm);

			ck_assert_ptr_nonnull(c);
			c->qpn = RND(8) == 0 ? 0 : nq && RND(4) ? l.qp[RND(nq)].qpn : 1 + RND(250);
			c->has_src = RND(6) != 0;
			if (c->has_src)
				ck_assert_int_eq(rdma_gid_from_ip(addrs[RND(6)], c->src), 0);
		}
		rdma_cm_ids_sort(&cm);
		ck_assert_int_eq(rdma_qps_attribute(&l, round % 7 ? &cm : NULL, owners, 6, rand_uid,
						    NULL, own),
				 0);
		for (size_t i = 0; i < l.n; i++) {
			struct rq_qp_owner w = ref_owner(&l.qp[i], round % 7 ? &cm : &(struct rq_cm_id_list){0},
							 owners, 6);

			ck_assert_msg(own[i].owner == w.owner && own[i].by == w.by,
				      "round %d qpn %u (%s pid %u sgid %d): owner %d by %s, want %d by %s",
				      round, l.qp[i].qpn, l.qp[i].type, l.qp[i].pid, l.qp[i].sgid_index,
				      own[i].owner, rdma_qp_by_name(own[i].by), w.owner,
				      rdma_qp_by_name(w.by));
			checked += w.by == RQ_QP_BY_CM_ID;
		}
		rdma_cm_ids_free(&cm);
		rdma_qps_free(&l);
	}
	ck_assert_uint_gt(checked, 1000); /* the cm_id method was asked, not only the others */
	for (size_t i = 0; i < 5; i++)
		cJSON_Delete(rec[i]);
}
END_TEST
#undef RND

Suite *suite_qp_owner(void);
Suite *suite_qp_owner(void)
{
	Suite *s = suite_create("qp_owner");
	TCase *c = tcase_create("cm_id");
	TCase *a = tcase_create("attribute");

	tcase_add_test(c, cm_msg_good);
	tcase_add_test(c, cm_msg_bad);
	tcase_add_test(c, cm_json_sim);
	tcase_add_test(c, cm_json_addrs);
	suite_add_tcase(s, c);
	tcase_add_test(a, attribute_methods);
	tcase_add_test(a, attribute_ambiguous);
	tcase_add_test(a, cgroup_layouts);
	tcase_add_test(a, attribute_same_as_each_alone);
	suite_add_tcase(s, a);
	return s;
}
