// SPDX-License-Identifier: Apache-2.0
/*
 * Linked into the static binaries only (Makefile, STATIC=1). libnl's
 * address and protocol-name helpers (nl_addr_info, nl_addr_resolve,
 * nl_ip_proto2str, nl_str2ip_proto) sit in the same objects as the socket
 * and attribute code rdma-qos uses, and they call glibc's NSS resolvers. A
 * static glibc would pull NSS in with them: /etc/nsswitch.conf, and a
 * dlopen of the host's libnss_*.so, which must match the glibc the binary
 * was linked with and, in a chroot (Multus thick mode) or on another
 * distribution, does not. rdma-qos never resolves a name, so these
 * definitions take the resolvers' place and fail the lookup: the linker
 * then takes no NSS code from libc.a at all (tests/deploy checks that the
 * binaries hold none).
 */
#include <netdb.h>
#include <stddef.h>

int getaddrinfo(const char *restrict node, const char *restrict service,
		const struct addrinfo *restrict hints, struct addrinfo **restrict res)
{
	*res = NULL;
	return EAI_FAIL;
}

int getnameinfo(const struct sockaddr *restrict addr, socklen_t addrlen, char *restrict host,
		socklen_t hostlen, char *restrict serv, socklen_t servlen, int flags)
{
	return EAI_FAIL;
}

struct protoent *getprotobyname(const char *name)
{
	return NULL;
}

struct protoent *getprotobynumber(int proto)
{
	return NULL;
}
