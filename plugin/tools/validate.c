// SPDX-License-Identifier: Apache-2.0
/*
 * rdma-qos validate FILE [--catalog FILE] [--namespace NS]: a node catalog, a
 * conflist, one plugin's config (as the runtime hands it over), a
 * NetworkAttachmentDefinition, a SriovNetwork or a MacvlanNetwork (its
 * metaPlugins, as sriov-network-operator and network-operator render them
 * into the NAD they own) or the deploy/ ConfigMap, as JSON or YAML
 * (validate_yaml.c). Each goes through the parser the plugin itself uses
 * (catalog_parse, netconf_parse), so what passes here is what ADD accepts;
 * stricter in one way: a key rdma-qos does not know ("profle") fails here,
 * where ADD only warns. With --catalog, the profile a NAD resolves to in its
 * namespace, as ADD would. Every error of the file in one run (the parsers
 * keep them in a collector: catalog_parse_keep, netconf_parse_keep), each
 * naming its JSON path; then what is valid but wrong in meaning
 * (netconf/lint.c) as `warning:` lines, then what the reader should know and
 * is no mistake (a chain after macvlan or ipvlan: a shared RDMA device, the
 * class per device) as `note:` lines. Exit 1 on any error, else 0, warnings
 * and notes or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netconf/jsonpath.h"
#include "plugin/tools/tools.h"

#define RQ_VALIDATE_MAX	 ((size_t)4 << 20) /* as the plugin reads the catalog */
#define RQ_CONFIGMAP_KEY "profiles.json"

/* Set by main_validate before anything is read; one command, one run. */
static struct {
	const struct rq_catalog *cat; /* --catalog, else NULL: no resolution */
	const char *ns;		      /* --namespace, else the object's, else NULL */
	bool ns_given;
	struct rq_errlist *errs;  /* every error of the run, in the order found */
	struct rq_errlist *warns; /* every warning */
	struct rq_errlist *notes; /* no mistake: what the chain means (a shared RDMA device) */
} opts;

/* Where the run's errors and warnings stood: what a prefix applies to. */
struct mark {
	size_t errs, warns, notes;
};

static struct mark mark_now(void)
{
	return (struct mark){rq_errlist_count(opts.errs), rq_errlist_count(opts.warns),
			     rq_errlist_count(opts.notes)};
}

static bool failed_since(struct mark m)
{
	return rq_errlist_count(opts.errs) > m.errs;
}

/*
 * @r < 0: the run's error, unless the parser kept it already (it then
 * returns the first of those again); -EINVAL when anything failed since @m.
 */
static int note(struct rq_error *e, int r, struct mark m)
{
	if (r < 0 && !failed_since(m) && rq_err_isset(e))
		rq_errlist_add(opts.errs, e->code, "%s", e->msg);
	rq_err_clear(e);
	return r < 0 || failed_since(m) ? -EINVAL : 0;
}

int cli_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL, *nb;
	struct stat st;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode)) /* a pipe (/dev/stdin) is fine */
		r = -EISDIR;
	if (r < 0)
		goto out;
	for (;;) {
		ssize_t n;

		if (!buf || len == cap) {
			if (buf)
				cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			r = -EFBIG;
			goto out;
		}
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return r;
}

/*
 * Put @prefix in front of the message. A message that starts with a JSON path
 * ("qos.ets.tcBw: ...") is joined to it with a dot, anything else with ": ".
 */
static void msg_prefix(char *m, const char *prefix)
{
	char msg[RQ_ERR_MSG_MAX];
	size_t path = strcspn(m, ": ");
	bool is_path = path > 0 && m[path] == ':' && m[0] != '[';

	(void)snprintf(msg, sizeof(msg), "%s%s%s", prefix,
		       is_path	     ? "."
		       : m[0] == '[' ? ""
				     : ": ",
		       m);
	memcpy(m, msg, sizeof(msg));
}

/*
 * @prefix on every error and warning since @m; @skip_named: not on a message
 * that names @prefix already (a decode error names the document).
 */
static void prefix_since(struct mark m, const char *prefix, bool skip_named)
{
	struct rq_errlist *l[3] = {opts.errs, opts.warns, opts.notes};
	size_t from[3] = {m.errs, m.warns, m.notes};

	for (int k = 0; k < 3; k++)
		for (size_t i = from[k]; i < l[k]->n; i++)
			if (!skip_named || strncmp(l[k]->msg[i], prefix, strlen(prefix)) != 0)
				msg_prefix(l[k]->msg[i], prefix);
}

/* "document N: " before every error and warning since @m */
static void doc_prefix(struct mark m, int doc)
{
	struct rq_errlist *l[3] = {opts.errs, opts.warns, opts.notes};
	size_t from[3] = {m.errs, m.warns, m.notes};
	char msg[RQ_ERR_MSG_MAX];

	for (int k = 0; k < 3; k++)
		for (size_t i = from[k]; i < l[k]->n; i++) {
			(void)snprintf(msg, sizeof(msg), "document %d: %s", doc, l[k]->msg[i]);
			memcpy(l[k]->msg[i], msg, sizeof(msg));
		}
}

/* --catalog: what ADD would resolve for a pod in the NAD's namespace. */
static int validate_resolve(const struct rq_netconf *nc, char *what, size_t wlen,
			    struct rq_error *e)
{
	const char *ns = opts.ns ? opts.ns : "default";
	struct rq_profile p;
	enum rq_pf_mode pf;
	int r = netconf_resolve_profile(nc, opts.cat, ns, &p, &pf, e);

	if (r < 0) {
		char msg[RQ_ERR_MSG_MAX];

		(void)snprintf(msg, sizeof(msg), "%s (against the catalog, namespace %s%s)", e->msg,
			       ns, opts.ns ? "" : ": none given, --namespace NS");
		memcpy(e->msg, msg, sizeof(e->msg));
		return r;
	}
	(void)snprintf(what, wlen, "namespace %s gets profile %s, pf %s, numa %s", ns, p.name,
		       pf_mode_name(pf), numa_mode_name(nc->numa));
	return 0;
}

/* An inline profile's warnings, judged with --catalog's node baseline when given. */
static void inline_warnings(const struct rq_netconf *nc)
{
	struct rq_profile p, base;
	struct rq_error e;

	rq_err_clear(&e);
	if (!nc->qos || profile_from_json(nc->qos, "qos", "inline", &p, &e) < 0)
		return;
	profile_warnings(&p, catalog_baseline(opts.cat, &base) == 0 ? &base : NULL, "qos",
			 opts.warns);
}

/*
 * One plugin's config as the runtime passes it: netconf_parse decides, every
 * error kept; unknown keys are errors here.
 */
static int validate_plugin(const cJSON *o, char *what, size_t wlen, struct rq_error *e)
{
	struct mark m = mark_now(), p;
	struct rq_netconf *nc = NULL;
	char *s = cJSON_PrintUnformatted(o);
	int r = 0;

	if (!s)
		return note(e, rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory"), m);
	(void)note(e, netconf_unknown_keys(o, opts.errs, e), m);
	p = mark_now(); /* the parse's errors after the keys' */
	(void)note(e, netconf_parse_keep(s, strlen(s), opts.errs, &nc, e), p);
	free(s);
	if (!failed_since(m) && opts.cat)
		r = note(e, validate_resolve(nc, what, wlen, e), m);
	else if (!failed_since(m))
		(void)snprintf(what, wlen, "profile %s, pf %s, numa %s",
			       nc->args_profile ?: nc->profile ?: nc->qos ? "inline"
									  : "(namespace default)",
			       nc->pf_set ? pf_mode_name(nc->pf) : "(node policy)",
			       numa_mode_name(nc->numa));
	if (nc)
		inline_warnings(nc);
	netconf_free(nc);
	return failed_since(m) ? -EINVAL : r;
}

static bool is_ours(const cJSON *plugin, const char *binary)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plugin, "type"));

	return t && (!strcmp(t, "rdma-qos") || !strcmp(t, binary));
}

/*
 * The plugin before rdma-qos that gives the pod an interface on a shared RDMA
 * device (DESIGN.md "Shared RDMA devices"): macvlan or ipvlan, else NULL (a
 * VF chain: sriov, host-device).
 */
static const char *shared_lower(const cJSON *plugins, int ours)
{
	static const char *const kinds[] = {"macvlan", "ipvlan"};
	const cJSON *it;
	int i = 0;

	cJSON_ArrayForEach(it, plugins)
	{
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "type"));

		if (i++ >= ours)
			break;
		for (size_t k = 0; t && k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(t, kinds[k]))
				return kinds[k];
	}
	return NULL;
}

/*
 * After macvlan or ipvlan: ADD takes the shared path (no deviceID, or one that
 * is not a PCI address, as the shared device plugin's "0", "1"). Said as a
 * note; a PCI deviceID there sends ADD down the VF path, a VF macvlan did not
 * move: a warning.
 */
static void shared_notes(const cJSON *plugin, const char *lower, const char *prefix)
{
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(plugin, "runtimeConfig");
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rc, "deviceID"));
	const char *key = "runtimeConfig.deviceID";

	if (!id) {
		id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plugin, "deviceID"));
		key = "deviceID";
	}
	if (id && netconf_pci_addr_valid(id))
		rq_errlist_add(
		    opts.warns, RQ_ERR_CONFIG,
		    "%s.%s: \"%s\" is a PCI address: ADD takes the VF path, but %s gives "
		    "the pod no VF; leave deviceID out after %s (the shared device "
		    "plugin's IDs, \"0\", \"1\", are not PCI addresses and are fine)",
		    prefix, key, id, lower, lower);
	rq_errlist_add(opts.notes, RQ_ERR_CONFIG,
		       "%s: after %s: the pod shares the PF's RDMA device (no VF): a lossless "
		       "profile's class is ensured per device, for every pod on it (a second "
		       "lossless class there fails ADD with 102), and judged per pod; the pod's "
		       "NCCL_IB_GID_INDEX is in `rdma-qos show --pod` (docs/operations.md "
		       "\"Shared RDMA devices: deploying\")",
		       prefix, lower);
}

/*
 * What libcni does with a conflist: every plugin gets the list's name and
 * cniVersion written into its own config. rdma-qos is chained: it needs the
 * prevResult of a plugin before it that gave the pod its interface (a VF
 * moved in by sriov or host-device, or a macvlan or ipvlan on a shared RDMA
 * device).
 */
static int validate_conflist(cJSON *list, const char *binary, char *kind, size_t klen,
			     struct rq_error *e)
{
	const cJSON *plugins = cJSON_GetObjectItemCaseSensitive(list, "plugins");
	const char *name = NULL, *version = NULL, *lower;
	char what[256] = "", prefix[32], warn[512];
	struct mark m = mark_now();
	cJSON *it;
	int i = 0, ours = -1, r;

	if ((r = json_get_str(list, "name", "name", &name, e)) < 0 ||
	    (r = json_get_str(list, "cniVersion", "cniVersion", &version, e)) < 0)
		return note(e, r, m);
	if (!name || !version)
		return note(e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: required in a conflist",
				   name ? "cniVersion" : "name"),
			    m);
	if (!cJSON_IsArray(plugins))
		return note(e, rq_err(e, RQ_ERR_CONFIG, -EINVAL, "plugins: expected an array"), m);
	cJSON_ArrayForEach(it, plugins)
	{
		struct mark p = mark_now();

		(void)snprintf(prefix, sizeof(prefix), "plugins[%d]", i++);
		if (!cJSON_IsObject(it) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(it, "type"))) {
			(void)note(
			    e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.type: expected a string", prefix),
			    p);
			continue;
		}
		if (!is_ours(it, binary))
			continue;
		if (ours >= 0) {
			(void)note(e,
				   rq_err(e, RQ_ERR_CONFIG, -EINVAL,
					  "%s: a second rdma-qos entry (the first is plugins[%d])",
					  prefix, ours),
				   p);
			continue;
		}
		ours = i - 1;
		if (ours == 0)
			(void)note(
			    e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "plugins[0].type: rdma-qos is a chained plugin: it must "
				   "follow the plugin that gives the pod its interface (sriov, "
				   "host-device, macvlan, ipvlan)"),
			    p);
		cJSON_DeleteItemFromObjectCaseSensitive(it, "name");
		cJSON_DeleteItemFromObjectCaseSensitive(it, "cniVersion");
		if (!cJSON_AddStringToObject(it, "name", name) ||
		    !cJSON_AddStringToObject(it, "cniVersion", version))
			return note(e, rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory"), m);
		p = mark_now();
		if (validate_plugin(it, what, sizeof(what), e) < 0 || failed_since(p) ||
		    rq_errlist_count(opts.warns) > p.warns)
			prefix_since(p, prefix, false);
	}
	if (ours < 0)
		(void)note(e, rq_err(e, RQ_ERR_CONFIG, -EINVAL, "plugins: no rdma-qos entry"), m);
	if (failed_since(m))
		return -EINVAL;
	/* valid, but a second writer of the class (issue 42 item 11): said, not refused */
	if (netconf_chain_qos_writer(plugins, ours, warn, sizeof(warn)))
		rq_errlist_add(opts.warns, RQ_ERR_CONFIG, "%s", warn);
	lower = shared_lower(plugins, ours);
	if (lower) {
		(void)snprintf(prefix, sizeof(prefix), "plugins[%d]", ours);
		shared_notes(cJSON_GetArrayItem(plugins, ours), lower, prefix);
	}
	(void)snprintf(kind, klen, "conflist \"%s\", rdma-qos is plugins[%d] of %d%s%s%s (%s)",
		       name, ours, i, lower ? " after " : "", lower ? lower : "",
		       lower ? ", a shared RDMA device" : "", what);
	return 0;
}

static int validate_catalog(const char *buf, size_t len, char *kind, size_t klen,
			    struct rq_error *e)
{
	struct mark m = mark_now();
	struct rq_catalog *cat = NULL;
	int r = note(e, catalog_parse_keep(buf, len, opts.errs, &cat, e), m);

	if (r < 0)
		return r;
	catalog_warnings(cat, opts.warns);
	(void)snprintf(kind, klen, "catalog, %zu profiles, %zu namespace entries, node pf %s",
		       cat->n_profiles, cat->n_ns, pf_mode_name(cat->pf_max));
	catalog_free(cat);
	return 0;
}

static int validate_json(const char *buf, size_t len, const char *what, const char *binary,
			 char *kind, size_t klen, struct rq_error *e);

/* The object's namespace, unless --namespace said one: where the pod's ADD resolves. */
static void take_namespace(const cJSON *o, const char *where, const char *key)
{
	const char *ns = cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, where), key));

	if (!opts.ns_given && ns && ns[0])
		opts.ns = ns;
}

/*
 * An operator's network CR whose NAD the operator writes and owns (a hand edit
 * is reverted), a conflist of its own first plugin and then spec.metaPlugins
 * (one or more JSON objects, comma separated), so rdma-qos goes there:
 * sriov-network-operator's SriovNetwork ([sriov, ...]), network-operator's
 * MacvlanNetwork ([macvlan on spec.master, ...]: a shared RDMA device).
 * Both name the NAD's namespace in spec.networkNamespace.
 */
static int validate_operator_cr(const cJSON *o, const char *first, const char *binary, char *inner,
				size_t ilen, struct rq_error *e)
{
	static const char path[] = "spec.metaPlugins";
	const cJSON *spec = cJSON_GetObjectItemCaseSensitive(o, "spec");
	const char *meta =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(spec, "metaPlugins"));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(o, "metadata"), "name"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind"));
	struct mark m = mark_now();
	size_t n;
	char *list;
	int r;

	if (!meta || !meta[strspn(meta, " \t\r\n")])
		return note(e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%s: required: rdma-qos is chained through the %s's "
				   "metaPlugins (the operator owns the NAD)",
				   path, kind),
			    m);
	if (!name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != strlen(name))
		name = "network";
	take_namespace(o, "spec", "networkNamespace");
	n = strlen(meta) + strlen(name) + 96;
	list = malloc(n);
	if (!list)
		return note(e, rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory"), m);
	(void)snprintf(list, n,
		       "{\"cniVersion\":\"1.0.0\",\"name\":\"%s\",\"plugins\":[{\"type\":"
		       "\"%s\"},%s]}",
		       name, first, meta);
	r = note(e, validate_json(list, strlen(list), path, binary, inner, ilen, e), m);
	free(list);
	/* a decode error names the document already */
	prefix_since(m, path, true);
	return r;
}

/* A Kubernetes object: a NAD's spec.config or the deploy/ ConfigMap's catalog. */
static int validate_k8s(const cJSON *o, const char *binary, char *kind, size_t klen,
			struct rq_error *e)
{
	const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind"));
	const char *path = "spec.config";
	struct mark m = mark_now();
	const cJSON *v;
	char inner[320];
	int r;

	if (k && (!strcmp(k, "SriovNetwork") || !strcmp(k, "MacvlanNetwork"))) {
		r = validate_operator_cr(o, !strcmp(k, "SriovNetwork") ? "sriov" : "macvlan",
					 binary, inner, sizeof(inner), e);
		if (r == 0)
			(void)snprintf(kind, klen, "%s, spec.metaPlugins: %s", k, inner);
		return r;
	}
	if (k && !strcmp(k, "NetworkAttachmentDefinition")) {
		v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "spec"),
						     "config");
		take_namespace(o, "metadata", "namespace");
	} else if (k && !strcmp(k, "ConfigMap")) {
		v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "data"),
						     RQ_CONFIGMAP_KEY);
		path = "data[\"" RQ_CONFIGMAP_KEY "\"]";
	} else
		return note(e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "kind: \"%.64s\" is neither a NetworkAttachmentDefinition, a "
				   "SriovNetwork, a MacvlanNetwork nor a ConfigMap",
				   k ? k : "(not a string)"),
			    m);
	if (!cJSON_IsString(v) || !v->valuestring[0])
		return note(
		    e,
		    rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected a non-empty JSON string", path),
		    m);
	r = note(e,
		 validate_json(v->valuestring, strlen(v->valuestring), path, binary, inner,
			       sizeof(inner), e),
		 m);
	/* a decode error names the document already */
	prefix_since(m, path, true);
	if (r < 0)
		return r;
	(void)snprintf(kind, klen, "%s, %s: %s", k, path, inner);
	return 0;
}

static int validate_obj(cJSON *o, const char *buf, size_t len, const char *binary, char *kind,
			size_t klen, struct rq_error *e)
{
	char w[256];
	int r;

	if (cJSON_GetObjectItemCaseSensitive(o, "kind"))
		r = validate_k8s(o, binary, kind, klen, e);
	else if (cJSON_GetObjectItemCaseSensitive(o, "plugins"))
		r = validate_conflist(o, binary, kind, klen, e);
	else if (cJSON_GetObjectItemCaseSensitive(o, "type")) {
		r = validate_plugin(o, w, sizeof(w), e);
		if (r == 0)
			(void)snprintf(kind, klen, "plugin config (%s)", w);
	} else
		r = validate_catalog(buf, len, kind, klen, e);
	return r;
}

/*
 * A JSON document: a decode error is returned in @e for the caller (the file
 * may be YAML); every other error is in the run's list already.
 */
static int validate_json(const char *buf, size_t len, const char *what, const char *binary,
			 char *kind, size_t klen, struct rq_error *e)
{
	cJSON *o = NULL;
	int r = json_parse_object(buf, len, what, &o, e);

	if (r < 0)
		return r;
	r = validate_obj(o, buf, len, binary, kind, klen, e);
	cJSON_Delete(o);
	return r;
}

static bool kind_read(const cJSON *o)
{
	static const char *const kinds[] = {"NetworkAttachmentDefinition", "SriovNetwork",
					    "MacvlanNetwork", "ConfigMap"};
	const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind"));

	/* another ConfigMap beside ours (the shared device plugin's config.json) */
	if (k && !strcmp(k, "ConfigMap"))
		return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "data"),
							RQ_CONFIGMAP_KEY) != NULL;
	for (size_t i = 0; k && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(k, kinds[i]))
			return true;
	return false;
}

/*
 * The file: JSON, else (it does not start with '{') a YAML manifest, every
 * document of a kind validate reads (the others, an operator CR beside the
 * NAD or a ConfigMap without profiles.json, are named and skipped); at least
 * one.
 */
static int validate_file(const char *buf, size_t len, const char *binary, char *kind, size_t klen,
			 struct rq_error *e)
{
	struct mark m = mark_now(), d;
	size_t at = 0, used = 0;
	int r = validate_json(buf, len, "the file", binary, kind, klen, e), docs = 0;
	char one[512];
	cJSON *o;

	if (r == 0 || e->code != RQ_ERR_DECODE || buf[strspn(buf, " \t\r\n")] == '{')
		return note(e, r, m);
	rq_err_clear(e);
	kind[0] = '\0';
	/* every document, an error in one not hiding the next */
	while (d = mark_now(), (r = validate_yaml(buf, len, &at, &o, e)) == 0) {
		docs++;
		one[0] = '\0';
		if (kind_read(o))
			r = note(e, validate_obj(o, buf, len, binary, one, sizeof(one), e), d);
		else
			(void)snprintf(
			    one, sizeof(one), "(skipped %s%s)",
			    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind")),
			    cJSON_GetObjectItemCaseSensitive(o, "data")
				? " without " RQ_CONFIGMAP_KEY
				: "");
		cJSON_Delete(o);
		if (r < 0 || rq_errlist_count(opts.warns) > d.warns ||
		    rq_errlist_count(opts.notes) > d.notes)
			doc_prefix(d, docs);
		if (r < 0)
			continue;
		used += one[0] != '(';
		(void)snprintf(kind + strlen(kind), klen - strlen(kind), "%s%s",
			       kind[0] ? "; " : "", one);
	}
	if (r != -ENOENT)
		return note(e, r, d);
	if (failed_since(m))
		return -EINVAL;
	if (used == 0)
		return note(e,
			    rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "no NetworkAttachmentDefinition, SriovNetwork, MacvlanNetwork "
				   "or ConfigMap in %d "
				   "document(s)",
				   docs),
			    m);
	return 0;
}

static int load_catalog(const char *path, struct rq_catalog **ret)
{
	struct rq_error e;
	char *buf = NULL;
	size_t len = 0;
	int r = cli_read_file(path, RQ_VALIDATE_MAX, &buf, &len);

	rq_err_clear(&e);
	if (r < 0) {
		(void)fprintf(stderr, "--catalog %s: %s\n", path, strerror(-r));
		return r;
	}
	r = catalog_parse(buf, len, ret, &e);
	free(buf);
	if (r < 0)
		(void)fprintf(stderr, "--catalog %s: %s\n", path, e.msg);
	return r;
}

int main_validate(int argc, char **argv, const char *binary)
{
	static struct rq_errlist errs, warns, notes; /* 64 KiB each: not on the stack */
	struct rq_catalog *cat = NULL;
	const char *file = NULL, *catalog = NULL;
	struct rq_error e;
	char *buf = NULL, kind[512];
	size_t len = 0;
	int r;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--catalog") && i + 1 < argc)
			catalog = argv[++i];
		else if (!strcmp(argv[i], "--namespace") && i + 1 < argc) {
			opts.ns = argv[++i];
			opts.ns_given = true;
		} else if (argv[i][0] != '-' && !file)
			file = argv[i];
		else
			file = NULL, i = argc; /* usage below */
	}
	if (!file) {
		(void)fprintf(stderr, "usage: %s validate FILE [--catalog FILE] [--namespace NS]\n",
			      binary);
		return 1;
	}
	if (catalog && load_catalog(catalog, &cat) < 0)
		return 1;
	opts.cat = cat;
	opts.errs = &errs;
	opts.warns = &warns;
	opts.notes = &notes;
	rq_err_clear(&e);
	r = cli_read_file(file, RQ_VALIDATE_MAX, &buf, &len);
	if (r < 0) {
		(void)fprintf(stderr, "%s: %s\n", file,
			      r == -EFBIG ? "larger than 4 MiB" : strerror(-r));
		catalog_free(cat);
		return 1;
	}
	kind[0] = '\0';
	r = validate_file(buf, len, binary, kind, sizeof(kind), &e);
	free(buf);
	catalog_free(cat);
	/* every error, each naming its JSON path, then how many; warnings after */
	for (size_t i = 0; i < errs.n; i++)
		(void)fprintf(stderr, "%s: %s\n", file, errs.msg[i]);
	if (errs.dropped)
		(void)fprintf(stderr, "%s: ... and %zu more errors\n", file, errs.dropped);
	for (size_t i = 0; i < warns.n; i++)
		(void)fprintf(stderr, "warning: %s\n", warns.msg[i]);
	for (size_t i = 0; i < notes.n; i++)
		(void)fprintf(stderr, "note: %s\n", notes.msg[i]);
	if (r < 0 || errs.n) {
		if (errs.n + errs.dropped > 1)
			(void)fprintf(stderr, "%s: %zu errors\n", file, errs.n + errs.dropped);
		return 1;
	}
	if (warns.n)
		(void)printf("%s: valid %s (%zu warning%s)\n", file, kind, warns.n,
			     warns.n > 1 ? "s" : "");
	else
		(void)printf("%s: valid %s\n", file, kind);
	return 0;
}
