// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the PodResources reply decoder (make fuzz-podres):
 * what kubelet's socket answers is untrusted bytes. The first input byte
 * picks Get or List (and, for List, which pod is asked for); the rest is the
 * gRPC message body (length prefix + protobuf), copied into an exactly-sized
 * buffer so ASan sees any read past the end. The same bytes are also a
 * grpc-message header value (percent-decoded, then classified as Get's
 * refusal). The decoders' promises are checked and a broken one aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	if (data[0] & 1)
		r = podres_decode_list(buf, size - 1, (data[0] & 2) ? "" : "ns",
				       (data[0] & 2) ? "" : "p", skip, &p);
	else
		r = podres_decode_get(buf, size - 1, skip, &p);
	check(r, &p);
	check_message(buf, size - 1);
	free(buf);
	return 0;
}
