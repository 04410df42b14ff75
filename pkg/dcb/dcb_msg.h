/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dcbnl message encoding and decoding: no sockets, so unit tests, the
 * byte-exact comparison with iproute2 (tests/dcb) and the fuzzer drive it.
 *
 * Requests are laid out as iproute2's dcb lays them out: struct dcbmsg,
 * DCB_ATTR_IFNAME, then a DCB_ATTR_IEEE nest (NLA_F_NESTED set on nests).
 */
#ifndef RQ_DCB_MSG_H
#define RQ_DCB_MSG_H

#include <linux/netlink.h>
#include <netlink/msg.h>

#include "pkg/dcb/dcb.h"

/*
 * Builders. NULL on ENOMEM; callers check the name first with
 * dcb_msg_ifname_ok (the kernel takes at most IFNAMSIZ - 1 bytes).
 */
bool dcb_msg_ifname_ok(const char *ifname);
/* RTM_GETDCB DCB_CMD_IEEE_GET for @ifname. */
struct nl_msg *dcb_msg_ieee_get(const char *ifname);
/* RTM_SETDCB DCB_CMD_IEEE_SET carrying one object each; the rest of the struct from @cur. */
struct nl_msg *dcb_msg_set_pfc(const char *ifname, const struct dcb_port_state *cur,
			       uint8_t pfc_en);
struct nl_msg *dcb_msg_set_ets(const char *ifname, const struct dcb_port_state *cur,
			       const struct rq_ets *ets);
/* @cmd DCB_CMD_IEEE_SET (add) or DCB_CMD_IEEE_DEL; all entries in one message. */
struct nl_msg *dcb_msg_app(const char *ifname, int cmd, const struct dcb_app_entry *apps, size_t n);
/* IEEE_SET with the apptrust table (kernel >= 6.2), selectors in order. */
struct nl_msg *dcb_msg_trust(const char *ifname, const uint8_t *sel, size_t n);
/* RTM_SETDCB DCB_CMD_SDCBX: DCB_ATTR_DCBX = @mode (DCB_CAP_DCBX_* bits). */
struct nl_msg *dcb_msg_sdcbx(const char *ifname, uint8_t mode);

/*
 * Decode an IEEE_GET reply (the whole netlink message, @len bytes). Every
 * attribute's length is checked against its type and against the buffer: a
 * short, overrunning or out-of-bounds attribute is -EBADMSG, more APP
 * entries than RQ_DCB_APP_MAX (or trust selectors than RQ_DCB_TRUST_MAX) is
 * -E2BIG. Longer-than-known structs are accepted (newer kernels may grow
 * them). A repeated attribute: the last one wins, as with nla_parse; a
 * repeated APP or trust table replaces the earlier one. APP entries of both
 * types (DCB_ATTR_IEEE_APP, DCB_ATTR_DCB_APP for the PCP selector) count.
 * *ret is written only on success.
 */
int dcb_msg_parse_get(const void *msg, size_t len, struct dcb_port_state *ret);
/*
 * The status of a SET/DEL/SDCBX reply: the kernel puts the driver's result
 * into a u8 attribute (DCB_ATTR_IEEE for IEEE_SET/IEEE_DEL, DCB_ATTR_DCBX for
 * SDCBX, chosen by the reply's dcbmsg cmd) while the netlink layer reports
 * success. It is a negative errno squeezed into a u8: (int8_t) value. A
 * positive value (SDCBX drivers return 1 on failure) is -EIO. Returns the
 * status (0 or negative errno); -EBADMSG when the reply is malformed or
 * carries no status.
 */
int dcb_msg_parse_status(const void *msg, size_t len);
/*
 * The netdev one dcbnl message (a notification of RTNLGRP_DCB) is about:
 * 1 and @buf its DCB_ATTR_IFNAME, 0 when it names none, -EBADMSG when
 * malformed, -ENAMETOOLONG when @buf is too small.
 */
int dcb_msg_parse_ifname(const void *msg, size_t len, char *buf, size_t buflen);

#endif
