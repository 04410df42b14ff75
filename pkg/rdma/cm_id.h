/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RDMA-CM ids of one RDMA device as RDMA netlink's resource tracker
 * lists them (RDMA_NLDEV_CMD_RES_CM_ID_GET; `rdma resource show cm_id`),
 * for the QP census of a shared device (DESIGN.md "Shared RDMA devices"):
 * an id bound to a QP names that QP's local address, and so the pod whose
 * interface holds it. nldev.c's fill_res_cm_id_entry puts RES_LQPN only once
 * a QP is bound to the id, RES_SRC_ADDR/RES_DST_ADDR (a whole
 * __kernel_sockaddr_storage) only when their family is set, and the owner as
 * for a QP (RES_PID in the caller's PID namespace, or RES_KERN_NAME).
 * Ids are listed to a socket in any netns the device is visible in: in
 * shared RDMA netns mode every pod's ids are listed to the host.
 */
#ifndef RQ_RDMA_CM_ID_H
#define RQ_RDMA_CM_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rq_cm_id {
	uint32_t qpn;	 /* 0: no QP bound to the id (a listener, an id still resolving) */
	uint32_t pid;	 /* 0: a kernel id, or its process is not visible here */
	bool has_src;	 /* @src holds the source address */
	uint8_t src[16]; /* IPv4 as ::ffff:a.b.c.d (as a RoCE GID has it), IPv6 as itself */
	char comm[32];	 /* a kernel id's owner (RES_KERN_NAME); the sim file's "comm" */
};

struct rq_cm_id_list {
	size_t n, cap;
	struct rq_cm_id *id;
};

void rdma_cm_ids_free(struct rq_cm_id_list *l);
/* Append a zeroed id and return it; NULL: out of memory. */
struct rq_cm_id *rdma_cm_ids_add(struct rq_cm_id_list *l);

/*
 * The ids of device @dev from a netlink socket in the current netns. A
 * kernel without the cm_id dump, or a device without ids, is an empty list;
 * -ENODEV: no such device. Every recv is bounded (5 s).
 */
int rdma_cm_ids_dump(const char *dev, struct rq_cm_id_list *ret);

/*
 * One RES_CM_ID_GET dump message (RDMA_NLDEV_ATTR_RES_CM_ID nest of
 * RES_CM_ID_ENTRY nests): its ids appended to @l, all of them or none;
 * -EBADMSG when malformed (a nest not tiled by whole attributes, an address
 * attribute shorter than its family's sockaddr). An address of another
 * family (AF_IB) leaves has_src false.
 */
struct nlmsghdr;
int rdma_cm_ids_parse_msg(const struct nlmsghdr *nlh, size_t len, struct rq_cm_id_list *l);

/*
 * The simulated node's <root>/rdma/cm_ids/<dev>.json (DESIGN.md "Shared RDMA
 * devices"): [{"qpn": 17, "src_addr": "10.99.0.11", "dst_addr": "10.99.0.21",
 * "pid": 4242, "comm": "rping"}, ...]; "qpn" absent: no QP bound; strings
 * without escapes, whole numbers (json_flat.h). -EINVAL names nothing: the
 * caller says which file.
 */
int rdma_cm_ids_parse_json(const char *text, size_t len, struct rq_cm_id_list *ret);

/* The id bound to QP @qpn in @l (sorted by rdma_cm_ids_sort), NULL none. */
void rdma_cm_ids_sort(struct rq_cm_id_list *l);
const struct rq_cm_id *rdma_cm_id_of_qp(const struct rq_cm_id_list *l, uint32_t qpn);

#endif
