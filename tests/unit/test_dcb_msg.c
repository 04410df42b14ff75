// SPDX-License-Identifier: Apache-2.0
/*
 * pkg/dcb message codec: requests byte for byte (golden bytes captured from
 * iproute2 6.1's dcb under strace, see tests/dcb/run.sh), reply decoding,
 * and malformed replies that must never be read past their end. Replies are
 * copied into exactly-sized heap buffers so ASan (make asan-test) sees any
 * overread.
 */
#include <check.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkg/dcb/dcb_msg.h"

/* The request after its nlmsghdr (seq and pid differ from run to run). */
static void assert_payload(struct nl_msg *m, const unsigned char *want, size_t n)
{
	struct nlmsghdr *h;

	ck_assert_ptr_nonnull(m);
	h = nlmsg_hdr(m);
	ck_assert_uint_eq(h->nlmsg_len, NLMSG_HDRLEN + n);
	ck_assert_mem_eq((char *)h + NLMSG_HDRLEN, want, n);
	nlmsg_free(m);
}

/* dcb app add dev d0 dscp-prio 26:3 (iproute2 6.1) */
START_TEST(golden_app_add)
{
	static const unsigned char want[] = {
	    0x00, 0x14, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x64, 0x30, 0x00, 0x00, 0x10, 0x00,
	    0x0d, 0x80, 0x0c, 0x00, 0x03, 0x80, 0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00,
	};
	struct dcb_app_entry a = {5, 26, 3};

	assert_payload(dcb_msg_app("d0", DCB_CMD_IEEE_SET, &a, 1), want, sizeof(want));
}
END_TEST

/* dcb app del dev d0 dscp-prio 26:3 10:1 (iproute2 6.1) */
START_TEST(golden_app_del)
{
	static const unsigned char want[] = {
	    0x00, 0x1b, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x64, 0x30, 0x00, 0x00,
	    0x18, 0x00, 0x0d, 0x80, 0x14, 0x00, 0x03, 0x80, 0x08, 0x00, 0x01, 0x00,
	    0x05, 0x03, 0x1a, 0x00, 0x08, 0x00, 0x01, 0x00, 0x05, 0x01, 0x0a, 0x00,
	};
	struct dcb_app_entry a[] = {{5, 26, 3}, {5, 10, 1}};

	assert_payload(dcb_msg_app("d0", DCB_CMD_IEEE_DEL, a, 2), want, sizeof(want));
}
END_TEST

START_TEST(encode_trust_and_sdcbx)
{
	/* apptrust order dscp pcp: DSCP is an IEEE selector (type 1), PCP is not (type 2) */
	static const unsigned char trust[] = {
	    0x00, 0x14, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00, 0x70, 0x30, 0x00, 0x00,
	    0x18, 0x00, 0x0d, 0x80, 0x14, 0x00, 0x0b, 0x80, 0x05, 0x00, 0x01, 0x00,
	    0x05, 0x00, 0x00, 0x00, 0x05, 0x00, 0x02, 0x00, 0xff, 0x00, 0x00, 0x00,
	};
	static const unsigned char sdcbx[] = {
	    0x00, DCB_CMD_SDCBX, 0x00, 0x00, 0x07,	    0x00, 0x01, 0x00, 0x70, 0x30,
	    0x00, 0x00,		 0x05, 0x00, DCB_ATTR_DCBX, 0x00, 0x09, 0x00, 0x00, 0x00,
	};
	const uint8_t sel[] = {IEEE_8021QAZ_APP_SEL_DSCP, RQ_DCB_APP_SEL_PCP};

	assert_payload(dcb_msg_trust("p0", sel, 2), trust, sizeof(trust));
	assert_payload(dcb_msg_sdcbx("p0", DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE), sdcbx,
		       sizeof(sdcbx));
}
END_TEST

START_TEST(encode_pfc_ets_keep_driver_fields)
{
	struct dcb_port_state cur;
	struct rq_ets ets = {.present = true,
			     .tc_bw = {50, 50},
			     .tsa = {2, 2, 0, 0, 0, 0, 0, 0},
			     .prio_tc = {0, 0, 0, 1, 0, 0, 0, 0}};
	struct nl_msg *m;
	struct nlattr *ieee, *a;
	struct ieee_pfc pfc;
	struct ieee_ets e;
	char *p;

	memset(&cur, 0, sizeof(cur));
	cur.raw_pfc.pfc_cap = 8;
	cur.raw_pfc.mbc = 1;
	cur.raw_pfc.delay = 0x1234;
	cur.raw_pfc.pfc_en = 0x10;
	cur.raw_ets.willing = 1;
	cur.raw_ets.ets_cap = 8;
	cur.raw_ets.tc_rx_bw[2] = 77;
	m = dcb_msg_set_pfc("p0", &cur, 0x08);
	ck_assert_ptr_nonnull(m);
	p = (char *)nlmsg_data(nlmsg_hdr(m));
	ck_assert_uint_eq(((struct dcbmsg *)p)->cmd, DCB_CMD_IEEE_SET);
	ieee = (struct nlattr *)(p + 4 + 8); /* dcbmsg, IFNAME "p0" padded */
	ck_assert_uint_eq(ieee->nla_type, NLA_F_NESTED | DCB_ATTR_IEEE);
	a = (struct nlattr *)((char *)ieee + 4);
	ck_assert_uint_eq(a->nla_type, DCB_ATTR_IEEE_PFC);
	ck_assert_uint_eq(a->nla_len, 4 + sizeof(pfc));
	memcpy(&pfc, (char *)a + 4, sizeof(pfc));
	ck_assert_uint_eq(pfc.pfc_en, 0x08);
	ck_assert_uint_eq(pfc.pfc_cap, 8);
	ck_assert_uint_eq(pfc.mbc, 1);
	ck_assert_uint_eq(pfc.delay, 0x1234);
	nlmsg_free(m);

	m = dcb_msg_set_ets("p0", &cur, &ets);
	ck_assert_ptr_nonnull(m);
	a = (struct nlattr *)((char *)nlmsg_data(nlmsg_hdr(m)) + 4 + 8 + 4);
	ck_assert_uint_eq(a->nla_type, DCB_ATTR_IEEE_ETS);
	memcpy(&e, (char *)a + 4, sizeof(e));
	ck_assert_uint_eq(e.willing, 1);
	ck_assert_uint_eq(e.ets_cap, 8);
	ck_assert_uint_eq(e.tc_rx_bw[2], 77);
	ck_assert_uint_eq(e.tc_tx_bw[0], 50);
	ck_assert_uint_eq(e.tc_tsa[1], 2);
	ck_assert_uint_eq(e.prio_tc[3], 1);
	nlmsg_free(m);
}
END_TEST

/* ---- replies ---- */

static struct nl_msg *reply_new(int cmd)
{
	struct dcbmsg d = {.dcb_family = AF_UNSPEC, .cmd = (__u8)cmd};
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETDCB, 0);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO), 0);
	return m;
}

/* A copy of exactly @len bytes of the message, nlmsg_len set to @len. */
static void *copy_exact(struct nl_msg *m, size_t len)
{
	char *buf = malloc(len ? len : 1);
	uint32_t l = (uint32_t)len;

	ck_assert_ptr_nonnull(buf);
	memcpy(buf, nlmsg_hdr(m), len);
	if (len >= 4)
		memcpy(buf, &l, 4);
	return buf;
}

static int parse_len(struct nl_msg *m, size_t len, struct dcb_port_state *st)
{
	void *buf = copy_exact(m, len);
	int r = dcb_msg_parse_get(buf, len, st);

	free(buf);
	return r;
}

static int parse(struct nl_msg *m, struct dcb_port_state *st)
{
	return parse_len(m, nlmsg_hdr(m)->nlmsg_len, st);
}

static void put_app(struct nl_msg *m, int type, uint8_t sel, uint16_t proto, uint8_t prio)
{
	struct dcb_app a = {.selector = sel, .priority = prio, .protocol = proto};

	ck_assert_int_eq(nla_put(m, type, sizeof(a), &a), 0);
}

/* What a kernel >= 6.2 sends for a port with ETS, PFC, three APP entries and apptrust. */
static struct nl_msg *full_reply(void)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_GET);
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct nlattr *ieee, *t;

	memset(&ets, 0, sizeof(ets));
	memset(&pfc, 0, sizeof(pfc));
	ets.willing = 1;
	ets.ets_cap = 8;
	ets.tc_tx_bw[0] = 60;
	ets.tc_tx_bw[1] = 40;
	ets.tc_tsa[0] = ets.tc_tsa[1] = IEEE_8021QAZ_TSA_ETS;
	ets.prio_tc[3] = 1;
	pfc.pfc_cap = 8;
	pfc.pfc_en = 0x18;
	pfc.delay = 7;
	ck_assert_int_eq(nla_put_string(m, DCB_ATTR_IFNAME, "p0"), 0);
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	ck_assert_int_eq(nla_put(m, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets), 0);
	ck_assert_int_eq(nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc), 0);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	put_app(m, DCB_ATTR_IEEE_APP, 5, 26, 3);
	put_app(m, DCB_ATTR_IEEE_APP, 5, 48, 6);
	put_app(m, RQ_DCB_ATTR_DCB_APP, RQ_DCB_APP_SEL_PCP, 1, 2);
	nla_nest_end(m, t);
	t = nla_nest_start(m, RQ_DCB_ATTR_APP_TRUST_TABLE);
	nla_put_u8(m, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
	nla_put_u8(m, RQ_DCB_ATTR_DCB_APP, RQ_DCB_APP_SEL_PCP);
	nla_nest_end(m, t);
	nla_nest_end(m, ieee);
	ck_assert_int_eq(nla_put_u8(m, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE),
			 0);
	return m;
}

START_TEST(decode_full)
{
	struct nl_msg *m = full_reply();
	struct dcb_port_state st;

	ck_assert_int_eq(parse(m, &st), 0);
	ck_assert(st.has_pfc);
	ck_assert_uint_eq(st.pfc_en, 0x18);
	ck_assert_uint_eq(st.pfc_cap, 8);
	ck_assert_uint_eq(st.raw_pfc.delay, 7);
	ck_assert(st.has_ets);
	ck_assert_uint_eq(st.ets_willing, 1);
	ck_assert_uint_eq(st.tc_tx_bw[0], 60);
	ck_assert_uint_eq(st.tc_tx_bw[1], 40);
	ck_assert_uint_eq(st.tc_tsa[1], IEEE_8021QAZ_TSA_ETS);
	ck_assert_uint_eq(st.prio_tc[3], 1);
	ck_assert_uint_eq(st.n_app, 3);
	ck_assert_uint_eq(st.app[0].selector, 5);
	ck_assert_uint_eq(st.app[0].protocol, 26);
	ck_assert_uint_eq(st.app[0].priority, 3);
	ck_assert_uint_eq(st.app[1].protocol, 48);
	ck_assert_uint_eq(st.app[2].selector, RQ_DCB_APP_SEL_PCP);
	ck_assert_uint_eq(st.app[2].priority, 2);
	ck_assert(st.has_trust);
	ck_assert_uint_eq(st.n_trust, 2);
	ck_assert_uint_eq(st.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	ck_assert_uint_eq(st.trust[1], RQ_DCB_APP_SEL_PCP);
	ck_assert(st.has_dcbx);
	ck_assert_uint_eq(st.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	nlmsg_free(m);
}
END_TEST

/* A 6.1 kernel, a driver without PFC/ETS: nothing reported, nothing invented. */
START_TEST(decode_minimal)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_GET);
	struct dcb_port_state st;
	struct nlattr *ieee = nla_nest_start(m, DCB_ATTR_IEEE);

	nla_nest_end(m, nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE));
	nla_nest_end(m, ieee);
	ck_assert_int_eq(parse(m, &st), 0);
	ck_assert(!st.has_pfc && !st.has_ets && !st.has_trust && !st.has_dcbx);
	ck_assert_uint_eq(st.n_app, 0);
	nlmsg_free(m);
}
END_TEST

/* Every truncation of a valid reply: an error or a consistent prefix, never an overread. */
START_TEST(decode_every_truncation)
{
	struct nl_msg *m = full_reply();
	size_t full = nlmsg_hdr(m)->nlmsg_len;
	/* the IEEE nest starts after nlmsghdr, dcbmsg and IFNAME ("p0\0" padded: 8) */
	size_t ieee_start = NLMSG_HDRLEN + 4 + 8;
	int bad = 0;

	for (size_t len = 0; len < full; len++) {
		struct dcb_port_state st;
		int r = parse_len(m, len, &st);

		if (len < NLMSG_HDRLEN + 4 || (len >= ieee_start + NLA_HDRLEN && len < full - 8))
			ck_assert_int_eq(r, -EBADMSG); /* inside the header or the IEEE nest */
		else
			ck_assert(r == 0 || r == -EBADMSG);
		bad += r == -EBADMSG;
	}
	ck_assert_int_gt(bad, (int)(full / 2));
	nlmsg_free(m);
}
END_TEST

/* The nlmsg_len field says more than the buffer holds. */
START_TEST(decode_len_field_lies)
{
	struct nl_msg *m = full_reply();
	size_t full = nlmsg_hdr(m)->nlmsg_len;
	char *buf = copy_exact(m, full);
	struct dcb_port_state st;
	uint32_t big = (uint32_t)full + 64;

	memcpy(buf, &big, 4);
	ck_assert_int_eq(dcb_msg_parse_get(buf, full, &st), -EBADMSG);
	free(buf);
	nlmsg_free(m);
}
END_TEST

static int parse_ieee_attr(int type, const void *data, int len)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_GET);
	struct nlattr *ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	struct dcb_port_state st;
	int r;

	ck_assert_int_eq(nla_put(m, type, len, data), 0);
	nla_nest_end(m, ieee);
	r = parse(m, &st);
	nlmsg_free(m);
	return r;
}

START_TEST(decode_short_attributes)
{
	unsigned char zeros[512] = {0};
	unsigned char app3[8] = {3, 0, 1, 0, 5, 3, 26}; /* nested APP with 3 payload bytes */
	unsigned char trust0[4] = {4, 0, 1, 0};		/* trust entry without its byte */

	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_ETS, zeros, sizeof(struct ieee_ets) - 1),
			 -EBADMSG);
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_PFC, zeros, sizeof(struct ieee_pfc) - 1),
			 -EBADMSG);
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_PFC, zeros, 0), -EBADMSG);
	app3[0] = 7; /* nla_len 7: 3 bytes of struct dcb_app */
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_APP_TABLE, app3, 8), -EBADMSG);
	ck_assert_int_eq(parse_ieee_attr(RQ_DCB_ATTR_APP_TRUST_TABLE, trust0, 4), -EBADMSG);
	app3[0] = 2; /* nla_len below the header size */
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_APP_TABLE, app3, 8), -EBADMSG);
	app3[0] = 12; /* nla_len past the end of its parent */
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_APP_TABLE, app3, 8), -EBADMSG);
	/* unknown attributes and bigger-than-known structs are fine */
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_MAXRATE, zeros, 3), 0);
	ck_assert_int_eq(parse_ieee_attr(DCB_ATTR_IEEE_ETS, zeros, sizeof(struct ieee_ets) + 9), 0);
}
END_TEST

START_TEST(decode_short_dcbx)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_GET);
	struct dcb_port_state st;

	ck_assert_int_eq(nla_put(m, DCB_ATTR_DCBX, 0, NULL), 0);
	ck_assert_int_eq(parse(m, &st), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

/* Documented: a repeated attribute, the last wins; a repeated table replaces. */
START_TEST(decode_duplicates_last_wins)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_GET);
	struct nlattr *ieee = nla_nest_start(m, DCB_ATTR_IEEE), *t;
	struct ieee_pfc pfc;
	struct dcb_port_state st;

	memset(&pfc, 0, sizeof(pfc));
	pfc.pfc_en = 0x01;
	nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	pfc.pfc_en = 0x08;
	nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	put_app(m, DCB_ATTR_IEEE_APP, 5, 1, 1);
	put_app(m, DCB_ATTR_IEEE_APP, 5, 2, 2);
	nla_nest_end(m, t);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	put_app(m, DCB_ATTR_IEEE_APP, 5, 26, 3);
	nla_nest_end(m, t);
	nla_nest_end(m, ieee);
	ck_assert_int_eq(parse(m, &st), 0);
	ck_assert_uint_eq(st.pfc_en, 0x08);
	ck_assert_uint_eq(st.n_app, 1);
	ck_assert_uint_eq(st.app[0].protocol, 26);
	nlmsg_free(m);
}
END_TEST

START_TEST(decode_too_many_apps_untouched_output)
{
	struct nl_msg *m = nlmsg_alloc_size(8192);
	struct dcbmsg d = {.cmd = DCB_CMD_IEEE_GET};
	struct nlattr *ieee, *t;
	struct dcb_port_state st;

	ck_assert_ptr_nonnull(m);
	nlmsg_hdr(m)->nlmsg_type = RTM_GETDCB;
	nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO);
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	for (int i = 0; i <= RQ_DCB_APP_MAX; i++)
		put_app(m, DCB_ATTR_IEEE_APP, 1, (uint16_t)(0x600 + i), 1);
	nla_nest_end(m, t);
	nla_nest_end(m, ieee);
	memset(&st, 0xa5, sizeof(st));
	ck_assert_int_eq(parse(m, &st), -E2BIG);
	ck_assert_uint_eq(((unsigned char *)&st)[0], 0xa5);
	ck_assert_uint_eq(st.n_app, (size_t)0xa5a5a5a5a5a5a5a5ull);
	nlmsg_free(m);
}
END_TEST

START_TEST(decode_wrong_cmd)
{
	struct nl_msg *m = reply_new(DCB_CMD_IEEE_SET);
	struct dcb_port_state st;

	ck_assert_int_eq(parse(m, &st), -EBADMSG);
	ck_assert_int_eq(dcb_msg_parse_get(NULL, 0, &st), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

static int status_of(int cmd, int attr, const void *data, int len)
{
	struct nl_msg *m = reply_new(cmd);
	void *buf;
	int r;

	if (attr)
		ck_assert_int_eq(nla_put(m, attr, len, data), 0);
	buf = copy_exact(m, nlmsg_hdr(m)->nlmsg_len);
	r = dcb_msg_parse_status(buf, nlmsg_hdr(m)->nlmsg_len);
	free(buf);
	nlmsg_free(m);
	return r;
}

START_TEST(status_byte)
{
	uint8_t ok = 0, eexist = (uint8_t)-EEXIST, eperm = (uint8_t)-EPERM, one = 1;

	ck_assert_int_eq(status_of(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, &ok, 1), 0);
	ck_assert_int_eq(status_of(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, &eexist, 1), -EEXIST);
	ck_assert_int_eq(status_of(DCB_CMD_IEEE_DEL, DCB_ATTR_IEEE, &eperm, 1), -EPERM);
	ck_assert_int_eq(status_of(DCB_CMD_SDCBX, DCB_ATTR_DCBX, &ok, 1), 0);
	ck_assert_int_eq(status_of(DCB_CMD_SDCBX, DCB_ATTR_DCBX, &one, 1), -EIO);
	/* the status sits in the attribute of its command */
	ck_assert_int_eq(status_of(DCB_CMD_SDCBX, DCB_ATTR_IEEE, &eexist, 1), -EBADMSG);
	ck_assert_int_eq(status_of(DCB_CMD_IEEE_SET, 0, NULL, 0), -EBADMSG);
	ck_assert_int_eq(status_of(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, NULL, 0), -EBADMSG);
	ck_assert_int_eq(status_of(DCB_CMD_IEEE_GET, DCB_ATTR_IEEE, &ok, 1), -EBADMSG);
}
END_TEST

START_TEST(ifname_check)
{
	ck_assert(dcb_msg_ifname_ok("p0"));
	ck_assert(dcb_msg_ifname_ok("abcdefghijklmno"));
	ck_assert(!dcb_msg_ifname_ok("abcdefghijklmnop"));
	ck_assert(!dcb_msg_ifname_ok(""));
	ck_assert(!dcb_msg_ifname_ok(NULL));
}
END_TEST

Suite *suite_dcb_msg(void);
Suite *suite_dcb_msg(void)
{
	Suite *s = suite_create("dcb_msg");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, golden_app_add);
	tcase_add_test(tc, golden_app_del);
	tcase_add_test(tc, encode_trust_and_sdcbx);
	tcase_add_test(tc, encode_pfc_ets_keep_driver_fields);
	tcase_add_test(tc, decode_full);
	tcase_add_test(tc, decode_minimal);
	tcase_add_test(tc, decode_every_truncation);
	tcase_add_test(tc, decode_len_field_lies);
	tcase_add_test(tc, decode_short_attributes);
	tcase_add_test(tc, decode_short_dcbx);
	tcase_add_test(tc, decode_duplicates_last_wins);
	tcase_add_test(tc, decode_too_many_apps_untouched_output);
	tcase_add_test(tc, decode_wrong_cmd);
	tcase_add_test(tc, status_byte);
	tcase_add_test(tc, ifname_check);
	suite_add_tcase(s, tc);
	return s;
}
