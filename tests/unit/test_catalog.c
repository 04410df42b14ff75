// SPDX-License-Identifier: Apache-2.0
/* netconf/catalog.c: node catalog validation and profile/pf resolution per namespace. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/netconf.h"

static int cat_parse(const char *json, struct rq_catalog **ret, struct rq_error *e)
{
	int r;

	rq_err_clear(e);
	*ret = NULL;
	r = catalog_parse(json, strlen(json), ret, e);
	if (r < 0) {
		ck_assert_ptr_null(*ret);
		ck_assert_int_ne(e->code, 0);
		return e->code;
	}
	ck_assert_ptr_nonnull(*ret);
	return 0;
}

struct cat_bad {
	const char *json;
	int code;
	const char *msg; /* exact, or a prefix when it ends in '*' */
};

#define NS(x) "{\"namespaces\":{" x "}}"
#define GOLD "\"profiles\":{\"gold\":{\"pfc\":[4]}}"

static const struct cat_bad cat_bad[] = {
	{ "", RQ_ERR_DECODE, "profile catalog is not valid JSON (error near byte 0)" },
	{ "{\"profiles\":{}", RQ_ERR_DECODE, "profile catalog is not valid JSON*" },
	{ "{} x", RQ_ERR_DECODE,
	  "profile catalog is not valid JSON (unexpected data after the value at byte 3)" },
	{ "[]", RQ_ERR_DECODE, "profile catalog: expected a JSON object" },
	{ "{\"profile\":{}}", RQ_ERR_CONFIG, "profile: unknown key (did you mean \"profiles\"?)" },
	{ "{\"Profiles\":{}}", RQ_ERR_CONFIG, "Profiles: unknown key (did you mean \"profiles\"?)" },
	{ "{\"profiles\":[]}", RQ_ERR_CONFIG, "profiles: expected an object" },
	{ "{\"profiles\":{\"a b\":{}}}", RQ_ERR_CONFIG,
	  "profiles.a b: not a profile name ([A-Za-z0-9._-], 1-63)" },
	{ "{\"profiles\":{\"\":{}}}", RQ_ERR_CONFIG,
	  "profiles.: not a profile name ([A-Za-z0-9._-], 1-63)" },
	{ "{\"profiles\":{\"gold\":[]}}", RQ_ERR_CONFIG, "profiles.gold: expected an object" },
	{ "{\"profiles\":{\"gold\":{\"pfc\":[9]}}}", RQ_ERR_CONFIG,
	  "profiles.gold.pfc[0]: 9 out of range 0-7" },
	{ "{\"profiles\":{\"gold\":{\"pfcs\":[3]}}}", RQ_ERR_CONFIG,
	  "profiles.gold.pfcs: unknown key (did you mean \"pfc\"?)" },
	{ "{\"profiles\":{\"gold\":{},\"gold\":{}}}", RQ_ERR_CONFIG,
	  "profiles.gold: duplicate key" },
	{ "{\"profiles\":{\"gold\":{\"ecn\":[1],\"ecn\":[2]}}}", RQ_ERR_CONFIG,
	  "profiles.gold.ecn: duplicate key" },
	{ "{\"namespaces\":[]}", RQ_ERR_CONFIG, "namespaces: expected an object" },
	{ NS("\"AI\":{}"), RQ_ERR_CONFIG,
	  "namespaces.AI: not a namespace name (a DNS label [a-z0-9-], 1-63) or \"*\"" },
	{ NS("\"ai_training\":{}"), RQ_ERR_CONFIG, "namespaces.ai_training: not a namespace*" },
	{ NS("\"-ai\":{}"), RQ_ERR_CONFIG, "namespaces.-ai: not a namespace*" },
	{ NS("\"\":{}"), RQ_ERR_CONFIG, "namespaces.: not a namespace*" },
	{ NS("\"**\":{}"), RQ_ERR_CONFIG, "namespaces.**: not a namespace*" },
	{ NS("\"ai\":[]"), RQ_ERR_CONFIG, "namespaces.ai: expected an object" },
	{ NS("\"ai\":{\"allowed\":[]}"), RQ_ERR_CONFIG, "namespaces.ai.allowed: unknown key (did you mean \"allow\"?)" },
	{ NS("\"ai\":{\"allow\":\"roce-lossless\"}"), RQ_ERR_CONFIG,
	  "namespaces.ai.allow: expected an array of names" },
	{ NS("\"ai\":{\"allow\":[1]}"), RQ_ERR_CONFIG, "namespaces.ai.allow[0]: expected a name" },
	{ NS("\"ai-training\":{\"allow\":[\"roce-lossless\",\"nope\"]}"), RQ_ERR_CONFIG,
	  "namespaces.ai-training.allow[1]: unknown profile \"nope\"" },
	{ NS("\"ai\":{\"allow\":[\"roce-lossless\"],\"default\":\"nope\"}"), RQ_ERR_CONFIG,
	  "namespaces.ai.default: unknown profile \"nope\"" },
	{ NS("\"ai\":{\"default\":1}"), RQ_ERR_CONFIG, "namespaces.ai.default: expected a string" },
	{ "{" GOLD ",\"namespaces\":{\"ai\":{\"allow\":[\"roce-lossless\"],\"default\":\"gold\"}}}",
	  RQ_ERR_CONFIG, "namespaces.ai.default: \"gold\" is not in namespaces.ai.allow" },
	{ NS("\"*\":{\"default\":\"roce-lossless\"}"), RQ_ERR_CONFIG,
	  "namespaces.*.default: \"roce-lossless\" is not in namespaces.*.allow" },
	{ NS("\"ai\":{\"inline\":\"yes\"}"), RQ_ERR_CONFIG, "namespaces.ai.inline: expected a boolean" },
	{ NS("\"ai\":{\"allow\":[],\"allow\":[]}"), RQ_ERR_CONFIG,
	  "namespaces.ai.allow: duplicate key" },
	{ "{\"node\":[]}", RQ_ERR_CONFIG, "node: expected an object" },
	{ "{\"node\":{\"pf\":\"always\"}}", RQ_ERR_CONFIG,
	  "node.pf: expected one of \"ensure\", \"verify\", \"ignore\"" },
	{ "{\"node\":{\"pf\":2}}", RQ_ERR_CONFIG,
	  "node.pf: expected one of \"ensure\", \"verify\", \"ignore\"" },
	{ "{\"node\":{\"mode\":1}}", RQ_ERR_CONFIG, "node.mode: unknown key" },
	{ "{\"node\":{\"baseline\":\"gold\"}}", RQ_ERR_CONFIG,
	  "node.baseline: unknown profile \"gold\"" },
	{ "{\"node\":{\"baseline\":\"../x\"}}", RQ_ERR_CONFIG, "node.baseline: expected a profile name" },
	{ "{\"node\":{\"baseline\":3}}", RQ_ERR_CONFIG, "node.baseline: expected a profile name" },
	{ "{\"node\":{\"carrierWaitSeconds\":61}}", RQ_ERR_CONFIG,
	  "node.carrierWaitSeconds: 61 out of range 0-60" },
	{ "{\"node\":{\"carrierWaitSeconds\":\"5\"}}", RQ_ERR_CONFIG,
	  "node.carrierWaitSeconds: expected an integer 0-60" },
};

static bool partial_fails_alike(const char *json, int code, const char *msg);

START_TEST(test_catalog_rejects)
{
	const struct cat_bad *t = &cat_bad[_i];
	struct rq_catalog *c;
	struct rq_error e;
	size_t n = strlen(t->msg);

	ck_assert_int_eq(cat_parse(t->json, &c, &e), t->code);
	if (t->msg[n - 1] == '*')
		ck_assert_msg(!strncmp(e.msg, t->msg, n - 1), "\"%s\" !~ \"%s\"", e.msg, t->msg);
	else
		ck_assert_str_eq(e.msg, t->msg);
	/* ADD's partial load reports it too, word for word, where the entry is used */
	ck_assert_msg(partial_fails_alike(t->json, t->code, t->msg), "partial load: %s", t->json);
}
END_TEST

/* Whether catalog_parse_for fails with @code and @msg for a namespace and name that use it all. */
static bool partial_fails_alike(const char *json, int code, const char *msg)
{
	static const char *const ns[] = {"ai", "ai-training", "x"};
	size_t n = strlen(msg);

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct rq_catalog *c = NULL;
		struct rq_error e;

		rq_err_clear(&e);
		if (catalog_parse_for(json, strlen(json), ns[i], "gold", &c, &e) == 0) {
			catalog_free(c);
			continue;
		}
		ck_assert_ptr_null(c);
		if (e.code == code &&
		    (msg[n - 1] == '*' ? !strncmp(e.msg, msg, n - 1) : !strcmp(e.msg, msg)))
			return true;
		ck_abort_msg("partial load for %s: %d \"%s\", full: %d \"%s\"", ns[i], e.code,
			     e.msg, code, msg);
	}
	return false;
}

START_TEST(test_catalog_too_many_profiles)
{
	size_t n = 300 * 24 + 64, o;
	char *b = malloc(n);
	struct rq_catalog *c;
	struct rq_error e;

	ck_assert_ptr_nonnull(b);
	o = (size_t)snprintf(b, n, "{\"profiles\":{");
	for (int i = 0; i < 257; i++)
		o += (size_t)snprintf(b + o, n - o, "%s\"p%d\":{}", i ? "," : "", i);
	snprintf(b + o, n - o, "}}");
	ck_assert_int_eq(cat_parse(b, &c, &e), RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "profiles: 257 profiles, at most 256");
	ck_assert(partial_fails_alike(b, RQ_ERR_CONFIG, "profiles: 257 profiles, at most 256"));
	free(b);
}
END_TEST

#define CAT1                                                                                 \
	"{\"profiles\":{\"best-effort\":{\"trust\":\"pcp\",\"pfc\":[],\"ecn\":[],"           \
	"\"trafficClass\":0},\"gold\":{\"pfc\":[4],\"ecn\":[4]}},"                           \
	"\"namespaces\":{\"ai-training\":{\"default\":\"roce-lossless\",\"allow\":"          \
	"[\"roce-lossless\",\"best-effort\"],\"inline\":false},"                             \
	"\"lab\":{\"default\":\"gold\",\"allow\":[\"gold\"],\"inline\":true},"               \
	"\"*\":{\"default\":\"best-effort\",\"allow\":[\"best-effort\"]}}}"

START_TEST(test_catalog_fields)
{
	struct rq_profile bp;
	struct rq_catalog *c;
	struct rq_error e;

	ck_assert_int_eq(cat_parse(CAT1, &c, &e), 0);
	ck_assert_uint_eq(c->n_profiles, 2);
	ck_assert_str_eq(c->profiles[0].name, "best-effort");
	ck_assert_int_eq(c->profiles[0].trust, RQ_TRUST_PCP);
	ck_assert_str_eq(c->profiles[1].name, "gold");
	ck_assert_uint_eq(c->profiles[1].pfc, 0x10);
	ck_assert_uint_eq(c->n_ns, 3);
	ck_assert_str_eq(c->ns[0].ns, "ai-training");
	ck_assert_str_eq(c->ns[0].def, "roce-lossless");
	ck_assert_uint_eq(c->ns[0].n_allow, 2);
	ck_assert_str_eq(c->ns[0].allow[0], "roce-lossless");
	ck_assert_str_eq(c->ns[0].allow[1], "best-effort");
	ck_assert(!c->ns[0].inline_ok);
	ck_assert(c->ns[1].inline_ok);
	ck_assert_str_eq(c->ns[2].ns, "*");
	ck_assert(!c->ns[2].inline_ok);
	ck_assert_int_eq(c->pf_max, RQ_PF_ENSURE);
	catalog_free(c);
	ck_assert_int_eq(cat_parse("{}", &c, &e), 0);
	ck_assert_uint_eq(c->n_profiles, 0);
	ck_assert_uint_eq(c->n_ns, 0);
	ck_assert_int_eq(c->pf_max, RQ_PF_ENSURE);
	catalog_free(c);
	ck_assert_int_eq(cat_parse("{\"node\":{}}", &c, &e), 0);
	ck_assert_int_eq(c->pf_max, RQ_PF_ENSURE);
	catalog_free(c);
	ck_assert_int_eq(cat_parse("{\"node\":{\"pf\":\"verify\"}}", &c, &e), 0);
	ck_assert_int_eq(c->pf_max, RQ_PF_VERIFY);
	catalog_free(c);
	ck_assert_int_eq(cat_parse("{\"node\":{\"pf\":\"ignore\"}}", &c, &e), 0);
	ck_assert_int_eq(c->pf_max, RQ_PF_IGNORE);
	ck_assert_int_eq(c->carrier_wait_s, RQ_CARRIER_WAIT_DEFAULT_S);
	ck_assert_int_eq(catalog_baseline(c, &bp), -ENOENT);
	catalog_free(c);
	/* a baseline names a catalog profile or the built-in */
	ck_assert_int_eq(cat_parse("{" GOLD ",\"node\":{\"baseline\":\"gold\","
				   "\"carrierWaitSeconds\":0}}",
				   &c, &e),
			 0);
	ck_assert_int_eq(catalog_baseline(c, &bp), 0);
	ck_assert_str_eq(bp.name, "gold");
	ck_assert_uint_eq(bp.pfc, 0x10);
	ck_assert_int_eq(c->carrier_wait_s, 0);
	catalog_free(c);
	ck_assert_int_eq(cat_parse("{\"node\":{\"baseline\":\"roce-lossless\"}}", &c, &e), 0);
	ck_assert_int_eq(catalog_baseline(c, &bp), 0);
	ck_assert_str_eq(bp.name, "roce-lossless");
	ck_assert_int_eq(bp.traffic_class, 106);
	catalog_free(c);
	ck_assert_int_eq(catalog_baseline(NULL, &bp), -ENOENT);
	catalog_free(NULL);
}
END_TEST

/* One resolution: catalog (NULL = none), NAD fields, namespace -> outcome. */
struct res_case {
	const char *cat;
	const char *extra; /* appended to the NAD entry, "" for none */
	const char *ns;
	int code;	   /* 0 = resolved */
	const char *msg;   /* exact message when code != 0 */
	const char *name;  /* resolved profile name when code == 0 */
	uint8_t pfc;	   /* resolved PFC bitmap */
	int pf;		   /* resolved pf mode */
};

#define CAT_NOSTAR                                                                           \
	"{\"namespaces\":{\"ai-training\":{\"default\":\"roce-lossless\","                   \
	"\"allow\":[\"roce-lossless\"]}}}"
#define CAT_VERIFY                                                                           \
	"{\"namespaces\":{\"*\":{\"default\":\"roce-lossless\",\"allow\":[\"roce-lossless\"]}}," \
	"\"node\":{\"pf\":\"verify\"}}"
#define CAT_IGNORE "{\"node\":{\"pf\":\"ignore\"},\"namespaces\":{\"*\":{\"allow\":[]}}}"
#define CAT_OVERRIDE                                                                         \
	"{\"profiles\":{\"roce-lossless\":{\"pfc\":[4]}},\"namespaces\":{\"*\":{\"default\":"  \
	"\"roce-lossless\",\"allow\":[\"roce-lossless\"]}}}"
#define CAT_NODEFAULT "{\"namespaces\":{\"*\":{\"allow\":[\"roce-lossless\"],\"inline\":true}}}"
#define ARGS(p) "\"args\":{\"cni\":{\"profile\":\"" p "\"}}"
#define NOTALLOWED_AI(p)                                                                     \
	"profile \"" p "\" is not allowed in namespace \"ai-training\" (allowed: roce-lossless, " \
	"best-effort)"

static const struct res_case res[] = {
	/* no catalog: the built-in only, inline refused */
	{ NULL, "", "ai-training", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	{ NULL, "", NULL, 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	{ NULL, "\"profile\":\"roce-lossless\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	{ NULL, "\"profile\":\"gold\"", "x", RQ_ERR_CONFIG,
	  "profile: unknown profile gold (no catalog on this node; only \"roce-lossless\")", NULL, 0, 0 },
	{ NULL, ARGS("gold"), "x", RQ_ERR_CONFIG,
	  "args.cni.profile: unknown profile gold (no catalog on this node; only "
	  "\"roce-lossless\")", NULL, 0, 0 },
	{ NULL, "\"qos\":{\"pfc\":[5]}", "x", RQ_ERR_NOT_ALLOWED,
	  "qos: inline profiles need a node catalog whose namespace policy says \"inline\": true "
	  "(no catalog on this node)", NULL, 0, 0 },
	{ NULL, "\"pf\":\"verify\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_VERIFY },
	{ NULL, "\"pf\":\"ignore\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_IGNORE },
	{ NULL, "\"pf\":\"ensure\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	/* the namespace's own entry */
	{ CAT1, "", "ai-training", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	{ CAT1, "\"profile\":\"best-effort\"", "ai-training", 0, NULL, "best-effort", 0,
	  RQ_PF_ENSURE },
	{ CAT1, "\"profile\":\"gold\"", "ai-training", RQ_ERR_NOT_ALLOWED, NOTALLOWED_AI("gold"), NULL, 0, 0 },
	{ CAT1, "\"profile\":\"nope\"", "ai-training", RQ_ERR_CONFIG,
	  "profile: unknown profile \"nope\"", NULL, 0, 0 },
	{ CAT1, ARGS("nope"), "ai-training", RQ_ERR_CONFIG,
	  "args.cni.profile: unknown profile \"nope\"", NULL, 0, 0 },
	/* args.cni.profile wins over profile, both ways */
	{ CAT1, ARGS("best-effort") ",\"profile\":\"gold\"", "ai-training", 0, NULL, "best-effort",
	  0, RQ_PF_ENSURE },
	{ CAT1, ARGS("gold") ",\"profile\":\"best-effort\"", "ai-training", RQ_ERR_NOT_ALLOWED,
	  NOTALLOWED_AI("gold"), NULL, 0, 0 },
	{ CAT1, "\"qos\":{\"pfc\":[5]}", "ai-training", RQ_ERR_NOT_ALLOWED,
	  "qos: inline profiles are not allowed in namespace \"ai-training\"", NULL, 0, 0 },
	{ CAT1, "", "lab", 0, NULL, "gold", 0x10, RQ_PF_ENSURE },
	{ CAT1, "\"qos\":{\"pfc\":[5]}", "lab", 0, NULL, "inline", 0x20, RQ_PF_ENSURE },
	{ CAT1, "\"qos\":{}", "lab", 0, NULL, "inline", 0, RQ_PF_ENSURE }, /* requires nothing */
	{ CAT1, "\"profile\":\"roce-lossless\"", "lab", RQ_ERR_NOT_ALLOWED,
	  "profile \"roce-lossless\" is not allowed in namespace \"lab\" (allowed: gold)", NULL, 0, 0 },
	/* no entry: "*" */
	{ CAT1, "", "default", 0, NULL, "best-effort", 0, RQ_PF_ENSURE },
	{ CAT1, "", NULL, 0, NULL, "best-effort", 0, RQ_PF_ENSURE },
	{ CAT1, "", "", 0, NULL, "best-effort", 0, RQ_PF_ENSURE },
	{ CAT1, "\"profile\":\"roce-lossless\"", "default", RQ_ERR_NOT_ALLOWED,
	  "profile \"roce-lossless\" is not allowed in namespace \"default\" (allowed: "
	  "best-effort)", NULL, 0, 0 },
	{ CAT1, "\"profile\":\"gold\"", NULL, RQ_ERR_NOT_ALLOWED,
	  "profile \"gold\" is not allowed in namespace \"(none)\" (allowed: best-effort)", NULL, 0, 0 },
	{ CAT1, "\"qos\":{}", "default", RQ_ERR_NOT_ALLOWED,
	  "qos: inline profiles are not allowed in namespace \"default\"", NULL, 0, 0 },
	/* no entry and no "*": nothing is allowed */
	{ CAT_NOSTAR, "", "default", RQ_ERR_NOT_ALLOWED,
	  "profile: none named and namespace \"default\" has no default profile (no entry and no "
	  "\"*\")", NULL, 0, 0 },
	{ CAT_NOSTAR, "\"profile\":\"roce-lossless\"", "default", RQ_ERR_NOT_ALLOWED,
	  "profile \"roce-lossless\" is not allowed in namespace \"default\" (allowed: none)", NULL, 0, 0 },
	{ CAT_NOSTAR, "\"qos\":{}", "default", RQ_ERR_NOT_ALLOWED,
	  "qos: inline profiles are not allowed in namespace \"default\"", NULL, 0, 0 },
	{ CAT_NOSTAR, "", "ai-training", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
	/* an entry without a default */
	{ CAT_NODEFAULT, "", "x", RQ_ERR_NOT_ALLOWED,
	  "profile: none named and namespace \"x\" has no default profile (its entry names "
	  "none)", NULL, 0, 0 },
	{ CAT_NODEFAULT, "\"profile\":\"roce-lossless\"", "x", 0, NULL, "roce-lossless", 0x08,
	  RQ_PF_ENSURE },
	{ CAT_NODEFAULT, "\"qos\":{\"pfc\":[]}", "x", 0, NULL, "inline", 0, RQ_PF_ENSURE },
	/* a catalog entry named roce-lossless overrides the built-in */
	{ CAT_OVERRIDE, "", "x", 0, NULL, "roce-lossless", 0x10, RQ_PF_ENSURE },
	{ CAT_OVERRIDE, "\"profile\":\"roce-lossless\"", "x", 0, NULL, "roce-lossless", 0x10,
	  RQ_PF_ENSURE },
	/* pf: at most the node's policy; default is the node's policy */
	{ CAT_VERIFY, "", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_VERIFY },
	{ CAT_VERIFY, "\"pf\":\"verify\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_VERIFY },
	{ CAT_VERIFY, "\"pf\":\"ignore\"", "x", 0, NULL, "roce-lossless", 0x08, RQ_PF_IGNORE },
	{ CAT_VERIFY, "\"pf\":\"ensure\"", "x", RQ_ERR_NOT_ALLOWED,
	  "pf: \"ensure\" exceeds node policy \"verify\"", NULL, 0, 0 },
	{ CAT_IGNORE, "\"pf\":\"verify\"", "x", RQ_ERR_NOT_ALLOWED,
	  "pf: \"verify\" exceeds node policy \"ignore\"", NULL, 0, 0 },
	{ CAT_IGNORE, "\"pf\":\"ignore\",\"profile\":\"roce-lossless\"", "x", RQ_ERR_NOT_ALLOWED,
	  "profile \"roce-lossless\" is not allowed in namespace \"x\" (allowed: none)", NULL, 0, 0 },
	{ CAT1, "\"pf\":\"ensure\"", "ai-training", 0, NULL, "roce-lossless", 0x08, RQ_PF_ENSURE },
};

START_TEST(test_catalog_resolve)
{
	const struct res_case *t = &res[_i];
	struct rq_catalog *cat = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_profile p;
	enum rq_pf_mode pf = (enum rq_pf_mode)77;
	struct rq_error e;
	char json[1024];

	if (t->cat)
		ck_assert_int_eq(cat_parse(t->cat, &cat, &e), 0);
	snprintf(json, sizeof(json), "{\"cniVersion\":\"1.0.0\",\"name\":\"n\"%s%s}",
		 t->extra[0] ? "," : "", t->extra);
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(json, strlen(json), &nc, &e), 0);
	memset(&p, 0x5a, sizeof(p));
	rq_err_clear(&e);
	if (t->code) {
		ck_assert_int_lt(netconf_resolve_profile(nc, cat, t->ns, &p, &pf, &e), 0);
		ck_assert_int_eq(e.code, t->code);
		ck_assert_str_eq(e.msg, t->msg);
		/* outputs untouched on failure */
		ck_assert_int_eq(pf, 77);
		ck_assert_int_eq(p.traffic_class, 0x5a5a5a5a);
	} else {
		ck_assert_int_eq(netconf_resolve_profile(nc, cat, t->ns, &p, &pf, &e), 0);
		ck_assert_int_eq(e.code, 0);
		ck_assert_str_eq(p.name, t->name);
		ck_assert_uint_eq(p.pfc, t->pfc);
		ck_assert_int_eq(pf, t->pf);
	}
	catalog_free(cat);
	/* the same through ADD's partial load */
	if (t->cat) {
		struct rq_profile q;
		enum rq_pf_mode qpf = (enum rq_pf_mode)77;

		rq_err_clear(&e);
		cat = NULL;
		ck_assert_int_eq(catalog_parse_for(t->cat, strlen(t->cat), t->ns,
						   nc->args_profile ? nc->args_profile : nc->profile,
						   &cat, &e),
				 0);
		rq_err_clear(&e);
		if (t->code) {
			ck_assert_int_lt(netconf_resolve_profile(nc, cat, t->ns, &q, &qpf, &e), 0);
			ck_assert_int_eq(e.code, t->code);
			ck_assert_str_eq(e.msg, t->msg);
		} else {
			ck_assert_int_eq(netconf_resolve_profile(nc, cat, t->ns, &q, &qpf, &e), 0);
			ck_assert_str_eq(q.name, t->name);
			ck_assert_uint_eq(q.pfc, t->pfc);
			ck_assert_int_eq(qpf, t->pf);
			ck_assert_int_eq(q.traffic_class, p.traffic_class);
		}
		catalog_free(cat);
	}
	netconf_free(nc);
}
END_TEST

/*
 * The partial-load rule: an error in an entry this attachment does not use
 * does not fail it (catalog_parse still reports it); the ones that use it fail.
 */
START_TEST(test_catalog_partial_rule)
{
	static const char cat[] =
	    "{\"profiles\":{\"gold\":{\"pfc\":[4]},\"broken\":{\"pfc\":[9]}},"
	    "\"namespaces\":{\"ai\":{\"default\":\"gold\",\"allow\":[\"gold\"]},"
	    "\"lab\":{\"default\":\"broken\",\"allow\":[\"broken\",\"gone\"]},"
	    "\"ops\":{\"allow\":[\"gold\",\"broken\"],\"inline\":\"no\"}}}";
	static const char bad[] = "{\"profiles\":{\"x\":{\"pfc\":[1,]}}}";
	struct rq_catalog *c = NULL;
	struct rq_error e;

	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse(cat, strlen(cat), &c, &e), 0);
	ck_assert_str_eq(e.msg, "profiles.broken.pfc[0]: 9 out of range 0-7");
	/* ai uses gold only */
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_for(cat, strlen(cat), "ai", NULL, &c, &e), 0);
	ck_assert_uint_eq(c->n_profiles, 1);
	ck_assert_uint_eq(c->n_names, 2);
	catalog_free(c);
	/* ai naming broken: loaded, so reported (resolution would refuse it anyway) */
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_for(cat, strlen(cat), "ai", "broken", &c, &e), 0);
	ck_assert_str_eq(e.msg, "profiles.broken.pfc[0]: 9 out of range 0-7");
	/* lab's entry names a profile that does not exist */
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_for(cat, strlen(cat), "lab", NULL, &c, &e), 0);
	ck_assert_str_eq(e.msg, "namespaces.lab.allow[1]: unknown profile \"gone\" (did you mean \"gold\"?)");
	/* ops' entry is malformed */
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_for(cat, strlen(cat), "ops", "gold", &c, &e), 0);
	ck_assert_str_eq(e.msg, "namespaces.ops.inline: expected a boolean");
	/* the node baseline is loaded with what the namespace uses (and only then checked) */
	{
		static const char based[] =
		    "{\"profiles\":{\"gold\":{\"pfc\":[4]},\"base\":{\"pfc\":[3]},"
		    "\"broken\":{\"pfc\":[9]}},\"namespaces\":{\"ai\":{\"default\":\"gold\","
		    "\"allow\":[\"gold\"]}},\"node\":{\"baseline\":\"base\",\"carrierWaitSeconds\":2}}";
		struct rq_profile bp;

		rq_err_clear(&e);
		ck_assert_int_eq(catalog_parse_for(based, strlen(based), "ai", NULL, &c, &e), 0);
		ck_assert_int_eq(catalog_baseline(c, &bp), 0);
		ck_assert_str_eq(bp.name, "base");
		ck_assert_uint_eq(bp.pfc, 0x08);
		ck_assert_int_eq(c->carrier_wait_s, 2);
		catalog_free(c);
	}
	/* no entry and no "*": nothing loaded, nothing wrong */
	rq_err_clear(&e);
	ck_assert_int_eq(catalog_parse_for(cat, strlen(cat), "other", NULL, &c, &e), 0);
	ck_assert_uint_eq(c->n_ns, 0);
	catalog_free(c);
	/* syntax anywhere is everyone's error */
	rq_err_clear(&e);
	ck_assert_int_lt(catalog_parse_for(bad, strlen(bad), "ai", NULL, &c, &e), 0);
	ck_assert_int_eq(e.code, RQ_ERR_DECODE);
}
END_TEST

START_TEST(test_catalog_resolve_name_and_qos)
{
	/* netconf_parse refuses both; resolution refuses them too if handed both */
	struct rq_netconf nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	cJSON *qos = cJSON_CreateObject();

	memset(&nc, 0, sizeof(nc));
	nc.cni_version = "1.0.0";
	nc.name = "n";
	nc.qos = qos;
	nc.profile = "roce-lossless";
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(&nc, NULL, "x", &p, &pf, &e), -EINVAL);
	ck_assert_int_eq(e.code, RQ_ERR_CONFIG);
	ck_assert_str_eq(e.msg, "qos: an inline profile and a profile name cannot both be given");
	cJSON_Delete(qos);
}
END_TEST

Suite *suite_catalog(void);

Suite *suite_catalog(void)
{
	Suite *s = suite_create("catalog");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_catalog_rejects, 0,
			    (int)(sizeof(cat_bad) / sizeof(cat_bad[0])));
	tcase_add_test(tc, test_catalog_too_many_profiles);
	tcase_add_test(tc, test_catalog_fields);
	tcase_add_loop_test(tc, test_catalog_resolve, 0, (int)(sizeof(res) / sizeof(res[0])));
	tcase_add_test(tc, test_catalog_resolve_name_and_qos);
	tcase_add_test(tc, test_catalog_partial_rule);
	suite_add_tcase(s, tc);
	return s;
}
