// SPDX-License-Identifier: Apache-2.0
/* node.wiring: the planned cabling, validated in full (see wiring.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
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
	if ((rc = json_only_keys(o, path, keys, NULL, e)) < 0 ||
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

int wiring_from_json(const cJSON *v, struct rq_errlist *keep, struct rq_wiring_rule **ret,
		     size_t *ret_n, struct rq_error *e)
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
		if ((r = rq_err_keep(keep, e, rule_from_json(it, path, &rules[i], e))) < 0) {
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

/*
 * A glob as tokens for wiring_glob_covers: each matches one character of a
 * set (a literal, `?`, a bracket class), or any string (`*`).
 */
struct glob_tok {
	bool star;
	uint64_t set[4]; /* the bytes one character may be */
};

static void set_add(struct glob_tok *t, unsigned c)
{
	t->set[c >> 6] |= 1ULL << (c & 63);
}

/* @g is valid (wiring_glob_valid); returns the token count, or -1 past @max */
static int glob_tokens(const char *g, struct glob_tok *t, int max)
{
	int n = 0;

	for (const char *c = g; *c; c++, n++) {
		if (n == max)
			return -1;
		memset(&t[n], 0, sizeof(t[n]));
		if (*c == '*') {
			t[n].star = true;
		} else if (*c == '?') {
			memset(t[n].set, 0xff, sizeof(t[n].set));
			t[n].set[0] &= ~1ULL; /* never NUL */
		} else if (*c == '[') {
			/* the class as fnmatch reads it, tried on every byte */
			const char *end = c + 1;
			char cls[RQ_WIRING_GLOB_MAX + 1], one[2] = {0, 0};

			end += *end == '!';
			end += *end == ']';
			while (*end && *end != ']')
				end++;
			(void)snprintf(cls, sizeof(cls), "%.*s", (int)(end - c + 1), c);
			for (unsigned b = 1; b < 256; b++) {
				one[0] = (char)b;
				if (fnmatch(cls, one, 0) == 0)
					set_add(&t[n], b);
			}
			c = *end ? end : end - 1;
		} else {
			c += *c == '\\' && c[1];
			set_add(&t[n], (unsigned char)*c);
		}
	}
	return n;
}

static bool set_within(const struct glob_tok *small, const struct glob_tok *big)
{
	for (int i = 0; i < 4; i++)
		if (small->set[i] & ~big->set[i])
			return false;
	return true;
}

/* memo: 0 unknown, 1 no, 2 yes */
static bool covers_at(const struct glob_tok *a, int na, int i, const struct glob_tok *b, int nb,
		      int j, unsigned char (*memo)[RQ_WIRING_GLOB_MAX + 1])
{
	bool r;

	if (memo[i][j])
		return memo[i][j] == 2;
	if (j == nb) {
		r = true;
		for (int k = i; k < na && r; k++)
			r = a[k].star;
	} else if (i == na) {
		r = false; /* b still has a character, or a star that may be one */
	} else if (a[i].star) {
		/* a's star takes b's token (a character or a whole star), or nothing */
		r = covers_at(a, na, i, b, nb, j + 1, memo) ||
		    covers_at(a, na, i + 1, b, nb, j, memo);
	} else if (b[j].star) {
		r = false; /* one character cannot stand for any string */
	} else {
		r = set_within(&b[j], &a[i]) && covers_at(a, na, i + 1, b, nb, j + 1, memo);
	}
	memo[i][j] = r ? 2 : 1;
	return r;
}

bool wiring_glob_covers(const char *a, const char *b)
{
	struct glob_tok ta[RQ_WIRING_GLOB_MAX], tb[RQ_WIRING_GLOB_MAX];
	unsigned char memo[RQ_WIRING_GLOB_MAX + 1][RQ_WIRING_GLOB_MAX + 1];
	int na = glob_tokens(a, ta, RQ_WIRING_GLOB_MAX),
	    nb = glob_tokens(b, tb, RQ_WIRING_GLOB_MAX);

	if (na < 0 || nb < 0)
		return false;
	memset(memo, 0, sizeof(memo));
	return covers_at(ta, na, 0, tb, nb, 0, memo);
}

int wiring_hidden_by(const struct rq_wiring_rule *rules, size_t n, size_t j)
{
	for (size_t i = 0; i < j && j < n; i++)
		if (wiring_glob_covers(rules[i].pf, rules[j].pf))
			return (int)i;
	return -1;
}
