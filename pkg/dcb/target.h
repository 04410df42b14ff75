/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a port's DCB configuration must meet: the types pkg/dcb plans and
 * describes against. netconf turns a profile (or the union of the PF
 * requirements on a port) into one of these.
 */
#ifndef RQ_DCB_TARGET_H
#define RQ_DCB_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#define RQ_NPRIO 8
#define RQ_NDSCP 64

enum rq_trust { RQ_TRUST_PCP = 0, RQ_TRUST_DSCP = 1 };

/*
 * IEEE 802.1Qaz TSA values as in linux/dcbnl.h. In JSON, "tsa" is spelt with
 * names only: "strict" (0), "ets" (2), "vendor" (255); numbers and the
 * credit-based shaper are refused. Bandwidth is for ETS TCs only: a strict or
 * vendor TC has tcBw 0, and the ETS TCs' tcBw sum to 100 when any exists (as
 * mlx5 validates; it reports 100 for non-ETS TCs, so those are never compared).
 */
enum { RQ_TSA_STRICT = 0, RQ_TSA_ETS = 2, RQ_TSA_VENDOR = 255 };

struct rq_ets {
	bool present;
	uint8_t tc_bw[RQ_NPRIO];   /* percent: ETS TCs sum to 100, others 0 */
	uint8_t tsa[RQ_NPRIO];	   /* 0 strict, 2 ets, 255 vendor */
	uint8_t prio_tc[RQ_NPRIO]; /* priority -> traffic class 0-7 */
};

struct dcb_target {
	bool has_trust; /* trust is required */
	enum rq_trust trust;
	uint8_t dscp_prio[RQ_NDSCP]; /* DSCP -> priority where dscp_override has the bit */
	uint64_t dscp_override;	     /* bit d set: DSCP d -> dscp_prio[d] is required */
	uint8_t pfc;		     /* bitmap of priorities that must have PFC on */
	struct rq_ets ets;	     /* present: must hold exactly */
};

#endif
