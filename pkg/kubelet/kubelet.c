// SPDX-License-Identifier: Apache-2.0
#include "pkg/kubelet/kubelet.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_num(const char **p)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v >= RQ_MAX_CPUS)
			return -2;
		(*p)++;
	}
	return v;
}

int kubelet_cpuset_parse(const char *s, uint64_t *bits)
{
	const char *p = s;

	memset(bits, 0, RQ_CPU_WORDS * sizeof(*bits));
	while (*p == ' ' || *p == '\n')
		p++;
	if (!*p)
		return 0;
	for (;;) {
		long a = parse_num(&p), b;

		if (a == -2)
			return -ERANGE;
		if (a < 0)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			b = parse_num(&p);
			if (b == -2)
				return -ERANGE;
			if (b < a)
				return -EINVAL;
		}
		for (long c = a; c <= b; c++)
			bits[c / 64] |= 1ULL << (c % 64);
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\n')
			p++;
		return *p ? -EINVAL : 0;
	}
}

static cJSON *parse(const char *buf, size_t len)
{
	if (!buf || len > RQ_KUBELET_FILE_MAX)
		return NULL;
	return cJSON_ParseWithLength(buf, len);
}

int kubelet_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits)
{
	cJSON *o = parse(buf, len);
	const cJSON *pod, *c;
	uint64_t one[RQ_CPU_WORDS];
	int r = -ENOENT;

	if (!o)
		return -EBADMSG;
	memset(bits, 0, RQ_CPU_WORDS * sizeof(*bits));
	pod = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "entries"),
					       pod_uid);
	cJSON_ArrayForEach(c, (cJSON_IsObject(pod) ? pod : NULL))
	{
		if (!cJSON_IsString(c))
			continue;
		if (kubelet_cpuset_parse(c->valuestring, one) < 0) {
			r = -EBADMSG;
			break;
		}
		for (int i = 0; i < RQ_CPU_WORDS; i++)
			bits[i] |= one[i];
		r = 0;
	}
	cJSON_Delete(o);
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
	snprintf(devs[*n].resource, sizeof(devs[0].resource), "%s",
		 cJSON_IsString(res) ? res->valuestring : "?");
	snprintf(devs[*n].id, sizeof(devs[0].id), "%s", id);
	devs[*n].node = node;
	(*n)++;
}

int kubelet_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		    size_t max, size_t *ret_n)
{
	cJSON *o = parse(buf, len);
	const cJSON *entries, *e;
	size_t n = 0;

	if (!o)
		return -EBADMSG;
	entries = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "Data"),
						   "PodDeviceEntries");
	cJSON_ArrayForEach(e, (cJSON_IsArray(entries) ? entries : NULL))
	{
		const cJSON *uid = cJSON_GetObjectItemCaseSensitive(e, "PodUID");
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(e, "ResourceName");
		const cJSON *ids = cJSON_GetObjectItemCaseSensitive(e, "DeviceIDs"), *k, *id;

		if (!cJSON_IsString(uid) || strcmp(uid->valuestring, pod_uid))
			continue;
		if (cJSON_IsArray(ids)) { /* pre-1.20: no topology */
			cJSON_ArrayForEach(id, ids) if (cJSON_IsString(id))
			    dev_add(devs, max, &n, res, id->valuestring, -1);
			continue;
		}
		cJSON_ArrayForEach(k, (cJSON_IsObject(ids) ? ids : NULL))
		{
			int node = node_of(k->string);

			if (node == -2)
				continue;
			cJSON_ArrayForEach(id,
					   (cJSON_IsArray(k) ? k : NULL)) if (cJSON_IsString(id))
			    dev_add(devs, max, &n, res, id->valuestring, node);
		}
	}
	cJSON_Delete(o);
	*ret_n = n;
	return 0;
}

int kubelet_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes)
{
	cJSON *o = parse(buf, len);
	const cJSON *pod, *c, *blk, *n;
	uint64_t nodes = 0;

	if (!o)
		return -EBADMSG;
	pod = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "entries"),
					       pod_uid);
	cJSON_ArrayForEach(c, (cJSON_IsObject(pod) ? pod : NULL))
	    cJSON_ArrayForEach(blk, (cJSON_IsArray(c) ? c : NULL)) cJSON_ArrayForEach(
		n, cJSON_GetObjectItemCaseSensitive(
		       blk, "numaAffinity")) if (cJSON_IsNumber(n) && n->valuedouble >= 0 &&
						 n->valuedouble < 64 &&
						 n->valuedouble == floor(n->valuedouble)) nodes |=
	    1ULL << (int)n->valuedouble;
	cJSON_Delete(o);
	if (!nodes)
		return -ENOENT;
	*ret_nodes = nodes;
	return 0;
}
