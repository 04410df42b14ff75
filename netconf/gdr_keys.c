// SPDX-License-Identifier: Apache-2.0
/*
 * The GPUDirect RDMA keys (DESIGN.md "GPUDirect RDMA"): NAD gdr and gdrLevel,
 * catalog node.gdrLevel and node.gdrTopology. A level is NCCL's
 * NCCL_NET_GDR_LEVEL name in any case (PIX as NCCL spells them).
 */
#include <errno.h>
#include <string.h>

#include "netconf/catalog_int.h"
#include "netconf/netconf.h"

static const char *const gdr_modes[] = {"off", "warn", "strict"};
static const char *const gdr_topologies[] = {"auto", "sysfs", "off"};

const char *gdr_mode_name(enum rq_gdr_mode m)
{
	return (unsigned)m < 3 ? gdr_modes[m] : "?";
}

const char *gdr_topology_name(enum rq_gdr_topology t)
{
	return (unsigned)t < 3 ? gdr_topologies[t] : "?";
}

/* pix, pxb, p2c, phb, sys: the levels NCCL_NET_GDR_LEVEL takes (node is a path, not a level) */
static int level(const cJSON *v, const char *path, int *ret, struct rq_error *e)
{
	enum rq_pci_level l;

	if (!cJSON_IsString(v) || pci_level_parse(v->valuestring, &l) < 0 || l == RQ_PCI_NODE)
		return rq_err(
		    e, RQ_ERR_CONFIG, -EINVAL,
		    "%s: expected one of \"pix\", \"pxb\", \"p2c\", \"phb\", \"sys\" (any case)",
		    path);
	*ret = (int)l;
	return 0;
}

int netconf_gdr_parse(struct rq_netconf *nc, struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(nc->root, "gdr");

	nc->gdr = RQ_GDR_WARN;
	nc->gdr_level = -1;
	if (v) {
		size_t i;

		for (i = 0; i < 3; i++)
			if (cJSON_IsString(v) && !strcmp(v->valuestring, gdr_modes[i]))
				break;
		if (i == 3)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "gdr: expected one of \"off\", \"warn\", \"strict\"");
		nc->gdr = (enum rq_gdr_mode)i;
	}
	v = cJSON_GetObjectItemCaseSensitive(nc->root, "gdrLevel");
	return v ? level(v, "gdrLevel", &nc->gdr_level, e) : 0;
}

int catalog_node_gdr(struct rq_catalog *c, const cJSON *node, struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "gdrLevel");
	int r, l = RQ_PCI_PXB;

	if (v && (r = level(v, "node.gdrLevel", &l, e)) < 0)
		return r;
	c->gdr_level = (enum rq_pci_level)l;
	c->gdr_level_set = v != NULL;
	v = cJSON_GetObjectItemCaseSensitive(node, "gdrTopology");
	c->gdr_topology = RQ_GDR_TOPO_AUTO;
	if (!v)
		return 0;
	for (size_t i = 0; i < 3; i++)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, gdr_topologies[i])) {
			c->gdr_topology = (enum rq_gdr_topology)i;
			return 0;
		}
	return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
		      "node.gdrTopology: expected one of \"auto\", \"sysfs\", \"off\"");
}
