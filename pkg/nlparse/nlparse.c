// SPDX-License-Identifier: Apache-2.0
/* Netlink message parsing on libnl (see nlparse.h). */
#include "pkg/nlparse/nlparse.h"

#include <errno.h>
#include <netlink/errno.h>

int nlparse_msg(const struct nlmsghdr *h, size_t len, size_t hdrlen, struct nlattr **tb,
		int maxtype, const struct nla_policy *policy)
{
	struct nlmsghdr *m = (struct nlmsghdr *)h; /* libnl's parsers take no const */
	struct nlattr *a;
	int rem;

	if (!h || len < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > len ||
	    !nlmsg_valid_hdr(m, (int)hdrlen))
		return -EBADMSG;
	/*
	 * nla_parse stops at the first attribute that does not fit and keeps
	 * what came before it: a cut or overlong header is a broken message
	 * here, not the end of it. Fewer bytes than a header are the last
	 * attribute's missing padding.
	 */
	nla_for_each_attr(a, nlmsg_attrdata(m, (int)hdrlen), nlmsg_attrlen(m, (int)hdrlen), rem);
	if (rem >= NLA_HDRLEN)
		return -EBADMSG;
	return nlmsg_parse(m, (int)hdrlen, tb, maxtype, policy) < 0 ? -EBADMSG : 0;
}

int nlparse_nested(const struct nlattr *nest, struct nlattr **tb, int maxtype,
		   const struct nla_policy *policy)
{
	struct nlattr *n = (struct nlattr *)nest, *a;
	int rem;

	if (!nest || nla_len(n) < 0)
		return -EBADMSG;
	nla_for_each_nested(a, n, rem);
	if (rem >= NLA_HDRLEN)
		return -EBADMSG;
	if (!tb)
		return 0;
	return nla_parse_nested(tb, maxtype, n, policy) < 0 ? -EBADMSG : 0;
}

int nlparse_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_PERM:
		return -EPERM;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_AGAIN:
		return -EAGAIN;
	default:
		return -EIO;
	}
}
