// SPDX-License-Identifier: Apache-2.0
#include "pkg/cni/error.h"

#include <errno.h>
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

static void list_put(struct rq_errlist *l, int code, const char *msg)
{
	if (l->n == 0 && l->dropped == 0)
		l->code = code;
	if (l->n < RQ_ERRLIST_MAX)
		(void)snprintf(l->msg[l->n++], sizeof(l->msg[0]), "%s", msg);
	else
		l->dropped++;
}

int rq_err_keep(struct rq_errlist *l, struct rq_error *e, int r)
{
	if (!l || r >= 0 || r == -ENOMEM || !rq_err_isset(e))
		return r;
	list_put(l, e->code, e->msg);
	rq_err_clear(e);
	return 0;
}

void rq_errlist_add(struct rq_errlist *l, int code, const char *fmt, ...)
{
	char msg[RQ_ERR_MSG_MAX];
	va_list ap;

	if (!l)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	list_put(l, code, msg);
}

size_t rq_errlist_count(const struct rq_errlist *l)
{
	return l ? l->n + l->dropped : 0;
}

int rq_errlist_since(const struct rq_errlist *l, size_t mark, struct rq_error *e)
{
	if (rq_errlist_count(l) <= mark)
		return 0;
	/* the code is the list's first: the one of this parse's first when @mark is 0 */
	return rq_err(e, l->code ? l->code : RQ_ERR_CONFIG, -EINVAL, "%s",
		      mark < l->n ? l->msg[mark] : "too many errors to keep");
}
