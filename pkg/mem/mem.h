/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Heap pages in bulk. A plugin run is short and touches each heap page once:
 * on these VMs a first touch costs ~12 us (a fault per 4 KiB page) where
 * MADV_POPULATE_WRITE maps the same pages at ~0.7 us each. A 93 KB PF index
 * parsed with cJSON took ~90 such faults, more than the parse itself. Callers
 * that are about to allocate in proportion to a document they know the size
 * of ask for the pages up front; small ones are left to the faults, so an
 * ordinary ADD's peak RSS does not grow.
 */
#ifndef RQ_MEM_H
#define RQ_MEM_H

#include <stddef.h>

/* Below this callers leave pages to faults: a handful of faults costs less than RSS kept. */
#define RQ_MEM_PREFAULT_MIN (64 * 1024)

/*
 * Keep freed heap for reuse rather than giving it back at every free (glibc:
 * trim and mmap thresholds raised to @keep bytes); call once at startup.
 */
void mem_init(size_t keep);

/*
 * Make about @n bytes of the heap's next growth resident in one call; best
 * effort, and nothing before mem_init (a freed block would go back at once).
 */
void mem_prefault(size_t n);

/* Make @buf[0..@n) resident before a read(2) fills it; best effort. */
void mem_populate(void *buf, size_t n);

/*
 * A bump arena for a short-lived command's many small allocations (cJSON's:
 * a node, a key and a value per member, and a temporary per number, ~1000 for a
 * steady ADD, where glibc's malloc and free were ~4% of the run). mem_arena()
 * takes @n bytes from the heap once (its pages fault in as blocks are handed
 * out); later calls return what it has.
 * mem_arena_alloc() hands out 16-byte aligned blocks from it and falls back to
 * malloc() when it is full; mem_arena_free() gives back the latest block only
 * (an allocate-use-free temporary), ignores the arena's others (they go at
 * exit) and free()s the fallback's. Single-threaded callers only: for the CNI
 * commands, never the agent.
 */
int mem_arena(size_t n);
void *mem_arena_alloc(size_t n);
void mem_arena_free(void *p);
/*
 * A scope over the arena: mem_arena_mark() is where it stands now, and
 * mem_arena_release(@mark) makes every block handed out since free again at
 * once. For a scope that parses a document, reads it and deletes the whole
 * tree (every block it took is freed by then; under ASan the released span is
 * poisoned, so a block kept past the scope fails at its next use). Without an
 * arena (the agent) both do nothing.
 */
size_t mem_arena_mark(void);
void mem_arena_release(size_t mark);

#endif
