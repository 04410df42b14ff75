/* SPDX-License-Identifier: Apache-2.0 */
/* Typed, case-sensitive reads of a cJSON object's members (records, indexes). */
#ifndef RQ_JSON_JGET_H
#define RQ_JSON_JGET_H

#include <cjson/cJSON.h>
#include <stdbool.h>

/* The string member @key of @o, or NULL when absent or not a string. */
const char *json_str(const cJSON *o, const char *key);
/* The number member @key of @o as int, or @def when absent or not a number. */
int json_int(const cJSON *o, const char *key, int def);

/*
 * cJSON_Compare(@a, @b, true) for documents without repeated member names
 * (records, indexes, requirements: what rdma-qos writes and reads back), in
 * one pass while both list an object's members in the same order (a record
 * read back beside the one built again: cJSON keeps the order it printed);
 * cJSON_Compare looks every member up by name, O(n^2) over a record's ~40.
 * Any other case is cJSON_Compare's.
 */
bool json_equal(const cJSON *a, const cJSON *b);

#endif
