// SPDX-License-Identifier: Apache-2.0
/* Generic netlink requests (genl.h). */
#include <errno.h>
#include <netlink/attr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pkg/genl/genl.h"
#include "pkg/nlparse/nlparse.h"

#define GENL_RX_BUF 32768

int genl_open(struct genl_sock *s)
{
	struct sockaddr_nl a = {.nl_family = AF_NETLINK};
	int one = 1;

	s->seq = 1;
	s->rx = NULL;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	/*
	 * Per socket, not a static (or a thread's) buffer: a CNI exec that never asks
	 * ethtool or devlink anything maps none of it (issue 51: it was 32 KiB of TLS in
	 * every process of the production binary, and in each of the agent's threads).
	 */
	s->rx = malloc(GENL_RX_BUF);
	if (!s->rx) {
		close(s->fd);
		s->fd = -1;
		return -ENOMEM;
	}
	/* the extended ACK tells why a request was refused; not needed for the answer */
	(void)setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int r = -errno;

		close(s->fd);
		s->fd = -1;
		free(s->rx);
		s->rx = NULL;
		return r;
	}
	return 0;
}

void genl_close(struct genl_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->rx);
	s->rx = NULL;
}

void genl_req_init(struct genl_req *m, uint16_t family, uint8_t cmd, uint8_t version,
		   uint16_t flags)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);

	memset(m, 0, sizeof(*m));
	h->nlmsg_type = family;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	g->cmd = cmd;
	g->version = version;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

void genl_put(struct genl_req *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);
	size_t need = NLA_ALIGN(NLA_HDRLEN + len);

	if (m->len + need > sizeof(m->buf)) {
		m->overflow = -EMSGSIZE;
		return;
	}
	memset(a, 0, need);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->len += need;
}

void genl_put_str(struct genl_req *m, uint16_t type, const char *s)
{
	genl_put(m, type, s, strlen(s) + 1);
}

void genl_put_u32(struct genl_req *m, uint16_t type, uint32_t v)
{
	genl_put(m, type, &v, sizeof(v));
}

void genl_nest_start(struct genl_req *m, uint16_t type)
{
	if (m->depth == (int)(sizeof(m->nest) / sizeof(m->nest[0]))) {
		m->overflow = -EMSGSIZE;
		return;
	}
	m->nest[m->depth++] = m->len;
	genl_put(m, (uint16_t)(type | NLA_F_NESTED), NULL, 0);
}

void genl_nest_end(struct genl_req *m)
{
	struct nlattr *a;

	if (m->depth == 0 || m->overflow)
		return;
	a = (struct nlattr *)(m->buf + m->nest[--m->depth]);
	a->nla_len = (uint16_t)(m->len - m->nest[m->depth]);
}

static int genl_recv(struct genl_sock *s, uint32_t seq, int (*cb)(const struct nlmsghdr *, void *),
		     void *arg)
{
	char *rx = s->rx;
	int r = 0;

	for (;;) {
		ssize_t n = recv(s->fd, rx, GENL_RX_BUF, 0);
		size_t left;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)rx; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return r;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EBADMSG;
				/* an ACK (error 0) ends a request that was not a dump */
				return e->error ? e->error : r;
			}
			if (r == 0)
				r = cb(h, arg);
			if (!(h->nlmsg_flags & NLM_F_MULTI))
				return r;
		}
	}
}

int genl_talk(struct genl_sock *s, struct genl_req *m,
	      int (*cb)(const struct nlmsghdr *h, void *arg), void *arg)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};

	if (m->overflow)
		return m->overflow;
	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++s->seq;
	h->nlmsg_flags |= NLM_F_ACK;
	if (sendto(s->fd, m->buf, m->len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -errno;
	return genl_recv(s, h->nlmsg_seq, cb, arg);
}

static int family_cb(const struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int r = nlparse_msg(h, h->nlmsg_len, GENL_HDRLEN, tb, CTRL_ATTR_MAX, NULL);

	if (r < 0)
		return r;
	if (!tb[CTRL_ATTR_FAMILY_ID] || nla_len(tb[CTRL_ATTR_FAMILY_ID]) < 2)
		return -EBADMSG;
	*(uint16_t *)arg = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

int genl_family(struct genl_sock *s, const char *name, uint16_t *ret_id)
{
	struct genl_req m;
	uint16_t id = 0;
	int r;

	genl_req_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	genl_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	r = genl_talk(s, &m, family_cb, &id);
	if (r == 0 && id == 0)
		r = -ENOENT;
	if (r == 0)
		*ret_id = id;
	return r;
}
