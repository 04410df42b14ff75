// SPDX-License-Identifier: Apache-2.0
#include "pkg/cni/cni.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char *const cni_supported_versions[] = {"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"};
const size_t cni_n_supported_versions =
    sizeof(cni_supported_versions) / sizeof(cni_supported_versions[0]);

static const struct {
	const char *name;
	enum rq_cni_cmd cmd;
} commands[] = {
    {"ADD", RQ_CMD_ADD},	 {"DEL", RQ_CMD_DEL},	    {"CHECK", RQ_CMD_CHECK},
    {"VERSION", RQ_CMD_VERSION}, {"STATUS", RQ_CMD_STATUS}, {"GC", RQ_CMD_GC},
};

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);

	return (v && *v) ? v : NULL;
}

static int copy_arg(char *dst, size_t len, const char *key, const char *v, size_t vlen,
		    struct rq_error *e)
{
	if (vlen >= len)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_ARGS: %s is too long (%zu bytes)", key,
			      vlen);
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
	return 0;
}

int cni_args_parse(const char *s, struct rq_cni_args *a, struct rq_error *e)
{
	bool ignore_unknown = false;
	char unknown[128] = "";
	const char *p = s;

	while (p && *p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		size_t klen, vlen;
		const char *v;
		int r = 0;

		if (n == 0) {
			p = end ? end + 1 : NULL;
			continue;
		}
		if (!eq)
			return rq_err(e, RQ_ERR_ENV, -EINVAL,
				      "CNI_ARGS: invalid pair \"%.*s\" (expected KEY=VALUE)",
				      (int)n, p);
		klen = (size_t)(eq - p);
		v = eq + 1;
		vlen = n - klen - 1;
		if (klen == 13 && !strncmp(p, "IgnoreUnknown", klen))
			/* libcni's boolean: 1 or true, any case */
			ignore_unknown =
			    (vlen == 1 && v[0] == '1') || (vlen == 4 && !strncasecmp(v, "true", 4));
		else if (klen == 17 && !strncmp(p, "K8S_POD_NAMESPACE", klen))
			r = copy_arg(a->pod_namespace, sizeof(a->pod_namespace),
				     "K8S_POD_NAMESPACE", v, vlen, e);
		else if (klen == 12 && !strncmp(p, "K8S_POD_NAME", klen))
			r = copy_arg(a->pod_name, sizeof(a->pod_name), "K8S_POD_NAME", v, vlen, e);
		else if (klen == 11 && !strncmp(p, "K8S_POD_UID", klen))
			r = copy_arg(a->pod_uid, sizeof(a->pod_uid), "K8S_POD_UID", v, vlen, e);
		else if (klen == 26 && !strncmp(p, "K8S_POD_INFRA_CONTAINER_ID", klen))
			r = 0; /* known to runtimes, not needed here */
		else if (!unknown[0])
			snprintf(unknown, sizeof(unknown), "%.*s", (int)(klen < 100 ? klen : 100),
				 p);
		if (r < 0)
			return r;
		p = end ? end + 1 : NULL;
	}
	if (unknown[0] && !ignore_unknown)
		return rq_err(e, RQ_ERR_ENV, -EINVAL,
			      "CNI_ARGS: unknown key \"%s\" (set IgnoreUnknown=1 to ignore)",
			      unknown);
	return 0;
}

static bool id_char_ok(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '_' || c == '.' || c == '-');
}

int cni_validate_ids(const struct rq_cni_args *a, struct rq_error *e)
{
	const char *s;

	if (a->containerid) {
		for (s = a->containerid; *s; s++)
			if (!id_char_ok(*s, s == a->containerid))
				return rq_err(e, RQ_ERR_ENV, -EINVAL,
					      "CNI_CONTAINERID: invalid character '%c'", *s);
		if (strlen(a->containerid) > 512)
			return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_CONTAINERID: too long");
	}
	if (a->ifname) {
		size_t n = strlen(a->ifname);

		if (n == 0 || n > 15 || !strcmp(a->ifname, ".") || !strcmp(a->ifname, ".."))
			return rq_err(e, RQ_ERR_ENV, -EINVAL,
				      "CNI_IFNAME: \"%s\" is not a valid interface name",
				      a->ifname);
		for (s = a->ifname; *s; s++)
			if (*s == '/' || *s == ':' || *s == ' ' || *s == '\t' || *s == '\n')
				return rq_err(e, RQ_ERR_ENV, -EINVAL,
					      "CNI_IFNAME: invalid character in \"%s\"", a->ifname);
	}
	return 0;
}

int cni_args_from_env(struct rq_cni_args *ret, struct rq_error *e)
{
	struct rq_cni_args a;
	const char *args;
	bool need_netns, need_common;
	int r;

	memset(&a, 0, sizeof(a));
	a.command = env_nonempty("CNI_COMMAND");
	if (!a.command)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_COMMAND is not set");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(a.command, commands[i].name))
			a.cmd = commands[i].cmd;
	if (a.cmd == RQ_CMD_NONE)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_COMMAND: unknown command \"%s\"",
			      a.command);
	a.containerid = env_nonempty("CNI_CONTAINERID");
	a.netns = env_nonempty("CNI_NETNS");
	a.ifname = env_nonempty("CNI_IFNAME");
	a.path = env_nonempty("CNI_PATH");
	need_common = a.cmd == RQ_CMD_ADD || a.cmd == RQ_CMD_DEL || a.cmd == RQ_CMD_CHECK;
	need_netns = a.cmd == RQ_CMD_ADD || a.cmd == RQ_CMD_CHECK;
	if (need_common && !a.containerid)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_CONTAINERID is required for %s",
			      a.command);
	if (need_netns && !a.netns)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_NETNS is required for %s", a.command);
	if (need_common && !a.ifname)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_IFNAME is required for %s", a.command);
	if (need_common && !a.path)
		return rq_err(e, RQ_ERR_ENV, -EINVAL, "CNI_PATH is required for %s", a.command);
	r = cni_validate_ids(&a, e);
	if (r < 0)
		return r;
	args = getenv("CNI_ARGS");
	if (args) {
		r = cni_args_parse(args, &a, e);
		if (r < 0)
			return r;
	}
	*ret = a;
	return 0;
}

int cni_read_stdin(int fd, char **ret, size_t *ret_len, struct rq_error *e)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	int r;

	if (!buf)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory reading stdin");
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap > RQ_CNI_STDIN_MAX) {
				r = rq_err(e, RQ_ERR_IO, -EFBIG,
					   "stdin: network configuration larger than %d bytes",
					   RQ_CNI_STDIN_MAX);
				goto fail;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				r = rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory reading stdin");
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = rq_err(e, RQ_ERR_IO, -errno, "stdin: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > RQ_CNI_STDIN_MAX) {
		r = rq_err(e, RQ_ERR_IO, -EFBIG,
			   "stdin: network configuration larger than %d bytes", RQ_CNI_STDIN_MAX);
		goto fail;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
fail:
	free(buf);
	return r;
}

static bool version_ge_1(const char *v)
{
	return v && v[0] >= '1' && v[1] == '.';
}

static void ips_set_version(cJSON *ips, bool add)
{
	cJSON *ip;

	cJSON_ArrayForEach(ip, ips)
	{
		const cJSON *addr = cJSON_GetObjectItemCaseSensitive(ip, "address");

		if (!cJSON_IsObject(ip))
			continue;
		if (!add) {
			cJSON_DeleteItemFromObjectCaseSensitive(ip, "version");
			continue;
		}
		if (cJSON_GetObjectItemCaseSensitive(ip, "version") || !cJSON_IsString(addr))
			continue;
		cJSON_AddStringToObject(ip, "version", strchr(addr->valuestring, ':') ? "6" : "4");
	}
}

cJSON *cni_result_convert(const cJSON *prev, const char *version)
{
	cJSON *out = cJSON_Duplicate(prev, 1);
	cJSON *ips;

	if (!out)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(out, "cniVersion");
	if (!cJSON_AddStringToObject(out, "cniVersion", version)) {
		cJSON_Delete(out);
		return NULL;
	}
	ips = cJSON_GetObjectItemCaseSensitive(out, "ips");
	if (cJSON_IsArray(ips))
		ips_set_version(ips, !version_ge_1(version));
	return out;
}

char *cni_error_json(const char *version, const struct rq_error *e)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "cniVersion", version ? version : "1.0.0");
	cJSON_AddNumberToObject(o, "code", e->code ? e->code : RQ_ERR_IO);
	cJSON_AddStringToObject(o, "msg", e->msg[0] ? e->msg : "unknown error");
	if (e->details[0])
		cJSON_AddStringToObject(o, "details", e->details);
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}

char *cni_version_json(const char *version)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *arr;
	char *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "cniVersion", version ? version : "1.1.0");
	arr = cJSON_AddArrayToObject(o, "supportedVersions");
	for (size_t i = 0; arr && i < cni_n_supported_versions; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(cni_supported_versions[i]));
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}
