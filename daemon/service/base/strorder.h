/*
 * strorder.h - an intrusive index of C strings in strcmp order, for
 * listing a big table page by page: find where the names after a given
 * one begin, then walk them.
 *
 * The cache's entries embed a struct strorder_node next to their strmap
 * node.  Keys must be distinct and stay valid and unchanged while their
 * node is in the index, which never owns nodes or keys.
 *
 * Changes cost little, reads are paid for when they happen: an added node
 * waits in an unsorted list, a removed one leaves a hole (found by binary
 * search: O(log n)); strorder_prepare sorts the waiting nodes in
 * (O(k log k + k log n) comparisons for k of them, one pass of pointer
 * moves) and closes the holes, after which strorder_seek is a binary
 * search and a walk touches only the nodes it returns.  So a tree of a
 * million names listed a page at a time costs a page's worth per page, not
 * a sort of the whole table.  Holes are also closed as they pile up, so an
 * index nobody reads stays within a fixed share of its size.
 *
 * Not thread-safe: one thread (the loop) uses an index.
 */
#ifndef ANIMD_STRORDER_H
#define ANIMD_STRORDER_H

#include <stdbool.h>
#include <stddef.h>

struct strorder_node {
	const char *key;
	size_t added_at;                /* its index in the waiting list, while there */
	unsigned char where;            /* none, waiting or sorted (strorder.c) */
};

struct strorder {
	struct strorder_node **sorted;  /* by key; NULL: a hole left by a removal */
	size_t sorted_len, sorted_cap;
	size_t holes;
	struct strorder_node **added;   /* waiting to be sorted in, in no order */
	size_t added_len, added_cap;
	bool lost;                      /* a node could not be kept for lack of memory */
};

/* An empty index (nothing allocated yet). */
void strorder_init(struct strorder *o);
/* Frees the arrays (not the nodes); the index is empty again. */
void strorder_fini(struct strorder *o);

/* Adds n under key.  Never fails: if the waiting list cannot grow, the
 * index is marked lost (strorder_prepare then says so, and the owner
 * rebuilds it). */
void strorder_add(struct strorder *o, struct strorder_node *n, const char *key);
/* Takes n out; n must be in the index, or have been lost by it. */
void strorder_remove(struct strorder *o, struct strorder_node *n);

/* Make the index readable: sort waiting nodes in, close the holes.  0, or
 * -ENOMEM (the index is lost: strorder_fini, strorder_init and every node
 * added again rebuild it).  Valid until the next add or remove. */
int strorder_prepare(struct strorder *o);
/* Of a prepared index: how many nodes, the i-th in key order, and the
 * index of the first whose key sorts after `after` (NULL: 0). */
size_t strorder_count(const struct strorder *o);
struct strorder_node *strorder_at(const struct strorder *o, size_t i);
size_t strorder_seek(const struct strorder *o, const char *after);

#endif
