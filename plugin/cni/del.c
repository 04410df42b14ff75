// SPDX-License-Identifier: Apache-2.0
/*
 * DEL: restore the VF traffic class this attachment changed, drop it from
 * the PF indexes, remove the record. PF-wide settings stay. Never fails on
 * what is already gone: record, netns, VF, RDMA device.
 */
#include <errno.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/cni/commands.h"

int cmd_del(struct rq_ctx *c)
{
	cJSON *rec = NULL;
	int r;

	r = state_record_read(&c->env.root, c->key, &rec);
	if (r == -ENOENT) {
		log_debug("%s: no record: nothing to restore", c->key);
		attach_drop_orphans(c);
		return 0;
	}
	if (r == -EBADMSG) {
		log_warn("%s: record is corrupt: removing it", c->key);
		r = state_record_remove(&c->env.root, c->key);
		return r < 0 ? rq_err(&c->err, RQ_ERR_IO, r, "removing record %s: %s", c->key,
				      strerror(-r))
			     : 0;
	}
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "reading record %s: %s", c->key, strerror(-r));
	r = attach_release(c, rec, true);
	cJSON_Delete(rec);
	if (r == 0)
		log_info("%s: DEL done", c->key);
	return r;
}
