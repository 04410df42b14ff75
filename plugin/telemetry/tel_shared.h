/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QP census of shared RDMA devices (DESIGN.md "Shared RDMA devices"):
 * each device's QPs (and RDMA-CM ids) read once per census, whatever the
 * number of its attachments, and given to them by pkg/rdma/qp_owner.h; the
 * user QPs nobody owns are the device's (rdma_qos_dev_qps_unattributed).
 */
#ifndef RQ_CORE_TEL_SHARED_H
#define RQ_CORE_TEL_SHARED_H

#include "plugin/telemetry/telemetry.h"

/* Census every shared device of @s's attachments now (tel_collect, when @s->census). */
void tel_shared_census(const struct rq_env *env, struct tel_sample *s);
/* @s takes @p's shared devices' unattributed QPs (the census carried between censuses). */
void tel_shared_carry(struct tel_sample *s, const struct tel_sample *p);
void tel_devs_fini(struct tel_sample *s);

#endif
