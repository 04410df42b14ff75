/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The link partner's LLDP (IEEE 802.1AB) as the agent keeps it: identity,
 * the IEEE 802.1Qaz DCB TLVs (PFC Configuration, Application Priority with
 * the DSCP selector, ETS Configuration and Recommendation) and the IEEE
 * 802.3 Maximum Frame Size, and the pre-standard DCBX of CEE switches (DCBX
 * v1.01 "CEE" and v1.00 "CIN", OUI 00-1B-21: their PFC feature). Decoding
 * only: no I/O, nothing printed. The
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

/* The partner's DCBX flavour, from the TLVs it sent (lldp_dcbx_version) */
enum lldp_dcbx { LLDP_DCBX_NONE = 0, LLDP_DCBX_IEEE, LLDP_DCBX_CEE, LLDP_DCBX_CIN };

/*
 * The PFC feature of a pre-standard DCBX TLV (OUI 00-1B-21; subtype 2: DCBX
 * v1.01 "CEE", subtype 1: v1.00 "CIN"). The TLV is a sequence of sub-TLVs
 * framed like LLDP's own (7-bit type, 9-bit length): Control (type 1: oper
 * version, max version, 4-byte sequence and acknowledgement numbers), then
 * features (Priority Groups 2, PFC 3, Application 4 in v1.01; v1.00 has BCN 4,
 * Application 5, Logical Link 6), each opening with oper version, max
 * version, a flags byte (enable 0x80, willing 0x40, error 0x20) and a
 * subtype byte. The PFC feature's data: a bitmap of priorities with PFC on
 * (bit n = priority n), then, in v1.01 only, the number of traffic classes
 * that can have PFC on.
 */
struct lldp_cee {
	uint8_t version;	   /* LLDP_DCBX_CEE or LLDP_DCBX_CIN; 0: no such TLV */
	uint8_t oper_ver, max_ver; /* the Control sub-TLV's (0 when absent) */
	bool has_pfc;
	bool pfc_enable, pfc_willing, pfc_error; /* the PFC feature's flags */
	uint8_t pfc_oper_ver, pfc_max_ver;
	uint8_t pfc_en;	 /* bitmap of priorities */
	uint8_t pfc_tcs; /* v1.01: traffic classes that can have PFC on; 0 when not said */
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
	bool has_ieee; /* any 802.1Qaz DCB TLV (PFC, ETS, Application Priority) */
	struct lldp_cee cee;
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
 * source, Ethertype 0x88cc, then the LLDPDU. Only what the nearest bridge
 * says counts (DESIGN.md "The link partner"): -EADDRNOTAVAIL when the
 * destination is not 01:80:c2:00:00:0e (another group address reaches past
 * a bridge: not the switch port), -EPROTO when it is not LLDP or carries an
 * 802.1Q tag in the data (the kernel untags into metadata before a packet
 * socket sees the frame: the caller checks that too), -E2BIG beyond
 * LLDP_FRAME_MAX.
 */
int lldp_decode_frame(const uint8_t *frame, size_t len, struct lldp_peer *ret);

/*
 * The partner's DCBX flavour: IEEE when it sent any 802.1Qaz DCB TLV (a
 * partner that sends both uses the IEEE ones), else CEE or CIN when it sent
 * that DCBX TLV, else none.
 */
enum lldp_dcbx lldp_dcbx_version(const struct lldp_peer *p);
const char *lldp_dcbx_name(enum lldp_dcbx v); /* "ieee", "cee", "cin", "none" */
/*
 * The partner's PFC as it is judged: the IEEE PFC Configuration TLV, else the
 * CEE/CIN PFC feature (a disabled feature has no priority on). false when it
 * advertises neither. @ret_en: priorities with PFC on; @ret_willing: its
 * willing bit.
 */
bool lldp_peer_pfc(const struct lldp_peer *p, uint8_t *ret_en, bool *ret_willing);

/* The lowest priority of a dscp_prio bitmap, -1 when empty. */
int lldp_prio_first(uint8_t mask);
/* Same identity and same advertised content (TTL aside): nothing changed for the judge. */
bool lldp_peer_same(const struct lldp_peer *a, const struct lldp_peer *b);

#endif
