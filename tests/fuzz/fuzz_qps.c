// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the QP census parsers (make fuzz-qps): what RDMA
 * netlink's QP dumps carry comes from drivers and firmware (mlx5's resource
 * dump is the device's own bytes), and the sim's qps/<dev>.json from a file.
 * Every input goes to all the parsers (and the RDMA-CM id dump's and the
 * sim cm_ids file's, of a shared device's census), copied into an
 * exactly-sized buffer so ASan flags a read past its end; their promises
 * are checked and a broken one is a crash: a refused QP or cm_id message
 * adds nothing, names are terminated, a class or a source GID index is -1
 * or a byte, a context's state fits 4 bits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "pkg/rdma/cm_id.h"
#include "pkg/rdma/qps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const struct rq_qp_list *l)
{
	bool ctx = false;

	if (l->n > l->cap || (l->n && !l->qp))
		abort();
	for (size_t i = 0; i < l->n; i++) {
		const struct rq_qp *q = &l->qp[i];

		if (!memchr(q->type, '\0', sizeof(q->type)) ||
		    !memchr(q->state, '\0', sizeof(q->state)) ||
		    !memchr(q->comm, '\0', sizeof(q->comm)) || q->tclass < -1 || q->tclass > 255 ||
		    q->sgid_index < -1 || q->sgid_index > 255)
			abort();
		ctx |= q->tclass >= 0;
	}
	if (ctx && !l->has_ctx)
		abort(); /* a class without a context dump */
}

static void fuzz_netlink(const uint8_t *buf, size_t size)
{
	struct rq_qp_list l = {0};
	struct rq_qp *q;
	size_t n;
	int r;

	/* QPs the raw message's entries may name, besides what the input adds */
	for (uint32_t qpn = 0; qpn < 4; qpn++) {
		q = rdma_qps_add(&l);
		if (!q)
			abort();
		q->qpn = qpn == 3 ? 17 : qpn;
	}
	n = l.n;
	r = rdma_qps_parse_msg((const struct nlmsghdr *)buf, size, &l);
	if ((r < 0 && l.n != n) || (r < 0 && r != -EBADMSG && r != -ENOMEM) || r > 0)
		abort();
	check_list(&l);
	r = rdma_qps_parse_raw_msg((const struct nlmsghdr *)buf, size, &l);
	if (r > 0 || (r < 0 && r != -EBADMSG))
		abort();
	check_list(&l);
	rdma_qps_free(&l);
}

static void check_cm(const struct rq_cm_id_list *l)
{
	if (l->n > l->cap || (l->n && !l->id))
		abort();
	for (size_t i = 0; i < l->n; i++)
		if (!memchr(l->id[i].comm, '\0', sizeof(l->id[i].comm)))
			abort();
}

static void fuzz_cm_ids(const uint8_t *buf, size_t size)
{
	struct rq_cm_id_list l = {0};
	int r = rdma_cm_ids_parse_msg((const struct nlmsghdr *)buf, size, &l);

	if (r > 0 || (r < 0 && r != -EBADMSG && r != -ENOMEM) || (r < 0 && l.n))
		abort();
	check_cm(&l);
	rdma_cm_ids_free(&l);
	r = rdma_cm_ids_parse_json((const char *)buf, size, &l);
	if (r > 0 || (r < 0 && r != -EINVAL && r != -ENOMEM) || (r < 0 && (l.n || l.id)))
		abort();
	check_cm(&l);
	rdma_cm_ids_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rq_qp_list l = {0};
	uint32_t qpn = 0;
	int state = -1, tclass = -1, sgid = -1, r;
	uint8_t *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = rdma_qp_ctx_parse_sgid(buf, size, &qpn, &state, &tclass, &sgid);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r == 0 && (state < 0 || state > 15 || tclass < 0 || tclass > 255 || sgid < 0 ||
		       sgid > 255))
		abort();
	fuzz_netlink(buf, size);
	fuzz_cm_ids(buf, size);
	r = rdma_qps_parse_json((const char *)buf, size, &l);
	if (r != 0 && r != -EINVAL && r != -ENOMEM)
		abort();
	if (r == 0)
		check_list(&l);
	else if (l.n || l.qp)
		abort(); /* a refused file left something behind */
	rdma_qps_free(&l);
	free(buf);
	return 0;
}
