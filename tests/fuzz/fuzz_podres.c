// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the PodResources reply decoder (make fuzz-podres):
 * what kubelet's socket answers is untrusted bytes. The first input byte
 * picks Get or List (and, for List, which pod is asked for); the rest is the
 * gRPC message body (length prefix + protobuf), copied into an exactly-sized
 * buffer so ASan sees any read past the end. The same bytes are also a
 * grpc-message header value (percent-decoded, then classified as Get's
 * refusal). The decoders' promises are checked and a broken one aborts; List
 * is also read by a full protobuf-c unpack, and wherever that one reads the
 * reply, the walk must give the same answer. With bit 2 of the first byte,
 * List is also searched for the pod holding VF 0000:81:00.1 (netdev "net1")
 * by podres_find_vf, against the same search over the full unpack; the
 * placement's DRA devices (dynamic_resources) are checked in every mode.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pkg/podres/api.pb-c.h"
#include "pkg/podres/podres.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int r, const struct rq_podres_placement *p)
{
	uint64_t want = 0;

	if (r != 0 && r != -EBADMSG && r != -ESRCH)
		abort();
	if (r != 0)
		return;
	if (p->n_devs > RQ_KUBELET_MAX_DEVS)
		abort();
	for (size_t i = 0; i < p->n_devs; i++) {
		const struct rq_kubelet_dev *d = &p->devs[i];

		if (d->node < -1 || d->node > 63 || !memchr(d->id, '\0', sizeof(d->id)) ||
		    !memchr(d->resource, '\0', sizeof(d->resource)))
			abort();
		/* the attachment's own device is never listed */
		if (!strcmp(d->id, "0000:81:00.1"))
			abort();
		if (d->node >= 0)
			want |= 1ULL << d->node;
	}
	/* DRA devices: kept to the cap, all counted, terminated; the VF's own never among them */
	if (p->n_dra > RQ_PODRES_MAX_DRA || p->n_dra > p->n_dra_all)
		abort();
	if (p->n_dra < RQ_PODRES_MAX_DRA && p->n_dra != p->n_dra_all)
		abort();
	for (size_t i = 0; i < p->n_dra; i++) {
		const struct rq_podres_dra_dev *d = &p->dra[i];

		if (!memchr(d->driver, '\0', sizeof(d->driver)) ||
		    !memchr(d->device, '\0', sizeof(d->device)))
			abort();
		if (podres_dra_names_vf(d->driver, d->device, "0000:81:00.1", "0000:81:00.1") !=
		    RQ_PODRES_VF_BY_NONE)
			abort();
	}
	if (p->has_self && (!memchr(p->self_claim, '\0', sizeof(p->self_claim)) ||
			    !memchr(p->self.device, '\0', sizeof(p->self.device))))
		abort();
	/* the nodes cover every listed device, and only listed ones while fewer than the cap */
	if ((p->dev_nodes & want) != want ||
	    (p->n_devs < RQ_KUBELET_MAX_DEVS && p->dev_nodes != want))
		abort();
}

/*
 * List as a full protobuf-c unpack reads it (what podres_decode_list did before it walked
 * the reply): -EBADMSG, -ESRCH, or the first matching pod's placement, through a Get reply.
 */
static int list_reference(const uint8_t *body, size_t len, const char *ns, const char *name,
			  const char *const *skip, struct rq_podres_placement *ret)
{
	V1__ListPodResourcesResponse *m;
	int r = -ESRCH;

	if (len < 5 || body[0] != 0 ||
	    ((uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 |
	     body[4]) != len - 5)
		return -EBADMSG;
	m = v1__list_pod_resources_response__unpack(NULL, len - 5, body + 5);
	if (!m)
		return -EBADMSG;
	for (size_t i = 0; i < m->n_pod_resources; i++) {
		V1__PodResources *pod = m->pod_resources[i];
		V1__GetPodResourcesResponse g = V1__GET_POD_RESOURCES_RESPONSE__INIT;
		size_t n;
		uint8_t *b;

		if (!pod || !pod->name || !pod->namespace_ || strcmp(pod->name, name) ||
		    strcmp(pod->namespace_, ns))
			continue;
		g.pod_resources = pod;
		n = v1__get_pod_resources_response__get_packed_size(&g);
		b = malloc(n + 5);
		if (!b)
			abort();
		b[0] = 0;
		b[1] = (uint8_t)(n >> 24);
		b[2] = (uint8_t)(n >> 16);
		b[3] = (uint8_t)(n >> 8);
		b[4] = (uint8_t)n;
		v1__get_pod_resources_response__pack(&g, b + 5);
		r = podres_decode_get(b, n + 5, skip, ret);
		free(b);
		break;
	}
	v1__list_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

/* As podres_find_vf reads one container, over protobuf-c's unpack: a claim, else a device ID. */
static bool ctr_names_vf(const V1__ContainerResources *c, const char *pci, const char *netdev,
			 struct rq_podres_vf_owner *o)
{
	for (size_t i = 0; i < c->n_dynamic_resources; i++) {
		const V1__DynamicResource *d = c->dynamic_resources[i];

		for (size_t k = 0; d && k < d->n_claim_resources; k++) {
			const V1__ClaimResource *cr = d->claim_resources[k];
			enum rq_podres_vf_by by;

			if (!cr)
				continue;
			by = podres_dra_names_vf(cr->driver_name ? cr->driver_name : "",
						 cr->device_name ? cr->device_name : "", pci,
						 netdev);
			if (by == RQ_PODRES_VF_BY_NONE)
				continue;
			o->by = by;
			(void)snprintf(o->source, sizeof(o->source), "%s", cr->driver_name);
			(void)snprintf(o->device, sizeof(o->device), "%s", cr->device_name);
			(void)snprintf(o->claim, sizeof(o->claim), "%.253s/%.253s",
				       d->claim_namespace ? d->claim_namespace : "",
				       d->claim_name ? d->claim_name : "");
			return true;
		}
	}
	for (size_t i = 0; i < c->n_devices; i++) {
		const V1__ContainerDevices *d = c->devices[i];

		for (size_t k = 0; d && k < d->n_device_ids; k++) {
			if (!d->device_ids[k] || strcasecmp(d->device_ids[k], pci))
				continue;
			o->by = RQ_PODRES_VF_BY_DEVICE_ID;
			(void)snprintf(o->source, sizeof(o->source), "%s",
				       d->resource_name ? d->resource_name : "");
			(void)snprintf(o->device, sizeof(o->device), "%s", d->device_ids[k]);
			return true;
		}
	}
	return false;
}

/* podres_find_vf over a full unpack: -EBADMSG where that refuses the reply. */
static int find_reference(const uint8_t *body, size_t len, const char *pci, const char *netdev,
			  struct rq_podres_vf_owner *ret)
{
	V1__ListPodResourcesResponse *m;
	const char *fns = NULL, *fname = NULL;
	int r = -ESRCH;

	memset(ret, 0, sizeof(*ret));
	if (len < 5 || body[0] != 0 ||
	    ((uint32_t)body[1] << 24 | (uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 |
	     body[4]) != len - 5)
		return -EBADMSG;
	m = v1__list_pod_resources_response__unpack(NULL, len - 5, body + 5);
	if (!m)
		return -EBADMSG;
	for (size_t i = 0; i < m->n_pod_resources; i++) {
		const V1__PodResources *pod = m->pod_resources[i];
		const char *ns = pod && pod->namespace_ ? pod->namespace_ : "";
		const char *name = pod && pod->name ? pod->name : "";
		struct rq_podres_vf_owner o = {0};
		bool hit = false;

		for (size_t c = 0; pod && c < pod->n_containers && !hit; c++) {
			if (!pod->containers[c] ||
			    !ctr_names_vf(pod->containers[c], pci, netdev, &o))
				continue;
			hit = true;
			(void)snprintf(o.container, sizeof(o.container), "%s",
				       pod->containers[c]->name ? pod->containers[c]->name : "");
		}
		if (!hit)
			continue;
		if (r == -ESRCH) {
			*ret = o;
			(void)snprintf(ret->ns, sizeof(ret->ns), "%s", ns);
			(void)snprintf(ret->name, sizeof(ret->name), "%s", name);
			fns = ns, fname = name, r = 0;
		} else if (strcmp(fns, ns) || strcmp(fname, name)) {
			r = -ENOTUNIQ;
		}
	}
	v1__list_pod_resources_response__free_unpacked(m, NULL);
	return r;
}

static void check_find(const uint8_t *buf, size_t len)
{
	struct rq_podres_vf_owner o, q;
	int r = podres_find_vf(buf, len, "0000:81:00.1", "net1", &o);
	int ref = find_reference(buf, len, "0000:81:00.1", "net1", &q);

	if (r != 0 && r != -ESRCH && r != -ENOTUNIQ && r != -EBADMSG)
		abort();
	if (ref != -EBADMSG && r != ref)
		abort();
	if ((r == 0 || r == -ENOTUNIQ) && ref != -EBADMSG &&
	    (strcmp(o.ns, q.ns) || strcmp(o.name, q.name) || strcmp(o.container, q.container) ||
	     o.by != q.by || strcmp(o.source, q.source) || strcmp(o.device, q.device) ||
	     strcmp(o.claim, q.claim)))
		abort();
	if ((r == 0 || r == -ENOTUNIQ) && o.by == RQ_PODRES_VF_BY_NONE)
		abort();
}

/*
 * podres_find_resources against the same search over a full unpack: the pods holding a
 * device of "rdma/hca_shared_devices_a" or "rdma/b", each once, in order.
 */
static void check_resources(const uint8_t *buf, size_t len)
{
	static const char *const res[] = {"rdma/hca_shared_devices_a", "rdma/b"};
	struct rq_podres_res_holder *h = NULL;
	V1__ListPodResourcesResponse *m = NULL;
	size_t n = 0, k = 0;
	int r = podres_find_resources(buf, len, res, 2, &h, &n);

	if (r != 0 && r != -EBADMSG && r != -ENOMEM)
		abort();
	if ((r != 0 && (h || n)) || (n && !h))
		abort();
	if (len >= 5 && buf[0] == 0 &&
	    ((uint32_t)buf[1] << 24 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4]) ==
		len - 5)
		m = v1__list_pod_resources_response__unpack(NULL, len - 5, buf + 5);
	for (size_t i = 0; m && r == 0 && i < m->n_pod_resources; i++) {
		const V1__PodResources *pod = m->pod_resources[i];
		const char *hit = NULL;

		for (size_t c = 0; pod && c < pod->n_containers && !hit; c++)
			for (size_t d = 0;
			     pod->containers[c] && d < pod->containers[c]->n_devices && !hit; d++) {
				const char *rn = pod->containers[c]->devices[d]
						     ? pod->containers[c]->devices[d]->resource_name
						     : NULL;

				if (rn && (!strcmp(rn, res[0]) || !strcmp(rn, res[1])))
					hit = !strcmp(rn, res[0]) ? res[0] : res[1];
			}
		if (!hit)
			continue;
		if (k >= n || strcmp(h[k].resource, hit) ||
		    strcmp(h[k].ns, pod->namespace_ ? pod->namespace_ : "") ||
		    strcmp(h[k].name, pod->name ? pod->name : ""))
			abort();
		k++;
	}
	if (m && r == 0 && k != n)
		abort();
	if (m)
		v1__list_pod_resources_response__free_unpacked(m, NULL);
	free(h);
}

/*
 * The decoded text: NUL-terminated within its buffer, never longer than the input, cut
 * only when said; without a '%' the input's length. Get's "not found" only for the pod asked.
 */
static void check_message(const uint8_t *v, size_t len)
{
	char out[64];
	int r = podres_grpc_msg_decode(v, len, out, sizeof(out));
	size_t n = strnlen(out, sizeof(out));

	if (n >= sizeof(out) || n > len || (r != 0 && r != -ENOSPC))
		abort();
	if ((r == -ENOSPC && n != sizeof(out) - 1) || (r == 0 && !memchr(v, '%', len) && n != len))
		abort();
	if (podres_get_answer(2, out, "ns", "p") == RQ_PODRES_GET_NO_POD &&
	    strcmp(out, "pod p in namespace ns not found"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const skip[] = {"0000:81:00.1", NULL};
	struct rq_podres_placement p;
	uint8_t *buf;
	int r;

	if (size < 1)
		return 0;
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	memset(&p, 0xa5, sizeof(p));
	if (data[0] & 1) {
		const char *ns = (data[0] & 2) ? "" : "ns", *name = (data[0] & 2) ? "" : "p";
		struct rq_podres_placement q;
		int ref;

		r = podres_decode_list(buf, size - 1, ns, name, skip, &p);
		/* wherever a full unpack reads the reply, the walk reads it the same */
		memset(&q, 0xa5, sizeof(q));
		ref = list_reference(buf, size - 1, ns, name, skip, &q);
		if (ref != -EBADMSG && (r != ref || (r == 0 && memcmp(&p, &q, sizeof(p)))))
			abort();
		if (data[0] & 4)
			check_find(buf, size - 1);
		check_resources(buf, size - 1);
	} else
		r = podres_decode_get(buf, size - 1, skip, &p);
	check(r, &p);
	check_message(buf, size - 1);
	free(buf);
	return 0;
}
