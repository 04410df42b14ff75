// SPDX-License-Identifier: Apache-2.0
#include "pkg/kubelet/jscan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void jscan_init(struct rq_jscan *s, struct rq_jsrc src, uint64_t max)
{
	s->src = src;
	s->max = max;
	s->total = 0;
	s->pos = s->end = 0;
	s->err = 0;
	s->eof = false;
	s->depth = 0;
	s->cap = NULL;
}

void jbuf_fini(struct rq_jbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->size = 0;
}

static int fail(struct rq_jscan *s)
{
	if (!s->err)
		s->err = -EBADMSG;
	return s->err;
}

/* At least one unread byte in the buffer; false at the end or on error. */
static bool fill(struct rq_jscan *s)
{
	size_t want = sizeof(s->buf);
	ssize_t n;

	if (s->pos < s->end)
		return true;
	if (s->eof || s->err)
		return false;
	/* one byte past the bound is enough to know the document is over it */
	if (s->total >= s->max)
		want = 1;
	else if (s->max - s->total < want)
		want = (size_t)(s->max - s->total);
	do
		n = s->src.read(s->src.ctx, s->buf, want);
	while (n == -EINTR);
	if (n < 0) {
		s->err = (int)n;
		return false;
	}
	if ((size_t)n > want) {
		s->err = -EIO;
		return false;
	}
	if (n == 0) {
		s->eof = true;
		return false;
	}
	if (s->total >= s->max) {
		s->err = -EFBIG;
		return false;
	}
	s->total += (uint64_t)n;
	s->pos = 0;
	s->end = (size_t)n;
	return true;
}

static void cap_append(struct rq_jscan *s, const char *p, size_t n)
{
	struct rq_jbuf *b = s->cap;

	if (b->len + n + 1 > b->max) {
		s->err = -EFBIG;
		return;
	}
	if (b->len + n + 1 > b->size) {
		size_t size = b->size ? b->size : 256;
		char *np;

		while (size < b->len + n + 1)
			size *= 2;
		np = realloc(b->p, size);
		if (!np) {
			s->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->size = size;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Consume @n buffered bytes (into the capture, if one is running). */
static void adv(struct rq_jscan *s, size_t n)
{
	if (s->cap)
		cap_append(s, s->buf + s->pos, n);
	s->pos += n;
}

static int peekc(struct rq_jscan *s)
{
	return fill(s) ? (unsigned char)s->buf[s->pos] : -1;
}

static int getc_(struct rq_jscan *s)
{
	int c = peekc(s);

	if (c >= 0)
		adv(s, 1);
	return c;
}

int jscan_peek(struct rq_jscan *s)
{
	for (;;) {
		if (!fill(s))
			return -1;
		/* cJSON's whitespace: every byte up to the space */
		while (s->pos < s->end && (unsigned char)s->buf[s->pos] <= 32)
			adv(s, 1);
		if (s->pos == s->end)
			continue;
		return (unsigned char)s->buf[s->pos];
	}
}

struct sout {
	char *p;
	size_t size, len;
	bool cut, nul;
};

static void put(struct sout *o, unsigned int c)
{
	if (!o || o->nul)
		return;
	/* a C string ends at a NUL, as cJSON's does: what follows cannot be compared */
	if (c == 0) {
		o->nul = true;
		return;
	}
	if (o->len + 1 >= o->size) {
		o->cut = true;
		return;
	}
	o->p[o->len++] = (char)c;
}

static int hex4(struct rq_jscan *s, unsigned int *ret)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = getc_(s);

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned int)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (unsigned int)((c | 0x20) - 'a' + 10);
		else
			return fail(s);
	}
	*ret = v;
	return 0;
}

static void put_utf8(struct sout *o, unsigned int cp)
{
	if (cp < 0x80) {
		put(o, cp);
	} else if (cp < 0x800) {
		put(o, 0xC0 | (cp >> 6));
		put(o, 0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		put(o, 0xE0 | (cp >> 12));
		put(o, 0x80 | ((cp >> 6) & 0x3F));
		put(o, 0x80 | (cp & 0x3F));
	} else {
		put(o, 0xF0 | (cp >> 18));
		put(o, 0x80 | ((cp >> 12) & 0x3F));
		put(o, 0x80 | ((cp >> 6) & 0x3F));
		put(o, 0x80 | (cp & 0x3F));
	}
}

/* After a backslash. UTF-16 surrogates must come in pairs, as cJSON demands. */
static int escape(struct rq_jscan *s, struct sout *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	unsigned int cp, lo;
	int c = getc_(s);
	const char *e;

	if (c <= 0)
		return fail(s);
	if (c != 'u') {
		e = strchr(from, c);
		if (!e)
			return fail(s);
		put(o, (unsigned char)to[e - from]);
		return 0;
	}
	if (hex4(s, &cp) < 0)
		return s->err;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail(s);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (getc_(s) != '\\' || getc_(s) != 'u' || hex4(s, &lo) < 0)
			return fail(s);
		if (lo < 0xDC00 || lo > 0xDFFF)
			return fail(s);
		cp = 0x10000 + (((cp & 0x3FF) << 10) | (lo & 0x3FF));
	}
	put_utf8(o, cp);
	return 0;
}

/* A string's body after its opening quote; @o NULL skips it (the bulk of a checkpoint). */
static int string_body(struct rq_jscan *s, struct sout *o)
{
	for (;;) {
		const char *b, *q, *bs;
		size_t avail;
		int c;

		if (!fill(s))
			return fail(s);
		if (o) {
			c = getc_(s);
			if (c == '"')
				break;
			if (c != '\\') {
				put(o, (unsigned int)c);
				continue;
			}
		} else {
			b = s->buf + s->pos;
			avail = s->end - s->pos;
			q = memchr(b, '"', avail);
			bs = memchr(b, '\\', q ? (size_t)(q - b) : avail);
			if (!bs && !q) {
				adv(s, avail);
				continue;
			}
			if (!bs) {
				adv(s, (size_t)(q - b) + 1);
				break;
			}
			adv(s, (size_t)(bs - b) + 1);
		}
		if (escape(s, o) < 0)
			return s->err;
	}
	if (o)
		o->p[o->len] = '\0';
	return s->err;
}

static int literal(struct rq_jscan *s, const char *word)
{
	for (; *word; word++)
		if (getc_(s) != *word)
			return fail(s);
	return 0;
}

static bool digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Consume a run of digits; the count of them. */
static size_t digits(struct rq_jscan *s)
{
	size_t n = 0;

	while (digit(peekc(s))) {
		adv(s, 1);
		n++;
	}
	return n;
}

/* RFC 8259 number; at most 63 characters (cJSON reads no more either). */
static int number(struct rq_jscan *s)
{
	size_t n = 0, d;
	int c;

	if (peekc(s) == '-') {
		adv(s, 1);
		n++;
	}
	c = peekc(s);
	if (c == '0') {
		adv(s, 1);
		n++;
	} else if (digit(c)) {
		n += digits(s);
	} else {
		return fail(s);
	}
	if (peekc(s) == '.') {
		adv(s, 1);
		d = digits(s);
		if (!d)
			return fail(s);
		n += d + 1;
	}
	c = peekc(s);
	if (c == 'e' || c == 'E') {
		adv(s, 1);
		n++;
		c = peekc(s);
		if (c == '+' || c == '-') {
			adv(s, 1);
			n++;
		}
		d = digits(s);
		if (!d)
			return fail(s);
		n += d;
	}
	return n > 63 ? fail(s) : s->err;
}

static int open_container(struct rq_jscan *s, int open, int close)
{
	if (jscan_peek(s) != open)
		return fail(s);
	adv(s, 1);
	if (++s->depth > RQ_JSCAN_DEPTH)
		return fail(s);
	if (jscan_peek(s) == close) {
		adv(s, 1);
		s->depth--;
		return 0;
	}
	return 1;
}

/* After an element or member: 1 when a ',' follows, 0 after the closing byte. */
static int next_item(struct rq_jscan *s, int close)
{
	int c = jscan_peek(s);

	adv(s, c < 0 ? 0 : 1);
	if (c == close) {
		s->depth--;
		return 0;
	}
	return c == ',' ? 1 : fail(s);
}

int jscan_member(struct rq_jscan *s, bool *first, char *key, size_t keysz, bool *ret_cut)
{
	struct sout o = {.p = key, .size = keysz};
	int r;

	if (*first) {
		*first = false;
		r = open_container(s, '{', '}');
	} else {
		r = next_item(s, '}');
	}
	if (r <= 0)
		return r;
	if (jscan_peek(s) != '"')
		return fail(s);
	adv(s, 1);
	r = string_body(s, key && keysz ? &o : NULL);
	if (r < 0)
		return r;
	if (ret_cut)
		*ret_cut = o.cut;
	if (jscan_peek(s) != ':')
		return fail(s);
	adv(s, 1);
	return 1;
}

int jscan_element(struct rq_jscan *s, bool *first)
{
	int r;

	if (*first) {
		*first = false;
		r = open_container(s, '[', ']');
	} else {
		r = next_item(s, ']');
	}
	if (r <= 0)
		return r;
	return jscan_peek(s) < 0 ? fail(s) : 1;
}

int jscan_skip(struct rq_jscan *s)
{
	bool first = true;
	int r;

	switch (jscan_peek(s)) {
	case '{':
		while ((r = jscan_member(s, &first, NULL, 0, NULL)) == 1)
			if ((r = jscan_skip(s)) < 0)
				return r;
		return r;
	case '[':
		while ((r = jscan_element(s, &first)) == 1)
			if ((r = jscan_skip(s)) < 0)
				return r;
		return r;
	case '"':
		adv(s, 1);
		return string_body(s, NULL);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	default:
		return number(s);
	}
}

int jscan_capture(struct rq_jscan *s, struct rq_jbuf *b)
{
	int r;

	if (jscan_peek(s) < 0)
		return fail(s);
	b->len = 0;
	s->cap = b;
	r = jscan_skip(s);
	s->cap = NULL;
	if (r < 0)
		return r;
	/* every append left room for a NUL, and a value has at least one byte */
	b->p[b->len] = '\0';
	return 0;
}

int jscan_string(struct rq_jscan *s, char *out, size_t outsz, bool *ret_cut)
{
	struct sout o = {.p = out, .size = outsz};
	int r;

	if (jscan_peek(s) != '"')
		return jscan_skip(s) < 0 ? s->err : 0;
	adv(s, 1);
	r = string_body(s, &o);
	if (r < 0)
		return r;
	*ret_cut = o.cut;
	return 1;
}
