// SPDX-License-Identifier: Apache-2.0
#include "pkg/mem/mem.h"

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL and faults do the work */
#endif

/* mem_init ran: freed heap stays, so prefaulting ahead of allocations pays */
static bool kept;

void mem_init(size_t keep)
{
	kept = true;
#ifdef __GLIBC__
	/* a freed prefaulted block must stay in the heap for the allocations it was for */
	(void)mallopt(M_TRIM_THRESHOLD, (int)keep);
	(void)mallopt(M_MMAP_THRESHOLD, (int)keep);
#else
	(void)keep;
#endif
}

void mem_populate(void *buf, size_t n)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a, e;

	if (!buf || pg == 0 || pg == (uintptr_t)-1)
		return;
	a = ((uintptr_t)buf + pg - 1) & ~(pg - 1);
	e = ((uintptr_t)buf + n) & ~(pg - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

void mem_prefault(size_t n)
{
	void *p;

	if (n == 0 || !kept)
		return;
	/* carved from the top of the heap, populated, and given back to it for reuse */
	p = malloc(n);
	mem_populate(p, n);
	free(p);
}

/*
 * Under ASan the arena's blocks are poisoned until handed out and again when
 * given back (each carries its size in front, for that): a use after
 * cJSON_Delete still fails, and a free() of an arena block is an invalid free.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ARENA_HDR	     16
#define ARENA_POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_HDR	     0
#define ARENA_POISON(p, n)   ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static struct {
	char *base;
	size_t cap, top, last; /* last: where the latest block starts, for its free */
} arena;

int mem_arena(size_t n)
{
	if (arena.base)
		return 0;
	arena.base = malloc(n);
	if (!arena.base)
		return -ENOMEM;
	ARENA_POISON(arena.base, n);
	arena.cap = n;
	arena.top = arena.last = 0;
	return 0;
}

void *mem_arena_alloc(size_t n)
{
	size_t start = (arena.top + 15) & ~(size_t)15, need = n + ARENA_HDR;
	char *p;

	if (!arena.base || need < n || need > arena.cap || start > arena.cap - need)
		return malloc(n);
	arena.last = start;
	arena.top = start + need;
	p = arena.base + start + ARENA_HDR;
#if ARENA_HDR
	ARENA_UNPOISON(arena.base + start, need);
	memcpy(arena.base + start, &n, sizeof(n));
	ARENA_POISON(arena.base + start, ARENA_HDR);
#else
	ARENA_UNPOISON(p, n);
#endif
	return p;
}

void mem_arena_free(void *p)
{
	char *c = p;

	if (!c)
		return;
	if (arena.base && c >= arena.base && c < arena.base + arena.cap) {
#if ARENA_HDR
		size_t n;

		ARENA_UNPOISON(c - ARENA_HDR, sizeof(n));
		memcpy(&n, c - ARENA_HDR, sizeof(n));
		ARENA_POISON(c - ARENA_HDR, ARENA_HDR + n);
#endif
		if (c == arena.base + arena.last + ARENA_HDR)
			arena.top = arena.last;
		return;
	}
	free(p);
}

size_t mem_arena_mark(void)
{
	return arena.base ? arena.top : 0;
}

void mem_arena_release(size_t mark)
{
	if (!arena.base || mark > arena.top)
		return;
	ARENA_POISON(arena.base + mark, arena.top - mark);
	arena.top = arena.last = mark;
}
