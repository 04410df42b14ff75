// SPDX-License-Identifier: Apache-2.0
#include "pkg/kubelet/kubelet.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A decimal CPU number; -1 no digit, -2 at or beyond RQ_MAX_CPUS (stops before overflow). */
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
	uint64_t set[RQ_CPU_WORDS];
	const char *p = s;

	memset(set, 0, sizeof(set));
	while (*p == ' ' || *p == '\n')
		p++;
	/* "" is an empty set; after that every element, even after a last ',', must be there */
	while (*p) {
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
			set[c / 64] |= 1ULL << (c % 64);
		if (*p == ',') {
			p++;
			if (!*p)
				return -EINVAL;
			continue;
		}
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p)
			return -EINVAL;
	}
	memcpy(bits, set, sizeof(set));
	return 0;
}

/*
 * The walk: only the members on the way to the pod's entries are looked at
 * (the first of a name, as cJSON's lookup finds it); everything else is
 * skipped, but still validated. What the pod's entries hold is captured and
 * read with cJSON. Wrong JSON types are "nothing here", never an error.
 */
typedef int (*walk_fn)(struct rq_jscan *s, void *ctx);

/* Run @fn on the first member named @name of the object at hand; skip the rest. */
static int member(struct rq_jscan *s, const char *name, walk_fn fn, void *ctx)
{
	char key[RQ_KUBELET_KEY_MAX];
	bool first = true, cut = false, seen = false;
	int r;

	if (jscan_peek(s) != '{')
		return jscan_skip(s);
	while ((r = jscan_member(s, &first, key, sizeof(key), &cut)) == 1) {
		if (!seen && !cut && !strcmp(key, name)) {
			seen = true;
			r = fn(s, ctx);
		} else {
			r = jscan_skip(s);
		}
		if (r < 0)
			return r;
	}
	return r;
}

struct pod_walk {
	const char *uid;
	struct rq_jbuf val;
	bool found;
};

static int capture_pod(struct rq_jscan *s, void *ctx)
{
	struct pod_walk *w = ctx;

	w->found = true;
	return jscan_capture(s, &w->val);
}

static int entries_pod(struct rq_jscan *s, void *ctx)
{
	return member(s, ((struct pod_walk *)ctx)->uid, capture_pod, ctx);
}

static struct rq_jscan *scan_new(struct rq_jsrc src)
{
	struct rq_jscan *s = malloc(sizeof(*s));

	if (s && jscan_init(s, src, RQ_KUBELET_FILE_MAX) < 0) {
		free(s);
		s = NULL;
	}
	return s;
}

static void scan_free(struct rq_jscan *s)
{
	jscan_fini(s);
	free(s);
}

/* entries[uid] of cpu_manager_state or memory_manager_state, as a cJSON tree in *ret. */
static int pod_entries(struct rq_jsrc src, const char *uid, cJSON **ret)
{
	struct pod_walk w = {.uid = uid, .val = {.max = RQ_KUBELET_VALUE_MAX}};
	struct rq_jscan *s;
	int r;

	if (!uid)
		return -EINVAL;
	if (strlen(uid) >= RQ_KUBELET_KEY_MAX)
		return -EINVAL;
	s = scan_new(src);
	if (!s)
		return -ENOMEM;
	r = member(s, "entries", entries_pod, &w);
	scan_free(s);
	*ret = NULL;
	if (r == 0 && w.found) {
		*ret = cJSON_ParseWithLength(w.val.p, w.val.len);
		if (!*ret)
			r = -EBADMSG; /* valid for the scanner; cJSON is at most this strict */
	}
	jbuf_fini(&w.val);
	return r;
}

int kubelet_cpu_manager_src(struct rq_jsrc src, const char *pod_uid, uint64_t *bits)
{
	uint64_t one[RQ_CPU_WORDS], all[RQ_CPU_WORDS];
	const cJSON *pod, *c;
	cJSON *o = NULL;
	int r = pod_entries(src, pod_uid, &o);

	if (r < 0)
		return r;
	r = -ENOENT;
	memset(all, 0, sizeof(all));
	pod = cJSON_IsObject(o) ? o : NULL;
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

static struct rq_jsrc mem_src(struct rq_jmem *m, const char *buf, size_t len)
{
	*m = (struct rq_jmem){.p = buf, .len = buf ? len : 0};
	return jmem_src(m);
}

int kubelet_cpu_manager(const char *buf, size_t len, const char *pod_uid, uint64_t *bits)
{
	struct rq_jmem m;

	return kubelet_cpu_manager_src(mem_src(&m, buf, len), pod_uid, bits);
}

static int node_of(const char *key)
{
	char *end;
	long v = strtol(key, &end, 10);

	return (*end || end == key || v < -1 || v > 63) ? -2 : (int)v;
}

struct dev_walk {
	const char *uid;
	const char *const *skip;
	struct rq_kubelet_dev *devs;
	size_t max, n;
	uint64_t nodes;
	struct rq_jbuf res, ids; /* one PodDeviceEntries element's ResourceName and DeviceIDs */
};

bool kubelet_dev_skipped(const char *const *skip, const char *id)
{
	for (; skip && *skip; skip++)
		if (**skip && !strcasecmp(*skip, id))
			return true;
	return false;
}

static void dev_add(struct dev_walk *w, const cJSON *res, const char *id, int node)
{
	if (kubelet_dev_skipped(w->skip, id))
		return;
	if (node >= 0)
		w->nodes |= 1ULL << node;
	if (w->n >= w->max)
		return;
	(void)snprintf(w->devs[w->n].resource, sizeof(w->devs[0].resource), "%s",
		       cJSON_IsString(res) ? res->valuestring : "?");
	(void)snprintf(w->devs[w->n].id, sizeof(w->devs[0].id), "%s", id);
	w->devs[w->n].node = node;
	w->n++;
}

/* One PodDeviceEntries element's DeviceIDs: keyed by NUMA node (>= 1.20) or a flat list. */
static void entry_devices(struct dev_walk *w, const cJSON *res, const cJSON *ids)
{
	const cJSON *k, *id;

	if (cJSON_IsArray(ids)) { /* pre-1.20: no topology */
		cJSON_ArrayForEach(id, ids)
		{
			if (cJSON_IsString(id))
				dev_add(w, res, id->valuestring, -1);
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
				dev_add(w, res, id->valuestring, node);
		}
	}
}

/* Go writes PodUID first, so the other pods' elements are skipped at full speed. */
static int dev_element(struct rq_jscan *s, struct dev_walk *w)
{
	char key[RQ_KUBELET_KEY_MAX], uid[RQ_KUBELET_KEY_MAX];
	bool first = true, cut = false, ucut = false, seen_uid = false, seen_res = false,
	     seen_ids = false;
	int r, match = -1; /* -1 not seen yet, 0 another pod (or not a string), 1 this pod */
	cJSON *res, *ids;

	w->res.len = w->ids.len = 0;
	if (jscan_peek(s) != '{')
		return jscan_skip(s);
	while ((r = jscan_member(s, &first, key, sizeof(key), &cut)) == 1) {
		if (cut) {
			r = jscan_skip(s);
		} else if (!seen_uid && !strcmp(key, "PodUID")) {
			seen_uid = true;
			r = jscan_string(s, uid, sizeof(uid), &ucut);
			if (r >= 0)
				match = r == 1 && !ucut && !strcmp(uid, w->uid);
			/* another pod's entry: the rest of it at full speed */
			if (match == 0)
				return jscan_skip_rest(s);
		} else if (!seen_res && !strcmp(key, "ResourceName")) {
			seen_res = true;
			r = jscan_capture(s, &w->res);
		} else if (!seen_ids && !strcmp(key, "DeviceIDs")) {
			seen_ids = true;
			r = jscan_capture(s, &w->ids);
		} else {
			r = jscan_skip(s);
		}
		if (r < 0)
			return r;
	}
	if (r < 0 || match != 1 || !seen_ids)
		return r;
	res = seen_res ? cJSON_ParseWithLength(w->res.p, w->res.len) : NULL;
	ids = cJSON_ParseWithLength(w->ids.p, w->ids.len);
	if (ids && (res || !seen_res))
		entry_devices(w, res, ids);
	else
		r = -EBADMSG; /* valid for the scanner; cJSON is at most this strict */
	cJSON_Delete(res);
	cJSON_Delete(ids);
	return r;
}

static int dev_entries(struct rq_jscan *s, void *ctx)
{
	bool first = true;
	int r;

	if (jscan_peek(s) != '[')
		return jscan_skip(s);
	while ((r = jscan_element(s, &first)) == 1)
		if ((r = dev_element(s, ctx)) < 0)
			return r;
	return r;
}

static int dev_data(struct rq_jscan *s, void *ctx)
{
	return member(s, "PodDeviceEntries", dev_entries, ctx);
}

int kubelet_devices_src(struct rq_jsrc src, const char *pod_uid, const char *const *skip,
			struct rq_kubelet_dev *devs, size_t max, size_t *ret_n, uint64_t *ret_nodes)
{
	struct dev_walk w = {.uid = pod_uid, .skip = skip, .devs = devs, .max = max};
	struct rq_jscan *s;
	int r;

	if (!pod_uid || strlen(pod_uid) >= RQ_KUBELET_KEY_MAX)
		return -EINVAL;
	w.res.max = w.ids.max = RQ_KUBELET_VALUE_MAX;
	s = scan_new(src);
	if (!s)
		return -ENOMEM;
	r = member(s, "Data", dev_data, &w);
	scan_free(s);
	jbuf_fini(&w.res);
	jbuf_fini(&w.ids);
	if (r < 0)
		return r;
	*ret_n = w.n;
	if (ret_nodes)
		*ret_nodes = w.nodes;
	return 0;
}

int kubelet_devices(const char *buf, size_t len, const char *pod_uid, struct rq_kubelet_dev *devs,
		    size_t max, size_t *ret_n)
{
	struct rq_jmem m;

	return kubelet_devices_src(mem_src(&m, buf, len), pod_uid, NULL, devs, max, ret_n, NULL);
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

int kubelet_memory_src(struct rq_jsrc src, const char *pod_uid, uint64_t *ret_nodes)
{
	const cJSON *pod, *c;
	uint64_t nodes = 0;
	cJSON *o = NULL;
	int r = pod_entries(src, pod_uid, &o);

	if (r < 0)
		return r;
	pod = cJSON_IsObject(o) ? o : NULL;
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

int kubelet_memory(const char *buf, size_t len, const char *pod_uid, uint64_t *ret_nodes)
{
	struct rq_jmem m;

	return kubelet_memory_src(mem_src(&m, buf, len), pod_uid, ret_nodes);
}
