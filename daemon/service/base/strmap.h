/*
 * strmap.h - an intrusive hash table keyed by C strings.
 *
 * The cache's entries and the watcher's directories embed a struct
 * strmap_node and are found by name.  The table never owns the nodes or
 * their keys: a key must stay valid and unchanged while its node is in a
 * table.  Lookups are O(1) on average; the bucket array doubles as the
 * table fills and never shrinks.  Not thread-safe: one thread (the loop)
 * uses a table.
 */
#ifndef ANIMD_STRMAP_H
#define ANIMD_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#define strmap_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct strmap_node {
	struct strmap_node *next;
	const char *key;
	uint64_t hash;
};

struct strmap {
	struct strmap_node **buckets;
	size_t bucket_count;            /* a power of two */
	size_t count;
};

/* 0 or -ENOMEM.  strmap_fini frees the bucket array (not the nodes). */
int strmap_init(struct strmap *m);
void strmap_fini(struct strmap *m);

/* The node whose key equals key, or NULL. */
struct strmap_node *strmap_find(const struct strmap *m, const char *key);

/* Adds n under key (0), or -EEXIST if the key is present.  Never fails for
 * lack of memory: if the table cannot grow, chains get longer. */
int strmap_insert(struct strmap *m, struct strmap_node *n, const char *key);

/* Takes n out of the table; n must be in it. */
void strmap_remove(struct strmap *m, struct strmap_node *n);

/* Iteration in no particular order: strmap_next(m, NULL) is the first node,
 * strmap_next(m, n) the one after n (n must still be in the table, so fetch
 * the next node before removing the current one).  NULL at the end. */
struct strmap_node *strmap_next(const struct strmap *m, const struct strmap_node *n);

#endif
