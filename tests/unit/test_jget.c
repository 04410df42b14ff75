// SPDX-License-Identifier: Apache-2.0
/* pkg/json/jget: json_equal answers as cJSON_Compare(a, b, true) does. */
#include <check.h>

#include <cjson/cJSON.h>

#include "pkg/json/jget.h"

static const char *const docs[] = {
    "{\"a\":1,\"b\":\"x\",\"c\":[1,2,{\"d\":null}],\"e\":{\"f\":true,\"g\":[]}}",
    /* the same members in another order, at the top and inside */
    "{\"b\":\"x\",\"a\":1,\"e\":{\"g\":[],\"f\":true},\"c\":[1,2,{\"d\":null}]}",
    /* one value differs, deep down */
    "{\"a\":1,\"b\":\"x\",\"c\":[1,2,{\"d\":0}],\"e\":{\"f\":true,\"g\":[]}}",
    /* an array in another order */
    "{\"a\":1,\"b\":\"x\",\"c\":[2,1,{\"d\":null}],\"e\":{\"f\":true,\"g\":[]}}",
    /* a member more, a member fewer */
    "{\"a\":1,\"b\":\"x\",\"c\":[1,2,{\"d\":null}],\"e\":{\"f\":true,\"g\":[]},\"h\":1}",
    "{\"a\":1,\"b\":\"x\",\"c\":[1,2,{\"d\":null}]}",
    /* a type differs (1 against true), a key's case differs */
    "{\"a\":true,\"b\":\"x\",\"c\":[1,2,{\"d\":null}],\"e\":{\"f\":true,\"g\":[]}}",
    "{\"A\":1,\"b\":\"x\",\"c\":[1,2,{\"d\":null}],\"e\":{\"f\":true,\"g\":[]}}",
    "[1,2,3]",
    "[1,2]",
    "\"x\"",
    "1.0000000000000002",
    "1",
    "{}",
    "[]",
};

START_TEST(json_equal_is_cjson_compare)
{
	size_t n = sizeof(docs) / sizeof(docs[0]);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			cJSON *a = cJSON_Parse(docs[i]), *b = cJSON_Parse(docs[j]);

			ck_assert_ptr_nonnull(a);
			ck_assert_ptr_nonnull(b);
			ck_assert_msg(json_equal(a, b) == (bool)cJSON_Compare(a, b, true),
				      "%s against %s", docs[i], docs[j]);
			cJSON_Delete(a);
			cJSON_Delete(b);
		}
	ck_assert(!json_equal(NULL, NULL) == !cJSON_Compare(NULL, NULL, true));
	{
		cJSON *a = cJSON_Parse(docs[0]), *b = cJSON_Parse(docs[1]), *c = cJSON_Parse(docs[2]);

		ck_assert(json_equal(a, b));
		ck_assert(!json_equal(a, c));
		cJSON_Delete(a);
		cJSON_Delete(b);
		cJSON_Delete(c);
	}
}
END_TEST

Suite *suite_jget(void)
{
	Suite *s = suite_create("jget");
	TCase *tc = tcase_create("equal");

	tcase_add_test(tc, json_equal_is_cjson_compare);
	suite_add_tcase(s, tc);
	return s;
}
