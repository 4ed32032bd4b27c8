/*
 * big_block.h - large blocks of memory mapped on their own, 2 MiB aligned
 * and offered to the kernel for transparent huge pages.  The prefix is
 * big_block_.
 *
 * Why: a load's big buffers (an inflated body, a tree's values) are new
 * memory, and each 4 KiB page of new memory costs a fault the first time it
 * is touched.  On the virtual machines animd runs on, such a fault costs
 * 2-4 us, far more than the parsing of the bytes it holds: a fresh process
 * that loaded a 0.8 MB MSZIP .x file spent more time faulting pages in than
 * reading the file.  Where transparent huge pages are offered ("madvise" or
 * "always" in /sys/kernel/mm/transparent_hugepage/enabled), a 2 MiB page is
 * one fault, and with the kernel's zeroing of it costs 0.2-0.3 us per 4 KiB
 * it holds (measured) instead of 2.3-4.  Where they are not, the block is an
 * ordinary mapping: pages still come one at a time, and only those touched.
 *
 * The price: memory is taken in whole 2 MiB pages once touched, and the
 * kernel zeroes a whole one at its first touch (about 0.2 ms here, what
 * some 80 faults of small pages cost), so a block is for buffers of a few
 * hundred kilobytes or more that will mostly be used.  Under
 * AddressSanitizer blocks are malloc's, of the size asked, so overruns are
 * caught.
 */
#ifndef ANIMD_BIG_BLOCK_H
#define ANIMD_BIG_BLOCK_H

#include <stddef.h>

/* The unit blocks are rounded up to (and aligned on). */
#define BIG_BLOCK_UNIT ((size_t)2 * 1024 * 1024)

/* At least `size` bytes, zeroed (fresh pages); *got says how many the block
 * really has (size rounded up to BIG_BLOCK_UNIT; under AddressSanitizer
 * size), all usable.  NULL when the mapping fails or size is 0. */
void *big_block_alloc(size_t size, size_t *got);

/* Unmap a block of `got` bytes (what big_block_alloc said); NULL is
 * ignored. */
void big_block_free(void *p, size_t got);

#endif
