// SPDX-License-Identifier: Apache-2.0
#include "netconf/jsonpath.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int json_parse_object(const char *buf, size_t len, const char *what, cJSON **ret,
		      struct rq_error *e)
{
	const char *end = NULL;
	cJSON *root;
	size_t off;
	int r;

	/* not null-terminated mode: stdin bytes carry no NUL; trailing bytes are checked below */
	root = buf ? cJSON_ParseWithLengthOpts(buf, len, &end, false) : NULL;
	if (!root) {
		off = end && end >= buf ? (size_t)(end - buf) : 0;
		return rq_err(e, RQ_ERR_DECODE, -EBADMSG,
			      "%s is not valid JSON (error near byte %zu)", what, off);
	}
	off = (size_t)(end - buf);
	while (off < len && buf[off] && strchr(" \t\r\n", buf[off]))
		off++;
	if (off < len) {
		r = rq_err(e, RQ_ERR_DECODE, -EBADMSG,
			   "%s is not valid JSON (unexpected data after the value at byte %zu)",
			   what, off);
		goto fail;
	}
	if (!cJSON_IsObject(root)) {
		r = rq_err(e, RQ_ERR_DECODE, -EBADMSG, "%s: expected a JSON object", what);
		goto fail;
	}
	r = json_no_duplicates(root, "", 0, e);
	if (r < 0)
		goto fail;
	*ret = root;
	return 0;
fail:
	cJSON_Delete(root);
	return r;
}

int json_int_in(const cJSON *v, const char *path, int idx, long lo, long hi, long *ret,
		struct rq_error *e)
{
	char p[320];
	double d;

	if (idx >= 0)
		(void)snprintf(p, sizeof(p), "%s[%d]", path, idx);
	else
		(void)snprintf(p, sizeof(p), "%s", path);
	if (!cJSON_IsNumber(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected an integer %ld-%ld", p, lo,
			      hi);
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: %g is not an integer", p, d);
	if (d < (double)lo || d > (double)hi)
		return rq_err(e, RQ_ERR_CONFIG, -ERANGE, "%s: %.6g out of range %ld-%ld", p, d, lo,
			      hi);
	*ret = (long)d;
	return 0;
}

size_t json_key_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], i, j;

	if (la >= sizeof(row) / sizeof(row[0]) || lb >= sizeof(row) / sizeof(row[0]))
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			char x = a[i - 1] | 0x20, y = b[j - 1] | 0x20;
			size_t up = row[j], best = diag + (x != y);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

bool json_key_near(const char *key, size_t d)
{
	size_t n = strlen(key);

	return d <= (n < 6 ? 2 : n / 3);
}

const char *json_key_nearest(const char *key, const char *const *list)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;

	for (const char *const *k = list; *k; k++) {
		size_t d = json_key_distance(key, *k);

		if (d < best_d) {
			best_d = d;
			best = *k;
		}
	}
	return best && json_key_near(key, best_d) ? best : NULL;
}

int json_only_keys(const cJSON *o, const char *path, const char *const *allowed,
		   struct rq_errlist *keep, struct rq_error *e)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o)
	{
		const char *near;
		bool ok = false;
		int r;

		for (const char *const *k = allowed; *k && !ok; k++)
			ok = !strcmp(*k, it->string);
		if (ok)
			continue;
		near = json_key_nearest(it->string, allowed);
		if (near)
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL,
				   "%s%s%.128s: unknown key (did you mean \"%s\"?)", path,
				   path[0] ? "." : "", it->string, near);
		else
			r = rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s%s%.128s: unknown key", path,
				   path[0] ? "." : "", it->string);
		if ((r = rq_err_keep(keep, e, r)) < 0)
			return r;
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/*
 * The first key of @o that occurs twice, or NULL. Large objects are sorted
 * (n log n) so that a hostile document cannot make this quadratic.
 */
static const cJSON *first_duplicate(const cJSON *o, int *ret_err)
{
	const cJSON *it, *jt, *dup = NULL;
	const cJSON **v;
	size_t n = 0, i = 0;

	*ret_err = 0;
	cJSON_ArrayForEach(it, o)
	{
		n++;
	}
	if (n <= 32) {
		cJSON_ArrayForEach(it, o)
		{
			for (jt = it->next; jt; jt = jt->next)
				if (strcmp(it->string, jt->string) == 0)
					return jt;
		}
		return NULL;
	}
	v = calloc(n, sizeof(const cJSON *));
	if (!v) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	cJSON_ArrayForEach(it, o)
	{
		v[i++] = it;
	}
	qsort(v, n, sizeof(const cJSON *), key_cmp);
	for (i = 1; i < n && !dup; i++)
		if (strcmp(v[i - 1]->string, v[i]->string) == 0)
			dup = v[i];
	free(v);
	return dup;
}

int json_no_duplicates(const cJSON *o, const char *path, int depth, struct rq_error *e)
{
	const cJSON *it, *dup;
	int i = 0, r;

	if (depth >= RQ_JSON_MAX_DEPTH)
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: nested deeper than %d levels",
			      path[0] ? path : "(root)", RQ_JSON_MAX_DEPTH);
	if (cJSON_IsObject(o)) {
		dup = first_duplicate(o, &r);
		if (r < 0)
			return rq_err(e, RQ_ERR_IO, r, "out of memory");
		if (dup)
			return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s%s%.128s: duplicate key", path,
				      path[0] ? "." : "", dup->string);
	}
	cJSON_ArrayForEach(it, o)
	{
		char sub[512];

		if (!cJSON_IsObject(it) && !cJSON_IsArray(it)) {
			i++;
			continue;
		}
		if (cJSON_IsObject(o))
			(void)snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "",
				       it->string);
		else
			(void)snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		r = json_no_duplicates(it, sub, depth + 1, e);
		if (r < 0)
			return r;
		i++;
	}
	return 0;
}

int json_get_str(const cJSON *o, const char *key, const char *path, const char **ret,
		 struct rq_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v) {
		*ret = NULL;
		return 0;
	}
	if (!cJSON_IsString(v))
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "%s: expected a string", path);
	*ret = v->valuestring;
	return 0;
}
