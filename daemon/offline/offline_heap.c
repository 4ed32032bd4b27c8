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
	size_t want = OFFLINE_HEAP_BYTES - 64 * 1024;
	uintptr_t lo, hi, top, start, end;
	void *p;

	/* Allocations up to OFFLINE_HEAP_BYTES come from the heap rather than
	 * from mappings of their own (glibc maps each allocation of 128 KiB
	 * or more apart, in 4 KiB pages), and the heap is never given back.
	 * mallopt returns 0 where it is not obeyed. */
	if (mallopt(M_MMAP_THRESHOLD, (int)OFFLINE_HEAP_BYTES) == 0 ||
	    mallopt(M_TRIM_THRESHOLD, (int)(2 * OFFLINE_HEAP_BYTES)) == 0 ||
	    mallopt(M_TOP_PAD, 0) == 0)
		return false;
	/* An allocation the heap cannot hold makes it grow by just that
	 * (no pad yet): malloc writes the header of what follows it at the
	 * new end, where no huge page is asked for.  Where the heap cannot
	 * grow (glibc then maps), sbrk does not move and nothing more is
	 * done. */
	lo = (uintptr_t)sbrk(0);
	p = malloc(want);
	hi = (uintptr_t)sbrk(0);
	/* Later growth in big steps. */
	(void)mallopt(M_TOP_PAD, (int)OFFLINE_HEAP_BYTES);
	if (p == NULL || hi <= lo) {
		free(p);
		return false;
	}
	/* Freed, p joins the top of the heap, where the loads' memory will
	 * come from: it starts at p's header. */
	top = (uintptr_t)p - 2 * sizeof(size_t);
	end = ((uintptr_t)p + want) & ~(OFFLINE_HUGE - 1);
	free(p);
	start = (top + OFFLINE_HUGE - 1) & ~(OFFLINE_HUGE - 1);
	if (start - top < 64)
		start += OFFLINE_HUGE;
	if (end <= start)
		return false;
	/* The advice before any page of it is touched: a 2 MiB stretch in
	 * which a small page is already mapped stays in small pages. */
	(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
	/* Up to that boundary pages can only be small ones: the stretch is
	 * taken once, for the process's life, and never touched but for
	 * malloc's header at its start, so the loads start on the boundary. */
	offline_heap_pad = malloc(start - top - 4 * sizeof(size_t));
	return offline_heap_pad != NULL;
}
