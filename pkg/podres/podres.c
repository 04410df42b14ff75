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

/* A protobuf varint at *@p before @end; *@p past it. */
static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *ret)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

/*
 * One protobuf field at *@p before @end: its number, and for a length-delimited one its
 * bytes in @ret_val/@ret_len (else NULL); *@p past it. Groups (wire types 3, 4) are not in
 * this API: malformed.
 */
static int pb_field(const uint8_t **p, const uint8_t *end, uint64_t *ret_num,
		    const uint8_t **ret_val, size_t *ret_len)
{
	uint64_t key, n;

	if (pb_varint(p, end, &key) < 0) /* field 0 passes, as protobuf-c lets it */
		return -EBADMSG;
	*ret_num = key >> 3;
	*ret_val = NULL;
	*ret_len = 0;
	switch (key & 7) {
	case 0:
		return pb_varint(p, end, &n);
	case 1:
	case 5:
		n = (key & 7) == 1 ? 8 : 4;
		break;
	case 2:
		if (pb_varint(p, end, &n) < 0)
			return -EBADMSG;
		*ret_val = *p;
		*ret_len = (size_t)n;
		break;
	default:
		return -EBADMSG;
	}
	if (n > (uint64_t)(end - *p))
		return -EBADMSG;
	*p += n;
	return 0;
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
		if (pb_field(&p, end, &num, &val, &vlen) < 0)
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
	int r = unframe(body, len, &msg, &mlen);

	if (r < 0)
		return r;
	if (!ns || !name)
		return -EINVAL;
	for (p = msg, end = msg + mlen; p < end;) {
		if (pb_field(&p, end, &num, &val, &vlen) < 0)
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
		ret[o++] = (char)(b ? b : (uint8_t)'?');
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
