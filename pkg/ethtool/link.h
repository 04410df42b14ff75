/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A port's link health from the kernel's standard ethtool netlink
 * interfaces, not driver-private counter names (DESIGN.md "The fabric under
 * the pod"): FEC statistics (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS,
 * ETHTOOL_A_FEC_STAT_CORRECTED / _UNCORR), the IEEE 802.3 PHY group's
 * SymbolErrorDuringCarrier (ETHTOOL_MSG_STATS_GET, ETHTOOL_STATS_ETH_PHY),
 * the link speed and the fastest mode both ends advertise in common
 * (ETHTOOL_MSG_LINKMODES_GET: ours AND the link partner's, so that a 4-lane
 * NRZ NIC on a PAM4-only port, or a breakout, is judged against the modes it
 * can actually share, not the faster of each side's own). What the driver
 * does not report stays has_* false, per counter: a driver that fills only
 * corrected FEC blocks has no uncorrectable count. An ops table: the
 * simulated node reads <root>/ethtool/<pf>.fec.json {"corrected",
 * "uncorrectable"}, <pf>.phy.json {"SymbolErrorDuringCarrier"},
 * <pf>.link.json {"speed", "partnerMax", "localMax" (Mb/s), "localModes",
 * "partnerModes" (ethtool's mode names: the lists win where present)}
 * instead; no file: not reported.
 */
#ifndef RQ_ETHTOOL_LINK_H
#define RQ_ETHTOOL_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "pkg/sysfs/sysfs.h"

/* the link mode bitsets kept: 256 modes, the UAPI header has fewer than 128 */
#define ETH_LINK_MODE_WORDS 8

struct eth_link_health {
	bool has_fec_corrected, has_fec_uncorrectable; /* each counter on its own */
	uint64_t fec_corrected, fec_uncorrectable;
	bool has_symbol_errors;
	uint64_t symbol_errors;
	bool has_speed;
	uint32_t speed_mbps;	   /* the link's current speed */
	uint32_t local_max_mbps;   /* the fastest mode we advertise; 0 unknown */
	uint32_t partner_max_mbps; /* the fastest mode the partner advertises; 0 unknown */
	uint32_t common_max_mbps;  /* the fastest mode both advertise; 0 none or unknown */
};

struct ethtool_link_ops {
	/* What @ifname reports; -ENODEV: no such netdev. Parts not reported stay false. */
	int (*health)(void *ctx, const char *ifname, struct eth_link_health *ret);
	void (*free)(void *ctx);
};

/* ethtool generic netlink in the calling thread's netns. */
int ethtool_link_nl_new(const struct ethtool_link_ops **ret_ops, void **ret_ctx);
/* The simulated node's files under @root (see above). */
int ethtool_link_fake_new(const struct rq_root *root, const struct ethtool_link_ops **ret_ops,
			  void **ret_ctx);
/* The fastest speed (Mb/s) of the link modes set in @bits (@nbits bits), 0 when none is known. */
uint32_t ethtool_link_modes_max(const uint32_t *bits, unsigned nbits);
/* The same of the modes set in both @a and @b (at most ETH_LINK_MODE_WORDS words each). */
uint32_t ethtool_link_modes_common_max(const uint32_t *a, const uint32_t *b, unsigned nbits);
/* The bit of a full-duplex mode by ethtool's name ("100000baseCR4/Full"); -EINVAL unknown. */
int ethtool_link_mode_bit(const char *name);

struct nlmsghdr;
/* One ETHTOOL_MSG_FEC_GET reply's statistics into @e (link_nl.c; tested on crafted replies). */
int ethtool_fec_reply(const struct nlmsghdr *h, struct eth_link_health *e);

#endif
