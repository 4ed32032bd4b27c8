/*
 * offline_heap.c - the heap of a short-lived offline command, grown once
 * and in huge pages (offline.h).
 */
#include "daemon/offline/offline.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define OFFLINE_HEAP_BYTES ((size_t)32 * 1024 * 1024)
#define OFFLINE_HUGE ((uintptr_t)2 * 1024 * 1024)

/* The stretch of heap below the first huge page, kept for the process's
 * life (offline_heap_prepare). */
static void *offline_heap_pad;

bool offline_heap_prepare(void)
{
	uintptr_t lo, hi, top, start;
	void *p;

	/* The heap grows by OFFLINE_HEAP_BYTES at once, is never given back,
	 * and allocations up to that size come from it rather than from
	 * mappings of their own (glibc maps each allocation of 128 KiB or
	 * more apart, in 4 KiB pages).  mallopt returns 0 where it is not
	 * obeyed. */
	if (mallopt(M_TOP_PAD, (int)OFFLINE_HEAP_BYTES) == 0 ||
	    mallopt(M_TRIM_THRESHOLD, (int)(2 * OFFLINE_HEAP_BYTES)) == 0 ||
	    mallopt(M_MMAP_THRESHOLD, (int)OFFLINE_HEAP_BYTES) == 0)
		return false;
	/* An allocation the heap cannot hold makes it grow by it and the
	 * pad; where the heap cannot grow (glibc then maps), sbrk does not
	 * move and nothing more is done. */
	lo = (uintptr_t)sbrk(0);
	p = malloc(OFFLINE_HEAP_BYTES / 2);
	hi = (uintptr_t)sbrk(0);
	if (p == NULL || hi <= lo) {
		free(p);
		return false;
	}
	/* Freed, p joins the top of the heap, where the loads' memory will
	 * come from: it starts at p's header. */
	top = (uintptr_t)p - 2 * sizeof(size_t);
	free(p);
	start = (top + OFFLINE_HUGE - 1) & ~(OFFLINE_HUGE - 1);
	if (start - top < 64)
		start += OFFLINE_HUGE;
	hi &= ~(OFFLINE_HUGE - 1);
	if (hi <= start)
		return false;
	/* The advice before any page of it is touched: a 2 MiB stretch in
	 * which a small page is already mapped stays in small pages. */
	(void)madvise((void *)start, hi - start, MADV_HUGEPAGE);
	/* Up to that boundary pages can only be small ones: the stretch is
	 * taken once, for the process's life, and never touched but for
	 * malloc's header at its start, so the loads start on the boundary. */
	offline_heap_pad = malloc(start - top - 4 * sizeof(size_t));
	return offline_heap_pad != NULL;
}
