// SPDX-License-Identifier: Apache-2.0
/*
 * The placement decoder: a Get reply, or one pod of a List reply, unpacked by
 * protobuf-c into the facts the kubelet files give (podres.c, podres.h).
 */
#include "pkg/podres/podres.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/podres/api.pb-c.h"
#include "pkg/podres/podres_int.h"

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

/* Whether DRA device @driver/@device is one of the attachment's names in @skip. */
static bool dra_is_self(const char *driver, const char *device, const char *const *skip)
{
	for (size_t i = 0; skip && skip[i]; i++)
		if (podres_dra_names_vf(driver, device, skip[i], skip[i]) != RQ_PODRES_VF_BY_NONE)
			return true;
	return false;
}

static void dra_set(struct rq_podres_dra_dev *d, const char *driver, const char *device)
{
	(void)snprintf(d->driver, sizeof(d->driver), "%s", driver);
	(void)snprintf(d->device, sizeof(d->device), "%s", device);
}

static bool dra_kept(const struct rq_podres_placement *p, const char *driver, const char *device)
{
	struct rq_podres_dra_dev d;

	dra_set(&d, driver, device);
	for (size_t i = 0; i < p->n_dra; i++)
		if (!strcmp(p->dra[i].driver, d.driver) && !strcmp(p->dra[i].device, d.device))
			return true;
	return false;
}

/* A container's DRA devices: the VF's own claim, or one that places nothing. */
static void container_dra(struct rq_podres_placement *p, const V1__DynamicResource *dr,
			  const char *const *skip)
{
	for (size_t i = 0; i < dr->n_claim_resources; i++) {
		const V1__ClaimResource *c = dr->claim_resources[i];
		const char *driver, *device;

		if (!c)
			continue;
		driver = c->driver_name ? c->driver_name : "";
		device = c->device_name ? c->device_name : "";
		if (!p->has_self && dra_is_self(driver, device, skip)) {
			p->has_self = true;
			dra_set(&p->self, driver, device);
			(void)snprintf(p->self_claim, sizeof(p->self_claim), "%s/%s",
				       dr->claim_namespace ? dr->claim_namespace : "",
				       dr->claim_name ? dr->claim_name : "");
			continue;
		}
		if (dra_is_self(driver, device, skip))
			continue; /* the same VF under a second container */
		if (dra_kept(p, driver[0] ? driver : "?", device[0] ? device : "?"))
			continue; /* one claim shared by two containers */
		p->n_dra_all++;
		if (p->n_dra < RQ_PODRES_MAX_DRA)
			dra_set(&p->dra[p->n_dra++], driver[0] ? driver : "?",
				device[0] ? device : "?");
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
		for (size_t i = 0; i < ctr->n_dynamic_resources; i++)
			if (ctr->dynamic_resources[i])
				container_dra(p, ctr->dynamic_resources[i], skip);
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
	int r = podres_unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	m = v1__get_pod_resources_response__unpack(NULL, mlen, msg);
	if (!m)
		return -EBADMSG;
	r = pod_placement(m->pod_resources, skip, ret);
	v1__get_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

/* As protobuf-c hands a string to C: up to its first NUL; an absent one is "". */
static bool pb_str_eq(const uint8_t *v, size_t len, const char *s)
{
	if (!v)
		return !s[0];
	len = strnlen((const char *)v, len);
	return strlen(s) == len && !memcmp(v, s, len);
}

/*
 * Whether the PodResources message @v is pod @ns/@name, by its name (1) and namespace (2)
 * alone, the last of each as protobuf merges them; -EBADMSG when its fields do not parse.
 */
static int pod_is(const uint8_t *v, size_t len, const char *ns, const char *name, bool *ret)
{
	const uint8_t *p = v, *end = v + len, *val, *nv = NULL, *sv = NULL;
	size_t vlen, nlen = 0, slen = 0;
	uint64_t num;

	while (p < end) {
		if (podres_pb_field(&p, end, &num, &val, &vlen) < 0)
			return -EBADMSG;
		if ((num == 1 || num == 2) && !val)
			return -EBADMSG; /* a string field that is not length-delimited */
		if (num == 1)
			nv = val, nlen = vlen;
		else if (num == 2)
			sv = val, slen = vlen;
	}
	*ret = pb_str_eq(nv, nlen, name) && pb_str_eq(sv, slen, ns);
	return 0;
}

/*
 * List is every pod of the node (230 KB at 250 GPU pods): the reply is walked field by
 * field and only the pod asked about is unpacked, where unpacking it all cost 1.4 ms and
 * 1.5 MiB of heap. The walk checks the framing of every pod; the first match decides, as
 * a full unpack would.
 */
int podres_decode_list(const uint8_t *body, size_t len, const char *ns, const char *name,
		       const char *const *skip, struct rq_podres_placement *ret)
{
	const uint8_t *msg, *p, *end, *val, *found = NULL;
	V1__PodResources *pod;
	uint64_t num;
	size_t mlen, vlen, flen = 0;
	bool match;
	int r = podres_unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	if (!ns || !name)
		return -EINVAL;
	for (p = msg, end = msg + mlen; p < end;) {
		if (podres_pb_field(&p, end, &num, &val, &vlen) < 0)
			return -EBADMSG;
		if (num != 1)
			continue; /* a field this client does not know */
		if (!val || pod_is(val, vlen, ns, name, &match) < 0)
			return -EBADMSG;
		if (match && !found)
			found = val, flen = vlen;
	}
	if (!found)
		return -ESRCH;
	pod = v1__pod_resources__unpack(NULL, flen, found);
	if (!pod)
		return -EBADMSG;
	r = pod_placement(pod, skip, ret);
	v1__pod_resources__free_unpacked(pod, NULL);
	return r;
}
