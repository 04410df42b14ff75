// SPDX-License-Identifier: Apache-2.0
/*
 * ADD as the runtime calls it: prevResult required, ADD's transaction
 * (attach/add.c), then the result passed on (with the VF's pciID from CNI 1.1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cni/commands.h"
#include "plugin/attach/add.h"

static int print_result(struct rq_ctx *c, const struct rq_target *t)
{
	cJSON *res = cni_result_convert(c->nc->prev_result, c->nc->cni_version), *ifs, *it;
	char *s;

	if (!res)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	ifs = cJSON_GetObjectItemCaseSensitive(res, "interfaces");
	/* a shared device's pod has no PCI function of its own */
	if (t->vf.pci[0] && netconf_version_cmp(c->nc->cni_version, "1.1.0") >= 0)
		cJSON_ArrayForEach(it, ifs)
		{
			const char *name = json_str(it, "name");

			if (name && !strcmp(name, c->args.ifname) && json_str(it, "sandbox") &&
			    !json_str(it, "pciID"))
				cJSON_AddStringToObject(it, "pciID", t->vf.pci);
		}
	s = cJSON_Print(res);
	cJSON_Delete(res);
	if (!s)
		return rq_err(&c->err, RQ_ERR_IO, -ENOMEM, "out of memory");
	fputs(s, stdout);
	fputc('\n', stdout);
	cJSON_free(s);
	return 0;
}

int cmd_add(struct rq_ctx *c)
{
	struct rq_error typo;
	struct rq_target t;
	int r;

	rq_err_clear(&typo);
	if (!c->nc->prev_result)
		return rq_err(&c->err, RQ_ERR_CONFIG, -EINVAL,
			      "prevResult: required: rdma-qos is a chained plugin and must follow "
			      "the sriov or host-device plugin in a conflist");
	/* validate refuses it; ADD only warns (a newer runtime may add keys) */
	if (netconf_unknown_key(c->nc, &typo) < 0)
		log_warn("%s: ignored (rdma-qos validate names every such key)", typo.msg);
	r = attach_add(c, false, &t);
	if (r < 0)
		return r;
	return print_result(c, &t);
}
