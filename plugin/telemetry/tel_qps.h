/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QP census of each attachment (DESIGN.md "Who"): its RDMA device's QPs
 * by type and state, the class each connected QP in RTS or RTR (a responder
 * sends ACKs and READ responses) sends with where the driver dumps QP
 * contexts, and which of a lossless attachment's QPs leave on a priority
 * without PFC under the PF's DSCP map. The agent's rdma_qos_vf_qps* families
 * and `show --qps` read it from the sample.
 */
#ifndef RQ_CORE_TEL_QPS_H
#define RQ_CORE_TEL_QPS_H

#include "plugin/telemetry/telemetry.h"

/*
 * Take @a's census now (tel_collect, when @s->census): @where is the netns
 * path its device is in ("" the host's, NULL: not reachable now: nothing is
 * read). Its QPs are judged against its PF's DSCP map and PFC in @s.
 */
void tel_census(const struct rq_env *env, const struct tel_sample *s, struct tel_att *a,
		const char *where);
/*
 * @a takes @qps (moved: @qps is left empty) as its census, and @qp_by (owned,
 * may be NULL): a shared device's QPs attributed to it (tel_shared.c).
 */
void tel_census_take(const struct tel_sample *s, struct tel_att *a, struct rq_qp_list *qps,
		     uint8_t *qp_by);
/* @a takes @p's census (the same attachment in an earlier sample; NULL: none), judged anew. */
void tel_census_carry(const struct tel_sample *s, struct tel_att *a, const struct tel_att *p);
void tel_census_fini(struct tel_att *a);
/* A copy of @a's census pointers in another sample: drop them without freeing. */
void tel_census_forget(struct tel_att *a);

/*
 * Whether @q is connected (RC, UC, XRC_INI, XRC_TGT: rdma_qp_ctx_class): it
 * sends with the class of its context's primary path. A UD QP's class is per
 * send (its address handle), a DCI's per send too (the WQE's address
 * vector), GSI/SMI are the MAD layer's: the class in their context is not
 * what they send; a DCT's context is not dumped.
 */
bool tel_qp_connected(const struct rq_qp *q);

/*
 * Whether @a is lossless (its profile wants PFC), the class of each of its
 * connected QPs in RTS or RTR (a UC QP: RTS only) is known, it has no DCI,
 * DCT or unnamed driver QP in RTS or RTR (their class is not in any dump),
 * its sending QPs are not UD only, and the kernel listed its driver QPs
 * (drv_hidden false). A UD QP's class is per send: never judged itself.
 */
bool tel_census_judges(const struct tel_att *a);
/*
 * Why @a is not judged: NULL it is; "" no census or not lossless; else the
 * reason, for `show --qps`.
 */
const char *tel_census_unjudged(const struct tel_att *a);
/* QPs of @a in RTS or RTR whose priority has no PFC; -1: not judged (tel_census_judges false). */
int tel_census_off(const struct tel_att *a);

/*
 * The distinct (type, state) pairs of @a's QPs with their counts, at most
 * @max, in first-seen order; and the distinct classes of its connected QPs in RTS
 * or RTR.
 */
struct tel_qp_count {
	const char *type, *state;
	int tclass;
	unsigned n;
};
size_t tel_census_by_type(const struct tel_att *a, struct tel_qp_count *ret, size_t max);
size_t tel_census_by_class(const struct tel_att *a, struct tel_qp_count *ret, size_t max);

#endif
