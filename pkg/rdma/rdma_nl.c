// SPDX-License-Identifier: Apache-2.0
/* RDMA netlink sockets and dumps for pkg/rdma (see rdma_nl.h). */
#include "pkg/rdma/rdma_nl.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "pkg/nlparse/nlparse.h"

const struct nla_policy rdma_nl_dev_policy[RDMA_NLDEV_ATTR_NDEV_INDEX + 1] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_DEV_NAME] = {.type = NLA_STRING},
    [RDMA_NLDEV_ATTR_PORT_INDEX] = {.type = NLA_U32},
    [RDMA_NLDEV_ATTR_NDEV_INDEX] = {.type = NLA_U32},
};

struct dump_state {
	rdma_nl_msg_fn fn;
	void *arg;
	int err;   /* the first error @fn returned */
	int kerr;  /* the kernel's error for the dump (negative), 0 */
	bool done; /* NLMSG_DONE or an error message seen */
};

static int dump_valid(struct nl_msg *msg, void *arg)
{
	struct dump_state *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	int r;

	if (d->err == 0) {
		r = d->fn(h, h->nlmsg_len, d->arg);
		if (r < 0)
			d->err = r;
	}
	return NL_OK;
}

static int dump_finish(struct nl_msg *msg, void *arg)
{
	struct dump_state *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	int e;

	/*
	 * netlink_dump() reports what the dump callback returned in
	 * NLMSG_DONE's payload: a driver without a raw QP dump answers
	 * -EOPNOTSUPP there, not in an NLMSG_ERROR.
	 */
	if (nlmsg_datalen(h) >= (int)sizeof(e)) {
		memcpy(&e, nlmsg_data(h), sizeof(e));
		if (e < 0)
			d->kerr = e;
	}
	d->done = true;
	return NL_STOP;
}

static int dump_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct dump_state *d = arg;

	d->kerr = err->error < 0 ? err->error : 0;
	d->done = true;
	return NL_STOP;
}

/* RDMA_NLDEV_ATTR_DRIVER_DETAILS: uapi since Linux 6.10; Debian 12's linux-libc-dev (6.1) lacks it
 */
#define RQ_NLDEV_ATTR_DRIVER_DETAILS 97

static int dump(struct nl_sock *sk, uint16_t cmd, int dev_index, bool details, rdma_nl_msg_fn fn,
		void *arg)
{
	struct nl_msg *m = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), NLM_F_DUMP);
	struct dump_state d = {.fn = fn, .arg = arg};
	int r;

	if (!m)
		return -ENOMEM;
	/* the kernel's port and resource dumps want the device they are about */
	if (dev_index >= 0 && nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, (uint32_t)dev_index) < 0) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	if (details && nla_put_u8(m, RQ_NLDEV_ATTR_DRIVER_DETAILS, 1) < 0) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	r = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (r < 0)
		return nlparse_errno(r);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, dump_valid, &d);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, dump_finish, &d);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, dump_error, &d);
	while (!d.done) {
		r = nl_recvmsgs_report(sk, nl_socket_get_cb(sk));
		if (r < 0 && !d.done)
			return nlparse_errno(r);
		/* nothing within SO_RCVTIMEO: a dump that never finishes */
		if (r == 0 && !d.done)
			return -ETIMEDOUT;
	}
	return d.kerr < 0 ? d.kerr : d.err;
}

int rdma_nl_dump(struct nl_sock *sk, uint16_t cmd, int dev_index, rdma_nl_msg_fn fn, void *arg)
{
	return dump(sk, cmd, dev_index, false, fn, arg);
}

int rdma_nl_dump_details(struct nl_sock *sk, uint16_t cmd, int dev_index, rdma_nl_msg_fn fn,
			 void *arg)
{
	return dump(sk, cmd, dev_index, true, fn, arg);
}

int rdma_nl_open(struct nl_sock **ret)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	struct timeval tmo = {.tv_sec = 5};
	struct nl_sock *sk;
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	/* a CNI ADD must not hang on a kernel that never finishes a dump: bound every recv */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	sk = nl_socket_alloc();
	if (!sk) {
		close(fd);
		return -ENOMEM;
	}
	r = nl_socket_set_fd(sk, NETLINK_RDMA, fd);
	/* one recvmsg per datagram (no MSG_PEEK round), into a buffer no dump skb outgrows */
	if (r == 0) {
		nl_socket_disable_msg_peek(sk);
		r = nl_socket_set_msg_buf_size(sk, 32768);
	}
	if (r < 0) {
		bool owned = nl_socket_get_fd(sk) == fd;

		nl_socket_free(sk); /* closes fd once it is the socket's */
		if (!owned)
			close(fd);
		return nlparse_errno(r);
	}
	*ret = sk;
	return 0;
}

struct dev_match {
	const char *name;
	uint32_t idx;
	bool found;
};

static int dev_match(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct dev_match *d = arg;
	struct nlattr *tb[RDMA_NLDEV_ATTR_NDEV_INDEX + 1];

	/* a device whose message is broken is not the one asked for */
	if (d->found ||
	    nlparse_msg(h, len, 0, tb, RDMA_NLDEV_ATTR_NDEV_INDEX, rdma_nl_dev_policy) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME] ||
	    strcmp(nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]), d->name) != 0)
		return 0;
	d->idx = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	d->found = true;
	return 0;
}

int rdma_nl_dev_index(struct nl_sock *sk, const char *name, uint32_t *ret)
{
	struct dev_match d = {.name = name};
	int r;

	if (!name || !name[0])
		return -EINVAL;
	r = rdma_nl_dump(sk, RDMA_NLDEV_CMD_GET, -1, dev_match, &d);
	if (r < 0)
		return r;
	if (!d.found)
		return -ENODEV;
	*ret = d.idx;
	return 0;
}
