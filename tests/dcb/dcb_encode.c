// SPDX-License-Identifier: Apache-2.0
/*
 * Test driver for tests/dcb/run.sh: prints, as hex bytes, the netlink
 * payload (everything after struct nlmsghdr) that pkg/dcb's encoder builds
 * for one change, so it can be compared with what iproute2's dcb sends.
 *
 *   dcb-encode app-add IFNAME SEL:PROTO:PRIO...
 *   dcb-encode app-del IFNAME SEL:PROTO:PRIO...
 *   dcb-encode trust IFNAME SEL...            (selector numbers, in order)
 *   dcb-encode sdcbx IFNAME MODE              (DCB_CAP_DCBX_* bits)
 *   dcb-encode pfc IFNAME PFC_EN              (reads the port first, as dcb does)
 *   dcb-encode ets IFNAME BW,x8 TSA,x8 PRIOTC,x8   (reads the port first)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/dcb/dcb_msg.h"

static int print_payload(struct nl_msg *m)
{
	struct nlmsghdr *h;
	const unsigned char *p;

	if (!m) {
		fprintf(stderr, "dcb-encode: cannot build the message\n");
		return 1;
	}
	h = nlmsg_hdr(m);
	p = (const unsigned char *)h + NLMSG_HDRLEN;
	for (size_t i = 0; i < h->nlmsg_len - NLMSG_HDRLEN; i++)
		printf("%s%02x", i ? " " : "", p[i]);
	printf("\n");
	nlmsg_free(m);
	return 0;
}

static int parse_apps(int argc, char **argv, struct dcb_app_entry *apps, size_t *n)
{
	*n = 0;
	for (int i = 0; i < argc && *n < RQ_DCB_APP_MAX; i++) {
		unsigned sel, proto, prio;

		if (sscanf(argv[i], "%u:%u:%u", &sel, &proto, &prio) != 3 || sel > 255 ||
		    proto > 65535 || prio > 7) {
			fprintf(stderr, "dcb-encode: bad APP entry `%s'\n", argv[i]);
			return -EINVAL;
		}
		apps[(*n)++] = (struct dcb_app_entry){(uint8_t)sel, (uint16_t)proto, (uint8_t)prio};
	}
	return 0;
}

static int parse8(const char *s, uint8_t *out)
{
	unsigned v[8];

	if (sscanf(s, "%u,%u,%u,%u,%u,%u,%u,%u", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7]) != 8)
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)v[i];
	return 0;
}

/* The port as the kernel reports it: the SET echoes the driver's other fields. */
static int read_port(const char *ifname, struct dcb_port_state *st)
{
	const struct dcb_ops *ops;
	void *ctx;
	int r = dcb_nl_new(&ops, &ctx);

	if (r == 0) {
		r = ops->get(ctx, ifname, st);
		ops->free(ctx);
	}
	if (r < 0)
		fprintf(stderr, "dcb-encode: reading %s: %s\n", ifname, strerror(-r));
	return r;
}

static int cmd_port(const char *cmd, const char *ifname, int argc, char **argv)
{
	static struct dcb_port_state st;
	struct rq_ets ets = {.present = true};

	if (read_port(ifname, &st) < 0)
		return 2;
	if (!strcmp(cmd, "pfc") && argc == 1)
		return print_payload(
		    dcb_msg_set_pfc(ifname, &st, (uint8_t)strtoul(argv[0], NULL, 0)));
	if (!strcmp(cmd, "ets") && argc == 3 && !parse8(argv[0], ets.tc_bw) &&
	    !parse8(argv[1], ets.tsa) && !parse8(argv[2], ets.prio_tc))
		return print_payload(dcb_msg_set_ets(ifname, &st, &ets));
	fprintf(stderr, "dcb-encode: bad arguments for %s\n", cmd);
	return 1;
}

int main(int argc, char **argv)
{
	static struct dcb_app_entry apps[RQ_DCB_APP_MAX];
	uint8_t sel[RQ_DCB_TRUST_MAX];
	size_t n = 0;

	if (argc < 3 || !dcb_msg_ifname_ok(argv[2])) {
		fprintf(stderr,
			"usage: dcb-encode app-add|app-del|trust|sdcbx|pfc|ets IFNAME ...\n");
		return 1;
	}
	if (!strcmp(argv[1], "app-add") || !strcmp(argv[1], "app-del")) {
		if (parse_apps(argc - 3, argv + 3, apps, &n) < 0)
			return 1;
		return print_payload(dcb_msg_app(
		    argv[2], argv[1][4] == 'a' ? DCB_CMD_IEEE_SET : DCB_CMD_IEEE_DEL, apps, n));
	}
	if (!strcmp(argv[1], "trust")) {
		for (int i = 3; i < argc && n < RQ_DCB_TRUST_MAX; i++)
			sel[n++] = (uint8_t)strtoul(argv[i], NULL, 0);
		return print_payload(dcb_msg_trust(argv[2], sel, n));
	}
	if (!strcmp(argv[1], "sdcbx") && argc == 4)
		return print_payload(dcb_msg_sdcbx(argv[2], (uint8_t)strtoul(argv[3], NULL, 0)));
	return cmd_port(argv[1], argv[2], argc - 3, argv + 3);
}
