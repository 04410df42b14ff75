// SPDX-License-Identifier: Apache-2.0
/* The VF's traffic class as `show` says it: every knob, its value and its scope. */
#include "plugin/attach/vf_class.h"

#include <stdio.h>
#include <string.h>

void tos_show_json(const struct rq_env *env, const char *pci, const cJSON *rec, cJSON *v)
{
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(rec, "rdma");
	struct rq_rdma_dev d;
	cJSON *knobs;
	int tos = -1, eff = -1;

	/*
	 * Exclusive mode: a device in a pod is only in the record and the pod's
	 * sysfs. No PCI link (rxe on the VF's netdev): the record's device while
	 * the host has it, as the agent's tos_reconcile takes it.
	 */
	if (rdma_find_by_pci(&env->root, pci, &d) < 0) {
		char dir[sizeof(d.name) + 32];

		vf_record_dev(env, rec, rd, &d);
		if (!d.name[0])
			return;
		(void)snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", d.name);
		if (!d.netns[0] && !sysfs_exists(&env->root, dir))
			return;
	}
	cJSON_AddStringToObject(v, "rdma", d.name);
	if (rdma_tos_locate(&env->root, &d, false, NULL) < 0)
		return;
	knobs = cJSON_AddObjectToObject(v, "tos");
	for (int k = 0; knobs && k < RQ_KNOB_N; k++) {
		if (!d.has[k] || rdma_tos_read(&env->root, &d, k, &tos) < 0)
			continue;
		cJSON_AddNumberToObject(knobs, rdma_knob_name(k), tos);
		if (k == RQ_KNOB_MOFED || !d.has[RQ_KNOB_MOFED])
			eff = tos;
	}
	/* the class every QP gets where MOFED's knob exists, else RDMA-CM's default */
	cJSON_AddNumberToObject(v, "trafficClass", eff);
	cJSON_AddStringToObject(v, "tosScope", d.has[RQ_KNOB_MOFED] ? "all-qps" : "rdma-cm");
}

void tos_show_text(const cJSON *vf, char *buf, size_t len)
{
	const cJSON *knobs = cJSON_GetObjectItemCaseSensitive(vf, "tos"), *k;
	size_t n = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(k, knobs)
	{
		char a[8];

		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? " " : "", k->string,
					      vf_tos_str(k->valueint, a, sizeof(a)));
	}
	if (n < len)
		(void)snprintf(buf + n, len - n, "%s(%s)", n ? " " : "",
			       json_str(vf, "tosScope") ?: "none");
}
