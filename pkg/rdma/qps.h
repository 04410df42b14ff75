/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QP census (DESIGN.md "Who"): the QPs of one RDMA device as RDMA
 * netlink's resource tracker lists them (RDMA_NLDEV_CMD_RES_QP_GET), and
 * where the driver dumps the QP context (RDMA_NLDEV_CMD_RES_QP_GET_RAW:
 * mlx5's resource dump, drivers/infiniband/hw/mlx5/restrack.c) the traffic
 * class each QP's primary address path carries.
 *
 * Visibility, from the kernel: a device is listed only to a socket in the
 * netns the device is in (exclusive RDMA netns mode: the pod's), and then
 * all of its QPs are. Since Linux 5.5 ("RDMA/restrack: Remove PID namespace
 * support") the PID namespace filters no QP out; it decides only RES_PID
 * (nldev.c fill_res_name_pid: task_pid_vnr, the creator's PID as the
 * caller's PID namespace sees it), absent (pid 0 here) when the creator is
 * not visible there. Kernels before 5.5 also hid such QPs, and kernel QPs
 * from all but the initial PID namespace (rdma_is_visible_in_pid_ns).
 */
#ifndef RQ_RDMA_QPS_H
#define RQ_RDMA_QPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rq_qp {
	uint32_t qpn;
	/* "RC" "UC" "UD" "GSI" "SMI" "RAW_PACKET" "XRC_INI" "XRC_TGT"; a driver QP (ib_qp_type
	 * IB_QPT_DRIVER) by its RES_SUBTYPE: mlx5's "DCI" "DCT" "REG_UMR", else "DRIVER" */
	char type[12];
	char state[8];	/* "RESET" "INIT" "RTR" "RTS" "SQD" "SQE" "ERR" */
	uint32_t pid;	/* 0: a kernel QP, or its process is not visible here */
	char comm[32];	/* a kernel QP's owner (RES_KERN_NAME); the sim file's "comm"; else "" */
	int tclass;	/* the ToS byte its primary path sends with; -1: no context dump, or
			 * a type whose context does not carry what it sends (rdma_qp_ctx_class) */
	int sgid_index; /* the source GID index of its primary path (mlx5's src_addr_index),
			 * -1: no context dump, or a type with none per QP (rdma_qp_ctx_class) */
};

struct rq_qp_list {
	size_t n, cap;
	struct rq_qp *qp;
	bool has_ctx;	 /* the driver dumped QP contexts (then tclass is set for each it dumped) */
	bool drv_hidden; /* the kernel listed the QPs only without its driver QPs (see below) */
};

void rdma_qps_free(struct rq_qp_list *l);
/* Append a zeroed QP (tclass and sgid_index -1) and return it; NULL: out of memory. */
struct rq_qp *rdma_qps_add(struct rq_qp_list *l);

/*
 * The QPs of device @dev, from a netlink socket opened in the current netns
 * (the caller enters the pod's netns in exclusive mode), driver QPs included
 * (RDMA_NLDEV_ATTR_DRIVER_DETAILS on both dumps: Linux >= 6.10 hides them
 * otherwise). A dump that fails with them is asked again without them: the
 * QP dump then sets drv_hidden (mlx5's query of a DCT not yet in RTR fails
 * the whole dump, on kernels that still track DCTs), the raw dump keeps
 * the other QPs' classes. A driver without a context dump (rxe, -EOPNOTSUPP
 * from the raw dump) leaves has_ctx false. -ENODEV: no such device in this
 * netns. Every recv is bounded (5 s).
 */
int rdma_qps_dump(const char *dev, struct rq_qp_list *ret);

/*
 * Pure parsers, fed hand-built buffers by the tests and the fuzzer:
 * one RES_QP_GET dump message (RDMA_NLDEV_ATTR_RES_QP nest of
 * RES_QP_ENTRY nests): its QPs appended to @l; -EBADMSG when malformed.
 */
struct nlmsghdr;
int rdma_qps_parse_msg(const struct nlmsghdr *nlh, size_t len, struct rq_qp_list *l);
/*
 * One RES_QP_GET_RAW dump message: each entry's RDMA_NLDEV_ATTR_RES_RAW
 * through rdma_qp_ctx_parse; the QP of @l with that QPN gets the class when
 * rdma_qp_ctx_class says its type sends with it, and @l->has_ctx is set. An
 * entry that does not parse leaves its QP at -1.
 */
int rdma_qps_parse_raw_msg(const struct nlmsghdr *nlh, size_t len, struct rq_qp_list *l);
/*
 * mlx5's raw QP dump (a resource dump of segment PRM_QUERY_QP): segments of
 * { be16 length_dw (the segment's length in dwords, header included),
 * be16 segment_type }; types 0xfff0 and above are the dump's control
 * segments (menu, error, notice, info, reference, command, terminate) and
 * are skipped; the first other segment is the resource segment
 * (mlx5_ifc resource_dump_resource_segment: header, 4 reserved bytes,
 * be32 index1 = the QPN, be32 index2, payload) whose payload is QUERY_QP's
 * output (mlx5_ifc query_qp_out: the qpc at byte 0x18; the qpc's
 * primary_address_path at its byte 0x18; the path's tclass 8 bits at bit
 * 0x64). 0 with *ret_qpn, *ret_state (the qpc's 4-bit state) and *ret_tclass;
 * -EBADMSG: truncated, an error segment, a nonzero command status.
 */
int rdma_qp_ctx_parse(const void *raw, size_t len, uint32_t *ret_qpn, int *ret_state,
		      int *ret_tclass);
/*
 * The same, and *ret_sgid: the path's src_addr_index (mlx5_ifc ads: 8 bits at
 * bit 0x48, the second byte of its third dword), the GID table entry its
 * packets carry as their source (a shared device's pod, by its address).
 */
int rdma_qp_ctx_parse_sgid(const void *raw, size_t len, uint32_t *ret_qpn, int *ret_state,
			   int *ret_tclass, int *ret_sgid);
/*
 * Whether a QP of @type sends with the class of its context's primary path,
 * so the raw dump's tclass is its class: the connected types (RC, UC,
 * XRC_INI, XRC_TGT). Not a DCI (mlx5 takes each send's address vector,
 * tclass included, from the WQE: mlx5_wqe_av), nor a DCT (mlx5_ib dumps a
 * QP's raw context with QUERY_QP at its number, never the DCT's dctc), nor
 * UD (per address handle) or GSI/SMI (the MAD layer's).
 */
bool rdma_qp_ctx_class(const char *type);

/*
 * The simulated node's <root>/rdma/qps/<dev>.json (DESIGN.md "Who"):
 * [{"qpn": 17, "type": "RC", "state": "RTS", "pid": 4242, "comm": "python3",
 * "tclass": 106, "sgid_index": 3}, ...]; "tclass" absent: no context dump
 * (has_ctx is set when any entry has one); "sgid_index" (0..255) absent: -1. -EINVAL names nothing:
 * the caller says which file.
 */
int rdma_qps_parse_json(const char *text, size_t len, struct rq_qp_list *ret);

/*
 * Whether this process is in the initial PID namespace (the inode of
 * /proc/self/ns/pid is the kernel's fixed PROC_PID_INIT_INO): only there
 * does every user QP carry its creator's PID (a DaemonSet pod with hostPID),
 * and, before Linux 5.5, only there did the census list every QP.
 */
bool rdma_qps_host_pidns(void);

#endif
