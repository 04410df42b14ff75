// SPDX-License-Identifier: Apache-2.0
/*
 * Other plugins of a conflist that write what rdma-qos writes (validate's
 * warnings; netconf.h). NVIDIA's rdma-cni (the network-operator builds of
 * Mellanox/rdma-cni since network-operator-v26.4.0) takes an `rdmaQoS`
 * object, {"tos": n, "tc": n}: its ADD writes `tc` to the device's MOFED
 * tc/1/traffic_class in the host netns, moves the device into the pod and
 * writes `tos` to RDMA-CM's default_roce_tos there; its DEL puts back what it
 * found. Its code reads the object at the top of the plugin's config; its
 * README shows it under args.cni: both are looked at. The plugin later in
 * the chain writes last, and rdma-qos must follow rdma (docs/design.md,
 * "Exclusive RDMA netns mode"), so rdmaQoS is silently overwritten.
 */
#include <stdio.h>
#include <string.h>

#include "netconf/netconf.h"

/* An rdmaQoS member's value for the message: a number, or what it is instead. */
static void qos_val(const cJSON *qos, const char *key, char *ret, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(qos, key);

	if (cJSON_IsNumber(v))
		(void)snprintf(ret, len, "%d", v->valueint);
	else
		(void)snprintf(ret, len, "%s", v ? "(not a number)" : "(unset)");
}

static const cJSON *rdma_qos_of(const cJSON *plugin, const char **ret_path)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(plugin, "rdmaQoS");

	*ret_path = "rdmaQoS";
	if (q)
		return q;
	*ret_path = "args.cni.rdmaQoS";
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(plugin, "args"),
					     "cni"),
	    "rdmaQoS");
}

int netconf_chain_qos_writer(const cJSON *plugins, int ours, char *ret, size_t len)
{
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, plugins)
	{
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "type"));
		const char *path;
		const cJSON *q;
		char tos[24], tc[24];

		if (i++ == ours || !t || strcmp(t, "rdma") != 0 || !(q = rdma_qos_of(it, &path)))
			continue;
		qos_val(q, "tos", tos, sizeof(tos));
		qos_val(q, "tc", tc, sizeof(tc));
		(void)snprintf(
		    ret, len,
		    "plugins[%d].%s: the rdma plugin (NVIDIA's rdma-cni) writes the RDMA "
		    "device's class too (tos %s to RDMA-CM's default_roce_tos, tc %s to "
		    "MOFED's traffic_class): %s",
		    i - 1, path, tos, tc,
		    i - 1 < ours ? "rdma-qos, later in the chain, overwrites both with its "
				   "profile's class at ADD, so rdmaQoS has no effect; remove it "
				   "and set the class in the rdma-qos profile"
				 : "it comes after rdma-qos, which must follow rdma (in "
				   "exclusive RDMA netns mode rdma-qos's ADD fails with code 7)");
		return 1;
	}
	return 0;
}
