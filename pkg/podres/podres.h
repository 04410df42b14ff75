/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client of kubelet's PodResources API (v1, gRPC over HTTP/2 on a unix
 * socket): the pod's exclusive CPUs, devices with their NUMA nodes and
 * pinned memory, by Get (kubelet 1.27+ with KubeletPodResourcesGet) or List
 * (kubelet 1.26, and 1.27-1.33 with the gate off, its default).
 * Messages by protobuf-c from api.proto, HTTP/2 by nghttp2; the whole
 * exchange is bounded by a deadline. Bounded and total on any answer.
 */
#ifndef RQ_PODRES_H
#define RQ_PODRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/kubelet/kubelet.h"
#include "pkg/sysfs/sysfs.h"

#define RQ_PODRES_SOCKET "pod-resources/kubelet.sock" /* under kubelet's root dir */
/* A reply past this is refused (-EFBIG): List on a 250-pod GPU node is ~230 KB. */
#define RQ_PODRES_REPLY_MAX  ((size_t)16 * 1024 * 1024)
#define RQ_PODRES_TIMEOUT_MS 1000 /* the whole exchange: connect, Get, List */

/* gRPC status codes the client tells apart */
#define RQ_GRPC_UNKNOWN	      2 /* grpc-go's code for a plain Go error: kubelet's Get refusals */
#define RQ_GRPC_NOT_FOUND     5
#define RQ_GRPC_UNIMPLEMENTED 12

/*
 * What a Get that did not answer means, as kubelet words it
 * (pkg/kubelet/apis/podresources/server_v1.go, 1.27-1.34): the gate
 * KubeletPodResourcesGet off (alpha 1.27-1.33, its default) is
 * fmt.Errorf("PodResources API Get method disabled"), a pod its pod manager
 * does not know fmt.Errorf("pod %s in namespace %s not found", name, ns). grpc-go
 * sends an error that carries no status as code 2 (UNKNOWN, status.FromError) with
 * its text, percent-encoded, as grpc-message (internal/transport: encodeGrpcMessage).
 * 1.26 has no Get at all: UNIMPLEMENTED. 1.34 turned the gate on (beta).
 */
enum rq_podres_get_answer {
	RQ_PODRES_GET_FAILED = 0, /* any other status: an error */
	RQ_PODRES_GET_NO_METHOD,  /* no usable Get (1.26 UNIMPLEMENTED, or disabled): List */
	RQ_PODRES_GET_NO_POD,	  /* kubelet knows no such pod (its words, or NOT_FOUND) */
};

/* Which of those @grpc_status with the decoded grpc-message @msg is, for pod @ns/@name. */
enum rq_podres_get_answer podres_get_answer(int grpc_status, const char *msg, const char *ns,
					    const char *name);

/*
 * A grpc-message header value, percent-encoded by the sender (gRPC over HTTP/2,
 * "Status-Message": every byte outside 0x20-0x7E, and '%', as %XX), decoded into
 * @ret (@cap bytes, NUL-terminated). A '%' not followed by two hex digits stays as
 * it is, as the spec asks; a decoded NUL becomes '?'. -ENOSPC when the text was cut
 * to fit (@ret holds what fits), else 0.
 */
int podres_grpc_msg_decode(const uint8_t *v, size_t len, char *ret, size_t cap);

/* What kubelet placed for one pod: the union over its containers. */
struct rq_podres_placement {
	uint64_t cpus[RQ_CPU_WORDS]; /* exclusive CPUs; all zero: shared pool */
	struct rq_kubelet_dev devs[RQ_KUBELET_MAX_DEVS];
	size_t n_devs;	    /* devices kept in devs (at most RQ_KUBELET_MAX_DEVS) */
	uint64_t dev_nodes; /* NUMA nodes of all devices, beyond the ones kept */
	uint64_t mem_nodes; /* NUMA nodes of its pinned memory */
};

/*
 * Decoders (fuzzed): one gRPC message body (5-byte length prefix + protobuf)
 * of a Get or a List reply into @ret. For List, the pod named @ns/@name.
 * Device IDs in @skip are left out as in kubelet_devices_src. -ESRCH for List
 * when the pod is not there. -EBADMSG on anything malformed (framing,
 * protobuf, compressed, a CPU id outside 0..RQ_MAX_CPUS-1); of a List, what is
 * read: the framing of every pod's own fields, and the asked pod whole.
 */
int podres_decode_get(const uint8_t *body, size_t len, const char *const *skip,
		      struct rq_podres_placement *ret);
int podres_decode_list(const uint8_t *body, size_t len, const char *ns, const char *name,
		       const char *const *skip, struct rq_podres_placement *ret);

/* How an exchange went, for the log and the evidence. */
struct rq_podres_status {
	bool used_list;	  /* Get was unimplemented or disabled: List answered */
	int grpc_status;  /* -1: none (transport error) */
	char detail[160]; /* "" or why the answer is not usable */
};

/*
 * Ask kubelet under @kubelet_dir (host path, resolved under @r) for pod
 * @ns/@name within @timeout_ms: Get, and List on the same connection when
 * Get is UNIMPLEMENTED or disabled. 0 and @ret filled; -ESRCH: kubelet knows
 * no such pod (its "not found", NOT_FOUND, or absent from List); -ENOTCONN:
 * no socket or nobody on it; -ETIMEDOUT: the bound passed; -EPROTO: an
 * HTTP/2 or gRPC error; -EBADMSG: a reply that does not decode; -EFBIG: a
 * reply past RQ_PODRES_REPLY_MAX.
 * @st->detail says which, for the log.
 */
int podres_get_pod(const struct rq_root *r, const char *kubelet_dir, const char *ns,
		   const char *name, const char *const *skip, int timeout_ms,
		   struct rq_podres_placement *ret, struct rq_podres_status *st);

#endif
