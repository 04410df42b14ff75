// SPDX-License-Identifier: Apache-2.0
/*
 * What the agent reports of a PF's port beyond its requirements, read only:
 * the CNP's DSCP and priority and the DCQCN rate parameters (MOFED
 * ecn/roce_np, roce_rp), the receive buffers the priorities land in
 * (DCB_ATTR_DCB_BUFFER) and the PFC storm-prevention timeout (ethtool). Each
 * exists only where the driver has it. `show` prints them; the agent's
 * metrics.c turns them into
 * rdma_qos_pf_cnp, rdma_qos_pf_dcqcn_param, rdma_qos_pf_prio_buffer,
 * rdma_qos_pf_buffer_size_bytes, rdma_qos_pf_buffer_shared_lossless and
 * rdma_qos_pf_pfc_storm_prevention_seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "plugin/attach/core.h"

static void dcqcn_add(void *arg, const char *side, const char *param, long value)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return;
	cJSON_AddStringToObject(o, "side", side);
	cJSON_AddStringToObject(o, "param", param);
	cJSON_AddNumberToObject(o, "value", (double)value);
	cJSON_AddItemToArray(arg, o);
}

/*
 * A buffer that holds a PFC priority and a priority without PFC: the lossy
 * traffic is paused with the lossless, and shares its headroom.
 */
static uint8_t shared_buffers(const struct dcb_port_state *st)
{
	uint8_t lossless = 0, lossy = 0;

	for (int p = 0; p < 8; p++) {
		if (st->pfc_en & (1u << p))
			lossless |= (uint8_t)(1u << st->prio2buffer[p]);
		else
			lossy |= (uint8_t)(1u << st->prio2buffer[p]);
	}
	return lossless & lossy;
}

static void buffer_json(cJSON *f, const struct dcb_port_state *st)
{
	cJSON *b = cJSON_AddObjectToObject(f, "buffer");
	int p2b[8];
	double sz[8];
	uint8_t shared = shared_buffers(st);

	if (!b)
		return;
	for (int i = 0; i < 8; i++) {
		p2b[i] = st->prio2buffer[i];
		sz[i] = st->buffer_size[i];
	}
	cJSON_AddItemToObject(b, "prio2buffer", cJSON_CreateIntArray(p2b, 8));
	cJSON_AddItemToObject(b, "bufferSize", cJSON_CreateDoubleArray(sz, 8));
	cJSON_AddNumberToObject(b, "totalSize", st->buffer_total);
	cJSON_AddNumberToObject(b, "sharedLosslessMask", shared);
}

cJSON *pf_facts_json(const struct rq_env *env, const char *ifname, const struct dcb_port_state *st)
{
	cJSON *f = cJSON_CreateObject(), *dcqcn;
	struct cnp_state cnp;
	int ms = 0;

	if (!f)
		return NULL;
	if (cnp_get(&env->root, ifname, &cnp) == 0 && (cnp.has[CNP_DSCP] || cnp.has[CNP_PRIO])) {
		cJSON *c = cJSON_AddObjectToObject(f, "cnp");

		if (c && cnp.has[CNP_DSCP])
			cJSON_AddNumberToObject(c, "dscp", cnp.val[CNP_DSCP]);
		if (c && cnp.has[CNP_PRIO])
			cJSON_AddNumberToObject(c, "prio", cnp.val[CNP_PRIO]);
	}
	dcqcn = cJSON_CreateArray();
	if (dcqcn && dcqcn_each(&env->root, ifname, dcqcn_add, dcqcn) > 0)
		cJSON_AddItemToObject(f, "dcqcn", dcqcn);
	else
		cJSON_Delete(dcqcn);
	if (st && st->has_buffer)
		buffer_json(f, st);
	if (env->pfc_storm_tout && env->pfc_storm_tout(env, ifname, &ms) == 0)
		cJSON_AddNumberToObject(f, "pfcPreventionMs", ms);
	return f;
}
