/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Prometheus text format (exposition format 0.0.4), written to a FILE *
 * the caller gives: a label value's escapes, a family's # HELP / # TYPE, and
 * the in-memory render every metrics file of the agent is made with
 * (open_memstream .. fclose). Nothing here prints or exits.
 */
#ifndef RQ_PROMTEXT_H
#define RQ_PROMTEXT_H

#include <stdio.h>

/*
 * @v as a label value into @out (@len bytes, NUL-terminated): backslash,
 * double quote and newline become \\, \" and \n (the text format's rule);
 * NULL is the empty value. What does not fit is cut off, never half an
 * escape. Returns @out, for use inside a printf.
 */
const char *prom_label_esc(const char *v, char *out, size_t len);

/* "# HELP @name @help" and "# TYPE @name @type" (gauge, counter) */
void prom_family(FILE *f, const char *name, const char *type, const char *help);
/* One line (or part of one) of a family's samples; a failed write shows at prom_end. */
void prom_put(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A text rendered in memory: prom_begin opens the stream (NULL when out of
 * memory); prom_end closes it and returns the text, malloc'd, or NULL when a
 * write or the close failed (the text is freed then).
 */
struct prom_text {
	char *s;
	size_t len;
	FILE *f;
};

FILE *prom_begin(struct prom_text *t);
char *prom_end(struct prom_text *t);

#endif
