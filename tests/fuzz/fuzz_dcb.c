// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the dcbnl reply decoders (make fuzz-dcb). The first
 * input byte picks the shape: odd -> the bytes are a whole netlink message
 * as read from the socket; even -> they are the attributes of a well-formed
 * IEEE_GET / SET reply header, so the fuzzer spends its time in the attribute
 * walk rather than on guessing nlmsg_len. The input is copied into an
 * exactly-sized buffer so ASan flags any read past the end.
 */
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/dcb/dcb_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_state(const struct dcb_port_state *st)
{
	/* the decoder's own bounds: a violation is a bug, make it a crash */
	if (st->n_app > RQ_DCB_APP_MAX || st->n_trust > RQ_DCB_TRUST_MAX)
		abort();
}

static void run(const uint8_t *msg, size_t len)
{
	static struct dcb_port_state st;
	uint8_t *buf = malloc(len ? len : 1);
	char name[16];

	if (!buf)
		return;
	memcpy(buf, msg, len);
	if (dcb_msg_parse_get(buf, len, &st) == 0)
		check_state(&st);
	(void)dcb_msg_parse_status(buf, len);
	/* the agent's RTNLGRP_DCB notifications: a name is a whole one */
	if (dcb_msg_parse_ifname(buf, len, name, sizeof(name)) == 1 &&
	    (!name[0] || !memchr(name, '\0', sizeof(name))))
		abort();
	free(buf);
}

static void run_wrapped(const uint8_t *attrs, size_t n, uint8_t cmd)
{
	size_t hdr = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg));
	struct nlmsghdr h = {.nlmsg_type = RTM_GETDCB};
	struct dcbmsg d = {.cmd = cmd};
	uint8_t *msg;

	if (n > 65536)
		return;
	msg = calloc(1, hdr + n);
	if (!msg)
		return;
	h.nlmsg_len = (uint32_t)(hdr + n);
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + NLMSG_HDRLEN, &d, sizeof(d));
	memcpy(msg + hdr, attrs, n);
	run(msg, hdr + n);
	free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t cmds[] = {DCB_CMD_IEEE_GET, DCB_CMD_IEEE_SET, DCB_CMD_IEEE_DEL,
				       DCB_CMD_SDCBX};

	if (size < 1)
		return 0;
	if (data[0] & 1)
		run(data + 1, size - 1);
	else
		run_wrapped(data + 1, size - 1, cmds[(data[0] >> 1) % sizeof(cmds)]);
	return 0;
}
