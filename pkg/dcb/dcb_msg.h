/* SPDX-License-Identifier: Apache-2.0 */
/* dcbnl message encoding and decoding: no sockets, so tests and fuzzers drive it. */
#ifndef RQ_DCB_MSG_H
#define RQ_DCB_MSG_H

#include <linux/netlink.h>
#include <netlink/msg.h>

#include "pkg/dcb/dcb.h"

/* RTM_GETDCB DCB_CMD_IEEE_GET for @ifname. NULL on ENOMEM. */
struct nl_msg *dcb_msg_ieee_get(const char *ifname);
/* RTM_SETDCB DCB_CMD_IEEE_SET carrying one object each. */
struct nl_msg *dcb_msg_set_pfc(const char *ifname, const struct dcb_port_state *cur,
			       uint8_t pfc_en);
struct nl_msg *dcb_msg_set_ets(const char *ifname, const struct dcb_port_state *cur,
			       const struct rq_ets *ets);
/* @cmd DCB_CMD_IEEE_SET (add) or DCB_CMD_IEEE_DEL; all entries in one message. */
struct nl_msg *dcb_msg_app(const char *ifname, int cmd, const struct dcb_app_entry *apps,
			   size_t n);
struct nl_msg *dcb_msg_trust(const char *ifname, const uint8_t *sel, size_t n);

/*
 * Decode an IEEE_GET reply (whole netlink message of @len bytes). Every
 * attribute's length is checked; a short or overrunning one is -EBADMSG.
 * A repeated attribute: the last one wins (as nla_parse does).
 */
int dcb_msg_parse_get(const void *msg, size_t len, struct dcb_port_state *ret);
/*
 * The status of a SET/DEL reply: the kernel puts a negative errno into a u8
 * DCB_ATTR_IEEE while the netlink ACK says success. Returns the status
 * (0 or negative errno) or -EBADMSG.
 */
int dcb_msg_parse_status(const void *msg, size_t len);

#endif
