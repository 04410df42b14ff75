// SPDX-License-Identifier: Apache-2.0
/* GC and STATUS (CNI 1.1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/log/log.h"
#include "plugin/cni/commands.h"

static bool attachment_valid(const cJSON *valid, const char *cid, const char *ifname)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, valid)
	{
		const char *vc = json_str(it, "containerID"), *vi = json_str(it, "ifname");

		if (vc && vi && !strcmp(vc, cid) && !strcmp(vi, ifname))
			return true;
	}
	return false;
}

int cmd_gc(struct rq_ctx *c)
{
	char **keys = NULL;
	size_t n = 0;
	int r, first = 0;

	r = state_record_list(&c->env.root, &keys, &n);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_IO, r, "listing records: %s", strerror(-r));
	for (size_t i = 0; i < n; i++) {
		cJSON *rec = NULL;
		const char *net, *cid, *ifn;

		if (state_record_read(&c->env.root, keys[i], &rec) < 0)
			continue;
		net = json_str(rec, "network");
		cid = json_str(rec, "containerID");
		ifn = json_str(rec, "ifname");
		/* an adopted VF's record is the agent's (no runtime ever ran rdma-qos for it) */
		if (net && cid && ifn && !strcmp(net, c->nc->name) &&
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "adopted")) &&
		    !attachment_valid(c->nc->valid_attachments, cid, ifn)) {
			snprintf(c->key, sizeof(c->key), "%s", keys[i]);
			log_info("GC: %s is not a valid attachment: releasing", keys[i]);
			r = attach_release(c, rec, true);
			if (r < 0 && !first)
				first = r;
		}
		cJSON_Delete(rec);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return first;
}

int cmd_status(struct rq_ctx *c)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = sysfs_read_file(&c->env.root, RQ_CATALOG_PATH, 4 * 1024 * 1024, &buf, &len);
	if (r < 0 && r != -ENOENT)
		return rq_err(&c->err, RQ_ERR_NOT_READY, r, "catalog %s is unreadable: %s",
			      RQ_CATALOG_PATH, strerror(-r));
	if (r == 0) {
		struct rq_error pe;

		rq_err_clear(&pe);
		r = catalog_parse_lenient(buf, len, &c->cat, &pe);
		free(buf);
		if (r < 0)
			return rq_err(&c->err, RQ_ERR_NOT_READY, r, "catalog %s is invalid: %s",
				      RQ_CATALOG_PATH, pe.msg);
	}
	r = state_dir_check(&c->env.root);
	if (r < 0)
		return rq_err(&c->err, RQ_ERR_NOT_READY, r, "state directory %s is unusable: %s",
			      RQ_STATE_DIR, strerror(-r));
	return 0;
}
