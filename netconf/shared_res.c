// SPDX-License-Identifier: Apache-2.0
/*
 * node.sharedResources (netconf.h): {"rdma/hca_shared_devices_a": ["ens1f0np0"]}.
 * The shared device plugin's device IDs ("0", "1", ...) name no device, so the
 * catalog says which PFs a resource shares. Errors name the JSON path with the
 * resource in brackets (`node.sharedResources["rdma/x"][1]: ...`): a resource
 * name holds dots and a slash, which a dotted path would blur.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/catalog_int.h"
#include "netconf/netconf.h"

/* a DNS-1123 subdomain: lower-case labels of [a-z0-9-], each starting and ending alnum */
static bool subdomain_ok(const char *s, size_t n)
{
	size_t label = 0;

	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

		if (ch == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!alnum && ch != '-')
			return false;
		if (label == 0 && !alnum)
			return false;
		label++;
	}
	return label > 0 && s[n - 1] != '-';
}

/* a qualified name's name part: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9');

		if (!alnum && ((i == 0 || i == n - 1) || !strchr("-_.", ch)))
			return false;
	}
	return true;
}

bool shared_res_name_valid(const char *s)
{
	const char *slash = s ? strchr(s, '/') : NULL;

	/* a device plugin registers DOMAIN/NAME: a bare name is a native resource */
	return slash && subdomain_ok(s, (size_t)(slash - s)) && name_ok(slash + 1);
}

/* what the kernel takes as a netdev name: 1-15 bytes, no '/', ':' or white space, not . or .. */
static bool ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 16 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '/' || s[i] == ':')
			return false;
	return true;
}

static int one_entry(struct rq_shared_res *r, const cJSON *it, struct rq_error *e)
{
	const char *res = it->string ?: "";
	const cJSON *pf;
	int i = 0;

	if (!shared_res_name_valid(res))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources[\"%.80s\"]: not a device plugin resource name "
			      "(DOMAIN/NAME, e.g. \"rdma/hca_shared_devices_a\")",
			      res);
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources[\"%s\"]: expected a non-empty list of PF "
			      "netdev names",
			      res);
	if (cJSON_GetArraySize(it) > RQ_SHARED_RES_PFS_MAX)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources[\"%s\"]: more than %d PFs", res,
			      RQ_SHARED_RES_PFS_MAX);
	memset(r, 0, sizeof(*r));
	(void)snprintf(r->resource, sizeof(r->resource), "%s", res);
	cJSON_ArrayForEach(pf, it)
	{
		const char *s = cJSON_GetStringValue(pf);

		if (!s || !ifname_ok(s))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "node.sharedResources[\"%s\"][%d]: expected a netdev name "
				      "(1-15 characters, no '/', ':' or white space)",
				      res, i);
		for (size_t k = 0; k < r->n_pfs; k++)
			if (!strcmp(r->pfs[k], s))
				return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
					      "node.sharedResources[\"%s\"][%d]: \"%s\" is listed "
					      "twice",
					      res, i, s);
		(void)snprintf(r->pfs[r->n_pfs++], sizeof(r->pfs[0]), "%s", s);
		i++;
	}
	return 0;
}

int catalog_node_shared(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	struct rq_shared_res *out;
	const cJSON *it;
	size_t n;

	if (!cJSON_IsObject(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources: expected an object (a device plugin resource "
			      "name: the list of PF netdevs it shares)");
	n = (size_t)cJSON_GetArraySize(v);
	if (n > RQ_SHARED_RES_MAX)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.sharedResources: more than %d resources", RQ_SHARED_RES_MAX);
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	c->shared = out;
	c->n_shared = 0;
	cJSON_ArrayForEach(it, v)
	{
		/* with a collector (validate), every entry's error is kept and the next read */
		int r = one_entry(&out[c->n_shared], it, e);

		if (r < 0)
			memset(&out[c->n_shared], 0, sizeof(out[0]));
		if ((r = rq_err_keep(c->keep, e, r)) < 0)
			return r;
		if (out[c->n_shared].resource[0])
			c->n_shared++;
	}
	return 0;
}

const struct rq_shared_res *catalog_shared_res(const struct rq_catalog *c, const char *resource)
{
	for (size_t i = 0; c && resource && i < c->n_shared; i++)
		if (!strcmp(c->shared[i].resource, resource))
			return &c->shared[i];
	return NULL;
}
