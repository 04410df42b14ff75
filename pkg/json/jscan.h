/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A streaming JSON scanner (kubelet's checkpoints, the node catalog): it
 * walks a document through a fixed buffer, validates all of it, and hands over only the
 * values a caller asks for (as raw text, for cJSON). A 250-pod device
 * checkpoint is ~6 MB of which one pod's entries are a few hundred bytes:
 * building the whole tree cost more than the rest of ADD.
 *
 * Accepts what cJSON accepts, or less (fuzz_kubelet.c holds it to that):
 * whitespace is any byte <= 32, bytes after the top-level value are not
 * read, numbers start with '-' or a digit and are then strtod's decimal
 * numbers ("053", "1.", "-.5") of at most 63 characters. Stricter than cJSON: \u escapes need four
 * hex digits, an exponent needs digits, nesting stops at 512, a UTF-8 BOM is refused (kubelet
 * writes none).
 */
#ifndef RQ_JSCAN_H
#define RQ_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The buffer: the document's size (src.size) up to 256 KiB. In a VM a read(2)
 * and a first touch of a page are both dear: a 5.7 MB file took 1.4 ms through
 * 16 KiB reads, 1.0 ms through 64 KiB, 0.82 ms through 256 KiB (no better
 * beyond), and a page faulted in one by one costs ~12 us where one mmap with
 * MAP_POPULATE maps them at ~1 us each. A small file gets a small buffer.
 * The fuzz build makes it tiny so that inputs cross it.
 */
#ifndef RQ_JSCAN_BUF
#define RQ_JSCAN_BUF (256 * 1024)
#endif
#define RQ_JSCAN_DEPTH 512

/* Where the bytes come from: read(2)-like, 0 at the end, negative errno on error. */
struct rq_jsrc {
	ssize_t (*read)(void *ctx, char *buf, size_t n);
	void *ctx;
	uint64_t size; /* the document's size if known (sizes the buffer), else 0 */
};

/* A reader over bytes in memory, at most @step (0: any) bytes per read. */
struct rq_jmem {
	const char *p;
	size_t len, off, step;
};
ssize_t jmem_read(void *ctx, char *buf, size_t n);
/* A reader over a file descriptor: @ctx points at the int fd. */
ssize_t jfd_read(void *ctx, char *buf, size_t n);

static inline struct rq_jsrc jmem_src(struct rq_jmem *m)
{
	return (struct rq_jsrc){.read = jmem_read, .ctx = m, .size = m->len};
}

/* A growable buffer for a captured value, bounded by @max. */
struct rq_jbuf {
	char *p;
	size_t len, size, max;
};

struct rq_jscan {
	struct rq_jsrc src;
	uint64_t total, max; /* bytes read so far; the bound (-EFBIG past it) */
	size_t pos, end;
	int err; /* first error, sticky: -EBADMSG, -EFBIG, -ENOMEM or the reader's */
	bool eof;
	int depth;
	struct rq_jbuf *cap; /* non-NULL while a value is being captured */
	char *buf;
	size_t size; /* of buf */
	bool mapped; /* buf is an mmap (a big buffer), else malloc'ed */
};

/*
 * @max: how many bytes the document may have before it is refused with
 * -EFBIG. -ENOMEM when no buffer; jscan_fini frees it.
 */
int jscan_init(struct rq_jscan *s, struct rq_jsrc src, uint64_t max);
void jscan_fini(struct rq_jscan *s);

/* The first byte of the next value (whitespace skipped), or -1 at the end or on error. */
int jscan_peek(struct rq_jscan *s);

/*
 * Object members: call with *first = true after checking jscan_peek() == '{'.
 * Returns 1 with the decoded key in @key (a key that does not fit, or that
 * holds a NUL, is cut and flagged in *ret_cut), 0 after the closing brace,
 * negative errno. The caller then consumes the member's value.
 */
int jscan_member(struct rq_jscan *s, bool *first, char *key, size_t keysz, bool *ret_cut);
/* Array elements: 1 positioned at an element, 0 after the closing bracket. */
int jscan_element(struct rq_jscan *s, bool *first);

/* Skip (and validate) one value. */
int jscan_skip(struct rq_jscan *s);
/* After a member's value: skip (and validate) the object's other members and its end. */
int jscan_skip_rest(struct rq_jscan *s);
/* One value's raw text into @b (replacing its content), NUL-terminated; -EFBIG past b->max. */
int jscan_capture(struct rq_jscan *s, struct rq_jbuf *b);
/* A string value decoded into @out (cut like a key); -EMEDIUMTYPE when it is not a string. */
int jscan_string(struct rq_jscan *s, char *out, size_t outsz, bool *ret_cut);

void jbuf_fini(struct rq_jbuf *b);

/* How many bytes of the document were consumed: where the next value starts after jscan_peek. */
static inline uint64_t jscan_offset(const struct rq_jscan *s)
{
	return s->total - (s->end - s->pos);
}

#endif
