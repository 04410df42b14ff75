/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Generic netlink requests on a plain NETLINK_GENERIC socket (libnl-genl is
 * not linked: two families, ethtool and devlink, each resolved once by name
 * through the controller, CTRL_CMD_GETFAMILY). A request is built in a fixed
 * buffer; replies are handed to a callback one message at a time, the
 * family header skipped by the callback (GENL_HDRLEN). libnl is used only for
 * its attribute parsing (pkg/nlparse).
 */
#ifndef RQ_GENL_H
#define RQ_GENL_H

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>

struct genl_sock {
	int fd;
	uint32_t seq;
	char *rx; /* the reply buffer, allocated by genl_open: only a process that talks pays it */
};

struct genl_req {
	char buf[512];
	size_t len;
	size_t nest[4]; /* offsets of open nests */
	int depth;
	int overflow; /* -EMSGSIZE once an attribute did not fit */
};

int genl_open(struct genl_sock *s);
void genl_close(struct genl_sock *s);
/* The family id of @name; -ENOENT when the kernel has no such family. */
int genl_family(struct genl_sock *s, const char *name, uint16_t *ret_id);
void genl_req_init(struct genl_req *m, uint16_t family, uint8_t cmd, uint8_t version,
		   uint16_t flags);
void genl_put(struct genl_req *m, uint16_t type, const void *data, size_t len);
void genl_put_str(struct genl_req *m, uint16_t type, const char *s);
void genl_put_u32(struct genl_req *m, uint16_t type, uint32_t v);
void genl_nest_start(struct genl_req *m, uint16_t type);
void genl_nest_end(struct genl_req *m);
/*
 * Send @m and hand every reply message to @cb (its return < 0 stops and is
 * returned); an NLMSG_ERROR with an error is returned as its -errno.
 */
int genl_talk(struct genl_sock *s, struct genl_req *m,
	      int (*cb)(const struct nlmsghdr *h, void *arg), void *arg);

#endif
