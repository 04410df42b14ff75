// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/lldp: LLDPDUs built TLV by TLV (802.1AB framing, 802.1Qaz PFC, ETS and
 * Application Priority, 802.3 Maximum Frame Size), and hostile ones that must
 * be refused or ignored without reading past their end. Every frame is
 * copied into an exactly-sized heap buffer so ASan (make asan-test) sees any
 * overread.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/lldp/lldp.h"

struct fb {
	uint8_t b[2048];
	size_t n;
};

static void tlv(struct fb *f, unsigned type, const void *v, size_t n)
{
	f->b[f->n++] = (uint8_t)(type << 1 | (n >> 8));
	f->b[f->n++] = (uint8_t)n;
	if (n) /* memcpy's source must not be NULL even for 0 bytes (UBSan): the End TLV */
		memcpy(f->b + f->n, v, n);
	f->n += n;
}

static void org(struct fb *f, uint32_t oui, uint8_t sub, const void *v, size_t n)
{
	uint8_t t[520] = {(uint8_t)(oui >> 16), (uint8_t)(oui >> 8), (uint8_t)oui, sub};

	memcpy(t + 4, v, n);
	tlv(f, 127, t, n + 4);
}

/* chassis MAC 0c:42:a1:00:00:01, port ifname "swp3", TTL @ttl */
static void head(struct fb *f, uint16_t ttl)
{
	static const uint8_t ch[] = {4, 0x0c, 0x42, 0xa1, 0x00, 0x00, 0x01};
	static const uint8_t port[] = {5, 's', 'w', 'p', '3'};
	uint8_t t[2] = {(uint8_t)(ttl >> 8), (uint8_t)ttl};

	f->n = 0;
	tlv(f, 1, ch, sizeof(ch));
	tlv(f, 2, port, sizeof(port));
	tlv(f, 3, t, 2);
}

static void end(struct fb *f)
{
	tlv(f, 0, NULL, 0);
}

static int decode(const struct fb *f, struct lldp_peer *p)
{
	uint8_t *copy = malloc(f->n ? f->n : 1);
	int r;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, f->b, f->n);
	r = lldp_decode_pdu(copy, f->n, p);
	free(copy);
	return r;
}

/* a switch that advertises everything: PFC on 3, 26->3 and 48->6, max frame 9216 */
static void full(struct fb *f)
{
	static const uint8_t pfc[] = {0x88, 0x08}; /* willing, cap 8; prio 3 */
	static const uint8_t app[] = {0, 3 << 5 | 5, 0,		 26,   6 << 5 | 5,
				      0, 48,	     1 << 5 | 1, 0x89, 0x06};
	static const uint8_t mfs[] = {0x24, 0x00};
	uint8_t ets[21] = {0x08, 0x01, 0x23, 0x45, 0x67};

	ets[5] = 50;
	ets[6] = 50;
	ets[13] = 2;
	ets[14] = 2;
	head(f, 120);
	tlv(f, 4, "Ethernet3 to gpu-node-7", 23);
	tlv(f, 5, "leaf-01", 7);
	org(f, 0x0080c2, 0x0b, pfc, sizeof(pfc));
	org(f, 0x0080c2, 0x0c, app, sizeof(app));
	org(f, 0x0080c2, 0x09, ets, sizeof(ets));
	org(f, 0x00120f, 4, mfs, sizeof(mfs));
	end(f);
}

START_TEST(decode_full)
{
	struct lldp_peer p;
	struct fb f;

	full(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_str_eq(p.chassis_id, "0c:42:a1:00:00:01");
	ck_assert_uint_eq(p.chassis_subtype, 4);
	ck_assert_str_eq(p.port_id, "swp3");
	ck_assert_uint_eq(p.ttl, 120);
	ck_assert_str_eq(p.port_desc, "Ethernet3 to gpu-node-7");
	ck_assert_str_eq(p.sys_name, "leaf-01");
	ck_assert(p.has_pfc && p.pfc_willing && !p.pfc_mbc);
	ck_assert_uint_eq(p.pfc_cap, 8);
	ck_assert_uint_eq(p.pfc_en, 0x08);
	ck_assert(p.has_app);
	/* the Ethertype entry (selector 1) is not a DSCP one */
	ck_assert_uint_eq(p.dscp_mask, (1ULL << 26) | (1ULL << 48));
	ck_assert_int_eq(lldp_prio_first(p.dscp_prio[26]), 3);
	ck_assert_int_eq(lldp_prio_first(p.dscp_prio[48]), 6);
	ck_assert(p.has_ets_cfg && !p.has_ets_rec);
	ck_assert_uint_eq(p.ets_cfg.prio_tc[0], 0);
	ck_assert_uint_eq(p.ets_cfg.prio_tc[3], 3);
	ck_assert_uint_eq(p.ets_cfg.prio_tc[7], 7);
	ck_assert_uint_eq(p.ets_cfg.tc_bw[0], 50);
	ck_assert_uint_eq(p.ets_cfg.tsa[1], 2);
	ck_assert(p.has_max_frame);
	ck_assert_uint_eq(p.max_frame, 9216);
}
END_TEST

START_TEST(decode_frame_ethertype)
{
	uint8_t fr[2100] = {0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x88, 0xcc};
	struct lldp_peer p;
	struct fb f;

	full(&f);
	memcpy(fr + 14, f.b, f.n);
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), 0);
	ck_assert_str_eq(p.sys_name, "leaf-01");
	fr[13] = 0xcd; /* not LLDP */
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), -EPROTO);
	ck_assert_int_eq(lldp_decode_frame(fr, 13, &p), -EPROTO);
	ck_assert_int_eq(lldp_decode_frame(fr, LLDP_FRAME_MAX + 1, &p), -E2BIG);
}
END_TEST

/* only chassis and port: nothing of DCB or frame size is known */
START_TEST(decode_minimal)
{
	struct lldp_peer p;
	struct fb f;

	head(&f, 20);
	ck_assert_int_eq(decode(&f, &p), 0); /* no End TLV: optional since 802.1AB-2009 */
	ck_assert(!p.has_pfc && !p.has_app && !p.has_ets_cfg && !p.has_max_frame);
	ck_assert_str_eq(p.sys_name, "");
}
END_TEST

START_TEST(decode_ttl_zero)
{
	struct lldp_peer p;
	struct fb f;

	head(&f, 0);
	end(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_uint_eq(p.ttl, 0);
}
END_TEST

START_TEST(reject_order_and_truncation)
{
	static const uint8_t ttl[] = {0, 120};
	struct lldp_peer p;
	struct fb f;

	memset(&p, 0x5a, sizeof(p));
	/* TTL first */
	f.n = 0;
	tlv(&f, 3, ttl, 2);
	ck_assert_int_eq(decode(&f, &p), -EBADMSG);
	/* a length past the frame */
	full(&f);
	f.b[f.n - 2] = 0x01;
	f.b[f.n - 1] = 0x20; /* End TLV now says 32 bytes of value */
	ck_assert_int_eq(decode(&f, &p), -EBADMSG);
	/* cut in the middle of every TLV */
	full(&f);
	for (size_t cut = 0; cut < 20; cut++) {
		struct fb g = f;

		g.n = cut;
		ck_assert_int_eq(decode(&g, &p), -EBADMSG);
	}
	for (size_t cut = 20; cut < f.n; cut++) {
		struct fb g = f;

		g.n = cut;
		(void)decode(&g, &p); /* some cuts land on a TLV boundary: only no overread */
	}
	/* a chassis ID of one byte (the subtype alone) */
	memset(&p, 0x5a, sizeof(p));
	f.n = 0;
	tlv(&f, 1, "\x04", 1);
	ck_assert_int_eq(decode(&f, &p), -EBADMSG);
	/* the output is untouched on failure */
	ck_assert_uint_eq(p.ttl, 0x5a5a);
}
END_TEST

START_TEST(reject_second_mandatory)
{
	static const uint8_t port[] = {5, 'e', 't', 'h', '9'};
	struct lldp_peer p;
	struct fb f;

	head(&f, 120);
	tlv(&f, 2, port, sizeof(port));
	end(&f);
	ck_assert_int_eq(decode(&f, &p), -EBADMSG);
}
END_TEST

START_TEST(repeated_tlvs_unknown)
{
	static const uint8_t pfc3[] = {0x08, 0x08}, pfc4[] = {0x08, 0x10};
	static const uint8_t mfs[] = {0x05, 0xf2};
	struct lldp_peer p;
	struct fb f;

	head(&f, 120);
	org(&f, 0x0080c2, 0x0b, pfc3, 2);
	org(&f, 0x0080c2, 0x0b, pfc4, 2);
	org(&f, 0x00120f, 4, mfs, 2);
	tlv(&f, 5, "a", 1);
	tlv(&f, 5, "b", 1);
	end(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert(!p.has_pfc);
	ck_assert_uint_eq(p.pfc_en, 0);
	ck_assert_str_eq(p.sys_name, "");
	ck_assert(p.has_max_frame);
	ck_assert_uint_eq(p.max_frame, 1522);
}
END_TEST

START_TEST(malformed_optional_ignored)
{
	static const uint8_t pfc_long[] = {0x08, 0x08, 0x00};
	static const uint8_t app_bad[] = {0, 3 << 5 | 5, 0};	      /* a partial entry */
	static const uint8_t app_big[] = {0, 3 << 5 | 5, 0x01, 0x1a}; /* DSCP 282 */
	static const uint8_t app_two[] = {0, 3 << 5 | 5, 0, 26, 0 << 5 | 5, 0, 26};
	struct lldp_peer p;
	struct fb f;

	head(&f, 120);
	org(&f, 0x0080c2, 0x0b, pfc_long, sizeof(pfc_long));
	org(&f, 0x0080c2, 0x0c, app_bad, sizeof(app_bad));
	org(&f, 0x0080c2, 0x09, "\x00", 1);
	org(&f, 0x00120f, 4, "\x24", 1);
	tlv(&f, 127, "\x00\x80", 2); /* an org TLV shorter than its OUI */
	tlv(&f, 4, "tab\there\x7f\xc3", 10);
	end(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert(!p.has_pfc && !p.has_app && !p.has_ets_cfg && !p.has_max_frame);
	ck_assert_str_eq(p.port_desc, "tab?here??");
	/* out-of-range DSCP ignored; one DSCP to two priorities kept as both */
	head(&f, 120);
	org(&f, 0x0080c2, 0x0c, app_big, sizeof(app_big));
	org(&f, 0x0080c2, 0x0c, app_two, sizeof(app_two));
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert(p.has_app);
	ck_assert_uint_eq(p.dscp_mask, 1ULL << 26);
	ck_assert_uint_eq(p.dscp_prio[26], 0x09);
}
END_TEST

START_TEST(ids_rendered)
{
	static const uint8_t ch[] = {5, 1, 10, 0, 0, 1};     /* network address 10.0.0.1 */
	static const uint8_t port[] = {3, 1, 2, 3, 4, 5, 6}; /* MAC */
	static const uint8_t ttl[] = {0, 9};
	uint8_t longid[256];
	struct lldp_peer p;
	struct fb f;

	f.n = 0;
	tlv(&f, 1, ch, sizeof(ch));
	tlv(&f, 2, port, sizeof(port));
	tlv(&f, 3, ttl, 2);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_str_eq(p.chassis_id, "10.0.0.1");
	ck_assert_str_eq(p.port_id, "01:02:03:04:05:06");
	/* the longest ID (255 bytes after the subtype) fits, cut to the buffer */
	memset(longid, 'x', sizeof(longid));
	longid[0] = 7;
	f.n = 0;
	tlv(&f, 1, longid, 256);
	tlv(&f, 2, port, sizeof(port));
	tlv(&f, 3, ttl, 2);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_uint_eq(strlen(p.chassis_id), LLDP_ID_MAX - 1);
}
END_TEST

START_TEST(same_ignores_ttl)
{
	struct lldp_peer a, b;
	struct fb f;

	full(&f);
	ck_assert_int_eq(decode(&f, &a), 0);
	head(&f, 30);
	ck_assert_int_eq(decode(&f, &b), 0);
	ck_assert(!lldp_peer_same(&a, &b));
	full(&f);
	f.b[18] = 7; /* TTL 120 -> 1912 */
	ck_assert_int_eq(decode(&f, &b), 0);
	ck_assert_uint_ne(a.ttl, b.ttl);
	ck_assert(lldp_peer_same(&a, &b));
}
END_TEST

/* Only the nearest bridge's untagged frames: another group address, a tag in the data */
START_TEST(frame_nearest_bridge_untagged)
{
	uint8_t fr[2100] = {0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x88, 0xcc};
	uint8_t tagged[2100] = {0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00, 0x09,
				0x88, 0xcc};
	struct lldp_peer p;
	struct fb f;

	full(&f);
	memcpy(fr + 14, f.b, f.n);
	memcpy(tagged + 18, f.b, f.n);
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), 0);
	ck_assert_int_eq(lldp_decode_frame(tagged, 18 + f.n, &p), -EPROTO);
	tagged[14] = tagged[15] = 0; /* a priority tag is still a tag in the data */
	ck_assert_int_eq(lldp_decode_frame(tagged, 18 + f.n, &p), -EPROTO);
	fr[5] = 0x03; /* nearest non-TPMR bridge: past a TPMR, not the switch port */
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), -EADDRNOTAVAIL);
	fr[5] = 0x00; /* nearest customer bridge */
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), -EADDRNOTAVAIL);
	memcpy(fr, "\x02\x00\x00\x00\x00\x02", 6); /* unicast */
	ck_assert_int_eq(lldp_decode_frame(fr, 14 + f.n, &p), -EADDRNOTAVAIL);
}
END_TEST

/* a DCBX TLV (OUI 00-1B-21) of @sub: Control, then a PFC feature with @flags and @pfc */
static void dcbx(struct fb *f, uint8_t sub, uint8_t flags, uint8_t pfc, bool tail)
{
	uint8_t v[64], n = 0;

	v[n++] = 1 << 1; /* Control: oper 0, max 0, seq 7, ack 6 */
	v[n++] = 10;
	memcpy(v + n, "\x00\x00\x00\x00\x00\x07\x00\x00\x00\x06", 10);
	n += 10;
	v[n++] = 3 << 1; /* PFC: oper 0, max 0, flags, subtype 0, bitmap (, TCs in CEE) */
	v[n++] = sub == 2 ? 6 : 5;
	v[n++] = 0;
	v[n++] = 1;
	v[n++] = flags;
	v[n++] = 0;
	v[n++] = pfc;
	if (sub == 2)
		v[n++] = 8;
	if (tail) { /* an Application feature (v1.01 type 4) after it, iSCSI to priority 4 */
		memcpy(v + n, "\x08\x0a\x00\x00\x80\x00\x0c\xbc\x00\x00\x00\x10", 12);
		n += 12;
	}
	org(f, 0x001b21, sub, v, n);
}

START_TEST(decode_cee_pfc)
{
	struct lldp_peer p;
	struct fb f;
	uint8_t en = 0;
	bool w = false;

	head(&f, 120);
	dcbx(&f, 2, 0x80 | 0x40 | 0x20, 0x08, true); /* enable, willing, error; PFC on 3 */
	end(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_uint_eq(p.cee.version, LLDP_DCBX_CEE);
	ck_assert(p.cee.has_pfc && p.cee.pfc_enable && p.cee.pfc_willing && p.cee.pfc_error);
	ck_assert_uint_eq(p.cee.pfc_en, 0x08);
	ck_assert_uint_eq(p.cee.pfc_tcs, 8);
	ck_assert_uint_eq(p.cee.pfc_max_ver, 1);
	ck_assert(!p.has_pfc && !p.has_ieee);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_CEE);
	ck_assert_str_eq(lldp_dcbx_name(lldp_dcbx_version(&p)), "cee");
	ck_assert(lldp_peer_pfc(&p, &en, &w));
	ck_assert_uint_eq(en, 0x08);
	ck_assert(w);
	/* the feature not enabled: no priority has PFC, whatever the bitmap says */
	head(&f, 120);
	dcbx(&f, 2, 0x40, 0x08, false);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert(lldp_peer_pfc(&p, &en, &w));
	ck_assert_uint_eq(en, 0);
	/* CIN (v1.00, subtype 1): the PFC feature is the bitmap alone */
	head(&f, 120);
	dcbx(&f, 1, 0x80, 0x18, false);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_CIN);
	ck_assert(lldp_peer_pfc(&p, &en, &w));
	ck_assert_uint_eq(en, 0x18);
	ck_assert(!w);
	/* CEE beside CIN, whatever the order: CEE */
	head(&f, 120);
	dcbx(&f, 2, 0x80, 0x08, false);
	dcbx(&f, 1, 0x80, 0x18, false);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_CEE);
	ck_assert_uint_eq(p.cee.pfc_en, 0x08);
	/* no partner at all said DCBX: none */
	head(&f, 120);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_NONE);
	ck_assert(!lldp_peer_pfc(&p, &en, &w));
}
END_TEST

/* IEEE and CEE both: the IEEE TLVs are the ones that count */
START_TEST(decode_ieee_wins_over_cee)
{
	struct lldp_peer p;
	struct fb f;
	uint8_t en = 0;
	bool w = true;

	full(&f);
	f.n -= 2; /* before the End TLV */
	dcbx(&f, 2, 0x80 | 0x40, 0x10, false);
	end(&f);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_IEEE);
	ck_assert_uint_eq(p.cee.version, LLDP_DCBX_CEE); /* still kept, for show */
	ck_assert(lldp_peer_pfc(&p, &en, &w));
	ck_assert_uint_eq(en, 0x08); /* the IEEE TLV's priority 3, not CEE's 4 */
	/* an IEEE partner without a PFC TLV: its CEE PFC does not stand in */
	head(&f, 120);
	org(&f, 0x00120f, 4, "\x24\x00", 2);
	org(&f, 0x0080c2, 0x0c, "\x00\x65\x00\x1a", 4);
	dcbx(&f, 2, 0x80, 0x08, false);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_IEEE);
	ck_assert(!lldp_peer_pfc(&p, &en, &w));
}
END_TEST

/* Malformed or repeated DCBX TLVs: not advertised, the rest of the LLDPDU stands */
START_TEST(decode_cee_malformed)
{
	static const uint8_t runs_past[] = {3 << 1, 9, 0, 0, 0x80, 0, 8, 8};
	static const uint8_t short_pfc[] = {3 << 1, 5, 0, 0, 0x80, 0, 8};
	static const uint8_t stray[] = {3 << 1, 6, 0, 0, 0x80, 0, 8, 8, 0};
	struct lldp_peer p;
	struct fb f;

	head(&f, 120);
	tlv(&f, 5, "leaf-01", 7);
	org(&f, 0x001b21, 2, runs_past, sizeof(runs_past));
	org(&f, 0x001b21, 2, short_pfc, sizeof(short_pfc));
	org(&f, 0x001b21, 2, stray, sizeof(stray));
	org(&f, 0x001b21, 3, "\x06\x06\x00\x00\x80\x00\x08\x08", 8); /* unknown subtype */
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_str_eq(p.sys_name, "leaf-01");
	ck_assert_uint_eq(p.cee.version, 0);
	ck_assert_int_eq(lldp_dcbx_version(&p), LLDP_DCBX_NONE);
	/* twice: which one? neither */
	head(&f, 120);
	dcbx(&f, 2, 0x80, 0x08, false);
	dcbx(&f, 2, 0x80, 0x10, false);
	ck_assert_int_eq(decode(&f, &p), 0);
	ck_assert_uint_eq(p.cee.version, 0);
}
END_TEST

Suite *suite_lldp(void)
{
	Suite *s = suite_create("lldp");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, decode_full);
	tcase_add_test(tc, decode_frame_ethertype);
	tcase_add_test(tc, decode_minimal);
	tcase_add_test(tc, decode_ttl_zero);
	tcase_add_test(tc, reject_order_and_truncation);
	tcase_add_test(tc, reject_second_mandatory);
	tcase_add_test(tc, repeated_tlvs_unknown);
	tcase_add_test(tc, malformed_optional_ignored);
	tcase_add_test(tc, ids_rendered);
	tcase_add_test(tc, same_ignores_ttl);
	tcase_add_test(tc, frame_nearest_bridge_untagged);
	tcase_add_test(tc, decode_cee_pfc);
	tcase_add_test(tc, decode_ieee_wins_over_cee);
	tcase_add_test(tc, decode_cee_malformed);
	suite_add_tcase(s, tc);
	return s;
}
