// SPDX-License-Identifier: Apache-2.0
/*
 * `validate` of a YAML manifest, as a reader has it on disk: the mappings of
 * one document (from *@at; the next one's start is written back), as cJSON
 * strings and objects. Enough for what
 * validate looks at (kind, metadata, a NAD's spec.config, a SriovNetwork's
 * spec.metaPlugins, a ConfigMap's data): block scalars (|, |-, >), quoted
 * and plain one-line scalars. Lists and flow collections are skipped, with
 * every line they hold (no key validate reads holds one): a list item's
 * mappings and a flow collection continued on the next lines, as `helm
 * template` writes a DaemonSet; a multi-line quoted scalar is refused with
 * its line, so nothing is guessed. No YAML library: the image is FROM
 * scratch and the binary static.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/tools/tools.h"

#define YAML_DEPTH 16

struct yline {
	const char *p; /* the line's text after its indent */
	size_t len;    /* without the newline */
	int indent;
	int no;
};

/* The next line of @s from *@pos: its indent and text; false at the end. */
static bool next_line(const char *s, size_t n, size_t *pos, int *no, struct yline *ret)
{
	size_t i = *pos, end;

	if (i >= n)
		return false;
	end = i;
	while (end < n && s[end] != '\n')
		end++;
	ret->indent = 0;
	while (i < end && s[i] == ' ') {
		i++;
		ret->indent++;
	}
	ret->p = s + i;
	ret->len = end - i;
	while (ret->len && (ret->p[ret->len - 1] == '\r' || ret->p[ret->len - 1] == ' '))
		ret->len--;
	ret->no = ++*no;
	*pos = end < n ? end + 1 : n;
	return true;
}

static bool blank_or_comment(const struct yline *l)
{
	return l->len == 0 || l->p[0] == '#';
}

/* Whether a flow collection opened in @v ("{ a: 1," or "[x,") is still open at the line's end. */
static bool flow_open(const char *v, size_t n)
{
	int depth = 0;
	char q = 0;

	for (size_t i = 0; i < n; i++) {
		if (q) {
			q = v[i] == q ? 0 : q;
			continue;
		}
		if (v[i] == '"' || v[i] == '\'')
			q = v[i];
		else if (v[i] == '#' && i && (v[i - 1] == ' ' || v[i - 1] == '\t'))
			break;
		else if (v[i] == '{' || v[i] == '[')
			depth++;
		else if (v[i] == '}' || v[i] == ']')
			depth--;
	}
	return depth > 0;
}

/* A one-line scalar: "double" (\" \\ \n), 'single' ('' is '), or plain (# comment cut). */
static int scalar(const char *v, size_t n, int no, char **ret, struct rq_error *e)
{
	char *out = malloc(n + 1), q = n ? v[0] : 0;
	size_t o = 0, i;

	if (!out)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	if (q == '"' || q == '\'') {
		for (i = 1; i < n && v[i] != q; i++) {
			if (q == '"' && v[i] == '\\' && i + 1 < n) {
				i++;
				out[o++] = v[i] == 'n' ? '\n' : v[i] == 't' ? '\t' : v[i];
			} else
				out[o++] = v[i];
			if (q == '\'' && v[i] == '\'' && i + 1 < n && v[i + 1] == '\'')
				i++;
		}
		if (i >= n) {
			free(out);
			return rq_err(e, RQ_ERR_DECODE, -EINVAL,
				      "YAML line %d: a quoted scalar that does not end on its "
				      "line (give the manifest as JSON: yq -o json)",
				      no);
		}
	} else {
		const char *c = NULL;

		for (i = 0; i + 1 < n && !c; i++)
			if ((v[i] == ' ' || v[i] == '\t') && v[i + 1] == '#')
				c = v + i;
		n = c ? (size_t)(c - v) : n;
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		memcpy(out, v, n);
		o = n;
	}
	out[o] = '\0';
	*ret = out;
	return 0;
}

/* A block scalar below a key at @indent: its lines, less their common indent. */
static char *block(const char *s, size_t n, size_t *pos, int *no, int indent, bool folded)
{
	size_t cap = n - *pos + 2, o = 0, save;
	char *out = malloc(cap);
	int base = -1, save_no;
	struct yline l;

	if (!out)
		return NULL;
	for (;;) {
		save = *pos;
		save_no = *no;
		if (!next_line(s, n, pos, no, &l))
			break;
		if (l.len && l.indent <= indent) {
			*pos = save; /* the next key: give it back */
			*no = save_no;
			break;
		}
		if (base < 0 && l.len)
			base = l.indent;
		if (l.len) {
			int extra = l.indent - base;

			for (; extra > 0; extra--)
				out[o++] = ' ';
			memcpy(out + o, l.p, l.len);
			o += l.len;
		}
		out[o++] = folded && l.len ? ' ' : '\n';
	}
	while (o && out[o - 1] == '\n')
		o--;
	out[o] = '\0';
	return out;
}

static int add(cJSON *obj, const char *k, size_t klen, cJSON *v, struct rq_error *e)
{
	char key[128];

	if (!v || klen >= sizeof(key)) {
		cJSON_Delete(v);
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	}
	memcpy(key, k, klen);
	key[klen] = '\0';
	if (cJSON_GetObjectItemCaseSensitive(obj, key)) {
		cJSON_Delete(v);
		return rq_err(e, RQ_ERR_CONFIG, -EINVAL, "YAML: duplicate key \"%s\"", key);
	}
	cJSON_AddItemToObject(obj, key, v);
	return 0;
}

int validate_yaml(const char *s, size_t n, size_t *at, cJSON **ret, struct rq_error *e)
{
	struct {
		cJSON *o;
		int indent;
	} st[YAML_DEPTH];
	int depth = 0, no = 0, r = 0, list = -1, flow = -1;
	size_t pos = *at, start;
	struct yline l;
	cJSON *root = cJSON_CreateObject();

	if (!root)
		return rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
	st[0].o = root;
	st[0].indent = -1;
	for (const char *c = s; c < s + pos; c++)
		no += *c == '\n'; /* line numbers count from the file's start */
	while (r == 0 && (start = pos, next_line(s, n, &pos, &no, &l))) {
		const char *colon;
		const char *v;
		size_t klen, vlen;
		char *str = NULL;

		if (l.indent == 0 && l.len >= 3 && !strncmp(l.p, "---", 3)) {
			if (cJSON_GetArraySize(root) > 0) {
				pos = start; /* the next document starts here */
				break;
			}
			continue;
		}
		if (blank_or_comment(&l))
			continue;
		/*
		 * Not read (see the top): a list's items at @list and every line
		 * below them, the lines a flow collection opened at @flow runs on.
		 */
		if ((list >= 0 && (l.indent > list || (l.indent == list && l.p[0] == '-'))) ||
		    (flow >= 0 && l.indent > flow))
			continue;
		list = flow = -1;
		if (l.p[0] == '-') {
			list = l.indent;
			continue;
		}
		while (depth > 0 && l.indent <= st[depth].indent)
			depth--;
		colon = memchr(l.p, ':', l.len);
		if (!colon || (colon + 1 < l.p + l.len && colon[1] != ' ')) {
			r = rq_err(e, RQ_ERR_DECODE, -EINVAL,
				   "YAML line %d: expected \"key: value\" (give JSON: yq -o json)",
				   l.no);
			break;
		}
		klen = (size_t)(colon - l.p);
		if (klen >= 2 && (l.p[0] == '"' || l.p[0] == '\'') && l.p[klen - 1] == l.p[0]) {
			l.p++;
			klen -= 2;
		}
		v = colon + 1;
		vlen = l.len - (size_t)(v - l.p);
		while (vlen && *v == ' ') {
			v++;
			vlen--;
		}
		if (vlen == 0 || v[0] == '#') {
			cJSON *child = cJSON_CreateObject();

			if (depth + 1 >= YAML_DEPTH) {
				cJSON_Delete(child);
				r = rq_err(e, RQ_ERR_DECODE, -EINVAL, "YAML line %d: too deep",
					   l.no);
				break;
			}
			r = add(st[depth].o, l.p, klen, child, e);
			if (r == 0) {
				depth++;
				st[depth].o = child;
				st[depth].indent = l.indent;
			}
			continue;
		}
		if (v[0] == '|' || v[0] == '>') {
			str = block(s, n, &pos, &no, l.indent, v[0] == '>');
			if (!str)
				r = rq_err(e, RQ_ERR_IO, -ENOMEM, "out of memory");
		} else if (v[0] == '[' || v[0] == '{' || v[0] == '&' || v[0] == '*') {
			if (flow_open(v, vlen))
				flow = l.indent;
			continue; /* flow collections, anchors: not read */
		} else
			r = scalar(v, vlen, l.no, &str, e);
		if (r == 0)
			r = add(st[depth].o, l.p, klen, cJSON_CreateString(str), e);
		free(str);
	}
	if (r == 0 && cJSON_GetArraySize(root) == 0)
		r = -ENOENT; /* no document left */
	else if (r == 0 && !cJSON_GetObjectItemCaseSensitive(root, "kind"))
		r = rq_err(e, RQ_ERR_DECODE, -EINVAL,
			   "YAML line %d: a document without a top-level kind (neither JSON nor a "
			   "Kubernetes manifest)",
			   no);
	if (r < 0) {
		cJSON_Delete(root);
		return r;
	}
	*at = pos;
	*ret = root;
	return 0;
}
