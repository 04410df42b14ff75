// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer over netconf/: the plugin's entry, the node catalog and profile
 * resolution never crash on any bytes, every profile that parses survives
 * profile_to_json -> profile_from_json unchanged, and the requirements union
 * is sound: conflict is symmetric, and a union of non-conflicting
 * requirements contains both and contradicts neither. A catalog that
 * catalog_parse accepts is also loaded as ADD loads it (catalog_parse_for,
 * per namespace and profile name): that must succeed and resolve alike.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/netconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char catalog_json[] =
	"{\"profiles\":{\"best-effort\":{\"trust\":\"pcp\",\"pfc\":[],\"ecn\":[]},"
	"\"gold\":{\"pfc\":[4]}},\"namespaces\":{\"ai-training\":{\"default\":\"roce-lossless\","
	"\"allow\":[\"roce-lossless\",\"best-effort\"]},\"lab\":{\"allow\":[\"gold\"],"
	"\"inline\":true},\"*\":{\"default\":\"best-effort\",\"allow\":[\"best-effort\"]}},"
	"\"node\":{\"pf\":\"verify\",\"baseline\":\"gold\",\"carrierWaitSeconds\":3}}";

static bool same_profile(const struct rq_profile *a, const struct rq_profile *b)
{
	return a->has_trust == b->has_trust && (!a->has_trust || a->trust == b->trust) &&
	       a->pfc == b->pfc && a->ecn == b->ecn && a->dscp_override == b->dscp_override &&
	       !memcmp(a->dscp_prio, b->dscp_prio, sizeof(a->dscp_prio)) &&
	       a->ets.present == b->ets.present &&
	       (!a->ets.present || !memcmp(&a->ets, &b->ets, sizeof(a->ets))) &&
	       a->ecn_required == b->ecn_required && a->traffic_class == b->traffic_class &&
	       a->tos_scope == b->tos_scope;
}

/* Against the built-in and a pcp profile: the properties of the union. */
static void union_props(const struct rq_profile *a)
{
	struct rq_profile others[2], u;
	char x[200], y[200];

	profile_builtin(&others[0]);
	profile_empty(&others[1], "pcp");
	others[1].has_trust = true;
	others[1].pfc = 0x10;
	for (int i = 0; i < 2; i++) {
		const struct rq_profile *b = &others[i];
		bool c = profile_req_conflict(a, b, x, y, sizeof(x));

		if (c != profile_req_conflict(b, a, x, y, sizeof(x)))
			abort();
		if (c)
			continue;
		u = *a;
		profile_req_merge(&u, b);
		if ((u.pfc & (a->pfc | b->pfc)) != (a->pfc | b->pfc) ||
		    (u.ecn & (a->ecn | b->ecn)) != (a->ecn | b->ecn) ||
		    (u.dscp_override & (a->dscp_override | b->dscp_override)) !=
			(a->dscp_override | b->dscp_override) ||
		    profile_req_conflict(&u, a, x, y, sizeof(x)) ||
		    profile_req_conflict(&u, b, x, y, sizeof(x)))
			abort();
	}
}

static void round_trip(const cJSON *obj)
{
	struct rq_profile a, b;
	struct rq_error e = { 0 };
	cJSON *j;

	if (profile_from_json(obj, "qos", "f", &a, &e) < 0)
		return;
	j = profile_to_json(&a);
	if (!j)
		return;
	rq_err_clear(&e);
	if (profile_from_json(j, "qos", "f", &b, &e) < 0 || !same_profile(&a, &b))
		abort();
	cJSON_Delete(j);
	union_props(&a);
}

static void resolve_all(const struct rq_netconf *nc, const struct rq_catalog *cat)
{
	static const char *const ns[] = { NULL, "", "ai-training", "lab", "other" };
	struct rq_profile p;
	enum rq_pf_mode pf;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct rq_error e = { 0 };

		(void)netconf_resolve_profile(nc, cat, ns[i], &p, &pf, &e);
	}
}

/* ADD's partial load agrees with the full catalog wherever the full one is valid. */
static void partial_agrees(const char *buf, size_t size, const struct rq_catalog *full)
{
	static const char *const ns[] = {NULL, "", "ai-training", "lab", "other", "*"};
	static const char *const names[] = {NULL, "gold", "best-effort", "roce-lossless", "x"};

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			struct rq_netconf nc = {.profile = names[k]};
			struct rq_profile a, b;
			struct rq_catalog *part = NULL;
			enum rq_pf_mode pa = RQ_PF_IGNORE, pb = RQ_PF_IGNORE;
			struct rq_error e = {0};
			int ra, rb;

			if (catalog_parse_for(buf, size, ns[i], names[k], &part, &e) < 0) {
				if (full)
					abort();
				continue;
			}
			if (!full) {
				catalog_free(part);
				continue;
			}
			ra = netconf_resolve_profile(&nc, full, ns[i], &a, &pa, &e);
			rq_err_clear(&e);
			rb = netconf_resolve_profile(&nc, part, ns[i], &b, &pb, &e);
			if (ra != rb || pa != pb ||
			    (ra == 0 && (!same_profile(&a, &b) || strcmp(a.name, b.name))))
				abort();
			catalog_free(part);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rq_catalog *fixed;
	struct rq_catalog *cat = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_error e = { 0 };
	const char *buf = (const char *)data;
	cJSON *root;

	if (!fixed && catalog_parse(catalog_json, strlen(catalog_json), &fixed, &e) < 0)
		abort();
	rq_err_clear(&e);
	if (netconf_parse(buf, size, &nc, &e) == 0) {
		resolve_all(nc, NULL);
		resolve_all(nc, fixed);
	}
	rq_err_clear(&e);
	if (catalog_parse(buf, size, &cat, &e) == 0 && nc)
		resolve_all(nc, cat);
	partial_agrees(buf, size, cat);
	root = cJSON_ParseWithLength(buf, size);
	if (cJSON_IsObject(root)) {
		round_trip(root);
		round_trip(cJSON_GetObjectItemCaseSensitive(root, "qos"));
	}
	cJSON_Delete(root);
	catalog_free(cat);
	netconf_free(nc);
	return 0;
}
