// SPDX-License-Identifier: Apache-2.0
/* pkg/mem's arena: what the CNI commands hand cJSON (each test runs in its own fork). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pkg/mem/mem.h"

START_TEST(arena_bumps_aligned_and_gives_back_the_latest)
{
	char *a, *b, *c, *d;

	ck_assert_int_eq(mem_arena(1024), 0);
	ck_assert_int_eq(mem_arena(1 << 20), 0); /* once: the first arena stays */
	a = mem_arena_alloc(3);
	b = mem_arena_alloc(40);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq((uintptr_t)a % 16, 0);
	ck_assert_uint_eq((uintptr_t)b % 16, 0);
	ck_assert(b >= a + 3);
	memset(b, 0x5a, 40);
	/* the latest block given back: the next takes its place (cJSON's number temporaries) */
	mem_arena_free(b);
	c = mem_arena_alloc(24);
	ck_assert_ptr_eq(c, b);
	/* any other block of the arena stays where it is until exit */
	mem_arena_free(a);
	d = mem_arena_alloc(8);
	ck_assert(d > c);
	mem_arena_free(NULL);
}
END_TEST

START_TEST(arena_full_falls_back_to_malloc)
{
	char *a, *big, *after;

	ck_assert_int_eq(mem_arena(256), 0);
	a = mem_arena_alloc(200);
	/* does not fit: the heap's, freed to the heap (a bad free would abort under glibc) */
	big = mem_arena_alloc(100);
	ck_assert_ptr_nonnull(big);
	ck_assert(big < a || big >= a + 256);
	memset(big, 1, 100);
	mem_arena_free(big);
	/* larger than the whole arena */
	big = mem_arena_alloc(4096);
	ck_assert_ptr_nonnull(big);
	mem_arena_free(big);
	/* the arena's latest is still a's: giving it back makes room again */
	mem_arena_free(a);
	after = mem_arena_alloc(240);
	ck_assert_ptr_eq(after, a);
}
END_TEST

START_TEST(arena_without_init_is_malloc)
{
	char *p = mem_arena_alloc(64);

	ck_assert_ptr_nonnull(p);
	memset(p, 0, 64);
	mem_arena_free(p);
}
END_TEST

/* A scope that parses and deletes a tree: its blocks serve what comes after it. */
START_TEST(arena_scope_released)
{
	static const char doc[] = "{\"app\": [{\"selector\": 5, \"protocol\": 26, \"priority\": 3}]}";
	char *keep, *after;
	size_t mark, top;
	cJSON *o;

	ck_assert_uint_eq(mem_arena_mark(), 0); /* no arena: nothing to mark */
	mem_arena_release(0);
	ck_assert_int_eq(mem_arena(8 * 1024), 0);
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = mem_arena_alloc, .free_fn = mem_arena_free});
	keep = mem_arena_alloc(32); /* taken before the scope: untouched by its release */
	memset(keep, 0x5a, 32);
	mark = mem_arena_mark();
	ck_assert_uint_ge(mark, 32);
	o = cJSON_Parse(doc);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_gt(mem_arena_mark(), mark);
	cJSON_Delete(o);
	mem_arena_release(mark);
	ck_assert_uint_eq(mem_arena_mark(), mark);
	after = mem_arena_alloc(16);
	ck_assert_ptr_eq(after, keep + mark); /* keep is the arena's first block */
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq((unsigned char)keep[i], 0x5a);
	/* a mark past the arena's top (a stale one) changes nothing */
	top = mem_arena_mark();
	ck_assert_uint_gt(top, mark);
	mem_arena_release(top + 4096);
	ck_assert_uint_eq(mem_arena_mark(), top);
	cJSON_InitHooks(NULL);
}
END_TEST

START_TEST(cjson_on_the_arena)
{
	static const char doc[] = "{\"a\": [1, 2.5, -3e2], \"b\": {\"c\": \"d\"}, \"n\": null}";
	cJSON *o, *dup;
	char *s;

	ck_assert_int_eq(mem_arena(8 * 1024), 0);
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = mem_arena_alloc, .free_fn = mem_arena_free});
	/* more than the arena holds over the loop: it spills to the heap and stays right */
	for (int i = 0; i < 200; i++) {
		o = cJSON_Parse(doc);
		ck_assert_ptr_nonnull(o);
		ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "a"), 1)->valuedouble == 2.5);
		ck_assert(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "a"), 2)->valuedouble == -300);
		dup = cJSON_Duplicate(o, 1);
		ck_assert(cJSON_Compare(o, dup, 1));
		s = cJSON_PrintUnformatted(dup);
		ck_assert_str_eq(s, "{\"a\":[1,2.5,-300],\"b\":{\"c\":\"d\"},\"n\":null}");
		cJSON_free(s);
		cJSON_Delete(dup);
		cJSON_Delete(o);
	}
	cJSON_InitHooks(NULL);
}
END_TEST

Suite *suite_mem(void)
{
	Suite *s = suite_create("mem");
	TCase *tc = tcase_create("arena");

	tcase_add_test(tc, arena_bumps_aligned_and_gives_back_the_latest);
	tcase_add_test(tc, arena_full_falls_back_to_malloc);
	tcase_add_test(tc, arena_without_init_is_malloc);
	tcase_add_test(tc, cjson_on_the_arena);
	tcase_add_test(tc, arena_scope_released);
	suite_add_tcase(s, tc);
	return s;
}
