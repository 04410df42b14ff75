/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_qos_port_ecn_ineffective: the link partner pauses while ECN never fires (tel_ecn.c). */
#ifndef RQ_PLUGIN_TEL_ECN_H
#define RQ_PLUGIN_TEL_ECN_H

#include "plugin/telemetry/telemetry.h"

/*
 * Per priority of @pf over the interval @prev -> @cur: 1 when the partner
 * paused a PFC priority (rx pause frames went up) while no attachment on @pf
 * counted an ECN-marked packet or a CNP; 0 when it did not pause or they
 * counted, or when the host caused the pauses (it sent pause frames on the
 * priority too), the port was in a pause storm (tel_pause_storm) or none of
 * the attachments on the priority sent anything (tel_ecn.c says each); -1 (no series) where the
 * pause counter or every attachment's congestion counters are missing.
 */
void tel_ecn_ineffective(const struct tel_sample *prev, const struct tel_sample *cur,
			 const struct tel_pf *pf, int8_t ret[PS_PRIOS]);

#endif
