// SPDX-License-Identifier: Apache-2.0
/*
 * Catalog node.sharedResources (DESIGN.md "Shared RDMA devices"): which PFs a
 * device plugin resource shares, {"rdma/hca_shared_devices_a": ["ens1f0np0"]}.
 * k8s-rdma-shared-dev-plugin's device IDs ("0", "1", ...) name no device, so
 * the node says which PFs a host-network pod holding the resource reaches.
 * Checked here for shape only (validate, install, ADD's load); the agent reads
 * the map from the catalog's JSON.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "netconf/catalog_int.h"
#include "netconf/netconf.h"

#define RQ_SHARED_RES_MAX      64 /* resources, and PFs of one resource */
#define RQ_SHARED_RES_NAME_MAX 253

/* prefix/name as kubelet takes an extended resource: a DNS subdomain, then 1-63 of [A-Za-z0-9._-]
 */
static bool resource_name_valid(const char *s)
{
	const char *slash = strchr(s, '/');
	size_t dn, nn;

	if (!slash || strchr(slash + 1, '/') || strlen(s) > RQ_SHARED_RES_NAME_MAX)
		return false;
	dn = (size_t)(slash - s);
	nn = strlen(slash + 1);
	if (dn == 0 || nn == 0 || nn > 63)
		return false;
	for (size_t i = 0; i < dn; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '.' ||
		      s[i] == '-'))
			return false;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[dn - 1]))
		return false;
	for (size_t i = 0; i < nn; i++)
		if (!(isalnum((unsigned char)slash[1 + i]) || strchr("._-", slash[1 + i])))
			return false;
	return isalnum((unsigned char)slash[1]) && isalnum((unsigned char)slash[nn]);
}

/* a netdev name as the kernel allows it (dev_valid_name), or a PCI address */
static bool pf_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (netconf_pci_addr_valid(s))
		return true;
	if (n == 0 || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]) ||
		    (unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static int one_resource(struct rq_catalog *c, const cJSON *res, struct rq_error *e)
{
	const char *k = res->string;
	const cJSON *pf;
	int i = 0, r;

	if (!resource_name_valid(k))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources: \"%.64s\" is not a device plugin resource "
			      "name (prefix/name, as rdma/hca_shared_devices_a)",
			      k);
	if (!cJSON_IsArray(res) || cJSON_GetArraySize(res) == 0 ||
	    cJSON_GetArraySize(res) > RQ_SHARED_RES_MAX)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources[\"%s\"]: expected a list of 1-%d PFs (netdev "
			      "names or PCI addresses)",
			      k, RQ_SHARED_RES_MAX);
	cJSON_ArrayForEach(pf, res)
	{
		const cJSON *prev;
		int j = 0;

		r = 0;
		if (!cJSON_IsString(pf) || !pf_name_valid(pf->valuestring))
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "node.sharedResources[\"%s\"][%d]: expected a PF's netdev name "
				   "(1-15 characters, no '/', ':' or space) or PCI address",
				   k, i);
		else
			cJSON_ArrayForEach(prev, res)
			{
				if (j++ >= i)
					break;
				if (cJSON_IsString(prev) &&
				    !strcmp(prev->valuestring, pf->valuestring)) {
					r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
						   "node.sharedResources[\"%s\"][%d]: \"%s\" is "
						   "listed twice",
						   k, i, pf->valuestring);
					break;
				}
			}
		if ((r = rq_err_keep(c->keep, e, r)) < 0)
			return r;
		i++;
	}
	return 0;
}

int catalog_node_shared(struct rq_catalog *c, const cJSON *node, struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(node, "sharedResources");
	const cJSON *res;
	int r;

	if (!v)
		return 0;
	if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) > RQ_SHARED_RES_MAX)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources: expected an object of at most %d resources, "
			      "each a list of PFs",
			      RQ_SHARED_RES_MAX);
	cJSON_ArrayForEach(res, v) if ((r = rq_err_keep(c->keep, e, one_resource(c, res, e))) <
				       0) return r;
	return 0;
}
