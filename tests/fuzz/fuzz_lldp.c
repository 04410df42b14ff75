// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for pkg/lldp (make fuzz-lldp): what the agent's AF_PACKET
 * socket hands it is anybody's bytes. The first input byte picks the shape:
 * odd -> a whole Ethernet frame, even -> an LLDPDU alone (the TLV walk, where
 * the fuzzer should spend its time). The input is copied into an exactly-sized
 * buffer so ASan flags any read past its end; the decoder's own promises
 * (terminated strings, a DSCP map within its mask, unchanged output on failure,
 * the same answer twice) are checked, and a broken one is a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "pkg/lldp/lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct lldp_peer *p)
{
	if (!memchr(p->chassis_id, '\0', sizeof(p->chassis_id)) ||
	    !memchr(p->port_id, '\0', sizeof(p->port_id)) ||
	    !memchr(p->port_desc, '\0', sizeof(p->port_desc)) ||
	    !memchr(p->sys_name, '\0', sizeof(p->sys_name)))
		abort();
	for (int d = 0; d < 64; d++)
		if (!(p->dscp_mask & (1ULL << d)) != !p->dscp_prio[d])
			abort();
	if (p->dscp_mask && !p->has_app)
		abort();
	if (!p->has_pfc && (p->pfc_en || p->pfc_cap))
		abort();
	/* the DCBX flavour: IEEE exactly when an 802.1Qaz TLV is kept; CEE/CIN only with its TLV */
	if (p->has_ieee != (p->has_pfc || p->has_app || p->has_ets_cfg || p->has_ets_rec))
		abort();
	if (p->cee.version > LLDP_DCBX_CIN || (p->cee.version && p->cee.version < LLDP_DCBX_CEE) ||
	    (!p->cee.version && (p->cee.has_pfc || p->cee.pfc_en)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lldp_peer a, b, canary;
	uint8_t *buf;
	int r, r2;

	if (size < 1)
		return 0;
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	memset(&a, 0xa5, sizeof(a));
	memset(&canary, 0xa5, sizeof(canary));
	if (data[0] & 1) {
		r = lldp_decode_frame(buf, size - 1, &a);
		r2 = lldp_decode_frame(buf, size - 1, &b);
	} else {
		r = lldp_decode_pdu(buf, size - 1, &a);
		r2 = lldp_decode_pdu(buf, size - 1, &b);
	}
	if (r != r2 || r > 0)
		abort();
	if (r == 0) {
		check(&a);
		if (!lldp_peer_same(&a, &b) || a.ttl != b.ttl)
			abort();
	} else if (memcmp(&a, &canary, sizeof(a)) != 0) {
		abort(); /* a refused frame left something behind */
	}
	free(buf);
	return 0;
}
