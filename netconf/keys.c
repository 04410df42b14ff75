// SPDX-License-Identifier: Apache-2.0
/*
 * The keys rdma-qos's entry in a conflist may carry. A typo ("profle") is
 * not an error to the parser (JSON objects are open: CNI lets a runtime add
 * keys), so without this list the pod silently gets the namespace default.
 * `validate` rejects an unknown key with the nearest known one; ADD only
 * warns, since a runtime or meta-plugin newer than this list may add keys.
 */
#include <errno.h>
#include <string.h>

#include "netconf/jsonpath.h"
#include "netconf/netconf.h"

/* Ours (docs/configuration.md "NAD keys"); gdr and gdrLevel from DESIGN.md's GPUDirect section. */
static const char *const own_keys[] = {
    "type", "profile", "pf", "numa", "logLevel", "logFile", "qos", "gdr", "gdrLevel",
};

/*
 * What the runtime and Multus write into every plugin's config: the CNI
 * spec's well-known keys (SPEC.md "Plugin configuration objects",
 * "Deriving execution configuration", GC's cni.dev/valid-attachments),
 * Multus's per-plugin deviceID (and host-device's pciBusID).
 */
static const char *const foreign_keys[] = {
    "cniVersion",
    "name",
    "args",
    "capabilities",
    "runtimeConfig",
    "prevResult",
    "ipam",
    "dns",
    "ipMasq",
    "disableCheck",
    "disableGC",
    "deviceID",
    "pciBusID",
    "cni.dev/valid-attachments",
    "cni.dev/attachments",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *k, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, list[i]))
			return true;
	return false;
}

bool netconf_key_known(const char *key)
{
	return in_list(key, own_keys, N(own_keys)) || in_list(key, foreign_keys, N(foreign_keys));
}

const char *netconf_key_nearest(const char *key)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (size_t i = 0; i < N(own_keys) + N(foreign_keys); i++) {
		const char *k = i < N(own_keys) ? own_keys[i] : foreign_keys[i - N(own_keys)];
		size_t d = json_key_distance(key, k);

		if (d < best_d) {
			best_d = d;
			best = k;
		}
	}
	return best && json_key_near(key, best_d) ? best : NULL;
}

cJSON *netconf_ignored_keys(const struct rq_netconf *nc)
{
	cJSON *arr = NULL;
	const cJSON *it;

	if (!nc)
		return NULL;
	cJSON_ArrayForEach(it, nc->root)
	{
		const char *near;
		cJSON *o;

		if (!it->string || netconf_key_known(it->string))
			continue;
		if (!arr && !(arr = cJSON_CreateArray()))
			return NULL;
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return NULL;
		}
		/* bounded: a record is not the place for a NAD's essay */
		cJSON_AddStringToObject(
		    o, "key", strlen(it->string) > 64 ? "(a key over 64 bytes)" : it->string);
		near = netconf_key_nearest(it->string);
		if (near)
			cJSON_AddStringToObject(o, "nearest", near);
	}
	return arr;
}

int netconf_unknown_key(const struct rq_netconf *nc, struct rq_error *e)
{
	return netconf_unknown_keys(nc->root, NULL, e);
}

int netconf_unknown_keys(const cJSON *root, struct rq_errlist *keep, struct rq_error *e)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, root)
	{
		const char *near;
		int r;

		if (!it->string || netconf_key_known(it->string))
			continue;
		near = netconf_key_nearest(it->string);
		if (near)
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%.64s: unknown key (did you mean \"%s\"?)", it->string, near);
		else
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%.64s: unknown key (rdma-qos knows type, profile, pf, numa, "
				   "logLevel, logFile, qos, gdr, gdrLevel)",
				   it->string);
		if ((r = rq_err_keep(keep, e, r)) < 0)
			return r;
	}
	return 0;
}
