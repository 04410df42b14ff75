// SPDX-License-Identifier: Apache-2.0
#include "pkg/json/jget.h"

#include <string.h>

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

bool json_equal(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;
	bool obj;

	if (!a || !b || (a->type & 0xFF) != (b->type & 0xFF) ||
	    !(cJSON_IsObject(a) || cJSON_IsArray(a)))
		return cJSON_Compare(a, b, true);
	obj = cJSON_IsObject(a);
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if ((obj && (!x->string || !y->string || strcmp(x->string, y->string) != 0)) ||
		    !json_equal(x, y))
			return cJSON_Compare(a, b, true); /* another order, or a difference */
	return (!x && !y) || cJSON_Compare(a, b, true);
}
