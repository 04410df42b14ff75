// SPDX-License-Identifier: Apache-2.0
#include "netconf/jsonpath.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define RQ_JSON_MAX_DEPTH 64

int json_int_in(const cJSON *v, const char *path, int idx, long lo, long hi, long *ret,
		struct rq_error *e)
{
	char p[320];
	double d;

	if (idx >= 0)
		snprintf(p, sizeof(p), "%s[%d]", path, idx);
	else
		snprintf(p, sizeof(p), "%s", path);
	if (!cJSON_IsNumber(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an integer %ld-%ld", p, lo, hi);
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: %g is not an integer", p, d);
	if (d < (double)lo || d > (double)hi)
		return rq_err(e, RQ_ERR_CONFIG, -ERANGE, "%s: %.0f out of range %ld-%ld", p, d, lo,
			      hi);
	*ret = (long)d;
	return 0;
}

int json_only_keys(const cJSON *o, const char *path, const char *const *allowed,
		   struct rq_error *e)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		bool ok = false;

		for (const char *const *k = allowed; *k && !ok; k++)
			ok = !strcmp(*k, it->string);
		if (!ok)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s.%s: unknown key", path,
				      it->string);
	}
	return 0;
}

int json_no_duplicates(const cJSON *o, const char *path, int depth, struct rq_error *e)
{
	const cJSON *it, *jt;
	int i = 0;

	if (depth > RQ_JSON_MAX_DEPTH)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: nested deeper than %d levels", path,
			      RQ_JSON_MAX_DEPTH);
	cJSON_ArrayForEach(it, o) {
		char sub[512];

		if (cJSON_IsObject(o)) {
			for (jt = it->next; jt; jt = jt->next)
				if (!strcmp(it->string, jt->string))
					return rq_err(e, RQ_ERR_CONFIG, -EINVAL,
						      "%s%s%s: duplicate key", path,
						      path[0] ? "." : "", it->string);
			snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", it->string);
		} else {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		}
		if ((cJSON_IsObject(it) || cJSON_IsArray(it)) &&
		    json_no_duplicates(it, sub, depth + 1, e) < 0)
			return -EINVAL;
		i++;
	}
	return 0;
}

int json_get_str(const cJSON *o, const char *key, const char *path, const char **ret,
		 struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*ret = NULL;
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected a string", path);
	*ret = v->valuestring;
	return 0;
}
