/*
 * offline_heap.c - the heap of a short-lived offline command, grown once
 * and in huge pages (offline.h).
 */
#include "daemon/offline/offline.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define OFFLINE_HEAP_BYTES ((size_t)32 * 1024 * 1024)
#define OFFLINE_HUGE ((uintptr_t)2 * 1024 * 1024)

void offline_heap_prepare(void)
{
	uintptr_t lo, hi;
	void *p;

	/* The heap grows by OFFLINE_HEAP_BYTES at once, is never given back,
	 * and allocations up to that size come from it rather than from
	 * mappings of their own (glibc maps each allocation of 128 KiB or
	 * more apart, in 4 KiB pages).  mallopt returns 0 where it is not
	 * obeyed. */
	if (mallopt(M_TOP_PAD, (int)OFFLINE_HEAP_BYTES) == 0 ||
	    mallopt(M_TRIM_THRESHOLD, (int)(2 * OFFLINE_HEAP_BYTES)) == 0 ||
	    mallopt(M_MMAP_THRESHOLD, (int)OFFLINE_HEAP_BYTES) == 0)
		return;
	/* An allocation the heap cannot hold makes it grow by it and the
	 * pad; the grown part, in whole huge pages, gets the advice.  Where
	 * the heap cannot grow (glibc then maps), sbrk does not move. */
	lo = (uintptr_t)sbrk(0);
	p = malloc(OFFLINE_HEAP_BYTES / 2);
	hi = (uintptr_t)sbrk(0);
	free(p);
	lo = (lo + OFFLINE_HUGE - 1) & ~(OFFLINE_HUGE - 1);
	hi &= ~(OFFLINE_HUGE - 1);
	if (p != NULL && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
