/*
 * big_block.c - large blocks mapped on their own, in huge pages where the
 * kernel offers them (big_block.h).
 */
#include "daemon/formats/big_block.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Under AddressSanitizer the blocks are malloc's, exactly the size asked,
 * so that the sanitizer sees a read or write past one (it does not watch
 * mappings of our own). */
#if defined(__SANITIZE_ADDRESS__)
#define BIG_BLOCK_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_BLOCK_MALLOC 1
#endif
#endif

void *big_block_alloc(size_t size, size_t *got)
{
	size_t len, span, head;
	uintptr_t start;
	char *p;

	*got = 0;
	if (size == 0 || size > SIZE_MAX - 2 * BIG_BLOCK_UNIT)
		return NULL;
#ifdef BIG_BLOCK_MALLOC
	p = calloc(1, size);
	*got = p != NULL ? size : 0;
	return p;
#endif
	len = (size + BIG_BLOCK_UNIT - 1) & ~(BIG_BLOCK_UNIT - 1);
	/* One unit more than needed, so an aligned start lies inside; the
	 * unaligned head and the tail are given back. */
	span = len + BIG_BLOCK_UNIT;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	start = ((uintptr_t)p + BIG_BLOCK_UNIT - 1) & ~(uintptr_t)(BIG_BLOCK_UNIT - 1);
	head = start - (uintptr_t)p;
	if (head > 0)
		munmap(p, head);
	if (span - head > len)
		munmap((char *)start + len, span - head - len);
	/* Advice only: without huge pages the block works the same. */
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)start, len, MADV_HUGEPAGE);
#endif
	*got = len;
	return (void *)start;
}

void big_block_free(void *p, size_t got)
{
#ifdef BIG_BLOCK_MALLOC
	(void)got;
	free(p);
#else
	if (p != NULL)
		munmap(p, got);
#endif
}
