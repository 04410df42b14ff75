/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ADD's transaction, shared by add.c (the steps) and add_index.c (the PF index
 * step); run by the CNI ADD (cni/add_cmd.c) and by the agent's adoption of a
 * VF no chain ran rdma-qos for (pass/unchained_pass.c).
 */
#ifndef RQ_CORE_ADD_H
#define RQ_CORE_ADD_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/attach/gdr.h"
#include "plugin/attach/pf_require.h"
#include "plugin/attach/shared.h"
#include "plugin/attach/vf_class.h"

struct add_tx {
	struct rq_target t;
	const struct dcb_ops *ops;
	void *dcb;
	int fds[RQ_MAX_PFS];
	struct pf_undo *pf; /* [t.vf.n_pf] */
	size_t n_pf_done;
	cJSON *idx[RQ_MAX_PFS];	       /* PF indexes read under the lock */
	cJSON *idx_before[RQ_MAX_PFS]; /* ... as read, taken before index_add changes them */
	bool idx_written[RQ_MAX_PFS];
	bool idx_steady[RQ_MAX_PFS]; /* listed as it is: the index was streamed, not read */
	struct tos_tx tos;	     /* every knob of the VF's traffic class (attach/vf_class.c) */
	bool intent_written;	     /* the pending record is on disk */
	cJSON *rec_before; /* the record of an earlier ADD as this one found it (or none) */
	struct rq_numa_result numa;
	/* what the NUMA evidence saw of the pod's devices: 13 KiB sized for the worst case, on the
	 * heap and only when a verdict is asked for (NULL otherwise) */
	struct rq_numa_devices *devs;
	struct rq_gdr_result gdr;
	/* what ADD's one line says of the NUMA verdict beside it (numa_step): why it is unknown,
	 * and where the evidence came from when the API was meant to answer and did not */
	const char *numa_unknown_why;
	bool numa_source_fallback;
	int att_fd; /* the attachment's lock: held from before the pending write to exit */
	bool idx_moved[RQ_MAX_PFS]; /* others changed the index while the lock was dropped */
	bool pf_unlocked;	    /* the PF locks could not be taken again */
	bool adopted;		    /* the agent's adoption: the record says "adopted": true */
	/* a shared device (attach/shared.c): the pod's GIDs, the device index as read */
	struct shared_gids gids;
	cJSON *dev_before;
	bool dev_written;
	bool rec_read; /* rec_before was read early (the shared path's GID hint) */
	/* an adopted record of this VF that this ADD takes over: dropped after the commit */
	char adopted_holder[RQ_STATE_KEY_MAX];
};

/*
 * List the attachment in PF @i's index (read under the PF lock), with its
 * requirements; the index as read is kept for the rollback.
 */
int index_add(struct rq_ctx *c, struct add_tx *tx, size_t i);

/*
 * ADD, all of it but the result: profile, devices, NUMA verdict, PF
 * requirements (under the PF locks), the VF's class, PF indexes, record; any
 * failure undone. @adopted: the agent adopts a VF no chain ran rdma-qos for
 * (the record says so; the NUMA verdict is only reported). *@ret_t (may be
 * NULL): the target, on success. 0 or <0 with c->err set.
 */
int attach_add(struct rq_ctx *c, bool adopted, struct rq_target *ret_t);

#endif
