// SPDX-License-Identifier: Apache-2.0
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/promtext/promtext.h"

START_TEST(label_esc_rules)
{
	char out[64];

	ck_assert_str_eq(prom_label_esc("swp1", out, sizeof(out)), "swp1");
	/* the text format's three escapes; a bare 'n' for a newline was issue 48's bug */
	ck_assert_str_eq(prom_label_esc("a\nb", out, sizeof(out)), "a\\nb");
	ck_assert_str_eq(prom_label_esc("say \"hi\"", out, sizeof(out)), "say \\\"hi\\\"");
	ck_assert_str_eq(prom_label_esc("C:\\x", out, sizeof(out)), "C:\\\\x");
	ck_assert_str_eq(prom_label_esc("\\\"\n", out, sizeof(out)), "\\\\\\\"\\n");
	/* a missing value (a switch that sent no system name) is the empty value */
	ck_assert_str_eq(prom_label_esc(NULL, out, sizeof(out)), "");
	ck_assert_str_eq(prom_label_esc("", out, sizeof(out)), "");
}
END_TEST

START_TEST(label_esc_truncates_whole_escapes)
{
	char out[6];

	/* room for 2 characters of 2 bytes and the NUL: never a lone backslash at the end */
	ck_assert_str_eq(prom_label_esc("\n\n\n\n", out, sizeof(out)), "\\n\\n");
	ck_assert_str_eq(prom_label_esc("abcdefgh", out, sizeof(out)), "abc");
	ck_assert_str_eq(prom_label_esc("ab\"", out, sizeof(out)), "ab\\\"");
}
END_TEST

START_TEST(family_and_render)
{
	struct prom_text t;
	FILE *f = prom_begin(&t);
	char *s;

	ck_assert_ptr_nonnull(f);
	prom_family(f, "rdma_qos_x", "counter", "Help text.");
	(void)fprintf(f, "rdma_qos_x 1\n");
	s = prom_end(&t);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s,
			 "# HELP rdma_qos_x Help text.\n# TYPE rdma_qos_x counter\nrdma_qos_x 1\n");
	free(s);
	/* nothing written: the empty text, not NULL */
	ck_assert_ptr_nonnull(prom_begin(&t));
	s = prom_end(&t);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

Suite *suite_promtext(void)
{
	Suite *s = suite_create("promtext");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, label_esc_rules);
	tcase_add_test(tc, label_esc_truncates_whole_escapes);
	tcase_add_test(tc, family_and_render);
	suite_add_tcase(s, tc);
	return s;
}
