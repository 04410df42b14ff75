// SPDX-License-Identifier: Apache-2.0
/* The plugin's entry in a conflist: parse and validate. */
#include "netconf/netconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/jsonpath.h"

static const char *const versions[] = {"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"};

bool netconf_version_supported(const char *v)
{
	for (size_t i = 0; v && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (!strcmp(v, versions[i]))
			return true;
	return false;
}

/* "a.b.c" -> three numbers; missing or malformed parts count as 0. */
static void version_parts(const char *v, unsigned long *ret)
{
	for (int i = 0; i < 3; i++) {
		char *end = NULL;

		ret[i] = v ? strtoul(v, &end, 10) : 0;
		v = end && end != v && *end == '.' ? end + 1 : NULL;
	}
}

int netconf_version_cmp(const char *a, const char *b)
{
	unsigned long x[3], y[3];

	version_parts(a, x);
	version_parts(b, y);
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static bool hexl(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool netconf_pci_addr_valid(const char *s)
{
	/* dddd:bb:dd.f */
	static const char shape[] = "xxxx:xx:xx.x";

	if (!s || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'x' ? !hexl(s[i]) : s[i] != shape[i])
			return false;
	}
	/* device 0-1f, function 0-7 */
	return strtol(s + 8, NULL, 16) <= 0x1f && s[11] <= '7';
}

bool netconf_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RQ_PROFILE_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

static int enum_parse(const cJSON *o, const char *key, const char *const *names, int n, int *ret,
		      bool *ret_set, struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char list[128] = "";

	if (!v)
		return 0;
	for (int i = 0; i < n; i++) {
		if (cJSON_IsString(v) && !strcmp(v->valuestring, names[i])) {
			*ret = i;
			if (ret_set)
				*ret_set = true;
			return 0;
		}
		(void)snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s\"%s\"",
			       i ? ", " : "", names[i]);
	}
	return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected one of %s", key, list);
}

/* An auxiliary device's name as Multus passes an SF pool's deviceID: "mlx5_core.sf.4". */
static bool sf_name(const char *s)
{
	const char *dot = strstr(s, ".sf.");
	size_t n = strlen(s);

	return dot && dot > s && n < 64 && dot[4] &&
	       strspn(dot + 4, "0123456789") == strlen(dot + 4) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == (size_t)(dot - s);
}

static int device_id(const cJSON *o, const char *path, struct rq_netconf *nc, struct rq_error *e)
{
	char *ret = nc->device_id;
	const char *s;
	int r = json_get_str(o, "deviceID", path, &s, e);

	if (r < 0 || !s)
		return r;
	/* not a parse error: DEL must pass, ADD and CHECK say what it is (attach.c) */
	if (sf_name(s)) {
		(void)snprintf(nc->device_sf, sizeof(nc->device_sf), "%s", s);
		ret[0] = '\0';
		return 0;
	}
	nc->device_sf[0] = '\0';
	/* the shared device plugin's IDs count its slots ("0" .. rdmaHcaMax-1): no device is
	 * named, the pod's interface leads to the shared one (attach/shared.c) */
	if (s[0] && strlen(s) < sizeof(nc->device_shared) && strspn(s, "0123456789") == strlen(s)) {
		(void)snprintf(nc->device_shared, sizeof(nc->device_shared), "%s", s);
		ret[0] = '\0';
		return 0;
	}
	nc->device_shared[0] = '\0';
	if (!netconf_pci_addr_valid(s))
		return rq_err(
		    e, RQ_ERR_CONFIG, -EINVAL,
		    "%s: \"%.32s\" is not a PCI address dddd:bb:dd.f (lowercase hex), nor a "
		    "shared device plugin's number",
		    path, s);
	(void)snprintf(ret, RQ_PCI_ADDR_MAX, "%s", s);
	return 0;
}

static int log_file(struct rq_netconf *nc, struct rq_error *e)
{
	const char *s;
	int r = json_get_str(nc->root, "logFile", "logFile", &s, e);

	if (r < 0 || !s)
		return r;
	/* A bare name only: the directory is fixed (RQ_LOG_DIR), so a NAD cannot aim it. */
	if (!s[0] || s[0] == '.' || strlen(s) > 64 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(s))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "logFile: must be a bare file name ([A-Za-z0-9._-], at most 64, not "
			      "starting with '.'); it is always placed in " RQ_LOG_DIR);
	nc->log_file = s;
	return 0;
}

static int parse_profile_names(struct rq_netconf *nc, struct rq_error *e)
{
	const cJSON *args, *cni;
	int r;

	r = json_get_str(nc->root, "profile", "profile", &nc->profile, e);
	if (r < 0)
		return r;
	if (nc->profile && !netconf_name_valid(nc->profile))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "profile: \"%.64s\" is not a profile name ([A-Za-z0-9._-], 1-63)",
			      nc->profile);
	args = cJSON_GetObjectItemCaseSensitive(nc->root, "args");
	if (args && !cJSON_IsObject(args))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "args: expected an object");
	cni = cJSON_GetObjectItemCaseSensitive(args, "cni");
	if (cni && !cJSON_IsObject(cni))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "args.cni: expected an object");
	r = json_get_str(cni, "profile", "args.cni.profile", &nc->args_profile, e);
	if (r < 0)
		return r;
	if (nc->args_profile && !netconf_name_valid(nc->args_profile))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "args.cni.profile: \"%.64s\" is not a profile name",
			      nc->args_profile);
	return 0;
}

/* GC's list of attachments the runtime still knows: [{containerID, ifname}, ...]. */
static int valid_attachments(struct rq_netconf *nc, struct rq_error *e)
{
	static const char key[] = "cni.dev/valid-attachments";
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(nc->root, key), *it;
	int i = 0;

	if (!a)
		return 0;
	if (!cJSON_IsArray(a))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an array", key);
	cJSON_ArrayForEach(it, a)
	{
		static const char *const fields[] = {"containerID", "ifname"};

		if (!cJSON_IsObject(it))
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s[%d]: expected an object", key,
				      i);
		for (int k = 0; k < 2; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, fields[k]);

			if (!cJSON_IsString(v))
				return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s[%d].%s: %s", key, i,
					      fields[k], v ? "expected a string" : "required");
		}
		i++;
	}
	nc->valid_attachments = a;
	return 0;
}

static int parse_fields(struct rq_netconf *nc, struct rq_errlist *keep, struct rq_error *e)
{
	static const char *const pf_names[] = {"ignore", "verify", "ensure"};
	static const char *const numa_names[] = {"off", "warn", "strict"};
	static const char *const lvl_names[] = {"error", "warn", "info", "debug"};
	const cJSON *o = nc->root, *rc, *v;
	int pf = RQ_PF_ENSURE, numa = RQ_NUMA_WARN, lvl = RQ_LOG_INFO, r;

	/* each key on its own: with @keep (validate) every error is kept, in this order */
#define KEEP(x)                                                                                    \
	do {                                                                                       \
		if ((r = rq_err_keep(keep, e, (x))) < 0)                                           \
			return r;                                                                  \
	} while (0)
	KEEP(json_get_str(o, "type", "type", &nc->type, e));
	KEEP(parse_profile_names(nc, e));
	KEEP(enum_parse(o, "pf", pf_names, 3, &pf, &nc->pf_set, e));
	KEEP(enum_parse(o, "numa", numa_names, 3, &numa, NULL, e));
	KEEP(enum_parse(o, "logLevel", lvl_names, 4, &lvl, NULL, e));
	KEEP(log_file(nc, e));
	KEEP(device_id(o, "deviceID", nc, e));
	KEEP(netconf_gdr_parse(nc, e));
	nc->pf = (enum rq_pf_mode)pf;
	nc->numa = (enum rq_numa_mode)numa;
	nc->log_level = (enum rq_log_level)lvl;
	rc = cJSON_GetObjectItemCaseSensitive(o, "runtimeConfig");
	if (rc && !cJSON_IsObject(rc))
		KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL, "runtimeConfig: expected an object"));
	else if (rc)
		KEEP(device_id(rc, "runtimeConfig.deviceID", nc, e));
	v = cJSON_GetObjectItemCaseSensitive(o, "qos");
	if (v && !cJSON_IsObject(v))
		KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL, "qos: expected an object"));
	else
		nc->qos = v;
	if (nc->qos && (nc->profile || nc->args_profile))
		KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			    "qos: an inline profile and a profile name cannot both be given"));
	v = cJSON_GetObjectItemCaseSensitive(o, "capabilities");
	if (v && !cJSON_IsObject(v))
		KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL, "capabilities: expected an object"));
	v = cJSON_GetObjectItemCaseSensitive(o, "prevResult");
	if (v && !cJSON_IsObject(v))
		KEEP(rq_err(e, RQ_ERR_CONFIG, -EINVAL, "prevResult: expected an object"));
	else
		nc->prev_result = v;
	KEEP(valid_attachments(nc, e));
#undef KEEP
	return 0;
}

/* cniVersion and name: required, the version one this plugin speaks */
static int parse_head(struct rq_netconf *nc, struct rq_errlist *keep, struct rq_error *e)
{
	int r = json_get_str(nc->root, "cniVersion", "cniVersion", &nc->cni_version, e);

	if (r == 0 && !nc->cni_version)
		r = rq_err(e, RQ_ERR_CONFIG, -EINVAL, "cniVersion: required");
	else if (r == 0 && !netconf_version_supported(nc->cni_version))
		r = rq_err(
		    e, RQ_ERR_VERSION, -EINVAL,
		    "cniVersion: \"%.32s\" is not supported (supported: 0.3.0, 0.3.1, 0.4.0, "
		    "1.0.0, 1.1.0)",
		    nc->cni_version);
	if ((r = rq_err_keep(keep, e, r)) < 0)
		return r;
	r = json_get_str(nc->root, "name", "name", &nc->name, e);
	if (r == 0 && (!nc->name || !nc->name[0]))
		r = rq_err(e, RQ_ERR_CONFIG, -EINVAL, "name: required");
	return rq_err_keep(keep, e, r);
}

static int parse_opt(const char *buf, size_t len, struct rq_errlist *keep, struct rq_netconf **ret,
		     struct rq_error *e)
{
	size_t kept = rq_errlist_count(keep);
	struct rq_netconf *nc;
	struct rq_profile scratch;
	int r;

	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	r = json_parse_object(buf, len, "network configuration", &nc->root, e);
	if (r < 0)
		goto fail;
	if ((r = parse_head(nc, keep, e)) < 0 || (r = parse_fields(nc, keep, e)) < 0)
		goto fail;
	/* validate an inline profile now, so a bad one fails before anything else */
	if (nc->qos &&
	    (r = rq_err_keep(keep, e, profile_parse(nc->qos, "qos", "inline", keep, &scratch, e))) <
		0)
		goto fail;
	/* kept errors: the parse fails all the same, @e holding the first */
	if ((r = rq_errlist_since(keep, kept, e)) < 0)
		goto fail;
	*ret = nc;
	return 0;
fail:
	netconf_free(nc);
	return r;
}

int netconf_parse(const char *buf, size_t len, struct rq_netconf **ret, struct rq_error *e)
{
	return parse_opt(buf, len, NULL, ret, e);
}

int netconf_parse_keep(const char *buf, size_t len, struct rq_errlist *keep,
		       struct rq_netconf **ret, struct rq_error *e)
{
	return parse_opt(buf, len, keep, ret, e);
}

void netconf_free(struct rq_netconf *nc)
{
	if (!nc)
		return;
	cJSON_Delete(nc->root);
	free(nc);
}
