// SPDX-License-Identifier: Apache-2.0
/* One netlink request, one answer, on a bare socket (pkg/nlparse/ask.h). */
#include "pkg/nlparse/ask.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

/*
 * A reply is read into a stack buffer sized for the common one (a link's
 * RTM_NEWLINK without VF info is 1-3 KiB): 32 KiB there put the receive 7
 * stack pages below the caller, a page fault each ADD (issue 51). A longer
 * reply (a link with many altnames or a large IFLA_LINKINFO) is cut by the
 * kernel, and MSG_TRUNC gives its length: the request, a GET, is asked again
 * with a heap buffer of that size.
 */
#define RTNL_REPLY_STACK 8192
#define RTNL_REPLY_MAX	 (1024 * 1024)

static int rtnl_send(int sk, struct nlmsghdr *req)
{
	static unsigned seq; /* the agent's threads ask too */
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	req->nlmsg_flags |= NLM_F_REQUEST;
	req->nlmsg_seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	if (sendto(sk, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

int rtnl_ask(int sk, struct nl_msg *m, int (*parse)(const struct nlmsghdr *, size_t, void *),
	     void *arg)
{
	struct nlmsghdr *req = nlmsg_hdr(m);
	char stack[RTNL_REPLY_STACK] __attribute__((aligned(NLMSG_ALIGNTO)));
	char *buf = stack, *heap = NULL;
	size_t cap = sizeof(stack);
	int r = rtnl_send(sk, req);

	while (r == 0) {
		ssize_t n = recv(sk, buf, cap, MSG_TRUNC);
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if ((size_t)n > cap) {
			/* cut: room for it, and the same request again (at most a few times) */
			char *more = (size_t)n <= RTNL_REPLY_MAX && cap < RTNL_REPLY_MAX
					 ? realloc(heap, (size_t)n + 4096)
					 : NULL;

			if (!more) {
				r = (size_t)n > RTNL_REPLY_MAX ? -EMSGSIZE : -ENOMEM;
				break;
			}
			buf = heap = more;
			cap = (size_t)n + 4096;
			r = rtnl_send(sk, req);
			continue;
		}
		left = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					r = -EBADMSG;
				else
					r = e->error ? e->error : -ENODATA;
			} else
				r = parse(h, left, arg);
			free(heap);
			return r;
		}
	}
	free(heap);
	return r;
}

/*
 * A request message of @type with room for a small payload: libnl's
 * nlmsg_alloc_simple zeroes a page-sized buffer (a heap page touched for
 * the ~40 bytes a GETLINK has).
 */
struct nl_msg *rtnl_msg(int type)
{
	struct nl_msg *m = nlmsg_alloc_size(512);

	if (m && !nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, 0)) {
		nlmsg_free(m);
		m = NULL;
	}
	return m;
}
