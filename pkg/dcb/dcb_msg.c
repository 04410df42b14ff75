// SPDX-License-Identifier: Apache-2.0
#include "pkg/dcb/dcb_msg.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <string.h>
#include <sys/socket.h>

static struct nl_msg *msg_new(int type, int cmd, const char *ifname)
{
	struct dcbmsg d = { .dcb_family = AF_UNSPEC, .cmd = (__u8)cmd };
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);

	if (!m)
		return NULL;
	if (nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, DCB_ATTR_IFNAME, ifname) < 0) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

struct nl_msg *dcb_msg_ieee_get(const char *ifname)
{
	return msg_new(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
}

/* nla_nest_start without NLA_F_NESTED: what dcbnl and iproute2's dcb use. */
static struct nlattr *nest_start(struct nl_msg *m, int type)
{
	struct nlattr *start = (struct nlattr *)((char *)nlmsg_hdr(m) + nlmsg_hdr(m)->nlmsg_len);

	if (nla_put(m, type, 0, NULL) < 0)
		return NULL;
	return start;
}

static void nest_end(struct nl_msg *m, struct nlattr *start)
{
	start->nla_len = (__u16)((char *)nlmsg_hdr(m) + nlmsg_hdr(m)->nlmsg_len - (char *)start);
}

static struct nl_msg *ieee_set_one(const char *ifname, int attr, const void *data, size_t len)
{
	struct nl_msg *m = msg_new(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	struct nlattr *nest;

	if (!m)
		return NULL;
	nest = nest_start(m, DCB_ATTR_IEEE);
	if (!nest || nla_put(m, attr, (int)len, data) < 0) {
		nlmsg_free(m);
		return NULL;
	}
	nest_end(m, nest);
	return m;
}

struct nl_msg *dcb_msg_set_pfc(const char *ifname, const struct dcb_port_state *cur,
			       uint8_t pfc_en)
{
	struct ieee_pfc pfc = cur->raw_pfc;

	pfc.pfc_en = pfc_en;
	return ieee_set_one(ifname, DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));
}

struct nl_msg *dcb_msg_set_ets(const char *ifname, const struct dcb_port_state *cur,
			       const struct rq_ets *ets)
{
	struct ieee_ets e = cur->raw_ets;

	memcpy(e.tc_tx_bw, ets->tc_bw, 8);
	memcpy(e.tc_tsa, ets->tsa, 8);
	memcpy(e.prio_tc, ets->prio_tc, 8);
	return ieee_set_one(ifname, DCB_ATTR_IEEE_ETS, &e, sizeof(e));
}

struct nl_msg *dcb_msg_app(const char *ifname, int cmd, const struct dcb_app_entry *apps,
			   size_t n)
{
	struct nl_msg *m = msg_new(RTM_SETDCB, cmd, ifname);
	struct nlattr *ieee, *table;

	if (!m)
		return NULL;
	ieee = nest_start(m, DCB_ATTR_IEEE);
	table = ieee ? nest_start(m, DCB_ATTR_IEEE_APP_TABLE) : NULL;
	if (!table)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		struct dcb_app a = { .selector = apps[i].selector,
				     .priority = apps[i].priority,
				     .protocol = apps[i].protocol };

		if (nla_put(m, DCB_ATTR_IEEE_APP, sizeof(a), &a) < 0)
			goto fail;
	}
	nest_end(m, table);
	nest_end(m, ieee);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

struct nl_msg *dcb_msg_trust(const char *ifname, const uint8_t *sel, size_t n)
{
	struct nl_msg *m = msg_new(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
	struct nlattr *ieee, *table;

	if (!m)
		return NULL;
	ieee = nest_start(m, DCB_ATTR_IEEE);
	table = ieee ? nest_start(m, RQ_DCB_ATTR_APP_TRUST_TABLE) : NULL;
	if (!table)
		goto fail;
	/* IEEE selectors travel as DCB_ATTR_IEEE_APP, the DCB-only PCP one as DCB_ATTR_DCB_APP */
	for (size_t i = 0; i < n; i++)
		if (nla_put_u8(m, sel[i] == RQ_DCB_APP_SEL_PCP ? RQ_DCB_ATTR_DCB_APP
							       : DCB_ATTR_IEEE_APP,
			       sel[i]) < 0)
			goto fail;
	nest_end(m, table);
	nest_end(m, ieee);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

/* Walk attributes in [p, p+len): calls @fn for each; -EBADMSG on a malformed one. */
static int attrs_walk(const char *p, size_t len, int (*fn)(int type, const char *data, size_t n,
							   void *arg),
		      void *arg)
{
	size_t off = 0;

	while (off + NLA_HDRLEN <= len) {
		struct nlattr a;
		int r;

		memcpy(&a, p + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len - off)
			return -EBADMSG;
		r = fn(a.nla_type & NLA_TYPE_MASK, p + off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN,
		       arg);
		if (r < 0)
			return r;
		off += NLA_ALIGN(a.nla_len);
	}
	return 0;
}

static int app_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;
	struct dcb_app a;

	if (type != DCB_ATTR_IEEE_APP)
		return 0;
	if (n < sizeof(a))
		return -EBADMSG;
	memcpy(&a, data, sizeof(a));
	if (st->n_app < RQ_DCB_APP_MAX)
		st->app[st->n_app++] = (struct dcb_app_entry){ a.selector, a.protocol, a.priority };
	return 0;
}

static int trust_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;

	if (type != DCB_ATTR_IEEE_APP && type != RQ_DCB_ATTR_DCB_APP)
		return 0;
	if (n < 1)
		return -EBADMSG;
	if (st->n_trust < RQ_DCB_TRUST_MAX)
		st->trust[st->n_trust++] = (uint8_t)data[0];
	return 0;
}

static int ieee_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;

	switch (type) {
	case DCB_ATTR_IEEE_PFC:
		if (n < sizeof(st->raw_pfc))
			return -EBADMSG;
		memcpy(&st->raw_pfc, data, sizeof(st->raw_pfc));
		st->has_pfc = true;
		st->pfc_en = st->raw_pfc.pfc_en;
		st->pfc_cap = st->raw_pfc.pfc_cap;
		return 0;
	case DCB_ATTR_IEEE_ETS:
		if (n < sizeof(st->raw_ets))
			return -EBADMSG;
		memcpy(&st->raw_ets, data, sizeof(st->raw_ets));
		st->has_ets = true;
		st->ets_willing = st->raw_ets.willing;
		st->ets_cap = st->raw_ets.ets_cap;
		memcpy(st->tc_tx_bw, st->raw_ets.tc_tx_bw, 8);
		memcpy(st->tc_tsa, st->raw_ets.tc_tsa, 8);
		memcpy(st->prio_tc, st->raw_ets.prio_tc, 8);
		return 0;
	case DCB_ATTR_IEEE_APP_TABLE:
		st->n_app = 0; /* a repeated table replaces the earlier one */
		return attrs_walk(data, n, app_cb, st);
	case RQ_DCB_ATTR_APP_TRUST_TABLE:
		st->has_trust = true;
		st->n_trust = 0;
		return attrs_walk(data, n, trust_cb, st);
	default:
		return 0;
	}
}

static int top_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;

	if (type == DCB_ATTR_IEEE)
		return attrs_walk(data, n, ieee_cb, st);
	if (type == DCB_ATTR_DCBX) {
		if (n < 1)
			return -EBADMSG;
		st->has_dcbx = true;
		st->dcbx = (uint8_t)data[0];
	}
	return 0;
}

static int payload(const void *msg, size_t len, const char **ret, size_t *ret_len)
{
	struct nlmsghdr h;
	size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg));

	if (len < NLMSG_HDRLEN)
		return -EBADMSG;
	memcpy(&h, msg, sizeof(h));
	if (h.nlmsg_len < hdr || h.nlmsg_len > len)
		return -EBADMSG;
	*ret = (const char *)msg + hdr;
	*ret_len = h.nlmsg_len - hdr;
	return 0;
}

int dcb_msg_parse_get(const void *msg, size_t len, struct dcb_port_state *ret)
{
	struct dcb_port_state *st = ret;
	const char *p;
	size_t n;
	int r = payload(msg, len, &p, &n);

	if (r < 0)
		return r;
	memset(st, 0, sizeof(*st));
	return attrs_walk(p, n, top_cb, st);
}

static int status_cb(int type, const char *data, size_t n, void *arg)
{
	int *status = arg;

	if (type != DCB_ATTR_IEEE && type != DCB_ATTR_DCBX)
		return 0;
	if (n < 1)
		return -EBADMSG;
	*status = (int8_t)data[0];
	return 0;
}

int dcb_msg_parse_status(const void *msg, size_t len)
{
	const char *p;
	size_t n;
	int status = 0, r = payload(msg, len, &p, &n);

	if (r < 0)
		return r;
	r = attrs_walk(p, n, status_cb, &status);
	return r < 0 ? r : status;
}
