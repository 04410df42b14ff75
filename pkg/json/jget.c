// SPDX-License-Identifier: Apache-2.0
#include "pkg/json/jget.h"

const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int json_int(const cJSON *o, const char *key, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valueint : def;
}
