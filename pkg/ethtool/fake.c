// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's driver statistics: <root>/ethtool/<ifname>.json holds
 * {"name": value, ...} with the driver's names. No file: the driver has no
 * statistics (-EOPNOTSUPP, as a real netdev without get_ethtool_stats).
 * Entries that are not non-negative numbers are a test bug: -EBADMSG.
 */
#include <errno.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/ethtool/ethtool.h"

#define FAKE_FILE_MAX ((size_t)1024 * 1024)

struct fake {
	struct rq_root root;
};

static int fake_fill(const cJSON *o, struct eth_stats *ret)
{
	const cJSON *it;
	size_t n = (size_t)cJSON_GetArraySize(o), i = 0;

	ret->names = calloc(n ? n : 1, RQ_ETH_NAME_LEN);
	ret->vals = calloc(n ? n : 1, sizeof(uint64_t));
	if (!ret->names || !ret->vals)
		return -ENOMEM;
	cJSON_ArrayForEach(it, o)
	{
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1.8e19 ||
		    strlen(it->string) >= RQ_ETH_NAME_LEN)
			return -EBADMSG;
		memcpy(ret->names[i], it->string, strlen(it->string) + 1);
		ret->vals[i++] = (uint64_t)it->valuedouble;
	}
	ret->n = i;
	return 0;
}

static int fake_stats(void *ctx, const char *ifname, struct eth_stats *ret)
{
	struct fake *f = ctx;
	char path[64], *buf = NULL;
	size_t len = 0;
	cJSON *o;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!ifname[0] || strnlen(ifname, 16) >= 16 || strchr(ifname, '/') || ifname[0] == '.')
		return -ENODEV;
	(void)snprintf(path, sizeof(path), "/ethtool/%s.json", ifname);
	r = sysfs_read_file(&f->root, path, FAKE_FILE_MAX, &buf, &len);
	if (r == -ENOENT)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	o = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsObject(o))
		r = -EBADMSG;
	else
		r = fake_fill(o, ret);
	cJSON_Delete(o);
	if (r < 0)
		eth_stats_fini(ret);
	return r;
}

static void fake_free(void *ctx)
{
	free(ctx);
}

static const struct ethtool_ops fake_ops = {.stats = fake_stats, .free = fake_free};

int ethtool_fake_new(const struct rq_root *root, const struct ethtool_ops **ret_ops, void **ret_ctx)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->root = *root;
	*ret_ops = &fake_ops;
	*ret_ctx = f;
	return 0;
}
