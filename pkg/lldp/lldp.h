/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The link partner's LLDP (IEEE 802.1AB) as the agent keeps it: identity,
 * the IEEE 802.1Qaz DCB TLVs (PFC Configuration, Application Priority with
 * the DSCP selector, ETS Configuration and Recommendation) and the IEEE
 * 802.3 Maximum Frame Size. Decoding only: no I/O, nothing printed. The
 * input is whatever arrived on the wire, so every length is checked against
 * the bytes actually there.
 */
#ifndef RQ_LLDP_H
#define RQ_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LLDP_ETHERTYPE 0x88cc
/* the "nearest bridge" group address: what a switch port sends to, and no bridge forwards */
#define LLDP_MCAST_NEAREST_BRIDGE                                                                  \
	{                                                                                          \
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e                                                 \
	}
/* IDs as text: a MAC or address rendered, or the string with non-printables as '?' */
#define LLDP_ID_MAX   256
#define LLDP_TEXT_MAX 256
/* a frame longer than this is not an LLDPDU anyone sends (802.1AB: one frame, at most 1500) */
#define LLDP_FRAME_MAX 9216

struct lldp_ets {
	bool willing;	    /* Configuration only */
	bool cbs;	    /* credit-based shaper supported (Configuration only) */
	uint8_t max_tcs;    /* Configuration only; 0 means 8 */
	uint8_t prio_tc[8]; /* priority -> traffic class */
	uint8_t tc_bw[8];   /* percent */
	uint8_t tsa[8];	    /* 802.1Qaz TSA: 0 strict, 1 CBS, 2 ETS, 255 vendor */
};

struct lldp_peer {
	char chassis_id[LLDP_ID_MAX];
	uint8_t chassis_subtype;
	char port_id[LLDP_ID_MAX];
	uint8_t port_subtype;
	uint16_t ttl; /* seconds; 0: the partner is leaving, forget it */
	char port_desc[LLDP_TEXT_MAX];
	char sys_name[LLDP_TEXT_MAX];
	/* PFC Configuration (802.1Qaz D.2.10) */
	bool has_pfc;
	bool pfc_willing, pfc_mbc;
	uint8_t pfc_cap; /* priorities that can have PFC on at once; 0 means 8 */
	uint8_t pfc_en;	 /* bitmap of priorities */
	/* Application Priority (D.2.12), DSCP selector (5) entries only */
	bool has_app;	       /* the TLV was there (possibly without a DSCP entry) */
	uint64_t dscp_mask;    /* bit d: the partner maps DSCP d */
	uint8_t dscp_prio[64]; /* DSCP -> bitmap of priorities (more than one bit: ambiguous) */
	bool has_ets_cfg, has_ets_rec;
	struct lldp_ets ets_cfg, ets_rec;
	/* IEEE 802.3 Maximum Frame Size (802.3 Clause 79.3.4), bytes including FCS */
	bool has_max_frame;
	uint16_t max_frame;
};

/*
 * Decode one LLDPDU (the bytes after the Ethertype). 0 with *ret filled, or
 * -EBADMSG when it is not a valid LLDPDU (802.1AB 9.2.7.7.1: the first three
 * TLVs must be Chassis ID, Port ID and TTL, each once and well-formed; a TLV
 * running past the data discards the whole LLDPDU). Optional TLVs that are
 * malformed are ignored; one that may appear once and appears again is
 * treated as not advertised (ambiguous is unknown, never a verdict).
 */
int lldp_decode_pdu(const uint8_t *pdu, size_t len, struct lldp_peer *ret);
/*
 * Decode a whole Ethernet frame as AF_PACKET SOCK_RAW reads it: destination,
 * source, Ethertype 0x88cc (a single 802.1Q tag before it is accepted), then
 * the LLDPDU. -EPROTO when it is not LLDP, -E2BIG beyond LLDP_FRAME_MAX.
 */
int lldp_decode_frame(const uint8_t *frame, size_t len, struct lldp_peer *ret);

/* The lowest priority of a dscp_prio bitmap, -1 when empty. */
int lldp_prio_first(uint8_t mask);
/* Same identity and same advertised content (TTL aside): nothing changed for the judge. */
bool lldp_peer_same(const struct lldp_peer *a, const struct lldp_peer *b);

#endif
