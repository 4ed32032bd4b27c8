/*
 * res.c - results handed to the caller.  Each result is one allocation
 * holding a small header and the public struct, plus a chain of blocks for
 * the strings and arrays inside it, so that the caller frees everything
 * with one animc_free() and nothing can be freed twice or forgotten.
 */
#include "client/lib/internal.h"

#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RES_MAGIC UINT64_C(0x414e494d43524553)      /* "ANIMCRES" */
/* Blocks start small (an event's few strings) and double, so a large
 * result (an asset's joints) takes few allocations. */
#define RES_BLOCK_MIN 512u
#define RES_BLOCK_MAX (64u * 1024u)
#define RES_ALIGN 16u

struct res_block {
	struct res_block *next;
	size_t used;
	size_t cap;
	alignas(RES_ALIGN) unsigned char data[];
};

struct res_head {
	uint64_t magic;
	struct res_block *blocks;
	alignas(RES_ALIGN) unsigned char payload[];
};

static struct res_head *res_head(const void *res)
{
	return (struct res_head *)(void *)((char *)(uintptr_t)res - offsetof(struct res_head, payload));
}

void *ac_res_new(size_t size)
{
	struct res_head *h;

	if (size > SIZE_MAX - sizeof *h)
		return NULL;
	h = calloc(1, sizeof *h + size);
	if (h == NULL)
		return NULL;
	h->magic = RES_MAGIC;
	return h->payload;
}

void *ac_res_alloc(void *res, size_t size)
{
	struct res_head *h = res_head(res);
	struct res_block *b = h->blocks;
	size_t need = (size + RES_ALIGN - 1) & ~(size_t)(RES_ALIGN - 1);
	void *p;

	if (size == 0)
		need = RES_ALIGN;
	if (need < size)
		return NULL;
	if (b == NULL || b->cap - b->used < need) {
		size_t cap = b == NULL ? RES_BLOCK_MIN : b->cap >= RES_BLOCK_MAX ? RES_BLOCK_MAX
										  : b->cap * 2;

		if (cap < need)
			cap = need;

		if (cap > SIZE_MAX - sizeof *b)
			return NULL;
		b = malloc(sizeof *b + cap);
		if (b == NULL)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = h->blocks;
		h->blocks = b;
	}
	p = b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

const char *ac_res_str(void *res, const char *s, size_t len)
{
	char *p = len == SIZE_MAX ? NULL : ac_res_alloc(res, len + 1);

	if (p == NULL)
		return NULL;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int ac_res_is(const void *p)
{
	return p != NULL && res_head(p)->magic == RES_MAGIC;
}

void ac_res_free(void *res)
{
	struct res_head *h;
	struct res_block *b, *next;

	if (res == NULL)
		return;
	h = res_head(res);
	for (b = h->blocks; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	h->magic = 0;
	free(h);
}

void animc_free(void *result)
{
	/* Only what ac_res_new made: a stray pointer with another header is
	 * left alone rather than passed to free(). */
	if (ac_res_is(result))
		ac_res_free(result);
}
