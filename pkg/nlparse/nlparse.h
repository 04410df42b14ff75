/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Netlink messages through libnl's attribute API: one message checked
 * against the buffer it arrived in, its attributes indexed and validated by
 * a policy (nlmsg_parse), libnl's NLE_* codes turned into -errno so that
 * they never leave the file that called libnl.
 */
#ifndef RQ_NLPARSE_H
#define RQ_NLPARSE_H

#include <stddef.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

/*
 * The message at @h (@len bytes from @h are readable; more messages may
 * follow it) with a family header of @hdrlen bytes: @tb[0..@maxtype] point
 * at its attributes, checked against @policy (libnl's nla_policy: NLA_U32
 * at least 4 bytes, NLA_STRING NUL-terminated, NLA_U8 ...). Unknown types
 * (above @maxtype) are skipped. -EBADMSG when the header does not fit in
 * @len, the family header does not fit in the message, an attribute header
 * is cut or claims more than is left (the last one may lack its padding),
 * or an attribute breaks the policy.
 */
int nlparse_msg(const struct nlmsghdr *h, size_t len, size_t hdrlen, struct nlattr **tb,
		int maxtype, const struct nla_policy *policy);
/*
 * A nested attribute checked as nlparse_msg checks a message: the
 * attributes inside @nest must tile it (a cut or overlong header is
 * -EBADMSG, not the end of the nest). With @tb, they are indexed and
 * checked against @policy as nlparse_msg does; with @tb NULL only the
 * tiling is checked (a nest of entries that the caller walks).
 */
int nlparse_nested(const struct nlattr *nest, struct nlattr **tb, int maxtype,
		   const struct nla_policy *policy);
/* libnl's -NLE_* as -errno (-EIO for what has no errno of its own). */
int nlparse_errno(int nle);

#endif
