// SPDX-License-Identifier: Apache-2.0
/*
 * LLDPDU decoding (IEEE 802.1AB-2016 clause 8, the IEEE 802.1 organizationally
 * specific TLVs of 802.1Q-2018 Annex D, the IEEE 802.3 ones of 802.3 Clause 79,
 * and the DCBX TLV of CEE switches: DCB Capability Exchange Protocol Base
 * Specification v1.01, with open-lldp's tlv_dcbx.h for v1.00 "CIN").
 * A TLV is a 7-bit type and a 9-bit length, then that many bytes. Every bound
 * comes from the bytes present, never from a length read from the frame.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/lldp/lldp.h"

enum {
	TLV_END = 0,
	TLV_CHASSIS_ID = 1,
	TLV_PORT_ID = 2,
	TLV_TTL = 3,
	TLV_PORT_DESC = 4,
	TLV_SYS_NAME = 5,
	TLV_ORG = 127,
};

/* 802.1Qaz subtypes (OUI 00-80-C2) and the 802.3 one (OUI 00-12-0F) we keep */
#define OUI_8021      0x0080c2
#define OUI_8023      0x00120f
#define SUB_ETS_CFG   0x09
#define SUB_ETS_REC   0x0a
#define SUB_PFC	      0x0b
#define SUB_APP	      0x0c
#define SUB_MAX_FRAME 4
#define APP_SEL_DSCP  5
/* pre-standard DCBX (OUI 00-1B-21): subtype 1 v1.00 (CIN), 2 v1.01 (CEE); its sub-TLVs */
#define OUI_DCBX       0x001b21
#define SUB_DCBX_CIN   1
#define SUB_DCBX_CEE   2
#define DCBX_CONTROL   1
#define DCBX_PFC       3
#define DCBX_CTRL_LEN  10 /* oper, max, sequence number, acknowledgement number */
#define DCBX_FEAT_HDR  4  /* oper, max, flags, subtype */
#define DCBX_F_ENABLE  0x80
#define DCBX_F_WILLING 0x40
#define DCBX_F_ERROR   0x20
/* subtypes whose value is an address (chassis 4 / port 3: MAC; chassis 5 / port 4: network) */
#define CHASSIS_SUB_MAC	   4
#define CHASSIS_SUB_NETADR 5
#define PORT_SUB_MAC	   3
#define PORT_SUB_NETADR	   4

/* What may appear once; seen twice, it counts as not advertised. */
enum once {
	ONCE_PORT_DESC,
	ONCE_SYS_NAME,
	ONCE_PFC,
	ONCE_ETS_CFG,
	ONCE_ETS_REC,
	ONCE_MAX_FRAME,
	ONCE_CEE,
	ONCE_CIN,
	ONCE_N
};

static void text(const uint8_t *v, size_t n, char *out, size_t len)
{
	size_t o = 0;

	/* label values and terminals: printable ASCII only, the rest is '?' */
	for (size_t i = 0; i < n && o + 1 < len; i++)
		out[o++] = v[i] >= 0x20 && v[i] < 0x7f ? (char)v[i] : '?';
	out[o] = '\0';
}

static void hexaddr(const uint8_t *v, size_t n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && o + 4 <= len; i++)
		o += (size_t)snprintf(out + o, len - o, i ? ":%02x" : "%02x", v[i]);
}

/* A network address: an IANA address family byte (1 IPv4, 2 IPv6), then the address. */
static void netaddr(const uint8_t *v, size_t n, char *out, size_t len)
{
	if (n == 5 && v[0] == 1) {
		(void)snprintf(out, len, "%u.%u.%u.%u", v[1], v[2], v[3], v[4]);
		return;
	}
	hexaddr(v, n, out, len);
}

static void id_text(uint8_t sub, uint8_t mac_sub, uint8_t net_sub, const uint8_t *v, size_t n,
		    char *out, size_t len)
{
	if (sub == mac_sub && n == 6)
		hexaddr(v, n, out, len);
	else if (sub == net_sub)
		netaddr(v, n, out, len);
	else
		text(v, n, out, len);
}

static void ets_decode(const uint8_t *v, bool cfg, struct lldp_ets *e)
{
	memset(e, 0, sizeof(*e));
	if (cfg) {
		e->willing = v[0] & 0x80;
		e->cbs = v[0] & 0x40;
		e->max_tcs = v[0] & 0x07;
	}
	/* priority assignment: two priorities per byte, priority 0 in the high nibble */
	for (int p = 0; p < 8; p++)
		e->prio_tc[p] = (uint8_t)((v[1 + p / 2] >> (p % 2 ? 0 : 4)) & 0x0f);
	memcpy(e->tc_bw, v + 5, 8);
	memcpy(e->tsa, v + 13, 8);
}

/* Application Priority: a reserved byte, then 3-byte entries (priority:3 rsvd:2 sel:3, protocol) */
static void app_decode(const uint8_t *v, size_t n, struct lldp_peer *p)
{
	if (n < 1 || (n - 1) % 3)
		return; /* malformed: not advertised */
	p->has_app = true;
	for (size_t i = 1; i + 3 <= n; i += 3) {
		uint8_t prio = v[i] >> 5, sel = v[i] & 0x07;
		uint16_t proto = (uint16_t)(v[i + 1] << 8 | v[i + 2]);

		if (sel != APP_SEL_DSCP || proto > 63)
			continue;
		p->dscp_mask |= 1ULL << proto;
		p->dscp_prio[proto] |= (uint8_t)(1u << prio);
	}
}

/*
 * One DCBX TLV's sub-TLVs into @ret. false when it is malformed (a sub-TLV
 * running past the TLV, a Control or PFC sub-TLV of the wrong size or given
 * twice): then nothing of it is kept.
 */
static bool dcbx_decode(const uint8_t *v, size_t n, uint8_t version, struct lldp_cee *ret)
{
	struct lldp_cee c = {.version = version};
	size_t off = 0, pfc_len = version == LLDP_DCBX_CEE ? DCBX_FEAT_HDR + 2 : DCBX_FEAT_HDR + 1;
	bool ctrl = false;

	while (off + 2 <= n) {
		uint8_t type = v[off] >> 1;
		size_t len = (size_t)(v[off] & 1) << 8 | v[off + 1];
		const uint8_t *d = v + off + 2;

		if (len > n - off - 2)
			return false;
		off += 2 + len;
		if (type == DCBX_CONTROL) {
			if (ctrl || len != DCBX_CTRL_LEN)
				return false;
			ctrl = true;
			c.oper_ver = d[0];
			c.max_ver = d[1];
		} else if (type == DCBX_PFC) {
			if (c.has_pfc || len != pfc_len)
				return false;
			c.has_pfc = true;
			c.pfc_oper_ver = d[0];
			c.pfc_max_ver = d[1];
			c.pfc_enable = d[2] & DCBX_F_ENABLE;
			c.pfc_willing = d[2] & DCBX_F_WILLING;
			c.pfc_error = d[2] & DCBX_F_ERROR;
			c.pfc_en = d[DCBX_FEAT_HDR];
			c.pfc_tcs = version == LLDP_DCBX_CEE ? d[DCBX_FEAT_HDR + 1] & 0x0f : 0;
		}
	}
	if (off != n)
		return false; /* a stray byte: not a sequence of sub-TLVs */
	*ret = c;
	return true;
}

/* A DCBX TLV: CEE wins over CIN whatever their order (a switch sends one; lldpad can send both). */
static int dcbx_tlv(const uint8_t *v, size_t n, uint8_t sub, struct lldp_peer *p)
{
	uint8_t version = sub == SUB_DCBX_CEE ? LLDP_DCBX_CEE : LLDP_DCBX_CIN;
	struct lldp_cee c;

	if (dcbx_decode(v, n, version, &c) &&
	    (version == LLDP_DCBX_CEE || p->cee.version != LLDP_DCBX_CEE))
		p->cee = c;
	return version == LLDP_DCBX_CEE ? ONCE_CEE : ONCE_CIN;
}

/* Organizationally specific TLV: OUI, subtype, value. Unknown ones are skipped. */
static void org_decode(const uint8_t *v, size_t n, struct lldp_peer *p, unsigned *seen,
		       unsigned *dup)
{
	uint32_t oui;
	uint8_t sub;
	int once = -1;

	if (n < 4)
		return;
	oui = (uint32_t)v[0] << 16 | (uint32_t)v[1] << 8 | v[2];
	sub = v[3];
	v += 4;
	n -= 4;
	if (oui == OUI_8021 && sub == SUB_PFC && n == 2) {
		p->has_pfc = true;
		p->pfc_willing = v[0] & 0x80;
		p->pfc_mbc = v[0] & 0x40;
		p->pfc_cap = v[0] & 0x0f;
		p->pfc_en = v[1];
		once = ONCE_PFC;
	} else if (oui == OUI_8021 && (sub == SUB_ETS_CFG || sub == SUB_ETS_REC) && n == 21) {
		ets_decode(v, sub == SUB_ETS_CFG, sub == SUB_ETS_CFG ? &p->ets_cfg : &p->ets_rec);
		*(sub == SUB_ETS_CFG ? &p->has_ets_cfg : &p->has_ets_rec) = true;
		once = sub == SUB_ETS_CFG ? ONCE_ETS_CFG : ONCE_ETS_REC;
	} else if (oui == OUI_8021 && sub == SUB_APP) {
		/* several Application Priority TLVs may split one table: their entries add up */
		app_decode(v, n, p);
	} else if (oui == OUI_DCBX && (sub == SUB_DCBX_CEE || sub == SUB_DCBX_CIN)) {
		once = dcbx_tlv(v, n, sub, p);
	} else if (oui == OUI_8023 && sub == SUB_MAX_FRAME && n == 2) {
		p->has_max_frame = true;
		p->max_frame = (uint16_t)(v[0] << 8 | v[1]);
		once = ONCE_MAX_FRAME;
	}
	if (once >= 0) {
		*dup |= *seen & (1u << once);
		*seen |= 1u << once;
	}
}

static void optional_decode(uint8_t type, const uint8_t *v, size_t n, struct lldp_peer *p,
			    unsigned *seen, unsigned *dup)
{
	int once = -1;

	if (type == TLV_PORT_DESC) {
		text(v, n, p->port_desc, sizeof(p->port_desc));
		once = ONCE_PORT_DESC;
	} else if (type == TLV_SYS_NAME) {
		text(v, n, p->sys_name, sizeof(p->sys_name));
		once = ONCE_SYS_NAME;
	} else if (type == TLV_ORG) {
		org_decode(v, n, p, seen, dup);
	}
	if (once >= 0) {
		*dup |= *seen & (1u << once);
		*seen |= 1u << once;
	}
}

/* Repeated TLVs that may appear once: what they said is dropped. */
static void drop_dups(struct lldp_peer *p, unsigned dup)
{
	if (dup & (1u << ONCE_PORT_DESC))
		p->port_desc[0] = '\0';
	if (dup & (1u << ONCE_SYS_NAME))
		p->sys_name[0] = '\0';
	if (dup & (1u << ONCE_PFC)) {
		p->has_pfc = false;
		p->pfc_en = p->pfc_cap = 0;
		p->pfc_willing = p->pfc_mbc = false;
	}
	if (dup & (1u << ONCE_ETS_CFG)) {
		p->has_ets_cfg = false;
		memset(&p->ets_cfg, 0, sizeof(p->ets_cfg));
	}
	if (dup & (1u << ONCE_ETS_REC)) {
		p->has_ets_rec = false;
		memset(&p->ets_rec, 0, sizeof(p->ets_rec));
	}
	if (dup & (1u << ONCE_MAX_FRAME)) {
		p->has_max_frame = false;
		p->max_frame = 0;
	}
	/* a DCBX TLV twice: that flavour is not advertised (the other one stays) */
	if ((dup & (1u << ONCE_CEE) && p->cee.version == LLDP_DCBX_CEE) ||
	    (dup & (1u << ONCE_CIN) && p->cee.version == LLDP_DCBX_CIN))
		memset(&p->cee, 0, sizeof(p->cee));
	/* what is left of the 802.1Qaz TLVs makes the partner an IEEE one */
	p->has_ieee = p->has_pfc || p->has_app || p->has_ets_cfg || p->has_ets_rec;
}

/* The three mandatory TLVs, in order, each once (802.1AB 9.2.7.7.1). */
static int mandatory(unsigned idx, uint8_t type, const uint8_t *v, size_t n, struct lldp_peer *p)
{
	if (idx == 0 && type == TLV_CHASSIS_ID && n >= 2 && n <= 256) {
		p->chassis_subtype = v[0];
		id_text(v[0], CHASSIS_SUB_MAC, CHASSIS_SUB_NETADR, v + 1, n - 1, p->chassis_id,
			sizeof(p->chassis_id));
		return 0;
	}
	if (idx == 1 && type == TLV_PORT_ID && n >= 2 && n <= 256) {
		p->port_subtype = v[0];
		id_text(v[0], PORT_SUB_MAC, PORT_SUB_NETADR, v + 1, n - 1, p->port_id,
			sizeof(p->port_id));
		return 0;
	}
	if (idx == 2 && type == TLV_TTL && n >= 2) {
		p->ttl = (uint16_t)(v[0] << 8 | v[1]);
		return 0;
	}
	return -EBADMSG;
}

int lldp_decode_pdu(const uint8_t *pdu, size_t len, struct lldp_peer *ret)
{
	struct lldp_peer p;
	unsigned idx = 0, seen = 0, dup = 0;
	size_t off = 0;

	memset(&p, 0, sizeof(p));
	while (off + 2 <= len) {
		uint8_t type = pdu[off] >> 1;
		size_t n = (size_t)(pdu[off] & 1) << 8 | pdu[off + 1];
		const uint8_t *v = pdu + off + 2;

		if (n > len - off - 2)
			return -EBADMSG; /* runs past the data */
		off += 2 + n;
		if (type == TLV_END)
			break; /* what follows is padding */
		if (idx < 3) {
			if (mandatory(idx++, type, v, n, &p) < 0)
				return -EBADMSG;
			continue;
		}
		if (type == TLV_CHASSIS_ID || type == TLV_PORT_ID || type == TLV_TTL)
			return -EBADMSG; /* a second one: whose? */
		optional_decode(type, v, n, &p, &seen, &dup);
	}
	if (idx < 3)
		return -EBADMSG;
	drop_dups(&p, dup);
	memcpy(ret, &p, sizeof(p));
	return 0;
}

int lldp_decode_frame(const uint8_t *frame, size_t len, struct lldp_peer *ret)
{
	static const uint8_t nearest[6] = LLDP_MCAST_NEAREST_BRIDGE;
	size_t off = 12;
	uint16_t et;

	if (len > LLDP_FRAME_MAX)
		return -E2BIG;
	if (len < off + 2)
		return -EPROTO;
	/* a tagged frame (0x8100, 0x88a8) is not LLDP here: its Ethertype is a tag's */
	et = (uint16_t)(frame[off] << 8 | frame[off + 1]);
	if (et != LLDP_ETHERTYPE)
		return -EPROTO;
	if (memcmp(frame, nearest, sizeof(nearest)) != 0)
		return -EADDRNOTAVAIL;
	return lldp_decode_pdu(frame + off + 2, len - off - 2, ret);
}

enum lldp_dcbx lldp_dcbx_version(const struct lldp_peer *p)
{
	if (p->has_ieee)
		return LLDP_DCBX_IEEE;
	return p->cee.version == LLDP_DCBX_CEE || p->cee.version == LLDP_DCBX_CIN
		   ? (enum lldp_dcbx)p->cee.version
		   : LLDP_DCBX_NONE;
}

const char *lldp_dcbx_name(enum lldp_dcbx v)
{
	return v == LLDP_DCBX_IEEE  ? "ieee"
	       : v == LLDP_DCBX_CEE ? "cee"
	       : v == LLDP_DCBX_CIN ? "cin"
				    : "none";
}

bool lldp_peer_pfc(const struct lldp_peer *p, uint8_t *ret_en, bool *ret_willing)
{
	if (p->has_pfc) {
		*ret_en = p->pfc_en;
		*ret_willing = p->pfc_willing;
		return true;
	}
	if (p->has_ieee || !p->cee.has_pfc)
		return false; /* an IEEE partner without a PFC TLV: its CEE TLV does not stand in */
	/* DCBX v1.01: a feature whose Enable flag is clear is not in operation, whatever it lists
	 */
	*ret_en = p->cee.pfc_enable ? p->cee.pfc_en : 0;
	*ret_willing = p->cee.pfc_willing;
	return true;
}

int lldp_prio_first(uint8_t mask)
{
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			return p;
	return -1;
}

bool lldp_peer_same(const struct lldp_peer *a, const struct lldp_peer *b)
{
	struct lldp_peer x, y;

	/* both come from lldp_decode_pdu (zeroed, then memcpy): padding compares equal */
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	x.ttl = y.ttl = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}
