// SPDX-License-Identifier: Apache-2.0
/*
 * Every file in examples/ is parsed by the real parsers, as the runtime would
 * hand it to the plugin. RQ_SRC (set by the Makefile) is the source tree; a
 * new example without a test here fails the suite.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netconf/netconf.h"

static const char *const covered[] = {"conflist-host-device.json",
				      "nad-sriov.yaml",
				      "profiles.json",
				      "sriovnetwork.yaml",
				      "hostdevicenetwork.yaml",
				      "pod-cni-args.yaml",
				      "nic-configuration-operator.yaml",
				      "dra-sriov-multus.yaml",
				      "shared-macvlan.yaml",
				      "shared-ipvlan.yaml",
				      "macvlannetwork.yaml",
				      "pod-shared-gid.yaml",
				      "pod-shared-hostnetwork.yaml"};

static void example_path(const char *name, char *buf, size_t len)
{
	const char *src = getenv("RQ_SRC");

	snprintf(buf, len, "%s/examples/%s", src && src[0] ? src : ".", name);
}

static char *slurp(const char *name, size_t *ret_len)
{
	char path[4096];
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	int fd;
	ssize_t k;

	example_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s (set RQ_SRC to the source tree)", path, strerror(errno));
	ck_assert_ptr_nonnull(b);
	while ((k = read(fd, b + n, cap - n - 1)) > 0) {
		n += (size_t)k;
		if (cap - n < 2) {
			cap *= 2;
			b = realloc(b, cap);
			ck_assert_ptr_nonnull(b);
		}
	}
	ck_assert_int_eq(k, 0);
	close(fd);
	b[n] = '\0';
	*ret_len = n;
	return b;
}

static struct rq_catalog *example_catalog(void)
{
	struct rq_catalog *c = NULL;
	struct rq_error e;
	size_t len;
	char *b = slurp("profiles.json", &len);

	rq_err_clear(&e);
	ck_assert_msg(catalog_parse(b, len, &c, &e) == 0, "profiles.json: %s", e.msg);
	free(b);
	return c;
}

/*
 * What libcni does with a conflist: each plugin gets the list's name and
 * cniVersion injected into its own config. Returns the rdma-qos entry.
 */
static struct rq_netconf *conflist_entry_args(const char *conflist, const char *runtime_device,
					      const cJSON *args);

static struct rq_netconf *conflist_entry(const char *conflist, const char *runtime_device)
{
	return conflist_entry_args(conflist, runtime_device, NULL);
}

/* ... and with Multus' per-pod cni-args, which it passes to every plugin as args.cni */
static struct rq_netconf *conflist_entry_args(const char *conflist, const char *runtime_device,
					      const cJSON *args)
{
	cJSON *list = cJSON_Parse(conflist), *plugins, *it, *mine = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_error e;
	char *s;

	ck_assert_ptr_nonnull(list);
	plugins = cJSON_GetObjectItemCaseSensitive(list, "plugins");
	ck_assert(cJSON_IsArray(plugins));
	cJSON_ArrayForEach(it, plugins)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "type");

		if (cJSON_IsString(t) && !strcmp(t->valuestring, "rdma-qos"))
			mine = it;
	}
	ck_assert_msg(mine != NULL, "no rdma-qos entry in the conflist");
	/* chained: rdma-qos runs after the plugin that moved the VF */
	ck_assert_ptr_eq(mine, cJSON_GetArrayItem(plugins, cJSON_GetArraySize(plugins) - 1));
	cJSON_AddItemToObject(mine, "name",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(list, "name"), 1));
	cJSON_AddItemToObject(
	    mine, "cniVersion",
	    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(list, "cniVersion"), 1));
	if (args) {
		cJSON *a = cJSON_AddObjectToObject(mine, "args");

		cJSON_AddItemToObject(a, "cni", cJSON_Duplicate(args, 1));
	}
	if (runtime_device) {
		cJSON *rc = cJSON_AddObjectToObject(mine, "runtimeConfig");

		cJSON_AddStringToObject(rc, "deviceID", runtime_device);
	}
	s = cJSON_PrintUnformatted(mine);
	rq_err_clear(&e);
	ck_assert_msg(netconf_parse(s, strlen(s), &nc, &e) == 0, "%s: %s", s, e.msg);
	free(s);
	cJSON_Delete(list);
	return nc;
}

static const char *first_type(const char *conflist)
{
	static char t[64];
	cJSON *list = cJSON_Parse(conflist);
	const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(list, "plugins"), 0);

	snprintf(t, sizeof(t), "%s",
		 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "type")) ?: "");
	cJSON_Delete(list);
	return t;
}

START_TEST(test_examples_all_covered)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	size_t seen = 0;

	example_path("", path, sizeof(path));
	dir = opendir(path);
	ck_assert_msg(dir != NULL, "%s: %s (set RQ_SRC to the source tree)", path, strerror(errno));
	while ((d = readdir(dir))) {
		bool ok = false;

		if (d->d_name[0] == '.')
			continue;
		for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
			ok |= !strcmp(d->d_name, covered[i]);
		ck_assert_msg(ok, "examples/%s is not exercised by tests/unit/test_examples.c",
			      d->d_name);
		seen++;
	}
	closedir(dir);
	ck_assert_uint_eq(seen, sizeof(covered) / sizeof(covered[0]));
}
END_TEST

START_TEST(test_examples_conflist_host_device)
{
	struct rq_catalog *cat = example_catalog();
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	size_t len;
	char *b = slurp("conflist-host-device.json", &len);

	ck_assert_str_eq(first_type(b), "host-device");
	nc = conflist_entry(b, NULL);
	ck_assert_str_eq(nc->cni_version, "1.0.0");
	ck_assert_str_eq(nc->name, "roce");
	ck_assert_str_eq(nc->profile, "roce-lossless");
	ck_assert(nc->pf_set);
	ck_assert_int_eq(nc->pf, RQ_PF_ENSURE);
	ck_assert_int_eq(nc->numa, RQ_NUMA_WARN);
	ck_assert_str_eq(nc->device_id, "");
	/* works with zero node setup and with the example catalog */
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, NULL, "default", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	ck_assert_int_eq(pf, RQ_PF_ENSURE);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	ck_assert_uint_eq(p.pfc, 0x08);
	ck_assert_int_eq(p.traffic_class, 106);
	netconf_free(nc);
	catalog_free(cat);
	free(b);
}
END_TEST

static char *yaml_block(const char *yaml, const char *key);

/* spec.config of a NAD: the YAML literal block under "config: |", dedented. */
static char *nad_config(const char *yaml)
{
	return yaml_block(yaml, "config");
}

/* The YAML literal block under the first "<key>: |", dedented. */
static char *yaml_block(const char *yaml, const char *key_name)
{
	char head[128];
	size_t head_len = (size_t)snprintf(head, sizeof(head), "%s: |", key_name);
	const char *l = yaml, *key = NULL;
	size_t cap = strlen(yaml) + 1, n = 0, indent = 0, key_indent = 0;
	char *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	for (; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		size_t sp = strspn(l, " "), ll = strcspn(l, "\n");

		if (!key) {
			if (!strncmp(l + sp, head, head_len)) {
				key = l;
				key_indent = sp;
			}
			continue;
		}
		if (sp == ll) { /* blank line inside the block */
			out[n++] = '\n';
			continue;
		}
		if (sp <= key_indent)
			break;
		if (!indent)
			indent = sp;
		ck_assert_uint_ge(sp, indent);
		memcpy(out + n, l + indent, ll - indent);
		n += ll - indent;
		out[n++] = '\n';
	}
	ck_assert_msg(key != NULL, "no \"%s\" block", head);
	out[n] = '\0';
	return out;
}

START_TEST(test_examples_nad_sriov)
{
	struct rq_catalog *cat = example_catalog();
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	size_t len;
	char *b = slurp("nad-sriov.yaml", &len), *conf;

	ck_assert_msg(strstr(b, "\napiVersion: k8s.cni.cncf.io/v1\n"), "apiVersion");
	ck_assert_msg(strstr(b, "\nkind: NetworkAttachmentDefinition\n"), "kind");
	ck_assert_msg(strstr(b, "    k8s.v1.cni.cncf.io/resourceName: "),
		      "resourceName annotation");
	ck_assert_msg(strstr(b, "  namespace: ai-training\n"), "namespace");
	conf = nad_config(b);
	ck_assert_str_eq(first_type(conf), "sriov");
	/* Multus passes the device plugin's VF as runtimeConfig.deviceID */
	nc = conflist_entry(conf, "0000:81:10.2");
	ck_assert_str_eq(nc->name, "roce-lossless");
	ck_assert_str_eq(nc->profile, "roce-lossless");
	ck_assert_int_eq(nc->numa, RQ_NUMA_STRICT);
	ck_assert_int_eq(nc->pf, RQ_PF_ENSURE);
	ck_assert_str_eq(nc->device_id, "0000:81:10.2");
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	/* the same NAD in a namespace the catalog does not grant roce-lossless */
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "web", &p, &pf, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_NOT_ALLOWED);
	ck_assert_str_eq(e.msg, "profile \"roce-lossless\" is not allowed in namespace \"web\" "
				"(allowed: lossy)");
	netconf_free(nc);
	catalog_free(cat);
	free(conf);
	free(b);
}
END_TEST

static const struct rq_profile *example_profile(const struct rq_catalog *c, const char *name)
{
	for (size_t i = 0; i < c->n_profiles; i++)
		if (!strcmp(c->profiles[i].name, name))
			return &c->profiles[i];
	ck_abort_msg("examples/profiles.json has no profile %s", name);
	return NULL;
}

/*
 * The multi-class fabric: lossless RDMA on 3, lossless storage on 4, CNP on
 * 6, and a lossy profile, all coexisting on one PF under the baseline.
 */
START_TEST(test_examples_profiles)
{
	struct rq_catalog *c = example_catalog();
	const struct rq_profile *fab, *rl, *st, *lossy;
	struct rq_profile base, u;
	char x[200], y[200];
	struct rq_netconf *nc = NULL;
	struct rq_profile p, builtin;
	enum rq_pf_mode pf;
	struct rq_error e;
	static const char nad[] =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"profile\":\"fabric\"}";

	ck_assert_uint_eq(c->n_profiles, 4);
	fab = example_profile(c, "fabric");
	rl = example_profile(c, "roce-lossless");
	st = example_profile(c, "storage-lossless");
	lossy = example_profile(c, "lossy");
	/* the catalog's roce-lossless spells out the built-in */
	profile_builtin(&builtin);
	ck_assert(!profile_req_conflict(rl, &builtin, x, y, sizeof(x)));
	ck_assert_uint_eq(rl->pfc, builtin.pfc);
	ck_assert_uint_eq(rl->dscp_override, builtin.dscp_override);
	ck_assert_int_eq(rl->traffic_class, 106);
	/* and its CNP class: DSCP 48 (CS6) on priority 6 */
	ck_assert(rl->has_cnp[0] && rl->has_cnp[1] && !memcmp(rl->cnp, builtin.cnp, 2));
	ck_assert(fab->has_cnp[0] && !memcmp(fab->cnp, builtin.cnp, 2));
	ck_assert_int_eq(st->traffic_class, 138); /* DSCP 34 AF41 + ECT(0) */
	ck_assert(!profile_has_pf_req(lossy));
	ck_assert_int_eq(lossy->traffic_class, 0);
	/* every pair coexists, and the baseline already holds what each requires */
	ck_assert_str_eq(c->baseline, "fabric");
	ck_assert_int_eq(catalog_baseline(c, &base), 0);
	ck_assert_str_eq(base.name, "fabric");
	ck_assert(!profile_req_conflict(rl, st, x, y, sizeof(x)));
	ck_assert(!profile_req_conflict(rl, fab, x, y, sizeof(x)));
	ck_assert(!profile_req_conflict(st, fab, x, y, sizeof(x)));
	ck_assert(!profile_req_conflict(lossy, fab, x, y, sizeof(x)));
	u = *fab;
	profile_req_merge(&u, rl);
	profile_req_merge(&u, st);
	ck_assert_uint_eq(u.pfc, fab->pfc);
	ck_assert_uint_eq(u.pfc, 0x18);
	ck_assert_uint_eq(u.ecn, 0x18);
	ck_assert_uint_eq(u.dscp_override, fab->dscp_override);
	ck_assert(fab->ets.present);
	ck_assert_int_eq(fab->ets.tc_bw[0] + fab->ets.tc_bw[3] + fab->ets.tc_bw[4], 100);
	ck_assert_int_eq(c->carrier_wait_s, 10);
	ck_assert_uint_eq(c->n_ns, 3);
	ck_assert_str_eq(c->ns[0].ns, "ai-training");
	ck_assert_str_eq(c->ns[0].def, "roce-lossless");
	ck_assert_uint_eq(c->ns[0].n_allow, 2);
	ck_assert_str_eq(c->ns[0].allow[1], "lossy");
	ck_assert(!c->ns[0].inline_ok);
	ck_assert_str_eq(c->ns[1].def, "storage-lossless");
	ck_assert_str_eq(c->ns[2].ns, "*");
	ck_assert_str_eq(c->ns[2].def, "lossy");
	ck_assert_int_eq(c->pf_max, RQ_PF_ENSURE);
	/* the baseline is the node's, granted to no namespace */
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_parse(nad, strlen(nad), &nc, &e), 0);
	ck_assert_int_eq(netconf_resolve_profile(nc, c, "ai-training", &p, &pf, &e), -EPERM);
	ck_assert_str_eq(e.msg, "profile \"fabric\" is not allowed in namespace \"ai-training\" "
				"(allowed: roce-lossless, lossy)");
	netconf_free(nc);
	catalog_free(c);
}
END_TEST

/* The value of the first "<key>: " line (quotes removed), or "" when absent. */
static const char *yaml_scalar(const char *yaml, const char *key)
{
	static char v[512];
	char pat[128];
	const char *l;
	size_t n;

	snprintf(pat, sizeof(pat), "%s: ", key);
	v[0] = '\0';
	for (l = strchr(yaml, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *p = l + 1 + strspn(l + 1, " ");

		if (strncmp(p, pat, strlen(pat)) != 0)
			continue;
		p += strlen(pat);
		n = strcspn(p, "\n");
		if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
			p++;
			n -= 2;
		}
		ck_assert_uint_lt(n, sizeof(v));
		memcpy(v, p, n);
		v[n] = '\0';
		break;
	}
	return v;
}

/* sriov-network-operator renders [sriov, <metaPlugins>] into one conflist. */
START_TEST(test_examples_sriovnetwork)
{
	struct rq_catalog *cat = example_catalog();
	char *b = slurp("sriovnetwork.yaml", &(size_t){0}), *meta, *ipam, conf[4096];
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	cJSON *list, *types;
	char *t;

	ck_assert(strstr(b, "\napiVersion: sriovnetwork.openshift.io/v1\n"));
	ck_assert(strstr(b, "\nkind: SriovNetwork\n"));
	ck_assert_str_eq(yaml_scalar(b, "networkNamespace"), "ai-training");
	meta = yaml_block(b, "metaPlugins");
	ipam = yaml_block(b, "ipam");
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\": \"1.0.0\", \"name\": \"roce-lossless\", \"plugins\": "
		 "[{\"type\": \"sriov\", \"ipam\": %s}, %s]}",
		 ipam, meta);
	list = cJSON_Parse(conf);
	ck_assert_msg(list != NULL, "the rendered conflist is not JSON: %s", conf);
	types = cJSON_CreateArray();
	for (int i = 0; i < cJSON_GetArraySize(cJSON_GetObjectItem(list, "plugins")); i++)
		cJSON_AddItemToArray(
		    types,
		    cJSON_CreateString(cJSON_GetStringValue(cJSON_GetObjectItem(
			cJSON_GetArrayItem(cJSON_GetObjectItem(list, "plugins"), i), "type"))));
	t = cJSON_PrintUnformatted(types);
	/* the chain: the VF into the pod, its RDMA device after it, then its QoS */
	ck_assert_str_eq(t, "[\"sriov\",\"rdma\",\"rdma-qos\"]");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(list, "plugins"), 2),
				"capabilities"),
	    "deviceID")));
	nc = conflist_entry(conf, "0000:81:10.3");
	ck_assert_str_eq(nc->name, "roce-lossless");
	ck_assert_str_eq(nc->device_id, "0000:81:10.3");
	ck_assert_str_eq(nc->profile, "roce-lossless");
	ck_assert_int_eq(nc->numa, RQ_NUMA_STRICT);
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	ck_assert_int_eq(pf, RQ_PF_ENSURE);
	free(t);
	cJSON_Delete(types);
	cJSON_Delete(list);
	netconf_free(nc);
	catalog_free(cat);
	free(meta);
	free(ipam);
	free(b);
}
END_TEST

/* network-operator renders [host-device, <metaPlugins>] into one conflist. */
START_TEST(test_examples_hostdevicenetwork)
{
	struct rq_catalog *cat = example_catalog();
	char *b = slurp("hostdevicenetwork.yaml", &(size_t){0}), *meta, *ipam, conf[4096];
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	cJSON *o;

	ck_assert(strstr(b, "\napiVersion: mellanox.com/v1alpha1\n"));
	ck_assert(strstr(b, "\nkind: HostDeviceNetwork\n"));
	ck_assert_str_eq(yaml_scalar(b, "networkNamespace"), "ai-training");
	meta = yaml_block(b, "metaPlugins");
	ipam = yaml_block(b, "ipam");
	o = cJSON_Parse(ipam);
	ck_assert_ptr_nonnull(o);
	cJSON_Delete(o);
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\": \"1.0.0\", \"name\": \"roce-hostdev\", \"plugins\": "
		 "[{\"type\": \"host-device\", \"ipam\": %s}, %s]}",
		 ipam, meta);
	ck_assert_msg(cJSON_IsObject(o = cJSON_Parse(conf)), "not JSON: %s", conf);
	cJSON_Delete(o);
	ck_assert_str_eq(first_type(conf), "host-device");
	nc = conflist_entry(conf, "0000:81:10.4");
	ck_assert_str_eq(nc->name, "roce-hostdev");
	ck_assert_str_eq(nc->device_id, "0000:81:10.4");
	ck_assert_ptr_null(nc->profile);
	/* no profile named: each namespace gets its default */
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	ck_assert_int_eq(pf, RQ_PF_ENSURE);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "web", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "lossy");
	netconf_free(nc);
	catalog_free(cat);
	free(meta);
	free(ipam);
	free(b);
}
END_TEST

/* Multus' cni-args reach rdma-qos as args.cni and pick the profile. */
START_TEST(test_examples_pod_cni_args)
{
	struct rq_catalog *cat = example_catalog();
	char *b = slurp("pod-cni-args.yaml", &(size_t){0});
	char *nad = slurp("nad-sriov.yaml", &(size_t){0}), *conf;
	cJSON *sel = cJSON_Parse(yaml_scalar(b, "k8s.v1.cni.cncf.io/networks")), *s0;
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;

	ck_assert_msg(sel != NULL, "the networks annotation is not JSON");
	s0 = cJSON_GetArrayItem(sel, 0);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(s0, "name")), "roce-lossless");
	ck_assert_str_eq(yaml_scalar(b, "namespace"), "ai-training");
	ck_assert(strstr(b, "nvidia.com/rdma_vf: \"1\""));
	conf = nad_config(nad);
	nc = conflist_entry_args(conf, "0000:81:10.5", cJSON_GetObjectItem(s0, "cni-args"));
	ck_assert_str_eq(nc->profile, "roce-lossless");
	ck_assert_str_eq(nc->args_profile, "lossy");
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "lossy");
	/* the pod's choice is still held to its namespace's policy */
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "web", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "lossy");
	netconf_free(nc);
	/* a profile the catalog has but does not grant the namespace */
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(s0, "cni-args"), "profile",
				  cJSON_CreateString("storage-lossless"));
	nc = conflist_entry_args(conf, NULL, cJSON_GetObjectItem(s0, "cni-args"));
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_NOT_ALLOWED);
	netconf_free(nc);
	cJSON_Delete(sel);
	catalog_free(cat);
	free(conf);
	free(nad);
	free(b);
}
END_TEST

/* The operator owns the port: the catalog verifies what it sets and never writes the PF. */
START_TEST(test_examples_nic_configuration_operator)
{
	char *b = slurp("nic-configuration-operator.yaml", &(size_t){0}), *js;
	const char *pfc = NULL;
	static const char ensure[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"pf\":\"ensure\"}";
	static const char plain[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}";
	struct rq_catalog *cat = NULL;
	const struct rq_profile *op = NULL;
	struct rq_netconf *nc = NULL;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	uint8_t want = 0;

	ck_assert(strstr(b, "\nkind: NicConfigurationTemplate\n"));
	ck_assert(strstr(b, "      enabled: true\n      qos:\n"));
	ck_assert_str_eq(yaml_scalar(b, "trust"), "dscp");
	pfc = yaml_scalar(b, "pfc");
	ck_assert_uint_eq(strlen(pfc), 15);
	for (int i = 0; i < 8; i++)
		if (pfc[2 * i] == '1')
			want |= (uint8_t)(1u << i);
	/* the catalog lives in the overlay that replaces the base's generated ConfigMap (the
	 * one the DaemonSet reads); the example names it */
	ck_assert(strstr(b, "deploy/overlays/nic-configuration-operator/profiles.json"));
	js = slurp("../deploy/overlays/nic-configuration-operator/profiles.json", &(size_t){0});
	rq_err_clear(&e);
	ck_assert_msg(catalog_parse(js, strlen(js), &cat, &e) == 0, "profiles.json: %s", e.msg);
	ck_assert_int_eq(cat->pf_max, RQ_PF_VERIFY);
	for (size_t i = 0; i < cat->n_profiles; i++)
		if (!strcmp(cat->profiles[i].name, "operator-lossless"))
			op = &cat->profiles[i];
	ck_assert_ptr_nonnull(op);
	/* the profile asks for what the operator sets */
	ck_assert_uint_eq(op->pfc, want);
	ck_assert_uint_eq(op->pfc, 0x08);
	ck_assert_int_eq(op->trust, RQ_TRUST_DSCP);
	/* a NAD cannot ask for more than verify */
	ck_assert_int_eq(netconf_parse(ensure, strlen(ensure), &nc, &e), 0);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), -EPERM);
	ck_assert_int_eq(e.code, RQ_ERR_NOT_ALLOWED);
	netconf_free(nc);
	ck_assert_int_eq(netconf_parse(plain, strlen(plain), &nc, &e), 0);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_int_eq(pf, RQ_PF_VERIFY);
	ck_assert_str_eq(p.name, "operator-lossless");
	netconf_free(nc);
	catalog_free(cat);
	free(js);
	free(b);
}
END_TEST

/*
 * dra-driver-sriov in MULTUS mode: the pieces Multus joins must name each other (the device
 * attribute and the NAD annotation, the DeviceClass and the claim template, the pod's claim and
 * its container's), and the NAD's chain is rdma-qos's as Multus hands it the claim's VF.
 */
START_TEST(test_examples_dra_sriov_multus)
{
	struct rq_catalog *cat = example_catalog();
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	size_t len;
	char *b = slurp("dra-sriov-multus.yaml", &len), *conf, attr[512], cls[512];

	ck_assert_msg(strstr(b, "\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"),
		      "DeviceClass, resource.k8s.io/v1 (Kubernetes 1.34+)");
	ck_assert_msg(strstr(b, "\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"),
		      "ResourceClaimTemplate");
	ck_assert_msg(strstr(b, "\nkind: NetworkAttachmentDefinition\n"), "NAD");
	ck_assert_msg(strstr(b, "device.driver == 'sriovnetwork.k8snetworkplumbingwg.io'"),
		      "the DeviceClass selects dra-driver-sriov's devices");
	/* Multus: the device's k8s.cni.cncf.io/resourceName is the NAD's annotation */
	ck_assert_msg(strstr(b, "\n    k8s.cni.cncf.io/resourceName:\n      string: "),
		      "the DeviceAttributes publish k8s.cni.cncf.io/resourceName");
	(void)snprintf(attr, sizeof(attr), "%s", yaml_scalar(b, "string"));
	ck_assert_str_eq(attr, "rdma_vf_lossless");
	ck_assert_str_eq(yaml_scalar(b, "k8s.v1.cni.cncf.io/resourceName"), attr);
	/* the claim template asks the DeviceClass; the pod's claim is its container's */
	(void)snprintf(cls, sizeof(cls), "%s", yaml_scalar(b, "deviceClassName"));
	ck_assert_str_eq(cls, "rdma-vf.sriovnetwork.k8snetworkplumbingwg.io");
	ck_assert_msg(strstr(b, "kind: DeviceClass\nmetadata:\n  name: rdma-vf.sriovnetwork."
				"k8snetworkplumbingwg.io\n"),
		      "the DeviceClass the template names");
	ck_assert_str_eq(yaml_scalar(b, "resourceClaimTemplateName"), "rdma-vf");
	ck_assert_msg(strstr(b, "kind: ResourceClaimTemplate\nmetadata:\n  name: rdma-vf\n"),
		      "the template the pod names");
	ck_assert_msg(strstr(b, "  resourceClaims:\n  - name: rdma\n"), "the pod's claim");
	ck_assert_msg(strstr(b, "      claims:\n      - name: rdma\n"), "its container's claim");
	ck_assert_str_eq(yaml_scalar(b, "k8s.v1.cni.cncf.io/networks"), "roce-lossless-dra");
	/* the chain, with the VF Multus passes from the claim (its PCI address) */
	conf = nad_config(b);
	ck_assert_str_eq(first_type(conf), "sriov");
	nc = conflist_entry(conf, "0000:3b:00.2");
	ck_assert_str_eq(nc->name, "roce-lossless-dra");
	ck_assert_str_eq(nc->profile, "roce-lossless");
	ck_assert_int_eq(nc->numa, RQ_NUMA_STRICT); /* Topology Manager does not align DRA */
	ck_assert_int_eq(nc->pf, RQ_PF_ENSURE);
	ck_assert_str_eq(nc->device_id, "0000:3b:00.2");
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	netconf_free(nc);
	catalog_free(cat);
	free(conf);
	free(b);
}
END_TEST

/*
 * A shared RDMA device's chain (DESIGN.md "Shared RDMA devices"): [LOWER, rdma-qos], the
 * runtime passing no deviceID; the NAD's config is the block after @after.
 */
static void shared_nad(const char *b, const char *after, const char *name, const char *lower,
		       const char *master)
{
	struct rq_catalog *cat = example_catalog();
	const char *at = strstr(b, after);
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;
	char *conf;
	cJSON *o;

	ck_assert_msg(at != NULL, "%s", after);
	conf = nad_config(at);
	ck_assert_str_eq(first_type(conf), lower);
	o = cJSON_Parse(conf);
	ck_assert_str_eq(
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "plugins"), 0), "master")),
	    master);
	cJSON_Delete(o);
	nc = conflist_entry(conf, NULL);
	ck_assert_str_eq(nc->name, name);
	ck_assert_str_eq(nc->device_id, ""); /* no VF */
	ck_assert_str_eq(nc->profile, "roce-lossless");
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	ck_assert_msg(strstr(at, "k8s.v1.cni.cncf.io/resourceName: rdma/hca_shared_devices_a"),
		      "%s: the shared resource", name);
	netconf_free(nc);
	catalog_free(cat);
	free(conf);
}

START_TEST(test_examples_shared_macvlan)
{
	char *b = slurp("shared-macvlan.yaml", &(size_t){0}), *dp;
	cJSON *o;

	/* the shared device plugin's config.json: the resource on the PF macvlan uses */
	dp = yaml_block(b, "config.json");
	o = cJSON_Parse(dp);
	ck_assert_msg(o != NULL, "config.json: %s", dp);
	ck_assert_str_eq(
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "configList"), 0),
		"resourceName")),
	    "hca_shared_devices_a");
	ck_assert(strstr(dp, "\"rdmaHcaMax\":") && strstr(dp, "\"ifNames\": [\"ens1f0np0\"]"));
	cJSON_Delete(o);
	shared_nad(b, "name: roce-shared\n", "roce-shared", "macvlan", "ens1f0np0");
	shared_nad(b, "name: roce-shared-vlan100\n", "roce-shared-vlan100", "macvlan",
		   "ens1f0np0.100");
	free(dp);
	free(b);
}
END_TEST

START_TEST(test_examples_shared_ipvlan)
{
	char *b = slurp("shared-ipvlan.yaml", &(size_t){0});

	shared_nad(b, "name: roce-shared-ipvlan\n", "roce-shared-ipvlan", "ipvlan", "ens1f0np0");
	free(b);
}
END_TEST

/* network-operator renders [macvlan, <metaPlugins>] into one conflist (cniVersion 0.3.1). */
START_TEST(test_examples_macvlannetwork)
{
	struct rq_catalog *cat = example_catalog();
	char *b = slurp("macvlannetwork.yaml", &(size_t){0}), *meta, *ipam, conf[4096];
	struct rq_netconf *nc;
	struct rq_profile p;
	enum rq_pf_mode pf;
	struct rq_error e;

	ck_assert(strstr(b, "\napiVersion: mellanox.com/v1alpha1\n"));
	ck_assert(strstr(b, "\nkind: MacvlanNetwork\n"));
	ck_assert_str_eq(yaml_scalar(b, "networkNamespace"), "ai-training");
	meta = yaml_block(b, "metaPlugins");
	ipam = yaml_block(b, "ipam");
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\": \"0.3.1\", \"name\": \"roce-shared-macvlan\", \"plugins\": "
		 "[{\"type\": \"macvlan\", \"master\": \"%s\", \"ipam\": %s}, %s]}",
		 yaml_scalar(b, "master"), ipam, meta);
	ck_assert_str_eq(first_type(conf), "macvlan");
	nc = conflist_entry(conf, NULL);
	ck_assert_str_eq(nc->name, "roce-shared-macvlan");
	ck_assert_str_eq(nc->device_id, "");
	rq_err_clear(&e);
	ck_assert_int_eq(netconf_resolve_profile(nc, cat, "ai-training", &p, &pf, &e), 0);
	ck_assert_str_eq(p.name, "roce-lossless");
	netconf_free(nc);
	catalog_free(cat);
	free(meta);
	free(ipam);
	free(b);
}
END_TEST

/* The pods: the NCCL pod on roce-shared, the host-network one the catalog maps to its PF. */
START_TEST(test_examples_shared_pods)
{
	struct rq_catalog *cat = example_catalog();
	char *g = slurp("pod-shared-gid.yaml", &(size_t){0});
	char *h = slurp("pod-shared-hostnetwork.yaml", &(size_t){0});
	const cJSON *res;
	cJSON *sel = cJSON_Parse(yaml_scalar(g, "k8s.v1.cni.cncf.io/networks"));

	ck_assert_str_eq(cJSON_GetStringValue(
			     cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(sel, 0), "name")),
			 "roce-shared");
	cJSON_Delete(sel);
	ck_assert(strstr(g, "rdma/hca_shared_devices_a: \"1\"") && strstr(g, "NCCL_IB_GID_INDEX"));
	ck_assert(strstr(h, "\n  hostNetwork: true\n") &&
		  strstr(h, "rdma/hca_shared_devices_a: \"1\""));
	res = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cat->root, "node"),
					     "sharedResources"),
	    "rdma/hca_shared_devices_a");
	ck_assert_int_eq(cJSON_GetArraySize(res), 1);
	ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetArrayItem(res, 0)), "ens1f0np0");
	catalog_free(cat);
	free(g);
	free(h);
}
END_TEST

Suite *suite_examples(void);

Suite *suite_examples(void)
{
	Suite *s = suite_create("examples");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_examples_all_covered);
	tcase_add_test(tc, test_examples_conflist_host_device);
	tcase_add_test(tc, test_examples_nad_sriov);
	tcase_add_test(tc, test_examples_profiles);
	tcase_add_test(tc, test_examples_sriovnetwork);
	tcase_add_test(tc, test_examples_hostdevicenetwork);
	tcase_add_test(tc, test_examples_pod_cni_args);
	tcase_add_test(tc, test_examples_nic_configuration_operator);
	tcase_add_test(tc, test_examples_dra_sriov_multus);
	tcase_add_test(tc, test_examples_shared_macvlan);
	tcase_add_test(tc, test_examples_shared_ipvlan);
	tcase_add_test(tc, test_examples_macvlannetwork);
	tcase_add_test(tc, test_examples_shared_pods);
	suite_add_tcase(s, tc);
	return s;
}
