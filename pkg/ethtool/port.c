// SPDX-License-Identifier: Apache-2.0
/*
 * The port statistics the telemetry reads, by the names mlx5 gives them
 * (en_stats.c: the per-priority PPCNT group, the pause storm events, the
 * physical port's discards). Other drivers name theirs differently; a name
 * not known here has no series, never a made-up zero.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/ethtool/ethtool.h"

static const struct {
	const char *suffix;
	enum port_stat kind;
	bool rx_only;
} prio_stats[] = {
    {"pause", PS_PAUSE_FRAMES, false},
    {"pause_duration", PS_PAUSE_USEC, false},
    {"pause_transition", PS_PAUSE_TRANSITIONS, false},
    {"bytes", PS_PRIO_BYTES, false},
    {"packets", PS_PRIO_PACKETS, false},
    {"discards", PS_PRIO_DISCARDS, true},
    {"buf_discard", PS_TC_BUF_DISCARDS, true},
    {"cong_discard", PS_TC_CONG_DISCARDS, true},
};

static const struct {
	const char *name;
	enum port_stat kind;
	int dir;
} global_stats[] = {
    {"rx_global_pause", PS_GPAUSE_FRAMES, 0},
    {"tx_global_pause", PS_GPAUSE_FRAMES, 1},
    {"rx_global_pause_duration", PS_GPAUSE_USEC, 0},
    {"tx_global_pause_duration", PS_GPAUSE_USEC, 1},
    {"rx_global_pause_transition", PS_GPAUSE_TRANSITIONS, 0},
};

int ethtool_port_classify(const char *name, struct port_stat_id *ret)
{
	int dir;

	if (!strcmp(name, "tx_pause_storm_warning_events") ||
	    !strcmp(name, "tx_pause_storm_error_events")) {
		*ret = (struct port_stat_id){PS_STORM_EVENTS, 0, name[15] == 'e'};
		return 0;
	}
	if (!strcmp(name, "rx_discards_phy")) {
		*ret = (struct port_stat_id){PS_PORT_DISCARDS, 0, 0};
		return 0;
	}
	for (size_t i = 0; i < sizeof(global_stats) / sizeof(global_stats[0]); i++)
		if (!strcmp(name, global_stats[i].name)) {
			*ret = (struct port_stat_id){global_stats[i].kind, 0, global_stats[i].dir};
			return 0;
		}
	if (!strncmp(name, "rx_prio", 7))
		dir = 0;
	else if (!strncmp(name, "tx_prio", 7))
		dir = 1;
	else
		return -ENOENT;
	if (name[7] < '0' || name[7] > '7' || name[8] != '_')
		return -ENOENT;
	for (size_t i = 0; i < sizeof(prio_stats) / sizeof(prio_stats[0]); i++)
		if (!strcmp(name + 9, prio_stats[i].suffix)) {
			if (prio_stats[i].rx_only && dir)
				return -ENOENT;
			*ret = (struct port_stat_id){prio_stats[i].kind, name[7] - '0', dir};
			return 0;
		}
	return -ENOENT;
}

void ethtool_port_sample(const struct eth_stats *s, struct port_sample *ret)
{
	struct port_stat_id id;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; s && i < s->n; i++) {
		if (ethtool_port_classify(s->names[i], &id) < 0)
			continue;
		ret->v[id.kind][id.prio][id.dir] = s->vals[i];
		ret->has[id.kind][id.prio][id.dir] = true;
	}
}

const char *const ethtool_vport_rdma_names[RQ_VPORT_RDMA_N] = {
    [RQ_VPORT_RDMA_RX_PACKETS] = "rx_vport_rdma_unicast_packets",
    [RQ_VPORT_RDMA_RX_BYTES] = "rx_vport_rdma_unicast_bytes",
    [RQ_VPORT_RDMA_TX_PACKETS] = "tx_vport_rdma_unicast_packets",
    [RQ_VPORT_RDMA_TX_BYTES] = "tx_vport_rdma_unicast_bytes",
};
