// SPDX-License-Identifier: Apache-2.0
/*
 * The simulated node's link health (link.h): three JSON files per PF under
 * <root>/ethtool/. A missing file or key is a statistic the driver does not
 * report; a value that is not a non-negative number, or a link mode name
 * ethtool does not print, is a test bug (-EBADMSG). "localModes" and
 * "partnerModes" are each side's advertised modes; without both, the fastest
 * common mode is taken as the slower of "localMax" and "partnerMax".
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

/* 1 and @bits: @key is a list of mode names; 0: absent; -EBADMSG: not one */
static int fake_modes(const cJSON *o, const char *key, uint32_t *bits)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key), *it;

	memset(bits, 0, ETH_LINK_MODE_WORDS * sizeof(*bits));
	if (!v)
		return 0;
	if (!cJSON_IsArray(v))
		return -EBADMSG;
	cJSON_ArrayForEach(it, v)
	{
		int b = cJSON_IsString(it) ? ethtool_link_mode_bit(it->valuestring) : -EINVAL;

		if (b < 0 || b >= ETH_LINK_MODE_WORDS * 32)
			return -EBADMSG;
		bits[b / 32] |= 1u << (b % 32);
	}
	return 1;
}

static int fake_link(const cJSON *link, struct eth_link_health *h)
{
	uint32_t ours[ETH_LINK_MODE_WORDS], peer[ETH_LINK_MODE_WORDS];
	uint64_t v = 0;
	int a, b;

	if ((a = fake_u64(link, "speed", &v)) < 0)
		return a;
	if (a > 0) {
		h->has_speed = true;
		h->speed_mbps = (uint32_t)v;
	}
	if ((a = fake_u64(link, "localMax", &v)) < 0)
		return a;
	h->local_max_mbps = a ? (uint32_t)v : 0;
	if ((a = fake_u64(link, "partnerMax", &v)) < 0)
		return a;
	h->partner_max_mbps = a ? (uint32_t)v : 0;
	h->common_max_mbps =
	    h->local_max_mbps < h->partner_max_mbps ? h->local_max_mbps : h->partner_max_mbps;
	if ((a = fake_modes(link, "localModes", ours)) < 0 ||
	    (b = fake_modes(link, "partnerModes", peer)) < 0)
		return -EBADMSG;
	if (a)
		h->local_max_mbps = ethtool_link_modes_max(ours, ETH_LINK_MODE_WORDS * 32);
	if (b)
		h->partner_max_mbps = ethtool_link_modes_max(peer, ETH_LINK_MODE_WORDS * 32);
	if (a && b)
		h->common_max_mbps =
		    ethtool_link_modes_common_max(ours, peer, ETH_LINK_MODE_WORDS * 32);
	return 0;
}

static int fake_health(void *ctx, const char *ifname, struct eth_link_health *ret)
{
	struct link_fake *f = ctx;
	struct eth_link_health h;
	cJSON *fec = NULL, *phy = NULL, *link = NULL;
	int r, a, b;

	memset(&h, 0, sizeof(h));
	if ((r = fake_json(f, ifname, "fec", &fec)) < 0 ||
	    (r = fake_json(f, ifname, "phy", &phy)) < 0 ||
	    (r = fake_json(f, ifname, "link", &link)) < 0)
		goto out;
	a = fake_u64(fec, "corrected", &h.fec_corrected);
	b = fake_u64(fec, "uncorrectable", &h.fec_uncorrectable);
	r = a < 0 ? a : b < 0 ? b : 0;
	h.has_fec_corrected = a > 0;
	h.has_fec_uncorrectable = b > 0;
	if (r == 0 && (a = fake_u64(phy, "SymbolErrorDuringCarrier", &h.symbol_errors)) < 0)
		r = a;
	h.has_symbol_errors = r == 0 && a > 0;
	if (r == 0 && link)
		r = fake_link(link, &h);
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
