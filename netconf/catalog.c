// SPDX-License-Identifier: Apache-2.0
/* The node catalog (profiles + namespace policy) and profile resolution. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/catalog_int.h"
#include "netconf/jsonpath.h"
#include "netconf/netconf.h"

static const struct rq_profile *catalog_find(const struct rq_catalog *c, const char *name)
{
	for (size_t i = 0; c && i < c->n_profiles; i++)
		if (!strcmp(c->profiles[i].name, name))
			return &c->profiles[i];
	return NULL;
}

/* Whether a partial catalog (catalog_parse_for) has a profile of that name, loaded or not. */
static bool catalog_names(const struct rq_catalog *c, const char *name)
{
	for (size_t i = 0; c && i < c->n_names; i++)
		if (!strcmp(c->names[i], name))
			return true;
	return false;
}

/*
 * The profile name nearest to @name (a typo: "roce-losless"), among the
 * catalog's and the built-in one, or NULL: the "did you mean" of an unknown
 * profile, as netconf_key_nearest's for a NAD key.
 */
static const char *profile_nearest(const struct rq_catalog *c, const char *name)
{
	const char *best = RQ_BUILTIN_PROFILE;
	size_t best_d = json_key_distance(name, RQ_BUILTIN_PROFILE), d;

	for (size_t i = 0; c && i < c->n_profiles + c->n_names; i++) {
		const char *k =
		    i < c->n_profiles ? c->profiles[i].name : c->names[i - c->n_profiles];

		if ((d = json_key_distance(name, k)) < best_d) {
			best_d = d;
			best = k;
		}
	}
	return json_key_near(name, best_d) ? best : NULL;
}

/* " (did you mean \"x\"?)" for an unknown profile @name, or "" */
static const char *profile_hint(const struct rq_catalog *c, const char *name, char *buf, size_t len)
{
	const char *near = profile_nearest(c, name);

	if (!near)
		return "";
	(void)snprintf(buf, len, " (did you mean \"%s\"?)", near);
	return buf;
}

/* A catalog may name the built-in profile without defining it. */
static bool profile_known(const struct rq_catalog *c, const char *name)
{
	return catalog_find(c, name) || catalog_names(c, name) || !strcmp(name, RQ_BUILTIN_PROFILE);
}

static int parse_profiles(struct rq_catalog *c, const cJSON *o, struct rq_error *e)
{
	const cJSON *it;
	int n = cJSON_GetArraySize(o);

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "profiles: expected an object");
	if (n > RQ_CATALOG_MAX_PROFILES)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "profiles: %d profiles, at most %d", n,
			      RQ_CATALOG_MAX_PROFILES);
	c->profiles = calloc((size_t)n + 1, sizeof(*c->profiles));
	if (!c->profiles)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	cJSON_ArrayForEach(it, o)
	{
		char path[128];
		int r;

		if (!netconf_name_valid(it->string)) {
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "profiles.%.64s: not a profile name ([A-Za-z0-9._-], 1-63)",
				   it->string);
			if ((r = rq_err_keep(c->keep, e, r)) < 0)
				return r;
			continue;
		}
		(void)snprintf(path, sizeof(path), "profiles.%s", it->string);
		r = profile_parse(it, path, it->string, c->keep, &c->profiles[c->n_profiles], e);
		if (r == 0)
			c->n_profiles++;
		else if ((r = rq_err_keep(c->keep, e, r)) < 0)
			return r;
	}
	return 0;
}

/* A Kubernetes namespace is a DNS-1123 label; "*" is the catch-all entry. */
bool catalog_ns_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "*"))
		return true;
	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static bool policy_allows(const struct rq_ns_policy *p, const char *name)
{
	for (size_t i = 0; p && i < p->n_allow; i++)
		if (!strcmp(p->allow[i], name))
			return true;
	return false;
}

static int parse_allow(struct rq_catalog *c, struct rq_ns_policy *p, const cJSON *a,
		       const char *path, struct rq_error *e)
{
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(a))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.allow: expected an array of names",
			      path);
	p->allow = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*p->allow));
	if (!p->allow)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	cJSON_ArrayForEach(it, a)
	{
		char hint[96];
		int r = 0;

		if (!cJSON_IsString(it))
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.allow[%d]: expected a name", path,
				   i);
		else if (!profile_known(c, it->valuestring))
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%s.allow[%d]: unknown profile \"%.64s\"%s", path, i,
				   it->valuestring,
				   profile_hint(c, it->valuestring, hint, sizeof(hint)));
		else
			(void)snprintf(p->allow[p->n_allow++], RQ_PROFILE_NAME_MAX, "%s",
				       it->valuestring);
		if ((r = rq_err_keep(c->keep, e, r)) < 0)
			return r;
		i++;
	}
	return 0;
}

static int parse_ns_entry(struct rq_catalog *c, struct rq_ns_policy *p, const cJSON *it,
			  const char *path, struct rq_error *e)
{
	const cJSON *v;
	char hint[96];
	int r;

	if ((v = cJSON_GetObjectItemCaseSensitive(it, "allow")) &&
	    (r = rq_err_keep(c->keep, e, parse_allow(c, p, v, path, e))) < 0)
		return r;
	if ((v = cJSON_GetObjectItemCaseSensitive(it, "inline"))) {
		if (!cJSON_IsBool(v) &&
		    (r = rq_err_keep(c->keep, e,
				     rq_err(e, RQ_ERR_CONFIG, -EINVAL,
					    "%s.inline: expected a boolean", path))) < 0)
			return r;
		p->inline_ok = cJSON_IsTrue(v);
	}
	v = cJSON_GetObjectItemCaseSensitive(it, "default");
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.default: expected a string", path);
	if (!profile_known(c, v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.default: unknown profile \"%.64s\"%s",
			      path, v->valuestring,
			      profile_hint(c, v->valuestring, hint, sizeof(hint)));
	/* A default the namespace may not use would fail every ADD: refuse it here. */
	if (!policy_allows(p, v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.default: \"%s\" is not in %s.allow",
			      path, v->valuestring, path);
	(void)snprintf(p->def, sizeof(p->def), "%s", v->valuestring);
	return 0;
}

static int parse_ns(struct rq_catalog *c, const cJSON *o, struct rq_error *e)
{
	const cJSON *it;
	int n = cJSON_GetArraySize(o);

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "namespaces: expected an object");
	if (n > RQ_CATALOG_MAX_NS)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "namespaces: more than %d entries",
			      RQ_CATALOG_MAX_NS);
	c->ns = calloc((size_t)n + 1, sizeof(*c->ns));
	if (!c->ns)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	cJSON_ArrayForEach(it, o)
	{
		int r = rq_err_keep(c->keep, e, catalog_ns_from_json(c, it->string, it, e));

		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * node.kubeletDir: kubelet's root dir on layouts that move it (k0s:
 * /var/lib/k0s/kubelet, microk8s: /var/snap/microk8s/common/var/lib/kubelet).
 * Only read from (NUMA placement), and set by the node's admin, never a NAD.
 */
static int parse_kubelet_dir(struct rq_catalog *c, const cJSON *o, struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "kubeletDir");
	const char *s = cJSON_GetStringValue(v), *p;
	size_t n = s ? strlen(s) : 0;

	if (!v)
		return 0;
	if (!s || s[0] != '/' || n >= sizeof(c->kubelet_dir) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") != n)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.kubeletDir: expected an absolute path of [A-Za-z0-9._/-], at "
			      "most %zu characters",
			      sizeof(c->kubelet_dir) - 1);
	for (p = s; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || p[3] == '\0')
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				      "node.kubeletDir: a \"..\" component is not allowed");
	(void)snprintf(c->kubelet_dir, sizeof(c->kubelet_dir), "%s", s);
	return 0;
}

int catalog_ns_from_json(struct rq_catalog *c, const char *ns, const cJSON *it, struct rq_error *e)
{
	static const char *const keys[] = {"default", "allow", "inline", NULL};
	struct rq_ns_policy *p = &c->ns[c->n_ns++];
	char path[320];
	int r;

	if (!catalog_ns_name_valid(ns))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "namespaces.%.64s: not a namespace name (a DNS label "
			      "[a-z0-9-], 1-63) or \"*\"",
			      ns);
	(void)snprintf(path, sizeof(path), "namespaces.%s", ns);
	if (!cJSON_IsObject(it))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an object", path);
	if ((r = json_only_keys(it, path, keys, c->keep, e)) < 0)
		return r;
	(void)snprintf(p->ns, sizeof(p->ns), "%s", ns);
	return parse_ns_entry(c, p, it, path, e);
}

static int parse_node_pf(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	static const char *const pf_names[] = {"ignore", "verify", "ensure"};

	for (int i = 0; i < 3; i++)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, pf_names[i])) {
			c->pf_max = (enum rq_pf_mode)i;
			return 0;
		}
	return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
		      "node.pf: expected one of \"ensure\", \"verify\", \"ignore\"");
}

/*
 * node.numaSource: where ADD reads NUMA evidence. "auto" (default): kubelet's
 * PodResources API, its files when the API gives no answer; "api", "files": that
 * one only.
 */
static int parse_numa_source(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	static const enum rq_numa_source srcs[] = {RQ_NUMA_SRC_AUTO, RQ_NUMA_SRC_API,
						   RQ_NUMA_SRC_FILES};

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++)
		if (cJSON_IsString(v) && !strcmp(v->valuestring, numa_source_name(srcs[i]))) {
			c->numa_source = srcs[i];
			return 0;
		}
	return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
		      "node.numaSource: expected one of \"auto\", \"api\", \"files\"");
}

const char *catalog_unchained_name(enum rq_unchained_mode m)
{
	return m == RQ_UNCHAINED_ADOPT ? "adopt" : m == RQ_UNCHAINED_IGNORE ? "ignore" : "report";
}

/*
 * node.unchained: what the agent does with a VF of a PF it watches that sits in
 * a pod's netns with no record (DESIGN.md "VFs no chain ran for"): "report"
 * (default), "adopt" (ADD's steps with the namespace's default), "ignore".
 */
static int parse_unchained(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	static const enum rq_unchained_mode modes[] = {RQ_UNCHAINED_REPORT, RQ_UNCHAINED_ADOPT,
						       RQ_UNCHAINED_IGNORE};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (cJSON_IsString(v) &&
		    !strcmp(v->valuestring, catalog_unchained_name(modes[i]))) {
			c->unchained = modes[i];
			return 0;
		}
	return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
		      "node.unchained: expected one of \"report\", \"adopt\", \"ignore\"");
}

/* node.baseline: a profile name the catalog knows */
static int parse_baseline(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	char hint[96];

	if (!cJSON_IsString(v) || !netconf_name_valid(v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "node.baseline: expected a profile name");
	if (!profile_known(c, v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "node.baseline: unknown profile \"%s\"%s",
			      v->valuestring, profile_hint(c, v->valuestring, hint, sizeof(hint)));
	(void)snprintf(c->baseline, sizeof(c->baseline), "%s", v->valuestring);
	return 0;
}

static int parse_wiring(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	int r = wiring_from_json(v, c->keep, &c->wiring, &c->n_wiring, e);

	if (r >= 0 || !c->obs_lenient || r == -ENOMEM)
		return r;
	/* observability only: ignored, never a failed ADD (netconf.h) */
	(void)snprintf(c->obs_err, sizeof(c->obs_err), "%s", e->msg);
	rq_err_clear(e);
	c->wiring = NULL;
	c->n_wiring = 0;
	return 0;
}

/* node.linkHealth: {"fecUncorrectablePerMinute": N}, N a number >= 0 (0: any block counts) */
static int link_health_from_json(struct rq_catalog *c, const cJSON *o, struct rq_error *e)
{
	static const char *const keys[] = {"fecUncorrectablePerMinute", NULL};
	const cJSON *v;
	int r;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "node.linkHealth: expected an object");
	if ((r = json_only_keys(o, "node.linkHealth", keys, c->keep, e)) < 0)
		return r;
	v = cJSON_GetObjectItemCaseSensitive(o, "fecUncorrectablePerMinute");
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble > RQ_FEC_UNCORR_PER_MIN_MAX)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.linkHealth.fecUncorrectablePerMinute: expected a number from 0 "
			      "to 1000000");
	c->fec_uncorr_per_min = v->valuedouble;
	return 0;
}

static int parse_link_health(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	int r = link_health_from_json(c, v, e);

	if (r >= 0 || !c->obs_lenient || r == -ENOMEM)
		return r;
	/* observability only, as node.wiring: ignored, never a failed ADD */
	(void)snprintf(c->obs_err, sizeof(c->obs_err), "%s", e->msg);
	rq_err_clear(e);
	c->fec_uncorr_per_min = RQ_FEC_UNCORR_PER_MIN_DEFAULT;
	return 0;
}

/* node.sharedResources: the agent's alone (host-network pods), so as node.wiring: never ADD's */
static int parse_shared(struct rq_catalog *c, const cJSON *v, struct rq_error *e)
{
	int r = catalog_node_shared(c, v, e);

	if (r >= 0 || !c->obs_lenient || r == -ENOMEM)
		return r;
	(void)snprintf(c->obs_err, sizeof(c->obs_err), "%s", e->msg);
	rq_err_clear(e);
	free(c->shared);
	c->shared = NULL;
	c->n_shared = 0;
	return 0;
}

int catalog_node_from_json(struct rq_catalog *c, const cJSON *o, struct rq_error *e)
{
	static const char *const keys[] = {"pf",	 "baseline",	    "carrierWaitSeconds",
					   "kubeletDir", "numaSource",	    "unchained",
					   "gdrLevel",	 "gdrTopology",	    "wiring",
					   "linkHealth", "sharedResources", NULL};
	const cJSON *v;
	long secs;
	int r;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "node: expected an object");
	if ((r = json_only_keys(o, "node", keys, c->keep, e)) < 0)
		return r;
		/* each key on its own: with c->keep (validate), every error is kept */
#define KEEP(x)                                                                                    \
	do {                                                                                       \
		if ((r = rq_err_keep(c->keep, e, (x))) < 0)                                        \
			return r;                                                                  \
	} while (0)
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "pf")))
		KEEP(parse_node_pf(c, v, e));
	KEEP(parse_kubelet_dir(c, o, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "numaSource")))
		KEEP(parse_numa_source(c, v, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "unchained")))
		KEEP(parse_unchained(c, v, e));
	KEEP(catalog_node_gdr(c, o, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "wiring")) && !c->wiring)
		KEEP(parse_wiring(c, v, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "linkHealth")))
		KEEP(parse_link_health(c, v, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "sharedResources")) && !c->shared)
		KEEP(parse_shared(c, v, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "baseline")))
		KEEP(parse_baseline(c, v, e));
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "carrierWaitSeconds"))) {
		r = json_int_in(v, "node.carrierWaitSeconds", -1, 0, 60, &secs, e);
		if (r == 0)
			c->carrier_wait_s = (int)secs;
		KEEP(r);
	}
#undef KEEP
	return 0;
}

int catalog_baseline(const struct rq_catalog *c, struct rq_profile *ret)
{
	const struct rq_profile *p;

	if (!c || !c->baseline[0])
		return -ENOENT;
	p = catalog_find(c, c->baseline);
	if (p)
		*ret = *p;
	else
		profile_builtin(ret);
	return 0;
}

static int catalog_parse_opt(const char *buf, size_t len, bool lenient, struct rq_errlist *keep,
			     struct rq_catalog **ret, struct rq_error *e)
{
	static const char *const keys[] = {"profiles", "namespaces", "node", NULL};
	struct rq_catalog *c = calloc(1, sizeof(*c));
	size_t kept = rq_errlist_count(keep);
	const cJSON *v;
	int r;

	if (!c)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	c->obs_lenient = lenient;
	c->keep = keep;
	c->pf_max = RQ_PF_ENSURE;
	c->carrier_wait_s = RQ_CARRIER_WAIT_DEFAULT_S;
	c->gdr_level = RQ_PCI_PXB;
	c->fec_uncorr_per_min = RQ_FEC_UNCORR_PER_MIN_DEFAULT;
	(void)snprintf(c->kubelet_dir, sizeof(c->kubelet_dir), "%s", RQ_KUBELET_DIR_DEFAULT);
	r = json_parse_object(buf, len, "profile catalog", &c->root, e);
	if (r < 0)
		goto fail;
	r = json_only_keys(c->root, "", keys, keep, e);
	if (r < 0)
		goto fail;
	v = cJSON_GetObjectItemCaseSensitive(c->root, "profiles");
	if (v && (r = rq_err_keep(keep, e, parse_profiles(c, v, e))) < 0)
		goto fail;
	v = cJSON_GetObjectItemCaseSensitive(c->root, "namespaces");
	if (v && (r = rq_err_keep(keep, e, parse_ns(c, v, e))) < 0)
		goto fail;
	v = cJSON_GetObjectItemCaseSensitive(c->root, "node");
	if (v && (r = rq_err_keep(keep, e, catalog_node_from_json(c, v, e))) < 0)
		goto fail;
	/* kept errors: the parse fails all the same, @e holding the first */
	if ((r = rq_errlist_since(keep, kept, e)) < 0)
		goto fail;
	c->keep = NULL;
	*ret = c;
	return 0;
fail:
	catalog_free(c);
	return r;
}

int catalog_parse(const char *buf, size_t len, struct rq_catalog **ret, struct rq_error *e)
{
	return catalog_parse_opt(buf, len, false, NULL, ret, e);
}

int catalog_parse_keep(const char *buf, size_t len, struct rq_errlist *keep,
		       struct rq_catalog **ret, struct rq_error *e)
{
	return catalog_parse_opt(buf, len, false, keep, ret, e);
}

int catalog_parse_lenient(const char *buf, size_t len, struct rq_catalog **ret, struct rq_error *e)
{
	return catalog_parse_opt(buf, len, true, NULL, ret, e);
}

void catalog_free(struct rq_catalog *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->ns && i < c->n_ns; i++)
		free(c->ns[i].allow);
	free(c->ns);
	free(c->names);
	free(c->profiles);
	free(c->wiring);
	free(c->shared);
	cJSON_Delete(c->root);
	free(c);
}

static const struct rq_ns_policy *policy_for(const struct rq_catalog *c, const char *ns)
{
	const struct rq_ns_policy *star = NULL;

	for (size_t i = 0; i < c->n_ns; i++) {
		if (ns && ns[0] && !strcmp(c->ns[i].ns, ns))
			return &c->ns[i];
		if (!strcmp(c->ns[i].ns, "*"))
			star = &c->ns[i];
	}
	return star;
}

static void allow_list(const struct rq_ns_policy *p, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; p && i < p->n_allow; i++)
		(void)snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "",
			       p->allow[i]);
	if (!buf[0])
		(void)snprintf(buf, len, "none");
}

static int resolve_pf(const struct rq_netconf *nc, const struct rq_catalog *cat,
		      enum rq_pf_mode *ret, struct rq_error *e)
{
	static const char *const names[] = {"ignore", "verify", "ensure"};
	enum rq_pf_mode max = cat ? cat->pf_max : RQ_PF_ENSURE;

	/* A NAD may ask for less than the node allows (ignore < verify < ensure), never more. */
	if (!nc->pf_set) {
		*ret = max;
		return 0;
	}
	if (nc->pf > max)
		return rq_err(e, RQ_ERR_NOT_ALLOWED, -EPERM,
			      "pf: \"%s\" exceeds node policy \"%s\"", names[nc->pf], names[max]);
	*ret = nc->pf;
	return 0;
}

static const char *ns_text(const char *ns)
{
	return ns && ns[0] ? ns : "(none)";
}

static int resolve_named(const struct rq_catalog *cat, const struct rq_ns_policy *pol,
			 const char *key, const char *name, const char *ns, struct rq_profile *ret,
			 struct rq_error *e)
{
	const struct rq_profile *p;
	char allowed[1024];

	if (!profile_known(cat, name))
		return rq_err(e, RQ_ERR_CONFIG, -ENOENT, "%s: unknown profile \"%s\"%s", key, name,
			      profile_hint(cat, name, allowed, sizeof(allowed)));
	if (!policy_allows(pol, name)) {
		allow_list(pol, allowed, sizeof(allowed));
		return rq_err(e, RQ_ERR_NOT_ALLOWED, -EPERM,
			      "profile \"%s\" is not allowed in namespace \"%s\" (allowed: %s)",
			      name, ns_text(ns), allowed);
	}
	p = catalog_find(cat, name);
	/* a partial catalog loads every profile resolution can pick; never fall back past one */
	if (!p && catalog_names(cat, name))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "profiles.%s: not loaded from the catalog",
			      name);
	if (p)
		*ret = *p;
	else
		profile_builtin(ret);
	return 0;
}

/*
 * No catalog: the plugin works with zero node setup, with the built-in
 * roce-lossless only. Inline qos is refused here: nobody with authority over
 * the node said that namespace users may program the NIC, and the NAD is
 * written by namespace users (secure default; a catalog entry with
 * "inline": true opts in).
 */
static int resolve_no_catalog(const struct rq_netconf *nc, const char *key, const char *name,
			      struct rq_profile *ret, struct rq_error *e)
{
	if (nc->qos)
		return rq_err(e, RQ_ERR_NOT_ALLOWED, -EPERM,
			      "qos: inline profiles need a node catalog whose namespace policy "
			      "says \"inline\": true (no catalog on this node)");
	if (name && strcmp(name, RQ_BUILTIN_PROFILE) != 0)
		return rq_err(e, RQ_ERR_CONFIG, -ENOENT,
			      "%s: unknown profile %s (no catalog on this node; only \"%s\"%s)",
			      key, name, RQ_BUILTIN_PROFILE,
			      profile_nearest(NULL, name) ? ": did you mean it?" : "");
	profile_builtin(ret);
	return 0;
}

int netconf_resolve_profile(const struct rq_netconf *nc, const struct rq_catalog *cat,
			    const char *ns, struct rq_profile *ret, enum rq_pf_mode *ret_pf,
			    struct rq_error *e)
{
	const char *key = nc->args_profile ? "args.cni.profile" : "profile";
	const char *name = nc->args_profile ? nc->args_profile : nc->profile;
	const struct rq_ns_policy *pol;
	enum rq_pf_mode pf = RQ_PF_ENSURE;
	struct rq_profile p;
	int r;

	if (nc->qos && name)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "qos: an inline profile and a profile name cannot both be given");
	r = resolve_pf(nc, cat, &pf, e);
	if (r < 0)
		return r;
	if (!cat) {
		r = resolve_no_catalog(nc, key, name, &p, e);
	} else {
		/* the namespace's entry, else "*", else nothing is allowed */
		pol = policy_for(cat, ns);
		if (nc->qos && (!pol || !pol->inline_ok))
			r = rq_err(e, RQ_ERR_NOT_ALLOWED, -EPERM,
				   "qos: inline profiles are not allowed in namespace \"%s\"",
				   ns_text(ns));
		else if (nc->qos)
			r = profile_from_json(nc->qos, "qos", "inline", &p, e);
		else if (!name && !(pol && pol->def[0]))
			r = rq_err(e, RQ_ERR_NOT_ALLOWED, -EPERM,
				   "profile: none named and namespace \"%s\" has no default "
				   "profile (%s)",
				   ns_text(ns),
				   pol ? "its entry names none" : "no entry and no \"*\"");
		else
			r = resolve_named(cat, pol, name ? key : "default", name ? name : pol->def,
					  ns, &p, e);
	}
	if (r < 0)
		return r;
	*ret = p;
	*ret_pf = pf;
	return 0;
}
