/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client of kubelet's PodResources API (v1, gRPC over HTTP/2 on a unix
 * socket): the pod's exclusive CPUs, devices with their NUMA nodes and
 * pinned memory, by Get (kubelet 1.27+ with KubeletPodResourcesGet) or List
 * (kubelet 1.26, and 1.27-1.33 with the gate off, its default); DRA devices
 * (dynamic_resources: kubelet 1.34+, or 1.27-1.33 with
 * KubeletPodResourcesDynamicResources on) by name, without topology, in both.
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

/*
 * DRA drivers whose device names rdma-qos knows (DESIGN.md "VFs from Dynamic Resource
 * Allocation"): k8snetworkplumbingwg/dra-driver-sriov names a VF by its PCI address with ':'
 * and '.' written '-' ("0000-3b-00-2", pkg/devicestate/discovery.go); kubernetes-sigs/dranet
 * (0.7+, pkg/names NormalizePCIAddress) names a PCI device "pci-" and the same
 * ("pci-0000-3b-00-2"), and a device without PCI address, as dranet before 0.7 named every
 * one, by its netdev name.
 */
#define RQ_DRA_DRIVER_SRIOV  "sriovnetwork.k8snetworkplumbingwg.io"
#define RQ_DRA_DRIVER_DRANET "dra.net"

/* How a pod's PodResources name a VF. */
enum rq_podres_vf_by {
	RQ_PODRES_VF_BY_NONE = 0,
	RQ_PODRES_VF_BY_DRA_SRIOV, /* a dra-driver-sriov device "0000-3b-00-2" */
	RQ_PODRES_VF_BY_DRANET,	   /* a dranet device "pci-0000-3b-00-2", or its netdev name */
	RQ_PODRES_VF_BY_DEVICE_ID, /* a device plugin's device ID that is the PCI address */
};

/* "dra-driver-sriov", "dranet", "device-plugin", "" for none: for logs and labels. */
const char *podres_vf_by_name(enum rq_podres_vf_by by);

/*
 * Whether DRA device @device of driver @driver is the VF at PCI address @pci (any case;
 * NULL or not an address: no PCI form) with netdev @netdev (NULL or "": none), and by which
 * naming. Pure string comparison, no allocation.
 */
enum rq_podres_vf_by podres_dra_names_vf(const char *driver, const char *device, const char *pci,
					 const char *netdev);

/* A DRA device of the pod: it has no NUMA node in PodResources, so it is never evidence. */
struct rq_podres_dra_dev {
	char driver[96]; /* cut to fit: for the evidence only */
	char device[64]; /* a DNS label: at most 63 */
};

/* an 8-GPU, 8-rail pod (GPUs and VFs from DRA) with room for its other devices */
#define RQ_PODRES_MAX_DRA 32

/* What kubelet placed for one pod: the union over its containers. */
struct rq_podres_placement {
	uint64_t cpus[RQ_CPU_WORDS]; /* exclusive CPUs; all zero: shared pool */
	struct rq_kubelet_dev devs[RQ_KUBELET_MAX_DEVS];
	size_t n_devs;	    /* devices kept in devs (at most RQ_KUBELET_MAX_DEVS) */
	uint64_t dev_nodes; /* NUMA nodes of all devices, beyond the ones kept */
	uint64_t mem_nodes; /* NUMA nodes of its pinned memory */
	/*
	 * dynamic_resources: the attachment's own VF (a DRA device that podres_dra_names_vf
	 * finds among @skip's names) in self, the others in dra. Neither is placement.
	 */
	struct rq_podres_dra_dev dra[RQ_PODRES_MAX_DRA];
	size_t n_dra;	  /* kept in dra */
	size_t n_dra_all; /* all of them, beyond the ones kept */
	bool has_self;	  /* the VF's own claim was there */
	struct rq_podres_dra_dev self;
	char self_claim[128]; /* its claim, "NAMESPACE/NAME", cut to fit */
};

/*
 * Decoders (fuzzed): one gRPC message body (5-byte length prefix + protobuf)
 * of a Get or a List reply into @ret. For List, the pod named @ns/@name.
 * Device IDs in @skip are left out as in kubelet_devices_src; a DRA device
 * that podres_dra_names_vf finds to be one of @skip (as PCI address or
 * netdev name) is the pod's own VF (ret->self), the other DRA devices are
 * listed in ret->dra. -ESRCH for List
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

/* Which pod holds a VF, from a List reply (podres_find_vf). */
struct rq_podres_vf_owner {
	char ns[254], name[254]; /* the pod (Kubernetes names: at most 253) */
	char container[254];	 /* the container whose resources name the VF */
	enum rq_podres_vf_by by;
	char source[254]; /* the DRA driver, or the device plugin's resource name */
	char device[254]; /* the DRA device name, or the device ID as listed */
	char claim[508];  /* the DRA claim "NAMESPACE/NAME"; "" for a device plugin */
};

/*
 * podres_find_vf (fuzzed): the pod of a List reply @body/@len (framed, as
 * podres_decode_get) whose resources name the VF at PCI address @pci (any
 * case) with host netdev @netdev (NULL or "": unknown) -- a dynamic_resources
 * device of dra-driver-sriov or dranet (podres_dra_names_vf), or a device
 * plugin's device ID equal to @pci (the SR-IOV device plugin's) -- into @ret.
 * The reply is walked, never unpacked whole: no allocation, every pod read.
 * kubelet lists a claim's devices only under the containers whose
 * resources.claims name it: a claim only the pod spec lists is not there.
 * 0: found; -ESRCH: no pod names it; -ENOTUNIQ: two pods (other namespace or
 * name) name it, @ret the first (a stale List: adopt neither); -EINVAL: @pci
 * is not a PCI address "DDDD:BB:DD.F"; -EBADMSG: malformed (framing,
 * protobuf, a known field of the wrong wire type).
 */
int podres_find_vf(const uint8_t *body, size_t len, const char *pci, const char *netdev,
		   struct rq_podres_vf_owner *ret);

/*
 * kubelet's List under @kubelet_dir (resolved under @r) within @timeout_ms:
 * the framed reply in *@ret_body (malloc'd, the caller frees) and *@ret_len,
 * for podres_find_vf and podres_decode_list. Errors as podres_get_pod; -ESRCH
 * never. One List serves any number of look-ups.
 */
int podres_list(const struct rq_root *r, const char *kubelet_dir, int timeout_ms,
		uint8_t **ret_body, size_t *ret_len, struct rq_podres_status *st);

/* A pod holding a device of a device plugin resource (podres_find_resources). */
struct rq_podres_res_holder {
	char ns[254], name[254]; /* the pod (Kubernetes names: at most 253) */
	char resource[254];	 /* the first of the asked resources it holds */
};

/*
 * podres_find_resources (fuzzed with podres_find_vf's input): every pod of a
 * List reply @body/@len (framed) with a container holding a device of one of
 * the @n device plugin resource names @resources (ContainerDevices.resource_name,
 * exact), each pod once, in the reply's order, into *@ret (malloc'd, NULL when
 * none) and *@ret_n. Walked as podres_find_vf walks. -EBADMSG: malformed;
 * -ENOMEM. A shared device plugin (k8s-rdma-shared-dev-plugin) hands out IDs
 * that name no device: the resource's name is what tells.
 */
int podres_find_resources(const uint8_t *body, size_t len, const char *const *resources, size_t n,
			  struct rq_podres_res_holder **ret, size_t *ret_n);

/* podres_list, then podres_find_vf: one VF's pod in one exchange. */
int podres_list_find_vf(const struct rq_root *r, const char *kubelet_dir, const char *pci,
			const char *netdev, int timeout_ms, struct rq_podres_vf_owner *ret,
			struct rq_podres_status *st);

#endif
