// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's driver statistics: <root>/ethtool/<ifname>.json holds
 * {"name": value, ...} with the driver's names. No file: the driver has no
 * statistics (-EOPNOTSUPP, as a real netdev without get_ethtool_stats).
 * Entries that are not non-negative numbers are a test bug: -EBADMSG.
 * A netdev inside netns path P (a VF in its pod): the same format in
 * <root>/ethtool/netns/<basename of P>/<ifname>.json, read only while P
 * exists (a pod deleted: its netns is gone, -ENOENT, as the ioctl says).
 */
#include <errno.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static bool name_ok(const char *s, size_t max)
{
	return s[0] && s[0] != '.' && strnlen(s, max) < max && !strchr(s, '/');
}

static int fake_read(struct fake *f, const char *dir, const char *ifname, struct eth_stats *ret)
{
	char path[384], *buf = NULL;
	size_t len = 0;
	cJSON *o;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!name_ok(ifname, 16))
		return -ENODEV;
	(void)snprintf(path, sizeof(path), "/ethtool/%s%s.json", dir, ifname);
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

static int fake_stats(void *ctx, const char *ifname, struct eth_stats *ret)
{
	return fake_read(ctx, "", ifname, ret);
}

static int fake_stats_netns(void *ctx, const char *netns, const char *ifname, struct eth_stats *ret)
{
	const char *base;
	char dir[300];

	memset(ret, 0, sizeof(*ret));
	if (!netns || !netns[0])
		return fake_read(ctx, "", ifname, ret);
	/* the netns itself is the host's (tests make real ones); gone: the pod is */
	if (access(netns, F_OK) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	base = strrchr(netns, '/');
	base = base ? base + 1 : netns;
	if (!name_ok(base, 256))
		return -EINVAL;
	(void)snprintf(dir, sizeof(dir), "netns/%s/", base);
	return fake_read(ctx, dir, ifname, ret);
}

static void fake_free(void *ctx)
{
	free(ctx);
}

static const struct ethtool_ops fake_ops = {
    .stats = fake_stats, .stats_netns = fake_stats_netns, .free = fake_free};

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
