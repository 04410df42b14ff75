// SPDX-License-Identifier: Apache-2.0
/*
 * The QP census (tel_qps.h). A QP's class decides its priority the way the
 * attachment's profile class does (telemetry/telemetry.c's dscp_map: the PF's
 * DSCP APP table under trust dscp, mlx5's dscp >> 3 for DSCPs without an
 * entry), so an application that sets its own class (NCCL_IB_TC, UCX,
 * NVSHMEM, a verbs program's GRH) is judged by the same map the PF has now.
 */
#include "plugin/telemetry/tel_qps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"

void tel_census_fini(struct tel_att *a)
{
	rdma_qps_free(&a->qps);
	free(a->qp_prio);
	free(a->qp_off);
	free(a->qp_by);
	tel_census_forget(a);
}

void tel_census_forget(struct tel_att *a)
{
	memset(&a->qps, 0, sizeof(a->qps));
	a->qp_prio = NULL;
	a->qp_off = NULL;
	a->qp_by = NULL;
	a->qp_range = false;
	a->census = 0;
}

/*
 * A connected QP sends with the class of its context's primary path; a UD
 * QP's class is per address handle (per send), GSI/SMI are the MAD layer's.
 */
bool tel_qp_connected(const struct rq_qp *q)
{
	return rdma_qp_ctx_class(q->type);
}

/*
 * A QP that puts packets on the wire: in RTS, or in RTR, where a responder
 * already sends ACKs, NAKs and READ and atomic responses (an XRC_TGT QP and
 * mlx5's DCT do nothing else). A UC responder sends nothing (UC has no
 * ACKs, no READ), nor does a UD QP before RTS (issue 42 item 4).
 */
static bool sending(const struct rq_qp *q)
{
	if (!strcmp(q->state, "RTS"))
		return true;
	return !strcmp(q->state, "RTR") && strcmp(q->type, "UC") && strcmp(q->type, "UD");
}

static bool judged_qp(const struct rq_qp *q)
{
	return tel_qp_connected(q) && sending(q);
}

/*
 * A sending QP of the driver's own kind whose class no context dump gives
 * (mlx5's DCI and DCT: rdma_qp_ctx_class; a driver QP listed without a
 * subtype): the DC transport's data path, so the attachment cannot be
 * judged while it has one. The DCI is the signal: mlx5 tracked only a
 * device's first DCT, and a 2026 patch ("RDMA/mlx5: Remove DCT restrack
 * tracking") lists none; a listed DCT counts too. REG_UMR only posts
 * memory registrations.
 */
static bool unjudgeable_qp(const struct rq_qp *q)
{
	return sending(q) &&
	       (!strcmp(q->type, "DCI") || !strcmp(q->type, "DCT") || !strcmp(q->type, "DRIVER"));
}

/* @a's own PF in @s, with its DCB read: its map index; -1 none. */
static int att_pf(const struct tel_sample *s, const struct tel_att *a)
{
	for (size_t j = 0; j < s->n_pfs; j++)
		if (s->pfs[j].has_dcb && !strcmp(s->pfs[j].name, a->pf))
			return (int)j;
	return -1;
}

/* Each QP's priority under @a's PF's DSCP map now, and whether it is off lossless. */
static int judge(const struct tel_sample *s, struct tel_att *a)
{
	int j = att_pf(s, a);

	a->qp_prio = malloc((a->qps.n ? a->qps.n : 1) * sizeof(*a->qp_prio));
	a->qp_off = calloc(a->qps.n ? a->qps.n : 1, sizeof(*a->qp_off));
	if (!a->qp_prio || !a->qp_off)
		return -ENOMEM;
	for (size_t i = 0; i < a->qps.n; i++) {
		const struct rq_qp *q = &a->qps.qp[i];

		a->qp_prio[i] = -1;
		if (j < 0 || q->tclass < 0 || !tel_qp_connected(q))
			continue;
		a->qp_prio[i] = (int8_t)s->pfs[j].dscp2prio[(q->tclass >> 2) & 63];
		a->qp_off[i] =
		    a->pfc_req && judged_qp(q) && !(s->pfs[j].pfc_en & (1u << a->qp_prio[i]));
	}
	return 0;
}

void tel_census(const struct rq_env *env, const struct tel_sample *s, struct tel_att *a,
		const char *where)
{
	int r;

	tel_census_fini(a);
	if (!where || !a->rdma_dev[0] || !env->qps_read)
		return;
	r = env->qps_read(env, where, a->rdma_dev, &a->qps);
	if (r < 0) {
		rdma_qps_free(&a->qps);
		a->census = r;
		if (r != -ENODEV)
			log_debug("census: %s (%s/%s): %s", a->rdma_dev, a->ns, a->pod,
				  strerror(-r));
		return;
	}
	a->census = 1;
	if (judge(s, a) < 0) {
		tel_census_fini(a);
		a->census = -ENOMEM;
	}
}

void tel_census_take(const struct tel_sample *s, struct tel_att *a, struct rq_qp_list *qps,
		     uint8_t *qp_by)
{
	tel_census_fini(a);
	a->qps = *qps;
	memset(qps, 0, sizeof(*qps));
	a->qp_by = qp_by;
	a->census = 1;
	if (judge(s, a) < 0) {
		tel_census_fini(a);
		a->census = -ENOMEM;
	}
}

void tel_census_carry(const struct tel_sample *s, struct tel_att *a, const struct tel_att *p)
{
	tel_census_fini(a);
	if (!p || !p->census)
		return;
	a->census = p->census;
	if (p->census != 1)
		return;
	a->qps.qp = malloc((p->qps.n ? p->qps.n : 1) * sizeof(*a->qps.qp));
	if (a->qps.qp) {
		if (p->qps.n) /* a census of no QP has no array to copy from */
			memcpy(a->qps.qp, p->qps.qp, p->qps.n * sizeof(*a->qps.qp));
		a->qps.n = a->qps.cap = p->qps.n;
		a->qps.has_ctx = p->qps.has_ctx;
		a->qps.drv_hidden = p->qps.drv_hidden;
	}
	if (a->qps.qp && p->qp_by) {
		a->qp_by = malloc(p->qps.n ? p->qps.n : 1);
		if (a->qp_by && p->qps.n)
			memcpy(a->qp_by, p->qp_by, p->qps.n);
	}
	a->qp_range = p->qp_range;
	a->qpn_lo = p->qpn_lo;
	a->qpn_hi = p->qpn_hi;
	if (!a->qps.qp || (p->qp_by && !a->qp_by) || judge(s, a) < 0) {
		tel_census_fini(a);
		a->census = -ENOMEM;
	}
}

const char *tel_census_unjudged(const struct tel_att *a)
{
	bool ud = false, conn = false;

	if (a->census != 1 || !a->pfc_req)
		return "";
	if (a->qps.drv_hidden)
		return "the kernel did not list the driver's QPs";
	/*
	 * no connected QP that sends is judged (none is off); one without a
	 * dumped context is not, nor one of the driver's kinds whose class the
	 * census cannot tell (a DC pod does not read "0 off" then)
	 */
	for (size_t i = 0; i < a->qps.n; i++) {
		const struct rq_qp *q = &a->qps.qp[i];

		if (judged_qp(q) && a->qp_prio[i] < 0)
			return "no QP context dump (classes unknown)";
		if (unjudgeable_qp(q))
			return "DC QPs: each send's class is in its work request";
		conn = conn || judged_qp(q);
		ud = ud || (!strcmp(q->type, "UD") && sending(q));
	}
	/*
	 * A UD QP sends with each address handle's class (UCX's ud transport).
	 * Beside connected QPs it is their connection setup (UCX wires RC up
	 * over UD), and those QPs are judged; alone it is the data path, and
	 * "0 off" would say what the census cannot see.
	 */
	if (ud && !conn)
		return "UD QPs only: each send's class is its address handle's";
	return NULL;
}

bool tel_census_judges(const struct tel_att *a)
{
	return !tel_census_unjudged(a);
}

int tel_census_off(const struct tel_att *a)
{
	int n = 0;

	if (!tel_census_judges(a))
		return -1;
	for (size_t i = 0; i < a->qps.n; i++)
		n += a->qp_off[i];
	return n;
}

static size_t bump(struct tel_qp_count *c, size_t n, size_t max, const char *type,
		   const char *state, int tclass)
{
	for (size_t k = 0; k < n; k++)
		if (c[k].tclass == tclass && (!type || !strcmp(c[k].type, type)) &&
		    (!state || !strcmp(c[k].state, state))) {
			c[k].n++;
			return n;
		}
	if (n == max)
		return n;
	c[n] = (struct tel_qp_count){.type = type, .state = state, .tclass = tclass, .n = 1};
	return n + 1;
}

size_t tel_census_by_type(const struct tel_att *a, struct tel_qp_count *ret, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; a->census == 1 && i < a->qps.n; i++)
		n = bump(ret, n, max, a->qps.qp[i].type, a->qps.qp[i].state, -1);
	return n;
}

size_t tel_census_by_class(const struct tel_att *a, struct tel_qp_count *ret, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; a->census == 1 && i < a->qps.n; i++)
		if (judged_qp(&a->qps.qp[i]) && a->qps.qp[i].tclass >= 0)
			n = bump(ret, n, max, NULL, NULL, a->qps.qp[i].tclass);
	return n;
}
