// SPDX-License-Identifier: Apache-2.0
/*
 * PodResources replies into a placement: the same facts the kubelet files
 * give (exclusive CPUs, devices by NUMA node, memory's NUMA affinity), so
 * pkg/numa judges them with the same words.
 */
#include "pkg/podres/podres.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/podres/api.pb-c.h"

/* The gRPC length-prefixed message: flag 0 (uncompressed), 4-byte length, exactly the rest. */
static int unframe(const uint8_t *body, size_t len, const uint8_t **msg, size_t *mlen)
{
	uint32_t n;

	if (!body || len < 5 || body[0] != 0)
		return -EBADMSG;
	n = (uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 | body[4];
	if (n != len - 5)
		return -EBADMSG;
	*msg = body + 5;
	*mlen = n;
	return 0;
}

static void dev_add(struct rq_podres_placement *p, const char *res, const char *id, int node)
{
	if (node >= 0)
		p->dev_nodes |= 1ULL << node;
	if (p->n_devs >= RQ_KUBELET_MAX_DEVS)
		return;
	(void)snprintf(p->devs[p->n_devs].resource, sizeof(p->devs[0].resource), "%s", res);
	(void)snprintf(p->devs[p->n_devs].id, sizeof(p->devs[0].id), "%s", id);
	p->devs[p->n_devs].node = node;
	p->n_devs++;
}

/* A node ID kubelet would key the checkpoint by: 0..63, else the device is not placed there. */
static bool node_ok(const V1__NUMANode *n)
{
	return n && n->id >= 0 && n->id < 64;
}

static void container_devices(struct rq_podres_placement *p, const V1__ContainerDevices *d,
			      const char *const *skip)
{
	const V1__TopologyInfo *t = d->topology;
	const char *res = d->resource_name ? d->resource_name : "?";

	for (size_t i = 0; i < d->n_device_ids; i++) {
		const char *id = d->device_ids[i] ? d->device_ids[i] : "";
		bool placed = false;

		if (kubelet_dev_skipped(skip, id))
			continue;
		/* one line a node, as the checkpoint lists a device under each of its nodes */
		for (size_t k = 0; t && k < t->n_nodes; k++) {
			if (!node_ok(t->nodes[k]))
				continue;
			dev_add(p, res, id, (int)t->nodes[k]->id);
			placed = true;
		}
		if (!placed)
			dev_add(p, res, id, -1);
	}
}

static int pod_placement(const V1__PodResources *pod, const char *const *skip,
			 struct rq_podres_placement *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t c = 0; pod && c < pod->n_containers; c++) {
		const V1__ContainerResources *ctr = pod->containers[c];

		if (!ctr)
			continue;
		for (size_t i = 0; i < ctr->n_cpu_ids; i++) {
			int64_t cpu = ctr->cpu_ids[i];

			if (cpu < 0 || cpu >= RQ_MAX_CPUS)
				return -EBADMSG;
			p->cpus[cpu / 64] |= 1ULL << (cpu % 64);
		}
		for (size_t i = 0; i < ctr->n_devices; i++)
			if (ctr->devices[i])
				container_devices(p, ctr->devices[i], skip);
		for (size_t i = 0; i < ctr->n_memory; i++) {
			const V1__TopologyInfo *t =
			    ctr->memory[i] ? ctr->memory[i]->topology : NULL;

			for (size_t k = 0; t && k < t->n_nodes; k++)
				if (node_ok(t->nodes[k]))
					p->mem_nodes |= 1ULL << t->nodes[k]->id;
		}
	}
	return 0;
}

int podres_decode_get(const uint8_t *body, size_t len, const char *const *skip,
		      struct rq_podres_placement *ret)
{
	V1__GetPodResourcesResponse *m;
	const uint8_t *msg;
	size_t mlen;
	int r = unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	m = v1__get_pod_resources_response__unpack(NULL, mlen, msg);
	if (!m)
		return -EBADMSG;
	r = pod_placement(m->pod_resources, skip, ret);
	v1__get_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

int podres_decode_list(const uint8_t *body, size_t len, const char *ns, const char *name,
		       const char *const *skip, struct rq_podres_placement *ret)
{
	V1__ListPodResourcesResponse *m;
	const uint8_t *msg;
	size_t mlen;
	int r = unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	if (!ns || !name)
		return -EINVAL;
	m = v1__list_pod_resources_response__unpack(NULL, mlen, msg);
	if (!m)
		return -EBADMSG;
	r = -ESRCH;
	for (size_t i = 0; i < m->n_pod_resources; i++) {
		const V1__PodResources *pod = m->pod_resources[i];

		if (pod && pod->name && pod->namespace_ && !strcmp(pod->name, name) &&
		    !strcmp(pod->namespace_, ns)) {
			r = pod_placement(pod, skip, ret);
			break;
		}
	}
	v1__list_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int podres_grpc_msg_decode(const uint8_t *v, size_t len, char *ret, size_t cap)
{
	size_t o = 0;

	if (!ret || !cap)
		return -ENOSPC;
	for (size_t i = 0; v && i < len; i++) {
		uint8_t b = v[i];
		int hi = i + 2 < len ? hexval(v[i + 1]) : -1;
		int lo = i + 2 < len ? hexval(v[i + 2]) : -1;

		if (b == '%' && hi >= 0 && lo >= 0) {
			b = (uint8_t)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= cap) {
			ret[o] = '\0';
			return -ENOSPC;
		}
		ret[o++] = b ? (char)b : '?';
	}
	ret[o] = '\0';
	return 0;
}

/* @s is @word followed by the rest: the rest, else NULL. */
static const char *skip_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return s && !strncmp(s, word, n) ? s + n : NULL;
}

enum rq_podres_get_answer podres_get_answer(int grpc_status, const char *msg, const char *ns,
					    const char *name)
{
	const char *s;

	if (grpc_status == RQ_GRPC_UNIMPLEMENTED)
		return RQ_PODRES_GET_NO_METHOD;
	if (grpc_status == RQ_GRPC_NOT_FOUND)
		return RQ_PODRES_GET_NO_POD;
	if (grpc_status != RQ_GRPC_UNKNOWN || !msg)
		return RQ_PODRES_GET_FAILED;
	if (!strcmp(msg, "PodResources API Get method disabled"))
		return RQ_PODRES_GET_NO_METHOD;
	/* exactly "pod NAME in namespace NS not found" for the pod asked about */
	if (!ns || !name || !name[0] || !ns[0])
		return RQ_PODRES_GET_FAILED;
	s = skip_word(skip_word(skip_word(skip_word(msg, "pod "), name), " in namespace "), ns);
	s = skip_word(s, " not found");
	return s && !*s ? RQ_PODRES_GET_NO_POD : RQ_PODRES_GET_FAILED;
}
