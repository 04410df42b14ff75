/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The link partner as the agent heard it (pkg/lldp) judged against a PF's
 * target, shared by the agent's metrics and NFD label and by `rdma-qos show`
 * (DESIGN.md "The link partner"). Read-only: nothing here ever writes a port,
 * and nothing here fails an ADD or a CHECK.
 */
#ifndef RQ_PLUGIN_PEER_H
#define RQ_PLUGIN_PEER_H

#include "pkg/lldp/lldp.h"
#include "plugin/core/core.h"

/*
 * What the agent heard, per PF, for `show`: {"pfs": {pf: {"peer": {...},
 * "expires": unix seconds, "heard": unix seconds}}, "listening": [pf, ...]}.
 * Written by the agent on every change of a partner (tmpfs, like the records).
 */
#define RQ_PEER_FILE "/run/rdma-qos/agent/peers.json"

enum peer_item { PEER_PFC, PEER_DSCP2PRIO, PEER_MTU, PEER_ETS, PEER_ITEM_N };
extern const char *const peer_item_names[PEER_ITEM_N];

/* A verdict per item: unknown (the partner does not say, or nothing is required) is no series. */
enum peer_verdict { PEER_UNKNOWN = -1, PEER_DISAGREES = 0, PEER_AGREES = 1 };

/* The Ethernet header, one VLAN tag and the FCS: what a frame carries beyond the MTU. */
#define PEER_FRAME_OVERHEAD 22

struct peer_judgement {
	enum peer_verdict v[PEER_ITEM_N];
	char why[PEER_ITEM_N][112]; /* "partner PFC on 4, required 3" */
};

/*
 * Judge @p (NULL: no partner heard) against @t (NULL: nothing required of the
 * PF) and the PF's @mtu (<= 0: unknown). pfc: every priority @t has PFC on is
 * PFC-enabled at the partner; dscp2prio: each DSCP of @t's map that the
 * partner advertises maps to the same priority there (a DSCP the partner
 * maps to two priorities disagrees); mtu: the partner's maximum frame carries
 * @mtu + PEER_FRAME_OVERHEAD; ets (only when @t has ETS): the partner's ETS
 * Configuration has the same priority->TC map, TSA and ETS bandwidths.
 */
void peer_judge(const struct lldp_peer *p, const struct rq_profile *t, int mtu,
		struct peer_judgement *ret);
/* "agrees", "disagrees", "unknown" */
const char *peer_verdict_name(enum peer_verdict v);

/* The PF netdev's MTU (/sys/class/net/<pf>/mtu); <0 when unreadable. */
int peer_pf_mtu(const struct rq_root *root, const char *ifname);

/* The partner as JSON (peers.json, show --json); NULL on ENOMEM. */
cJSON *peer_to_json(const struct lldp_peer *p);
/* Back from peer_to_json's form; -EINVAL when it is not one. */
int peer_from_json(const cJSON *o, struct lldp_peer *ret);

#endif
