// SPDX-License-Identifier: Apache-2.0
/*
 * dcbnl messages. The decoder never trusts a length from the buffer: every
 * attribute header is checked against what is left of its parent, and every
 * payload against the size its type needs, before a byte of it is read.
 */
#include "pkg/dcb/dcb_msg.h"
#include "pkg/nlparse/nlparse.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

bool dcb_msg_ifname_ok(const char *ifname)
{
	size_t n = ifname ? strnlen(ifname, IFNAMSIZ) : 0;

	return n > 0 && n < IFNAMSIZ;
}

static struct nl_msg *msg_new(int type, int cmd, const char *ifname)
{
	struct dcbmsg d = {.dcb_family = AF_UNSPEC, .cmd = (__u8)cmd};
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

/*
 * Our own nest: NLA_F_NESTED set, as iproute2's dcb (libmnl) sends it, so the
 * two produce the same bytes; dcbnl's parser masks the flag either way. The
 * nl_msg buffer never moves (libnl does not reallocate), so @start stays valid.
 */
static struct nlattr *nest_start(struct nl_msg *m, int type)
{
	struct nlattr *start = (struct nlattr *)((char *)nlmsg_hdr(m) + nlmsg_hdr(m)->nlmsg_len);

	if (nla_put(m, NLA_F_NESTED | type, 0, NULL) < 0)
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

struct nl_msg *dcb_msg_set_pfc(const char *ifname, const struct dcb_port_state *cur, uint8_t pfc_en)
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

/* dcbnl wants IEEE selectors as DCB_ATTR_IEEE_APP and the DCB-only PCP one as DCB_ATTR_DCB_APP. */
static int app_attr_type(uint8_t selector)
{
	return selector == RQ_DCB_APP_SEL_PCP ? RQ_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP;
}

struct nl_msg *dcb_msg_app(const char *ifname, int cmd, const struct dcb_app_entry *apps, size_t n)
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
		struct dcb_app a = {.selector = apps[i].selector,
				    .priority = apps[i].priority,
				    .protocol = apps[i].protocol};

		if (nla_put(m, app_attr_type(a.selector), sizeof(a), &a) < 0)
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
	for (size_t i = 0; i < n; i++)
		if (nla_put_u8(m, app_attr_type(sel[i]), sel[i]) < 0)
			goto fail;
	nest_end(m, table);
	nest_end(m, ieee);
	return m;
fail:
	nlmsg_free(m);
	return NULL;
}

struct nl_msg *dcb_msg_sdcbx(const char *ifname, uint8_t mode)
{
	struct nl_msg *m = msg_new(RTM_SETDCB, DCB_CMD_SDCBX, ifname);

	if (m && nla_put_u8(m, DCB_ATTR_DCBX, mode) < 0) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

typedef int (*attr_fn)(int type, const char *data, size_t n, void *arg);

/* Walk the attributes in [p, p+len); -EBADMSG on a header that does not fit. */
static int attrs_walk(const char *p, size_t len, attr_fn fn, void *arg)
{
	size_t off = 0;

	while (len - off >= NLA_HDRLEN) {
		struct nlattr a;
		size_t step;
		int r;

		memcpy(&a, p + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len - off)
			return -EBADMSG;
		r = fn(a.nla_type & NLA_TYPE_MASK, p + off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN,
		       arg);
		if (r < 0)
			return r;
		/* the last attribute may lack its padding */
		step = (size_t)NLA_ALIGN(a.nla_len);
		off += step < len - off ? step : len - off;
	}
	return 0;
}

static int app_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;
	struct dcb_app a;

	if (type != DCB_ATTR_IEEE_APP && type != RQ_DCB_ATTR_DCB_APP)
		return 0;
	if (n < sizeof(a))
		return -EBADMSG;
	if (st->n_app >= RQ_DCB_APP_MAX)
		return -E2BIG; /* a silently cut table would make the diff re-add entries */
	memcpy(&a, data, sizeof(a));
	st->app[st->n_app++] = (struct dcb_app_entry){a.selector, a.protocol, a.priority};
	return 0;
}

static int trust_cb(int type, const char *data, size_t n, void *arg)
{
	struct dcb_port_state *st = arg;

	if (type != DCB_ATTR_IEEE_APP && type != RQ_DCB_ATTR_DCB_APP)
		return 0;
	if (n < 1)
		return -EBADMSG;
	if (st->n_trust >= RQ_DCB_TRUST_MAX)
		return -E2BIG;
	st->trust[st->n_trust++] = (uint8_t)data[0];
	return 0;
}

static void ets_from_raw(struct dcb_port_state *st)
{
	st->has_ets = true;
	st->ets_willing = st->raw_ets.willing;
	st->ets_cap = st->raw_ets.ets_cap;
	memcpy(st->tc_tx_bw, st->raw_ets.tc_tx_bw, 8);
	memcpy(st->tc_tsa, st->raw_ets.tc_tsa, 8);
	memcpy(st->prio_tc, st->raw_ets.prio_tc, 8);
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
		ets_from_raw(st);
		return 0;
	case DCB_ATTR_IEEE_APP_TABLE:
		st->n_app = 0;
		return attrs_walk(data, n, app_cb, st);
	case RQ_DCB_ATTR_APP_TRUST_TABLE:
		/* only drivers with dcbnl_getapptrust (kernel >= 6.2) send it */
		st->has_trust = true;
		st->n_trust = 0;
		return attrs_walk(data, n, trust_cb, st);
	case DCB_ATTR_DCB_BUFFER: {
		struct dcbnl_buffer b;

		if (n < sizeof(b))
			return -EBADMSG;
		memcpy(&b, data, sizeof(b));
		st->has_buffer = true;
		for (int i = 0; i < 8; i++) {
			/* a buffer index is 0-7: anything else is not a buffer we can name */
			st->prio2buffer[i] = b.prio2buffer[i] < 8 ? b.prio2buffer[i] : 0;
			st->buffer_size[i] = b.buffer_size[i];
		}
		st->buffer_total = b.total_size;
		return 0;
	}
	default:
		return 0; /* peer tables, maxrate, rewrite: not ours */
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

/* The attributes after nlmsghdr + dcbmsg, and the dcbmsg's cmd. */
static int payload(const void *msg, size_t len, const char **ret, size_t *ret_len, int *ret_cmd)
{
	size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg));
	struct nlmsghdr h;
	struct dcbmsg d;

	if (!msg || len < hdr)
		return -EBADMSG;
	memcpy(&h, msg, sizeof(h));
	if (h.nlmsg_len < hdr || h.nlmsg_len > len)
		return -EBADMSG;
	memcpy(&d, (const char *)msg + NLMSG_HDRLEN, sizeof(d));
	*ret = (const char *)msg + hdr;
	*ret_len = h.nlmsg_len - hdr;
	*ret_cmd = d.cmd;
	return 0;
}

int dcb_msg_parse_get(const void *msg, size_t len, struct dcb_port_state *ret)
{
	struct dcb_port_state st;
	const char *p;
	size_t n;
	int cmd, r = payload(msg, len, &p, &n, &cmd);

	if (r < 0)
		return r;
	if (cmd != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	memset(&st, 0, sizeof(st));
	r = attrs_walk(p, n, top_cb, &st);
	if (r < 0)
		return r;
	*ret = st;
	return 0;
}

struct status {
	int attr;
	bool found;
	int value;
};

static int status_cb(int type, const char *data, size_t n, void *arg)
{
	struct status *s = arg;

	if (type != s->attr)
		return 0;
	if (n < 1)
		return -EBADMSG;
	s->found = true;
	/* the kernel stores a negative errno in this u8: read it back as a signed byte */
	s->value = (uint8_t)data[0] > 127 ? (int)(uint8_t)data[0] - 256 : (int)(uint8_t)data[0];
	return 0;
}

int dcb_msg_parse_status(const void *msg, size_t len)
{
	struct status s = {0};
	const char *p;
	size_t n;
	int cmd, r = payload(msg, len, &p, &n, &cmd);

	if (r < 0)
		return r;
	if (cmd == DCB_CMD_IEEE_SET || cmd == DCB_CMD_IEEE_DEL)
		s.attr = DCB_ATTR_IEEE;
	else if (cmd == DCB_CMD_SDCBX)
		s.attr = DCB_ATTR_DCBX;
	else
		return -EBADMSG;
	r = attrs_walk(p, n, status_cb, &s);
	if (r < 0)
		return r;
	if (!s.found)
		return -EBADMSG;
	return s.value > 0 ? -EIO : s.value;
}

int dcb_msg_parse_ifname(const void *msg, size_t len, char *buf, size_t buflen)
{
	static const struct nla_policy pol[DCB_ATTR_IFNAME + 1] = {
	    [DCB_ATTR_IFNAME] = {.type = NLA_STRING, .maxlen = IFNAMSIZ},
	};
	struct nlattr *tb[DCB_ATTR_IFNAME + 1];
	int r = nlparse_msg(msg, len, sizeof(struct dcbmsg), tb, DCB_ATTR_IFNAME, pol);

	if (r < 0)
		return r;
	if (!tb[DCB_ATTR_IFNAME] || !nla_get_string(tb[DCB_ATTR_IFNAME])[0])
		return 0;
	if (strlen(nla_get_string(tb[DCB_ATTR_IFNAME])) >= buflen)
		return -ENAMETOOLONG;
	(void)snprintf(buf, buflen, "%s", nla_get_string(tb[DCB_ATTR_IFNAME]));
	return 1;
}
