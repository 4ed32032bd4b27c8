#include "daemon/service/base/strorder.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	STRORDER_NONE,          /* in neither array (never added, or lost) */
	STRORDER_WAITING,       /* in `added` at added_at */
	STRORDER_SORTED,        /* in `sorted` (its place is found by key) */
};

/* Holes are closed once they pass a sixteenth of the sorted array (and a
 * few thousand): each binary-search probe then skips at most that many,
 * and closing them, a pass of pointer moves, is paid once per that many
 * removals. */
#define STRORDER_HOLES_MIN 4096

void strorder_init(struct strorder *o)
{
	memset(o, 0, sizeof *o);
}

void strorder_fini(struct strorder *o)
{
	free(o->sorted);
	free(o->added);
	strorder_init(o);
}

void strorder_add(struct strorder *o, struct strorder_node *n, const char *key)
{
	n->key = key;
	n->where = STRORDER_NONE;
	if (o->added_len == o->added_cap) {
		size_t cap = o->added_cap != 0 ? 2 * o->added_cap : 64;
		struct strorder_node **a = cap <= SIZE_MAX / sizeof *a
						   ? realloc(o->added, cap * sizeof *a)
						   : NULL;

		if (a == NULL) {
			o->lost = true;
			return;
		}
		o->added = a;
		o->added_cap = cap;
	}
	n->where = STRORDER_WAITING;
	n->added_at = o->added_len;
	o->added[o->added_len++] = n;
}

/* The first slot in [i, hi) that is not a hole, or hi. */
static size_t strorder_live(const struct strorder *o, size_t i, size_t hi)
{
	while (i < hi && o->sorted[i] == NULL)
		i++;
	return i;
}

/* The first node of `sorted` (holes skipped) whose key is >= key, or with
 * `after` > key; sorted_len when none.  A binary search on "the first node
 * at or after this slot qualifies", which holes do not break. */
static size_t strorder_bound(const struct strorder *o, const char *key, bool after)
{
	size_t lo = 0, hi = o->sorted_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t j = strorder_live(o, mid, hi);
		int c;

		if (j == hi) {
			hi = mid;       /* only holes up to hi, which qualifies */
			continue;
		}
		c = strcmp(o->sorted[j]->key, key);
		if (c < 0 || (after && c == 0))
			lo = j + 1;
		else
			hi = mid;
	}
	return strorder_live(o, lo, o->sorted_len);
}

/* Close the holes: one pass of pointer moves, no key is read. */
static void strorder_compact(struct strorder *o)
{
	size_t k = 0;

	for (size_t i = 0; i < o->sorted_len; i++)
		if (o->sorted[i] != NULL)
			o->sorted[k++] = o->sorted[i];
	o->sorted_len = k;
	o->holes = 0;
}

void strorder_remove(struct strorder *o, struct strorder_node *n)
{
	if (n->where == STRORDER_WAITING) {
		struct strorder_node *last = o->added[--o->added_len];

		o->added[n->added_at] = last;
		last->added_at = n->added_at;
	} else if (n->where == STRORDER_SORTED) {
		size_t i = strorder_bound(o, n->key, false);

		/* Keys are distinct: the bound is n itself. */
		if (i < o->sorted_len && o->sorted[i] == n) {
			o->sorted[i] = NULL;
			if (++o->holes > STRORDER_HOLES_MIN && o->holes > o->sorted_len / 16)
				strorder_compact(o);
		} else {
			o->lost = true; /* a key changed under us: rebuild */
		}
	}
	n->where = STRORDER_NONE;
}

static int strorder_cmp(const void *a, const void *b)
{
	const struct strorder_node *x = *(const struct strorder_node *const *)a;
	const struct strorder_node *y = *(const struct strorder_node *const *)b;

	return strcmp(x->key, y->key);
}

int strorder_prepare(struct strorder *o)
{
	size_t len, hi, w;

	if (o->lost)
		return -ENOMEM;
	if (o->holes > 0)
		strorder_compact(o);
	if (o->added_len == 0)
		return 0;
	len = o->sorted_len + o->added_len;
	if (len > o->sorted_cap) {
		size_t cap = len + len / 2;
		struct strorder_node **a = cap <= SIZE_MAX / sizeof *a
						   ? realloc(o->sorted, cap * sizeof *a)
						   : NULL;

		if (a == NULL) {
			o->lost = true;
			return -ENOMEM;
		}
		o->sorted = a;
		o->sorted_cap = cap;
	}
	qsort(o->added, o->added_len, sizeof *o->added, strorder_cmp);
	/* In place from the end: each waiting node's place by binary search
	 * among the sorted nodes not yet moved, the nodes after it moved up
	 * in one block without reading them. */
	hi = o->sorted_len;
	w = len;
	for (size_t a = o->added_len; a-- > 0;) {
		struct strorder_node *n = o->added[a];
		size_t lo = 0, top = hi;

		while (lo < top) {
			size_t mid = lo + (top - lo) / 2;

			if (strcmp(o->sorted[mid]->key, n->key) < 0)
				lo = mid + 1;
			else
				top = mid;
		}
		if (hi > lo)
			memmove(o->sorted + w - (hi - lo), o->sorted + lo, (hi - lo) * sizeof *o->sorted);
		w -= hi - lo;
		hi = lo;
		n->where = STRORDER_SORTED;
		o->sorted[--w] = n;
	}
	o->sorted_len = len;
	o->added_len = 0;
	return 0;
}

size_t strorder_count(const struct strorder *o)
{
	return o->sorted_len;
}

struct strorder_node *strorder_at(const struct strorder *o, size_t i)
{
	return o->sorted[i];
}

size_t strorder_seek(const struct strorder *o, const char *after)
{
	return after != NULL ? strorder_bound(o, after, true) : 0;
}
