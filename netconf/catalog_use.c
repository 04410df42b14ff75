// SPDX-License-Identifier: Apache-2.0
/*
 * The node catalog as one ADD or CHECK needs it (catalog_parse_for). A node
 * with 200 namespaces and 50 profiles has a catalog of ~70 KB; building and
 * validating all of it cost an ADD twice the C floor. One streaming pass
 * validates the JSON and every name and notes where the needed entries are;
 * only those are parsed with cJSON and validated by the same code as
 * catalog_parse, so their errors read the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/catalog_int.h"
#include "netconf/jsonpath.h"
#include "netconf/netconf.h"
#include "pkg/json/jscan.h"

#define RQ_CATALOG_FILE_MAX ((uint64_t)4 * 1024 * 1024)

struct span {
	size_t off, len;
	int seen;
};

struct cwalk {
	struct rq_jscan s;
	const char *buf;
	const char *ns;
	struct rq_catalog *c;
	struct span *prof; /* per c->names entry */
	size_t n_prof_keys;
	size_t n_ns;
	struct span own, star, node;
	struct rq_error *e;
};

/* The next member's value: where it is in the buffer; skipped (and validated). */
static int value_span(struct cwalk *w, struct span *sp)
{
	int r;

	if (jscan_peek(&w->s) < 0)
		return jscan_skip(&w->s);
	sp->off = (size_t)jscan_offset(&w->s);
	r = jscan_skip(&w->s);
	sp->len = (size_t)jscan_offset(&w->s) - sp->off;
	sp->seen++;
	return r;
}

static int walk_profiles(struct cwalk *w)
{
	char key[RQ_PROFILE_NAME_MAX + 1];
	bool first = true, cut = false;
	int r;

	if (jscan_peek(&w->s) != '{')
		return jscan_peek(&w->s) < 0
			   ? jscan_skip(&w->s)
			   : rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "profiles: expected an object");
	while ((r = jscan_member(&w->s, &first, key, sizeof(key), &cut)) == 1) {
		struct rq_catalog *c = w->c;

		if (cut || !netconf_name_valid(key))
			return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL,
				      "profiles.%.64s: not a profile name ([A-Za-z0-9._-], 1-63)",
				      key);
		/* counted to the end, so that the message says how many, as catalog_parse's */
		if (++w->n_prof_keys > RQ_CATALOG_MAX_PROFILES) {
			if ((r = jscan_skip(&w->s)) < 0)
				return r;
			continue;
		}
		(void)snprintf(c->names[c->n_names], RQ_PROFILE_NAME_MAX, "%s", key);
		w->prof[c->n_names] = (struct span){0};
		if ((r = value_span(w, &w->prof[c->n_names])) < 0)
			return r;
		c->n_names++;
	}
	if (r == 0 && w->n_prof_keys > RQ_CATALOG_MAX_PROFILES)
		return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "profiles: %zu profiles, at most %d",
			      w->n_prof_keys, RQ_CATALOG_MAX_PROFILES);
	return r;
}

static int walk_ns(struct cwalk *w)
{
	char key[300];
	bool first = true, cut = false;
	int r;

	if (jscan_peek(&w->s) != '{')
		return jscan_peek(&w->s) < 0
			   ? jscan_skip(&w->s)
			   : rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "namespaces: expected an object");
	while ((r = jscan_member(&w->s, &first, key, sizeof(key), &cut)) == 1) {
		if (cut || !catalog_ns_name_valid(key))
			return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL,
				      "namespaces.%.64s: not a namespace name (a DNS label "
				      "[a-z0-9-], 1-63) or \"*\"",
				      key);
		if (++w->n_ns > RQ_CATALOG_MAX_NS)
			return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL,
				      "namespaces: more than %d entries", RQ_CATALOG_MAX_NS);
		if (w->ns && w->ns[0] && !strcmp(key, w->ns))
			r = value_span(w, &w->own);
		else if (!strcmp(key, "*"))
			r = value_span(w, &w->star);
		else
			r = jscan_skip(&w->s);
		if (r < 0)
			return r;
	}
	return r;
}

/* The top level: every byte validated as JSON, the three known keys, each once. */
static int walk(struct cwalk *w)
{
	static const char *const keys[] = {"profiles", "namespaces", "node"};
	bool first = true, cut = false, seen[3] = {false};
	char key[140];
	int r;

	if (jscan_peek(&w->s) != '{') {
		if (jscan_skip(&w->s) < 0)
			return w->s.err; /* not JSON: the caller says so */
		return rq_err(w->e, RQ_ERR_DECODE, -EBADMSG,
			      "profile catalog: expected a JSON object");
	}
	while ((r = jscan_member(&w->s, &first, key, sizeof(key), &cut)) == 1) {
		int k = 0;

		while (k < 3 && (cut || strcmp(key, keys[k])))
			k++;
		if (k == 3) {
			static const char *const known[] = {"profiles", "namespaces", "node", NULL};
			const char *near = cut ? NULL : json_key_nearest(key, known);

			/* catalog_parse's words (json_only_keys), so both loads say the same */
			if (near)
				return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL,
					      "%.128s: unknown key (did you mean \"%s\"?)", key,
					      near);
			return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "%.128s: unknown key", key);
		}
		if (seen[k])
			return rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "%s: duplicate key", key);
		seen[k] = true;
		r = k == 0 ? walk_profiles(w) : k == 1 ? walk_ns(w) : value_span(w, &w->node);
		if (r < 0)
			return r;
	}
	return r;
}

/* A noted entry as a cJSON tree, held to the same duplicate-key rule as catalog_parse. */
static int entry_tree(struct cwalk *w, const struct span *sp, const char *path, int depth,
		      cJSON **ret)
{
	cJSON *o = cJSON_ParseWithLength(w->buf + sp->off, sp->len);
	int r;

	if (!o)
		return rq_err(w->e, RQ_ERR_IO, -ENOMEM, "%s: out of memory", path);
	r = json_no_duplicates(o, path, depth, w->e);
	if (r < 0) {
		cJSON_Delete(o);
		return r;
	}
	*ret = o;
	return 0;
}

static int load_profile(struct cwalk *w, const char *name)
{
	struct rq_catalog *c = w->c;
	char path[128];
	cJSON *o = NULL;
	size_t i, k;
	int r;

	for (i = 0; i < c->n_names && strcmp(c->names[i], name); i++)
		;
	for (k = 0; k < c->n_profiles; k++)
		if (!strcmp(c->profiles[k].name, name))
			return 0; /* already loaded */
	if (i == c->n_names)
		return 0; /* not in the catalog: resolution says so (or it is the built-in) */
	(void)snprintf(path, sizeof(path), "profiles.%s", name);
	r = entry_tree(w, &w->prof[i], path, 2, &o);
	if (r == 0)
		r = profile_from_json(o, path, c->names[i], &c->profiles[c->n_profiles], w->e);
	if (r == 0)
		c->n_profiles++;
	cJSON_Delete(o);
	return r;
}

/* A name given twice in "profiles" (sorted copy: a hostile catalog cannot make this quadratic). */
static int names_unique(struct cwalk *w)
{
	struct rq_catalog *c = w->c;
	char(*v)[RQ_PROFILE_NAME_MAX];
	int r = 0;

	if (c->n_names < 2)
		return 0;
	v = malloc(c->n_names * sizeof(*v));
	if (!v)
		return rq_err(w->e, RQ_ERR_IO, -ENOMEM, "out of memory");
	memcpy(v, c->names, c->n_names * sizeof(*v));
	qsort(v, c->n_names, sizeof(*v), (int (*)(const void *, const void *))strcmp);
	for (size_t i = 1; i < c->n_names && !r; i++)
		if (!strcmp(v[i - 1], v[i]))
			r = rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "profiles.%s: duplicate key",
				   v[i]);
	free(v);
	return r;
}

/*
 * After the walk: node, the namespace's entry (else "*"), the profiles
 * resolution can pick, and the node baseline.
 */
static int load_used(struct cwalk *w, const char *name)
{
	const struct span *ent = w->own.seen ? &w->own : w->star.seen ? &w->star : NULL;
	const char *key = w->own.seen ? w->ns : "*";
	char path[320];
	cJSON *o = NULL;
	int r = names_unique(w);

	if (r == 0 && w->node.seen) {
		r = entry_tree(w, &w->node, "node", 1, &o);
		if (r == 0)
			r = catalog_node_from_json(w->c, o, w->e);
		cJSON_Delete(o);
		o = NULL;
	}
	if (r == 0 && ent && ent->seen > 1)
		r = rq_err(w->e, RQ_ERR_CONFIG, -EINVAL, "namespaces.%s: duplicate key", key);
	(void)snprintf(path, sizeof(path), "namespaces.%s", key);
	if (r == 0 && ent)
		r = entry_tree(w, ent, path, 2, &o);
	if (r == 0 && ent)
		r = catalog_ns_from_json(w->c, key, o, w->e);
	cJSON_Delete(o);
	if (r == 0 && name)
		r = load_profile(w, name);
	if (r == 0 && w->c->n_ns && w->c->ns[0].def[0])
		r = load_profile(w, w->c->ns[0].def);
	/* the node baseline's requirements hold on every PF: ADD and CHECK need it too */
	if (r == 0 && w->c->baseline[0])
		r = load_profile(w, w->c->baseline);
	return r;
}

static struct rq_catalog *partial_new(void)
{
	struct rq_catalog *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->pf_max = RQ_PF_ENSURE;
	c->obs_lenient = true;
	c->carrier_wait_s = RQ_CARRIER_WAIT_DEFAULT_S;
	c->gdr_level = RQ_PCI_PXB;
	c->fec_uncorr_per_min = RQ_FEC_UNCORR_PER_MIN_DEFAULT;
	(void)snprintf(c->kubelet_dir, sizeof(c->kubelet_dir), "%s", RQ_KUBELET_DIR_DEFAULT);
	c->names = calloc(RQ_CATALOG_MAX_PROFILES + 1, sizeof(*c->names));
	/* the named one, the namespace default and the node baseline */
	c->profiles = calloc(3, sizeof(*c->profiles));
	c->ns = calloc(1, sizeof(*c->ns));
	if (!c->names || !c->profiles || !c->ns) {
		catalog_free(c);
		return NULL;
	}
	return c;
}

int catalog_parse_for(const char *buf, size_t len, const char *ns, const char *name,
		      struct rq_catalog **ret, struct rq_error *e)
{
	struct rq_jmem m = {.p = buf, .len = buf ? len : 0};
	struct cwalk *w = calloc(1, sizeof(*w));
	size_t end;
	int r;

	if (!w)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	w->c = partial_new();
	w->prof = calloc(RQ_CATALOG_MAX_PROFILES + 1, sizeof(*w->prof));
	if (!w->c || !w->prof) {
		r = rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
		goto out;
	}
	w->buf = buf;
	w->ns = ns;
	w->e = e;
	if (jscan_init(&w->s, jmem_src(&m), RQ_CATALOG_FILE_MAX) < 0) {
		r = rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
		goto out;
	}
	r = walk(w);
	if (r < 0 && w->s.err)
		/* the scanner's error: the document is not JSON (the message says where) */
		r = rq_err(e, RQ_ERR_DECODE, -EBADMSG,
			   "profile catalog is not valid JSON (error near byte %llu)",
			   (unsigned long long)jscan_offset(&w->s));
	else if (r < 0 && !e->msg[0])
		r = rq_err(e, RQ_ERR_DECODE, -EBADMSG, "profile catalog is not valid JSON");
	/* as catalog_parse: nothing but whitespace after the value */
	end = (size_t)jscan_offset(&w->s);
	while (r == 0 && end < m.len && strchr(" \t\r\n", buf[end]) && buf[end])
		end++;
	if (r == 0 && end < m.len)
		r = rq_err(e, RQ_ERR_DECODE, -EBADMSG,
			   "profile catalog is not valid JSON (unexpected data after the value at "
			   "byte %zu)",
			   end);
	if (r == 0)
		r = load_used(w, name);
	if (r == 0) {
		*ret = w->c;
		w->c = NULL;
	}
out:
	jscan_fini(&w->s);
	catalog_free(w->c);
	free(w->prof);
	free(w);
	return r;
}
