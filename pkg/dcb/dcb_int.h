/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the DCB plan (plan.c) and apply/restore (dcb.c). Internal to pkg/dcb. */
#ifndef RQ_DCB_INT_H
#define RQ_DCB_INT_H

#include "pkg/dcb/dcb.h"

/* The port's ETS is @ets (bandwidth compared for ETS TCs only). */
bool dcb_ets_equal(const struct dcb_port_state *cur, const struct rq_ets *ets);
bool dcb_app_in(const struct dcb_app_entry *v, size_t n, const struct dcb_app_entry *a);
void dcb_trust_text(const uint8_t *sel, size_t n, char *buf, size_t len);
/* Bandwidths not compared (non-ETS TCs of @want, beyond ets_cap) print as "-". */
void dcb_ets_text(const struct dcb_port_state *cur, const struct rq_ets *want, const uint8_t *bw,
		  const uint8_t *tsa, const uint8_t *ptc, char *buf, size_t len);

#endif
