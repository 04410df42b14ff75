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
 * reply, the walk must give the same answer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	} else
		r = podres_decode_get(buf, size - 1, skip, &p);
	check(r, &p);
	check_message(buf, size - 1);
	free(buf);
	return 0;
}
