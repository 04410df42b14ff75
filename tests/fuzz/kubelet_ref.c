// SPDX-License-Identifier: Apache-2.0
/*
 * The reference for fuzz_kubelet.c's differential check: kubelet's
 * checkpoints read the simple way (the whole cJSON tree), as the plugin did
 * before it streamed them. The streaming parsers must agree with it wherever
 * they accept a document (they may refuse more: see pkg/kubelet/jscan.h).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kubelet/kubelet.h"
#include "tests/fuzz/kubelet_ref.h"

/*
 * Wrong JSON types are "nothing here", never an error. Each walk first sets a
 * container of the wrong type to NULL (cJSON_ArrayForEach evaluates its
 * argument twice, so the check is not written inside it).
 */
static cJSON *parse(const char *buf, size_t len)
{
	if (!buf || len > ((size_t)4 << 20))
		return NULL;
	return cJSON_ParseWithLength(buf, len);
}

int ref_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits)
{
	uint64_t one[RQ_CPU_WORDS], all[RQ_CPU_WORDS];
	const cJSON *pod, *c;
	int r = -ENOENT;
	cJSON *o;

	if (!pod_uid)
		return -EINVAL;
	o = parse(buf, len);
	if (!o)
		return -EBADMSG;
	memset(all, 0, sizeof(all));
	pod = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "entries"),
					       pod_uid);
	pod = cJSON_IsObject(pod) ? pod : NULL;
	cJSON_ArrayForEach(c, pod)
	{
		bool any = false;

		if (!cJSON_IsString(c))
			continue;
		if (kubelet_cpuset_parse(c->valuestring, one) < 0) {
			r = -EBADMSG;
			break;
		}
		for (int i = 0; i < RQ_CPU_WORDS; i++) {
			all[i] |= one[i];
			any |= one[i] != 0;
		}
		/* an empty cpuset is a container in the shared pool: no placement */
		if (any && r == -ENOENT)
			r = 0;
	}
	cJSON_Delete(o);
	if (r == 0)
		memcpy(bits, all, sizeof(all));
	return r;
}

static int node_of(const char *key)
{
	char *end;
	long v = strtol(key, &end, 10);

	return (*end || end == key || v < -1 || v > 63) ? -2 : (int)v;
}

static void dev_add(struct rq_kubelet_dev *devs, size_t max, size_t *n, const cJSON *res,
		    const char *id, int node)
{
	if (*n >= max)
		return;
	(void)snprintf(devs[*n].resource, sizeof(devs[0].resource), "%s",
		       cJSON_IsString(res) ? res->valuestring : "?");
	(void)snprintf(devs[*n].id, sizeof(devs[0].id), "%s", id);
	devs[*n].node = node;
	(*n)++;
}

/* One PodDeviceEntries element's DeviceIDs: keyed by NUMA node (>= 1.20) or a flat list. */
static void entry_devices(const cJSON *res, const cJSON *ids, struct rq_kubelet_dev *devs,
			  size_t max, size_t *n)
{
	const cJSON *k, *id;

	if (cJSON_IsArray(ids)) { /* pre-1.20: no topology */
		cJSON_ArrayForEach(id, ids)
		{
			if (cJSON_IsString(id))
				dev_add(devs, max, n, res, id->valuestring, -1);
		}
		return;
	}
	ids = cJSON_IsObject(ids) ? ids : NULL;
	cJSON_ArrayForEach(k, ids)
	{
		int node = node_of(k->string);

		if (node == -2 || !cJSON_IsArray(k))
			continue;
		cJSON_ArrayForEach(id, k)
		{
			if (cJSON_IsString(id))
				dev_add(devs, max, n, res, id->valuestring, node);
		}
	}
}

int ref_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		    size_t max, size_t *ret_n)
{
	const cJSON *entries, *e;
	size_t n = 0;
	cJSON *o;

	if (!pod_uid)
		return -EINVAL;
	o = parse(buf, len);
	if (!o)
		return -EBADMSG;
	entries = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "Data"),
						   "PodDeviceEntries");
	entries = cJSON_IsArray(entries) ? entries : NULL;
	cJSON_ArrayForEach(e, entries)
	{
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "PodUID");

		if (!cJSON_IsString(uid) || strcmp(uid->valuestring, pod_uid) != 0)
			continue;
		entry_devices(cJSON_GetObjectItemCaseSensitive(e, "ResourceName"),
			      cJSON_GetObjectItemCaseSensitive(e, "DeviceIDs"), devs, max, &n);
	}
	cJSON_Delete(o);
	*ret_n = n;
	return 0;
}

/* One container's memory blocks: the nodes of every numaAffinity entry that is a node number. */
static uint64_t memory_nodes(const cJSON *blocks)
{
	const cJSON *blk, *n;
	uint64_t nodes = 0;

	blocks = cJSON_IsArray(blocks) ? blocks : NULL;
	cJSON_ArrayForEach(blk, blocks)
	{
		const cJSON *aff = cJSON_GetObjectItemCaseSensitive(blk, "numaAffinity");

		aff = cJSON_IsArray(aff) ? aff : NULL;
		cJSON_ArrayForEach(n, aff)
		{
			/* a double from untrusted JSON: range-check before converting */
			if (cJSON_IsNumber(n) && n->valuedouble >= 0 && n->valuedouble < 64 &&
			    n->valuedouble == floor(n->valuedouble))
				nodes |= 1ULL << (int)n->valuedouble;
		}
	}
	return nodes;
}

int ref_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes)
{
	const cJSON *pod, *c;
	uint64_t nodes = 0;
	cJSON *o;

	if (!pod_uid)
		return -EINVAL;
	o = parse(buf, len);
	if (!o)
		return -EBADMSG;
	pod = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "entries"),
					       pod_uid);
	pod = cJSON_IsObject(pod) ? pod : NULL;
	cJSON_ArrayForEach(c, pod)
	{
		nodes |= memory_nodes(c);
	}
	cJSON_Delete(o);
	if (!nodes)
		return -ENOENT;
	*ret_nodes = nodes;
	return 0;
}
