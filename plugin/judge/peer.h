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
#include "plugin/attach/core.h"

/*
 * What the agent heard, per PF, for `show`: {"pfs": {pf: {"peer": {...},
 * "expires": unix seconds, "heard": unix seconds}}, "listening": [pf, ...]}.
 * Written by the agent on every change of a partner (tmpfs, like the records).
 */
#define RQ_PEER_FILE "/run/rdma-qos/agent/peers.json"
/*
 * The agent's link health per watched PF, for `show --pod` and `top`, written after
 * every pass that read it: {"written": unix seconds, "interval": the agent's seconds,
 * "pfs": {pf: {"degraded": [reason, ...] in the last interval, "reported": [reason, ...]
 * the driver reports}}}. Older than 3 intervals it says nothing (the agent stopped).
 */
#define RQ_LINK_FILE "/run/rdma-qos/agent/links.json"

enum peer_item { PEER_PFC, PEER_DSCP2PRIO, PEER_MTU, PEER_ETS, PEER_ITEM_N };
extern const char *const peer_item_names[PEER_ITEM_N];

/* A verdict per item: unknown (the partner does not say, or nothing is required) is no series. */
enum peer_verdict { PEER_UNKNOWN = -1, PEER_DISAGREES = 0, PEER_AGREES = 1 };

/*
 * What an 802.3 frame carries beyond the MTU (the client data): 802.3 counts
 * a frame from the destination address through the FCS (clause 3.2; the
 * Maximum Frame Size TLV of clause 79.3.4 is that size, maxBasicFrameSize
 * 1518 for a 1500 MTU): destination and source (12), Length/Type (2), FCS
 * (4); an 802.1Q tag adds 4 (maxQTagFrameSize 1522).
 */
#define PEER_FRAME_UNTAGGED 18
#define PEER_FRAME_QTAG	    4

struct peer_judgement {
	enum peer_verdict v[PEER_ITEM_N];
	char why[PEER_ITEM_N][112]; /* "partner PFC on 4, required 3" */
};

/*
 * Judge @p (NULL: no partner heard, or more than one: nothing is judged)
 * against @t (NULL: nothing required of the PF) and the PF's @mtu (<= 0:
 * unknown). pfc: every priority @t has PFC on is PFC-enabled at the partner
 * (its IEEE PFC TLV, else its CEE/CIN PFC feature); dscp2prio: each DSCP of
 * @t's map that the partner advertises maps to the same priority there (a
 * DSCP the partner maps to two priorities says nothing: unknown for it);
 * mtu: the partner's maximum frame carries @mtu + peer_frame_allowance(@t,
 * @vst);
 * ets (only when @t has ETS): the partner's ETS Recommendation (what it asks
 * its peer to use) has the same priority->TC map, TSA and ETS bandwidths.
 */
void peer_judge(const struct lldp_peer *p, const struct rq_profile *t, int mtu, bool vst,
		struct peer_judgement *ret);
/*
 * Bytes a frame of the PF's traffic carries beyond the MTU: 18, plus an
 * 802.1Q tag when @t trusts PCP (the priority travels in the tag) or @vst, a
 * VF of the PF has a VST VLAN (IFLA_VF_VLAN: the eswitch tags its frames on
 * the wire; issue 42 item 9). NULL @t: untagged unless @vst.
 */
int peer_frame_allowance(const struct rq_profile *t, bool vst);
/*
 * One word for a PF, as the NFD label and `show --counters` say it: disagrees
 * when any item disagrees; agrees only when `pfc` itself was judged and
 * agrees (the MTU or the DSCP map alone vouch for nothing lossless); else
 * unknown.
 */
enum peer_verdict peer_word(const struct peer_judgement *j);
/* "agrees", "disagrees", "unknown" */
const char *peer_verdict_name(enum peer_verdict v);

/* Some VF of the PF netdev @ifname (in this netns) has a VST VLAN (rtnetlink) */
bool peer_pf_vst(const char *ifname);
/* The PF netdev's MTU (/sys/class/net/<pf>/mtu); <0 when unreadable. */
int peer_pf_mtu(const struct rq_root *root, const char *ifname);

/* The partner as JSON (peers.json, show --json); NULL on ENOMEM. */
cJSON *peer_to_json(const struct lldp_peer *p);
/* Back from peer_to_json's form; -EINVAL when it is not one. */
int peer_from_json(const cJSON *o, struct lldp_peer *ret);

#endif
