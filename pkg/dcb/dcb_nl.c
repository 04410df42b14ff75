// SPDX-License-Identifier: Apache-2.0
/*
 * The kernel backend: dcbnl over NETLINK_ROUTE, its messages built with
 * libnl-3's message API (pkg/dcb/dcb_msg.c; libnl-route has no DCB objects)
 * and exchanged over a bare socket (pkg/nlparse/ask.h: socket(2) alone, the
 * kernel binds it at the first send; libnl's nl_connect added two setsockopt,
 * a bind and a getsockname, and its peeked receive a second recvmsg, to every
 * ADD's DCB read, issue 51). The socket is opened by dcb_nl_new in the
 * caller's netns: VFs have no dcbnl, all traffic goes to the PF in the host
 * netns. Callers see -errno: the kernel's own errno from its error message
 * (-EOPNOTSUPP: the netdev has no dcbnl ops, -ENODEV: no such netdev), and
 * for a SET the status byte of the dcbnl reply, which carries the driver's
 * error while netlink itself reports success.
 *
 * No NLM_F_ACK: dcbnl answers every request with a reply message of its own
 * (or an error message), so one request is one message back and nothing is
 * left queued for the next request.
 */
#include <errno.h>
#include <netlink/msg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/dcb/dcb_msg.h"
#include "pkg/nlparse/ask.h"

struct nlctx {
	int fd;
};

static int get_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	return dcb_msg_parse_get(h, len, arg);
}

static int set_parse(const struct nlmsghdr *h, size_t len, void *arg)
{
	(void)arg;
	return dcb_msg_parse_status(h, len);
}

/* @msg sent and freed; the reply to @parse, or the kernel's error */
static int transact(struct nlctx *c, struct nl_msg *msg,
		    int (*parse)(const struct nlmsghdr *, size_t, void *), void *arg)
{
	int e;

	if (!msg)
		return -ENOMEM;
	e = rtnl_ask(c->fd, msg, parse, arg);
	nlmsg_free(msg);
	return e;
}

static int nl_get(void *ctx, const char *ifname, struct dcb_port_state *ret)
{
	struct dcb_port_state *st;
	int e;

	if (!dcb_msg_ifname_ok(ifname))
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	e = transact(ctx, dcb_msg_ieee_get(ifname), get_parse, st);
	if (e == 0)
		*ret = *st;
	free(st);
	return e;
}

static int nl_set(void *ctx, const char *ifname, struct nl_msg *msg)
{
	if (!dcb_msg_ifname_ok(ifname)) {
		nlmsg_free(msg);
		return -EINVAL;
	}
	return transact(ctx, msg, set_parse, NULL);
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
	if (c->fd >= 0)
		close(c->fd);
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
	c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (c->fd < 0) {
		e = -errno;
		free(c);
		return e;
	}
	*ret_ops = &nl_ops;
	*ret_ctx = c;
	return 0;
}
