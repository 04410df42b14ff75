// SPDX-License-Identifier: Apache-2.0
/* node.wiring: the planned cabling, validated in full (see wiring.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netconf/jsonpath.h"
#include "netconf/wiring.h"

bool wiring_glob_valid(const char *g)
{
	bool in_class = false;
	size_t class_len = 0;

	if (!g || !g[0] || strlen(g) >= RQ_WIRING_GLOB_MAX)
		return false;
	for (const char *c = g; *c; c++) {
		if (*c <= ' ' || *c > '~')
			return false;
		if (*c == '\\') {
			if (!c[1])
				return false;
			c++;
			class_len++;
			continue;
		}
		if (!in_class) {
			in_class = *c == '[';
			class_len = 0;
			continue;
		}
		/* a leading "!" or "]" belongs to the class (POSIX bracket expressions) */
		if (*c == ']' && class_len > 0 && !(class_len == 1 && c[-1] == '!')) {
			in_class = false;
			continue;
		}
		class_len++;
	}
	return !in_class;
}

static int rule_glob(const cJSON *o, const char *key, const char *path, bool required, char *out,
		     struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v) {
		if (required)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.%s: required", path, key);
		return 0;
	}
	if (!cJSON_IsString(v) || !wiring_glob_valid(v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s.%s: expected a glob of printable characters without spaces, "
			      "1-%d long, every \"[\" closed",
			      path, key, RQ_WIRING_GLOB_MAX - 1);
	(void)snprintf(out, RQ_WIRING_GLOB_MAX, "%s", v->valuestring);
	return 0;
}

static int rule_from_json(const cJSON *o, const char *path, struct rq_wiring_rule *r,
			  struct rq_error *e)
{
	static const char *const keys[] = {"pf", "partner", "port", "rail", NULL};
	const cJSON *v;
	int rc;

	if (!cJSON_IsObject(o))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s: expected an object {\"pf\", \"partner\", \"port\", \"rail\"}",
			      path);
	if ((rc = json_only_keys(o, path, keys, e)) < 0 ||
	    (rc = rule_glob(o, "pf", path, true, r->pf, e)) < 0 ||
	    (rc = rule_glob(o, "partner", path, true, r->partner, e)) < 0 ||
	    (rc = rule_glob(o, "port", path, false, r->port, e)) < 0)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(o, "rail");
	if (!v)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.rail: required", path);
	/* a label value and a word in show's line: no quoting needed anywhere */
	if (!cJSON_IsString(v) || !v->valuestring[0] ||
	    strlen(v->valuestring) >= RQ_WIRING_RAIL_MAX ||
	    strspn(v->valuestring, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._:/-") != strlen(v->valuestring))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "%s.rail: expected a name of [A-Za-z0-9._:/-], 1-%d long", path,
			      RQ_WIRING_RAIL_MAX - 1);
	(void)snprintf(r->rail, sizeof(r->rail), "%s", v->valuestring);
	return 0;
}

int wiring_from_json(const cJSON *v, struct rq_wiring_rule **ret, size_t *ret_n, struct rq_error *e)
{
	struct rq_wiring_rule *rules;
	const cJSON *it;
	char path[48];
	int n, i = 0, r;

	if (!cJSON_IsArray(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
			      "node.wiring: expected a list of {\"pf\", \"partner\", \"port\", "
			      "\"rail\"}");
	n = cJSON_GetArraySize(v);
	if (n > RQ_WIRING_MAX_RULES)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "node.wiring: more than %d rules",
			      RQ_WIRING_MAX_RULES);
	rules = calloc((size_t)n + 1, sizeof(*rules));
	if (!rules)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	cJSON_ArrayForEach(it, v)
	{
		(void)snprintf(path, sizeof(path), "node.wiring[%d]", i);
		if ((r = rule_from_json(it, path, &rules[i], e)) < 0) {
			free(rules);
			return r;
		}
		i++;
	}
	if (n == 0) {
		free(rules);
		rules = NULL;
	}
	*ret = rules;
	*ret_n = (size_t)n;
	return 0;
}

const struct rq_wiring_rule *wiring_rule_for(const struct rq_wiring_rule *rules, size_t n,
					     const char *ifname, const char *pci)
{
	for (size_t i = 0; i < n; i++)
		if ((ifname && ifname[0] && fnmatch(rules[i].pf, ifname, 0) == 0) ||
		    (pci && pci[0] && fnmatch(rules[i].pf, pci, 0) == 0))
			return &rules[i];
	return NULL;
}
