// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's link health (link.h): three JSON files per PF under
 * <root>/ethtool/. A missing file or key is a statistic the driver does not
 * report; a value that is not a non-negative number is a test bug (-EBADMSG).
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/ethtool/link.h"

#define LINK_FAKE_MAX ((size_t)64 * 1024)

struct link_fake {
	struct rq_root root;
};

/* @ifname's <what>.json parsed; *ret NULL when there is none */
static int fake_json(struct link_fake *f, const char *ifname, const char *what, cJSON **ret)
{
	char path[128], *buf = NULL;
	size_t len = 0;
	int r;

	*ret = NULL;
	if (!ifname[0] || ifname[0] == '.' || strchr(ifname, '/') || strlen(ifname) >= 16)
		return -ENODEV;
	(void)snprintf(path, sizeof(path), "/ethtool/%s.%s.json", ifname, what);
	r = sysfs_read_file(&f->root, path, LINK_FAKE_MAX, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	*ret = cJSON_ParseWithLength(buf, len);
	free(buf);
	return *ret && cJSON_IsObject(*ret) ? 0 : -EBADMSG;
}

/* 1 and *ret: @key is there; 0: absent; -EBADMSG: not a count */
static int fake_u64(const cJSON *o, const char *key, uint64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1.8e19)
		return -EBADMSG;
	*ret = (uint64_t)v->valuedouble;
	return 1;
}

static int fake_health(void *ctx, const char *ifname, struct eth_link_health *ret)
{
	struct link_fake *f = ctx;
	struct eth_link_health h;
	cJSON *fec = NULL, *phy = NULL, *link = NULL;
	uint64_t v = 0;
	int r, a, b;

	memset(&h, 0, sizeof(h));
	if ((r = fake_json(f, ifname, "fec", &fec)) < 0 ||
	    (r = fake_json(f, ifname, "phy", &phy)) < 0 ||
	    (r = fake_json(f, ifname, "link", &link)) < 0)
		goto out;
	a = fake_u64(fec, "corrected", &h.fec_corrected);
	b = fake_u64(fec, "uncorrectable", &h.fec_uncorrectable);
	r = a < 0 ? a : b < 0 ? b : 0;
	h.has_fec = a > 0 || b > 0;
	if (r == 0 && (a = fake_u64(phy, "SymbolErrorDuringCarrier", &h.symbol_errors)) < 0)
		r = a;
	h.has_symbol_errors = r == 0 && a > 0;
	if (r == 0 && (a = fake_u64(link, "speed", &v)) > 0) {
		h.has_speed = true;
		h.speed_mbps = (uint32_t)v;
	}
	if (r == 0 && a < 0)
		r = a;
	if (r == 0 && fake_u64(link, "localMax", &v) > 0)
		h.local_max_mbps = (uint32_t)v;
	if (r == 0 && fake_u64(link, "partnerMax", &v) > 0)
		h.partner_max_mbps = (uint32_t)v;
out:
	cJSON_Delete(fec);
	cJSON_Delete(phy);
	cJSON_Delete(link);
	if (r == 0)
		*ret = h;
	return r;
}

static void fake_free(void *ctx)
{
	free(ctx);
}

static const struct ethtool_link_ops fake_ops = {.health = fake_health, .free = fake_free};

int ethtool_link_fake_new(const struct rq_root *root, const struct ethtool_link_ops **ret_ops,
			  void **ret_ctx)
{
	struct link_fake *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->root = *root;
	*ret_ops = &fake_ops;
	*ret_ctx = f;
	return 0;
}
