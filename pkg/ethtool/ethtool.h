/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A netdev's driver statistics (what `ethtool -S` prints) and what the
 * port's names mean. The per-priority PFC counters of mlx5 (en_stats.c) are
 * reachable only through the SIOCETHTOOL ioctl (GSSET_INFO, GSTRINGS,
 * GSTATS): the ethtool netlink stats groups carry nothing per priority. The
 * reader is an ops table so the simulated node reads <root>/ethtool/<pf>.json
 * ({"name": value, ...}) instead; no file there is a driver without stats.
 * A netdev inside another netns (a VF in its pod) is read from inside that
 * netns: the ioctl's socket is made there; the simulated node reads
 * <root>/ethtool/netns/<basename of the netns path>/<ifname>.json, same
 * format.
 */
#ifndef RQ_ETHTOOL_H
#define RQ_ETHTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/sysfs/sysfs.h"

#define RQ_ETH_NAME_LEN 32 /* ETH_GSTRING_LEN */

/* One reading: names[i] counted vals[i]. Owned; eth_stats_fini frees. */
struct eth_stats {
	size_t n;
	char (*names)[RQ_ETH_NAME_LEN];
	uint64_t *vals;
};

void eth_stats_fini(struct eth_stats *s);
/* The value of @name, or -ENOENT. */
int eth_stats_get(const struct eth_stats *s, const char *name, uint64_t *ret);

struct ethtool_ops {
	/*
	 * Every statistic of netdev @ifname (in the netns the context was
	 * opened in). -ENODEV: no such netdev; -EOPNOTSUPP: the driver has
	 * none. The driver's name list changes with its configuration (mlx5's
	 * PFC counters exist only for priorities with PFC on): implementations
	 * fetch the names again whenever their count changes.
	 */
	int (*stats)(void *ctx, const char *ifname, struct eth_stats *ret);
	/*
	 * The same for netdev @ifname inside the netns at path @netns (a
	 * CNI_NETNS: /run/netns/<name>, /proc/<pid>/ns/net); NULL or "": the
	 * context's own netns, as stats. -ENOENT: the netns is gone; -EINVAL:
	 * not a netns; else as stats. Names are not cached across calls (the
	 * same ifname in two pods is two netdevs).
	 */
	int (*stats_netns)(void *ctx, const char *netns, const char *ifname, struct eth_stats *ret);
	void (*free)(void *ctx);
};

/* SIOCETHTOOL in the calling thread's netns (the socket keeps it). */
int ethtool_ioctl_new(const struct ethtool_ops **ret_ops, void **ret_ctx);
/*
 * The simulated node's stats: <root>/ethtool/<ifname>.json; in netns @ns
 * <root>/ethtool/netns/<basename of @ns>/<ifname>.json (only while @ns exists).
 */
int ethtool_fake_new(const struct rq_root *root, const struct ethtool_ops **ret_ops,
		     void **ret_ctx);

/*
 * What a port's statistic counts (DESIGN.md "Congestion telemetry"): the
 * metric family, the priority and the direction (rx 0, tx 1; for the pause
 * storm events the level: warning 0, error 1).
 */
enum port_stat {
	PS_PAUSE_FRAMES = 0,  /* {rx,tx}_prio%d_pause */
	PS_PAUSE_USEC,	      /* {rx,tx}_prio%d_pause_duration, microseconds */
	PS_PAUSE_TRANSITIONS, /* {rx,tx}_prio%d_pause_transition */
	PS_PRIO_BYTES,	      /* {rx,tx}_prio%d_bytes */
	PS_PRIO_PACKETS,      /* {rx,tx}_prio%d_packets */
	PS_PRIO_DISCARDS,     /* rx_prio%d_discards */
	/*
	 * rx_prio%d_buf_discard, rx_prio%d_cong_discard: despite the name mlx5
	 * reads them per traffic class of the host (PPCNT per-TC groups, pnat 2;
	 * counters.rst), so the index is the TC, not the priority
	 */
	PS_TC_BUF_DISCARDS,
	PS_TC_CONG_DISCARDS,
	PS_STORM_EVENTS,  /* tx_pause_storm_{warning,error}_events */
	PS_PORT_DISCARDS, /* rx_discards_phy */
	/*
	 * Link-level (global) pause, where the port runs it instead of PFC
	 * (en_stats.c: "rx/tx_global_pause", "_pause_duration",
	 * "rx_global_pause_transition", read from priority 0's counters); index 0
	 */
	PS_GPAUSE_FRAMES,
	PS_GPAUSE_USEC,
	PS_GPAUSE_TRANSITIONS,
	PS_N
};
#define PS_PRIOS 8

struct port_stat_id {
	enum port_stat kind;
	int prio; /* 0..7 (a TC for PS_TC_*); 0 for the port-wide ones */
	int dir;
};

/* 0 and *ret filled, or -ENOENT: not a statistic the telemetry reads. */
int ethtool_port_classify(const char *name, struct port_stat_id *ret);

/* A port's statistics by meaning; has[][][] false: the driver has no such counter. */
struct port_sample {
	bool has[PS_N][PS_PRIOS][2];
	uint64_t v[PS_N][PS_PRIOS][2];
};

void ethtool_port_sample(const struct eth_stats *s, struct port_sample *ret);

/*
 * A VF netdev's RoCE traffic as mlx5 counts it (en_stats.c, the vport
 * counters: received_ib_unicast / transmitted_ib_unicast, packets and octets
 * = bytes): the RDMA device itself has no such hw_counters. Index
 * RQ_VPORT_RDMA_{RX,TX}_{PACKETS,BYTES}; rdma_counter_classify knows the names.
 */
enum {
	RQ_VPORT_RDMA_RX_PACKETS = 0,
	RQ_VPORT_RDMA_RX_BYTES,
	RQ_VPORT_RDMA_TX_PACKETS,
	RQ_VPORT_RDMA_TX_BYTES,
	RQ_VPORT_RDMA_N
};
extern const char *const ethtool_vport_rdma_names[RQ_VPORT_RDMA_N];

#endif
