/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One netlink request, one answer, on a bare socket: the kernel binds it at
 * the first send (no setsockopt, bind or getsockname as libnl's nl_connect
 * makes), the answer is read into a buffer on the stack (a longer one is
 * asked again with room for it). For requests the kernel answers with one
 * message of its own or an error: a GET by name or index (RTM_GETLINK,
 * RTM_GETNSID), dcbnl's GET and SET; not dumps, not requests that need
 * NLM_F_ACK.
 */
#ifndef RQ_NLPARSE_ASK_H
#define RQ_NLPARSE_ASK_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stddef.h>

/*
 * Send @m on @sk (NLM_F_REQUEST and a sequence number of ours set in it) and
 * read its one answer: the reply message to @parse (its result returned; @len
 * is what is readable from the message on), or the kernel's error (negative
 * errno; -ENODATA for an ACK where a reply was meant).
 */
int rtnl_ask(int sk, struct nl_msg *m, int (*parse)(const struct nlmsghdr *, size_t, void *),
	     void *arg);
/* A request of @type with room for a small payload (512 bytes), or NULL (no memory). */
struct nl_msg *rtnl_msg(int type);

#endif
