// SPDX-License-Identifier: Apache-2.0
/*
 * The streaming JSON scanner (jscan.h). One file past 500 lines on purpose: a
 * tokenizer and its refill are one state machine, read best in one piece.
 */
#include "pkg/json/jscan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int jscan_init(struct rq_jscan *s, struct rq_jsrc src, uint64_t max)
{
	/* +1: the read that says the end comes without a second refill */
	uint64_t want = src.size && src.size < RQ_JSCAN_BUF ? src.size + 1 : RQ_JSCAN_BUF;

	*s = (struct rq_jscan){.src = src, .max = max};
	s->size = want > RQ_JSCAN_BUF ? RQ_JSCAN_BUF : (size_t)want;
	if (s->size >= 64 * 1024) {
		void *p = mmap(NULL, s->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		s->buf = p == MAP_FAILED ? NULL : p;
		s->mapped = s->buf != NULL;
	} else {
		s->buf = malloc(s->size);
	}
	return s->buf ? 0 : -ENOMEM;
}

void jscan_fini(struct rq_jscan *s)
{
	if (s->mapped)
		munmap(s->buf, s->size);
	else
		free(s->buf);
	s->buf = NULL;
}

ssize_t jfd_read(void *ctx, char *buf, size_t n)
{
	ssize_t r = read(*(int *)ctx, buf, n);

	return r < 0 ? -errno : r;
}

ssize_t jmem_read(void *ctx, char *buf, size_t n)
{
	struct rq_jmem *m = ctx;
	size_t k = m->len - m->off;

	if (k > n)
		k = n;
	if (m->step && k > m->step)
		k = m->step;
	if (!k)
		return 0;
	memcpy(buf, m->p + m->off, k);
	m->off += k;
	return (ssize_t)k;
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
static bool refill(struct rq_jscan *s);

static inline bool fill(struct rq_jscan *s)
{
	return s->pos < s->end || refill(s);
}

static bool refill(struct rq_jscan *s)
{
	size_t want = s->size;
	ssize_t n;

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

__attribute__((noinline)) static void cap_append(struct rq_jscan *s, const char *p, size_t n)
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
static inline void adv(struct rq_jscan *s, size_t n)
{
	if (__builtin_expect(s->cap != NULL, 0))
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
		const char *p = s->buf + s->pos, *e = s->buf + s->end;

		/* cJSON's whitespace: every byte up to the space */
		while (p < e && (unsigned char)*p <= 32)
			p++;
		adv(s, (size_t)(p - (s->buf + s->pos)));
		if (p == e)
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

/* Append a run of plain bytes (no quote, no backslash) to @o. */
static void put_run(struct sout *o, const char *p, size_t n)
{
	const char *nul;
	size_t room;

	if (!o || o->nul || !n)
		return;
	/* a C string ends at a NUL, as cJSON's does */
	nul = memchr(p, '\0', n);
	if (nul) {
		n = (size_t)(nul - p);
		o->nul = true;
	}
	room = o->size - 1 - o->len;
	if (n > room) {
		n = room;
		o->cut = true;
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

/*
 * A string's body after its opening quote, into @o (NULL: skipped, the bulk
 * of a checkpoint). Runs up to the next quote or backslash go in one step.
 */
static int string_body(struct rq_jscan *s, struct sout *o)
{
	for (;;) {
		const char *b, *q, *bs, *stop;
		size_t avail, i;

		if (!fill(s))
			return fail(s);
		b = s->buf + s->pos;
		avail = s->end - s->pos;
		/* keys and IDs are short: a plain loop beats two memchr calls on them */
		for (i = 0; i < avail && i < 24 && b[i] != '"' && b[i] != '\\'; i++)
			;
		if (i < avail && i < 24) {
			q = b[i] == '"' ? b + i : NULL;
			bs = q ? NULL : b + i;
		} else {
			q = memchr(b, '"', avail);
			bs = memchr(b, '\\', q ? (size_t)(q - b) : avail);
		}
		stop = bs ? bs : q;
		if (!stop) {
			put_run(o, b, avail);
			adv(s, avail);
			continue;
		}
		put_run(o, b, (size_t)(stop - b));
		adv(s, (size_t)(stop - b) + 1);
		if (!bs)
			break;
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

	while (fill(s)) {
		const char *p = s->buf + s->pos, *e = s->buf + s->end;

		while (p < e && digit(*p))
			p++;
		n += (size_t)(p - (s->buf + s->pos));
		adv(s, (size_t)(p - (s->buf + s->pos)));
		if (p < e)
			break;
	}
	return n;
}

/*
 * A number as cJSON reads one: a '-' or a digit, then strtod's decimal
 * syntax ("053", "1.", "-.5" pass, as in a catalog catalog_parse accepts); at most
 * 63 characters, as cJSON reads no more. An exponent without digits is an
 * error here, where cJSON would stop before it and fail on the next token.
 */
static int number(struct rq_jscan *s)
{
	size_t n = 0, d;
	int c = peekc(s);

	/* cJSON takes a value for a number only when it starts so */
	if (c != '-' && !digit(c))
		return fail(s);
	if (c == '-') {
		adv(s, 1);
		n++;
	}
	d = digits(s);
	if (peekc(s) == '.') {
		adv(s, 1);
		n++;
		d += digits(s);
	}
	if (!d)
		return fail(s);
	n += d;
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

/* The next byte after whitespace, not consumed; -1 at the end. jscan_peek's inline twin. */
static inline int tok(struct rq_jscan *s)
{
	for (;;) {
		const char *p = s->buf + s->pos, *e = s->buf + s->end;

		while (p < e && (unsigned char)*p <= 32)
			p++;
		if (p < e) {
			adv(s, (size_t)(p - (s->buf + s->pos)));
			return (unsigned char)*p;
		}
		adv(s, (size_t)(e - (s->buf + s->pos)));
		if (!fill(s))
			return -1;
	}
}

enum { ST_VALUE, ST_VALUE_OR_CLOSE, ST_KEY, ST_KEY_OR_CLOSE, ST_COLON, ST_AFTER };

/*
 * Skip values in one loop (no call per token): the bulk of a checkpoint is
 * other pods' entries. @depth containers are open (their kinds in @obj, a
 * bit per level: 1 object), and @st is what comes next. Returns when the
 * value that began at depth 0 is complete.
 */
static int skip_loop(struct rq_jscan *s, int st, int depth, uint64_t *obj)
{
	for (;;) {
		int c, r;

		if (st == ST_AFTER && depth == 0)
			return s->err;
		c = tok(s);
		if (c < 0)
			return fail(s);
		switch (st) {
		case ST_VALUE_OR_CLOSE:
		case ST_VALUE:
			if (c == ']' && st == ST_VALUE_OR_CLOSE)
				goto close;
			if (c == '{' || c == '[') {
				adv(s, 1);
				if (s->depth + depth + 1 > RQ_JSCAN_DEPTH)
					return fail(s);
				if (c == '{')
					obj[depth / 64] |= 1ULL << (depth % 64);
				else
					obj[depth / 64] &= ~(1ULL << (depth % 64));
				depth++;
				st = c == '{' ? ST_KEY_OR_CLOSE : ST_VALUE_OR_CLOSE;
				continue;
			}
			if (c == '"') {
				adv(s, 1);
				r = string_body(s, NULL);
			} else if (c == 't') {
				r = literal(s, "true");
			} else if (c == 'f') {
				r = literal(s, "false");
			} else if (c == 'n') {
				r = literal(s, "null");
			} else {
				r = number(s);
			}
			if (r < 0)
				return r;
			st = ST_AFTER;
			continue;
		case ST_KEY_OR_CLOSE:
		case ST_KEY:
			if (c == '}' && st == ST_KEY_OR_CLOSE)
				goto close;
			if (c != '"')
				return fail(s);
			adv(s, 1);
			if ((r = string_body(s, NULL)) < 0)
				return r;
			st = ST_COLON;
			continue;
		case ST_COLON:
			if (c != ':')
				return fail(s);
			adv(s, 1);
			st = ST_VALUE;
			continue;
		default: /* ST_AFTER */
			if (c == ',') {
				adv(s, 1);
				st = (obj[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1 ? ST_KEY
										       : ST_VALUE;
				continue;
			}
			if (c != ((obj[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1 ? '}' : ']'))
				return fail(s);
			goto close;
		}
	close:
		adv(s, 1);
		depth--;
		st = ST_AFTER;
	}
}

int jscan_skip(struct rq_jscan *s)
{
	uint64_t obj[RQ_JSCAN_DEPTH / 64 + 1];

	return skip_loop(s, ST_VALUE, 0, obj);
}

int jscan_skip_rest(struct rq_jscan *s)
{
	uint64_t obj[RQ_JSCAN_DEPTH / 64 + 1] = {1};
	int r = skip_loop(s, ST_AFTER, 1, obj);

	if (r == 0)
		s->depth--;
	return r;
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
