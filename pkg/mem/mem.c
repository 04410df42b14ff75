// SPDX-License-Identifier: Apache-2.0
#include "pkg/mem/mem.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
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
