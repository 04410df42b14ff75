// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer over netconf/: the plugin's entry, the node catalog and profile
 * resolution never crash on any bytes, every profile that parses survives
 * profile_to_json -> profile_from_json unchanged, and the requirements union
 * is sound: conflict is symmetric, and a union of non-conflicting
 * requirements contains both and contradicts neither. A catalog that
 * catalog_parse accepts is also loaded as ADD loads it (catalog_parse_for,
 * per namespace and profile name): that must succeed and resolve alike.
 * With an error collector (validate's catalog_parse_keep, netconf_parse_keep)
 * the verdict is the same and the first error kept is the one the parse
 * without it (ADD's) stops at; the warnings of a valid catalog never crash.
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

/* The collector changes what is reported, never the verdict nor the first error. */
static void keep_agrees(const char *buf, size_t size, int r_cat, const struct rq_error *e_cat,
			int r_nc, const struct rq_error *e_nc)
{
	static struct rq_errlist keep, warn;
	struct rq_catalog *cat = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_error e = {0};
	int r;

	memset(&keep, 0, sizeof(keep));
	r = catalog_parse_keep(buf, size, &keep, &cat, &e);
	if ((r < 0) != (r_cat < 0) || (r < 0 && (e.code != e_cat->code || strcmp(e.msg, e_cat->msg))))
		abort();
	if (r == 0) {
		memset(&warn, 0, sizeof(warn));
		catalog_warnings(cat, &warn);
	}
	catalog_free(cat);
	memset(&keep, 0, sizeof(keep));
	rq_err_clear(&e);
	r = netconf_parse_keep(buf, size, &keep, &nc, &e);
	if ((r < 0) != (r_nc < 0) || (r < 0 && (e.code != e_nc->code || strcmp(e.msg, e_nc->msg))))
		abort();
	netconf_free(nc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rq_catalog *fixed;
	struct rq_catalog *cat = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_error e = { 0 }, e_nc;
	const char *buf = (const char *)data;
	int r_nc, r_cat;
	cJSON *root;

	if (!fixed && catalog_parse(catalog_json, strlen(catalog_json), &fixed, &e) < 0)
		abort();
	rq_err_clear(&e);
	r_nc = netconf_parse(buf, size, &nc, &e);
	e_nc = e;
	if (r_nc == 0) {
		resolve_all(nc, NULL);
		resolve_all(nc, fixed);
	}
	rq_err_clear(&e);
	r_cat = catalog_parse(buf, size, &cat, &e);
	if (r_cat == 0 && nc)
		resolve_all(nc, cat);
	keep_agrees(buf, size, r_cat, &e, r_nc, &e_nc);
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
