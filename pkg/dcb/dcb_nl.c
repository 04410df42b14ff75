// SPDX-License-Identifier: Apache-2.0
/*
 * The kernel backend: dcbnl over NETLINK_ROUTE with libnl-3 core messages
 * (libnl-route has no DCB objects). The socket is opened by dcb_nl_new in
 * the caller's netns: VFs have no dcbnl, all traffic goes to the PF in the
 * host netns. libnl's NLE_* codes stay in this file (nlparse_errno turns
 * them into -errno); callers see -errno:
 * the kernel's own errno from its error message (-EOPNOTSUPP: the netdev has
 * no dcbnl ops, -ENODEV: no such netdev), and for a SET the status byte of
 * the dcbnl reply, which carries the driver's error while netlink itself
 * reports success.
 *
 * No NLM_F_ACK: dcbnl answers every request with a reply message of its own
 * (or an error message), so one request is one message back and nothing is
 * left queued for the next request.
 */
#include <errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/dcb/dcb_msg.h"
#include "pkg/nlparse/nlparse.h"

struct nlctx {
	struct nl_sock *sk;
};

struct reply {
	struct dcb_port_state *state; /* GET */
	int status;		      /* SET: status byte, or the netlink error */
	int parse;		      /* decode error */
	bool got;
};

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);

	r->got = true;
	if (r->state)
		r->parse = dcb_msg_parse_get(h, h->nlmsg_len, r->state);
	else
		r->status = dcb_msg_parse_status(h, h->nlmsg_len);
	return NL_STOP;
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct reply *r = arg;

	r->got = true;
	r->status = err->error; /* the kernel's own errno, negative */
	return NL_STOP;
}

static int transact(struct nlctx *c, struct nl_msg *msg, struct reply *r)
{
	struct nl_cb *cb;
	int e;

	if (!msg)
		return -ENOMEM;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, r);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, r);
	e = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	while (e >= 0 && !r->got)
		e = nl_recvmsgs(c->sk, cb);
	nl_cb_put(cb);
	if (!r->got)
		return e < 0 ? nlparse_errno(e) : -EIO;
	if (r->parse < 0)
		return r->parse;
	return r->status;
}

static int nl_get(void *ctx, const char *ifname, struct dcb_port_state *ret)
{
	struct dcb_port_state *st;
	struct reply r = {0};
	int e;

	if (!dcb_msg_ifname_ok(ifname))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	r.state = st;
	e = transact(ctx, dcb_msg_ieee_get(ifname), &r);
	if (e == 0)
		*ret = *st;
	free(st);
	return e;
}

static int nl_set(void *ctx, const char *ifname, struct nl_msg *msg)
{
	struct reply r = {0};

	if (!dcb_msg_ifname_ok(ifname)) {
		nlmsg_free(msg);
		return -EINVAL;
	}
	return transact(ctx, msg, &r);
}

static int nl_set_pfc(void *ctx, const char *ifname, const struct dcb_port_state *cur,
		      uint8_t pfc_en)
{
	return nl_set(ctx, ifname, dcb_msg_set_pfc(ifname, cur, pfc_en));
}

static int nl_set_ets(void *ctx, const char *ifname, const struct dcb_port_state *cur,
		      const struct rq_ets *ets)
{
	return nl_set(ctx, ifname, dcb_msg_set_ets(ifname, cur, ets));
}

static int nl_app_add(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n)
{
	return nl_set(ctx, ifname, dcb_msg_app(ifname, DCB_CMD_IEEE_SET, apps, n));
}

static int nl_app_del(void *ctx, const char *ifname, const struct dcb_app_entry *apps, size_t n)
{
	return nl_set(ctx, ifname, dcb_msg_app(ifname, DCB_CMD_IEEE_DEL, apps, n));
}

static int nl_set_trust(void *ctx, const char *ifname, const uint8_t *sel, size_t n)
{
	return nl_set(ctx, ifname, dcb_msg_trust(ifname, sel, n));
}

static void nl_free(void *ctx)
{
	struct nlctx *c = ctx;

	if (!c)
		return;
	nl_socket_free(c->sk);
	free(c);
}

static const struct dcb_ops nl_ops = {
    .name = "netlink",
    .get = nl_get,
    .set_pfc = nl_set_pfc,
    .set_ets = nl_set_ets,
    .app_add = nl_app_add,
    .app_del = nl_app_del,
    .set_trust = nl_set_trust,
    .free = nl_free,
};

int dcb_nl_new(const struct dcb_ops **ret_ops, void **ret_ctx)
{
	struct nlctx *c = calloc(1, sizeof(*c));
	int e;

	if (!c)
		return -ENOMEM;
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		free(c);
		return -ENOMEM;
	}
	/* dcbnl answers every request with a message of its own; no ACK needed */
	nl_socket_disable_auto_ack(c->sk);
	/* a GET reply with a full APP table can exceed a page: let libnl size the read */
	nl_socket_enable_msg_peek(c->sk);
	e = nl_connect(c->sk, NETLINK_ROUTE);
	if (e < 0) {
		nl_free(c);
		return nlparse_errno(e);
	}
	*ret_ops = &nl_ops;
	*ret_ctx = c;
	return 0;
}
