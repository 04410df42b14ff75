// SPDX-License-Identifier: Apache-2.0
/* The Prometheus text format's writer (promtext.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pkg/promtext/promtext.h"

const char *prom_label_esc(const char *v, char *out, size_t len)
{
	size_t o = 0;

	if (!len)
		return out;
	/* room for an escape (2) and the NUL before each character */
	for (const char *p = v ? v : ""; *p && o + 3 < len; p++) {
		if (*p == '\\' || *p == '"') {
			out[o++] = '\\';
			out[o++] = *p;
		} else if (*p == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return out;
}

void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	(void)fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

FILE *prom_begin(struct prom_text *t)
{
	t->s = NULL;
	t->len = 0;
	t->f = open_memstream(&t->s, &t->len);
	if (!t->f) {
		free(t->s);
		t->s = NULL;
	}
	return t->f;
}

char *prom_end(struct prom_text *t)
{
	bool bad = ferror(t->f) != 0;
	char *s;

	if (fclose(t->f) != 0 || bad) {
		free(t->s);
		t->s = NULL;
	}
	s = t->s;
	t->f = NULL;
	t->s = NULL;
	return s;
}

void prom_put(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vfprintf(f, fmt, ap);
	va_end(ap);
}
