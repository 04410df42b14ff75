/* SPDX-License-Identifier: Apache-2.0 */
/* Small JSON validation helpers that name the JSON path in every message. */
#ifndef RQ_JSONPATH_H
#define RQ_JSONPATH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "pkg/cni/error.h"

/* Deeper documents are refused (the walks below recurse once per level). */
#define RQ_JSON_MAX_DEPTH 64

/*
 * Parse @len bytes that must hold exactly one JSON object (trailing white
 * space allowed). Malformed -> RQ_ERR_DECODE naming the byte offset; @what
 * names the document in messages. Duplicate keys anywhere -> RQ_ERR_CONFIG.
 */
int json_parse_object(const char *buf, size_t len, const char *what, cJSON **ret,
		      struct rq_error *e);
/* An integral number in [lo, hi]; @idx >= 0 appends "[idx]" to @path. */
int json_int_in(const cJSON *v, const char *path, int idx, long lo, long hi, long *ret,
		struct rq_error *e);
/*
 * Reject keys of @o not in the NULL-terminated @allowed list ("" = the root),
 * with the nearest allowed key when one is near ("node.wirring: unknown key
 * (did you mean \"wiring\"?)"). With a collector @keep (validate), every
 * unknown key is kept there and 0 returned; without, the first fails.
 */
int json_only_keys(const cJSON *o, const char *path, const char *const *allowed,
		   struct rq_errlist *keep, struct rq_error *e);
/*
 * "Did you mean": Levenshtein distance of two keys, case-insensitive
 * ((size_t)-1 for keys of 64 bytes or more); whether a known key at distance
 * @d from @key is worth suggesting (within a third of the key, 2 for short
 * ones: "foo" -> "pf" is noise); the nearest of a NULL-terminated @list, or
 * NULL when none is near.
 */
size_t json_key_distance(const char *a, const char *b);
bool json_key_near(const char *key, size_t d);
const char *json_key_nearest(const char *key, const char *const *list);
/* Reject duplicate keys anywhere below @o (cJSON keeps them as siblings). */
int json_no_duplicates(const cJSON *o, const char *path, int depth, struct rq_error *e);
/* A string value or NULL; wrong type -> error naming @path. */
int json_get_str(const cJSON *o, const char *key, const char *path, const char **ret,
		 struct rq_error *e);

#endif
