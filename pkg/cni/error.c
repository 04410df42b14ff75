// SPDX-License-Identifier: Apache-2.0
#include "pkg/cni/error.h"

#include <stdio.h>
#include <string.h>

int rq_err(struct rq_error *e, int code, int r, const char *fmt, ...)
{
	va_list ap;

	if (!e || e->code != 0)
		return r;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return r;
}

int rq_err_details(struct rq_error *e, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!e)
		return 0;
	n = strlen(e->details);
	if (n + 1 >= sizeof(e->details))
		return 0;
	va_start(ap, fmt);
	vsnprintf(e->details + n, sizeof(e->details) - n, fmt, ap);
	va_end(ap);
	return 0;
}

void rq_err_clear(struct rq_error *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = '\0';
	e->details[0] = '\0';
}
