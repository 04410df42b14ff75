// SPDX-License-Identifier: Apache-2.0
/* The simulated node's devlink health reporters (devlink.h): <root>/devlink/<pci>.health.json. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/devlink/devlink.h"

struct dl_fake {
	struct rq_root root;
};

static int fake_health(void *ctx, const char *bus, const char *pci, struct devlink_reporter *ret,
		       size_t *ret_n)
{
	struct dl_fake *f = ctx;
	char path[96], *buf = NULL;
	const cJSON *it;
	size_t len = 0, n = 0;
	cJSON *o;
	int r;

	if (strcmp(bus, "pci") != 0 || !sysfs_pci_valid(pci))
		return -ENODEV; /* the simulated node's devices are PCI ones */
	(void)snprintf(path, sizeof(path), "/devlink/%s.health.json", pci);
	r = sysfs_read_file(&f->root, path, (size_t)64 * 1024, &buf, &len);
	if (r == -ENOENT) {
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return -EBADMSG;
	}
	cJSON_ArrayForEach(it, o)
	{
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(it, "errors");
		const char *st =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "state"));

		if (n == RQ_DEVLINK_REPORTERS)
			break;
		if (!cJSON_IsNumber(e) || e->valuedouble < 0 ||
		    strlen(it->string) >= RQ_DEVLINK_NAME_MAX) {
			r = -EBADMSG;
			break;
		}
		memset(&ret[n], 0, sizeof(ret[n]));
		(void)snprintf(ret[n].name, sizeof(ret[n].name), "%s", it->string);
		ret[n].errors = (uint64_t)e->valuedouble;
		ret[n].healthy = !st || !strcmp(st, "healthy");
		n++;
	}
	cJSON_Delete(o);
	if (r == 0)
		*ret_n = n;
	return r;
}

static void fake_free(void *ctx)
{
	free(ctx);
}

static const struct devlink_ops fake_ops = {.health = fake_health, .free = fake_free};

int devlink_fake_new(const struct rq_root *root, const struct devlink_ops **ret_ops, void **ret_ctx)
{
	struct dl_fake *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->root = *root;
	*ret_ops = &fake_ops;
	*ret_ctx = f;
	return 0;
}
