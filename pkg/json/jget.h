/* SPDX-License-Identifier: Apache-2.0 */
/* Typed, case-sensitive reads of a cJSON object's members (records, indexes). */
#ifndef RQ_JSON_JGET_H
#define RQ_JSON_JGET_H

#include <cjson/cJSON.h>

/* The string member @key of @o, or NULL when absent or not a string. */
const char *json_str(const cJSON *o, const char *key);
/* The number member @key of @o as int, or @def when absent or not a number. */
int json_int(const cJSON *o, const char *key, int def);

#endif
